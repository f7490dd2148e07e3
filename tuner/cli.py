"""The `tuner` command line. Each subcommand lives beside the code it drives and is imported
only when called, so `tuner --help` stays fast and never imports torch."""
from __future__ import annotations

import importlib
import re
import sys

import click

from tuner import __version__

# name -> "module:attribute" of a click command or group, loaded on first use.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "settings": ("tuner.cli", "settings_cmd"),
}
HELP = {
    "settings": "List every TUNER_* setting, its value and its meaning.",
}


def register(name: str, target: str, help: str) -> None:
    SUBCOMMANDS[name] = tuple(target.split(":"))  # type: ignore[assignment]
    HELP[name] = help


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx, name):
        if name not in SUBCOMMANDS:
            return None
        module, attr = SUBCOMMANDS[name]
        return getattr(importlib.import_module(module), attr)

    def invoke(self, ctx):
        # A path the user named that cannot be written or read (a read-only --out, a missing
        # folder) is a one-line error naming it, exit 1; the commands write nothing half-way.
        try:
            return super().invoke(ctx)
        except OSError as e:
            if e.filename is None or e.strerror is None:
                raise
            # a temporary beside the file being written is named as that file
            name = re.sub(r"\.[A-Za-z0-9_]{6,12}\.tmp$", "", str(e.filename))
            raise click.ClickException(f"{name}: {e.strerror}") from None

    def format_commands(self, ctx, formatter):
        rows = [(name, HELP.get(name, "")) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _print_version(ctx, param, value):
    """tuner's version and what every cache key holds beside it: torch, Triton, CUDA, device
    (imports torch, so only when asked)."""
    if not value or ctx.resilient_parsing:
        return
    click.echo(f"tuner, version {__version__}")
    try:
        from tuner.cache.keys import backend_info
        info = backend_info()
    except Exception as e:  # a broken torch install still gets tuner's own version
        click.echo(f"(torch/Triton/CUDA versions unavailable: {type(e).__name__}: {e})")
    else:
        click.echo(f"torch {info['torch']}, Triton {info['triton']}, CUDA {info['cuda']}, "
                   f"device {info['device']} (part of every cache key)")
    ctx.exit()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", "-V", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="Show the versions (tuner, torch, Triton, CUDA) and exit.")
def main():
    """Kernel autotuning with learned heuristics.

    Tuning results live in a local SQLite cache (TUNER_CACHE_DIR) and, when
    TUNER_REMOTE_CACHE is set, in a Redis cache shared between machines.
    """


@click.command("settings")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@click.option("--markdown", is_flag=True, help="Print the defaults as the README's Markdown table.")
def settings_cmd(as_json, markdown):
    """List every TUNER_* setting, its current value and its meaning."""
    from tuner.settings import SETTINGS, markdown_table, redact, warn_unknown_variables
    warn_unknown_variables()
    if markdown:
        click.echo(markdown_table())
        return
    rows = []
    for s in SETTINGS:
        try:
            value = s.shown()   # secrets as ***, passwords inside URLs redacted
        except ValueError as e:
            raise click.ClickException(redact(str(e)))
        rows.append({"name": s.env, "value": value, "doc": s.doc})
    if as_json:
        import json
        click.echo(json.dumps(rows, indent=2))
        return
    for r in rows:
        click.echo(f"{r['name']:<30} {r['value']:<24} {r['doc']}")


# Subcommands owned by other folders register here; each import is deferred until used.
register("cache", "tuner.cache.cli:cache_group", "Inspect, export, import and clear the tuning cache.")

register("collect", "tuner.datagen.cli:collect_cmd", "Measure a point's choices on generated problems into a dataset.")
register("learn", "tuner.heuristics.cli:learn_cmd", "Learn a heuristic module from datasets (regression trees).")
register("learn-configs", "tuner.learn_configs:learn_configs_cmd",
         "Learn a kernel-config module (one kernel kind) from datasets.")

if __name__ == "__main__":
    sys.exit(main())
