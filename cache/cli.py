"""`tuner cache ...`: inspect, export, import and clear the tuning cache.

Export file format (JSON lines): a header line
    {"format": "tuner-cache", "schema": SCHEMA_VERSION, "count": N, "created": <unix time>}
then N lines, each one stored entry envelope exactly as the cache keeps it (see entry.py).
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import click

FORMAT = "tuner-cache"
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


def _console():
    from rich.console import Console
    return Console(markup=False, highlight=False)  # paths and problems are data, not markup


def _progress(disable: bool):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    console=Console(stderr=True), disable=disable, transient=True)


def _secret() -> str:
    from tuner.settings import settings
    return settings.cache_secret


def _store():
    from .local import LocalStore
    return LocalStore()


def _fail(message: str):
    raise click.ClickException(message)


def _when(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def _sqlite_guard(fn):
    """Turn a broken database file into a clear CLI error instead of a traceback."""
    import functools
    import sqlite3

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except sqlite3.Error as e:
            _fail(f"local cache {_store().path}: {e} (`tuner cache clear` removes a broken file)")
    return wrapper


@click.group("cache")
def cache_group():
    """Inspect, export, import and clear the tuning cache.

    The local cache is one SQLite file in TUNER_CACHE_DIR; the shared one is the Redis at
    TUNER_REMOTE_CACHE, if set. `tuner settings` lists every option.
    """


@cache_group.command("stats")
@json_option
@_sqlite_guard
def stats_cmd(as_json):
    """Entries per namespace and size of the local cache; reachability of the remote one."""
    from .remote import RemoteConfig, RemoteStore, redact
    store = _store()
    per_ns = store.count_by_namespace()
    out = {"local": {"path": str(store.path), "entries": sum(per_ns.values()),
                     "bytes": store.size_bytes(), "namespaces": per_ns},
           "remote": None}
    config = RemoteConfig.from_settings()
    if config is not None:
        remote = {"url": redact(config.url), "prefix": config.prefix, "readonly": config.readonly,
                  "ttl": config.ttl, "reachable": False, "entries": None}
        try:
            remote["entries"] = len(RemoteStore(config).digests())
            remote["reachable"] = True
        except Exception as e:
            remote["error"] = f"{type(e).__name__}: {e}"
        out["remote"] = remote
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    from rich.table import Table
    local = out["local"]
    console = _console()
    console.print(f"local cache {local['path']}: {local['entries']} entries, "
                  f"{local['bytes'] / 1024:.0f} KiB", soft_wrap=True)
    table = Table()
    table.add_column("namespace")
    table.add_column("entries", justify="right")
    for ns, n in per_ns.items():
        table.add_row(ns, str(n))
    if per_ns:
        console.print(table)
    remote = out["remote"]
    if remote is None:
        console.print("remote cache: off (TUNER_REMOTE_CACHE is not set)")
    elif remote["reachable"]:
        console.print(f"remote cache {remote['url']} (prefix {remote['prefix']!r}"
                      f"{', read-only' if remote['readonly'] else ''}): {remote['entries']} entries")
    else:
        console.print(f"remote cache {remote['url']}: unreachable ({remote['error']})")


@cache_group.command("ls")
@click.option("--namespace", "-n", help="Only entries of this namespace.")
@click.option("--limit", type=click.IntRange(min=0), default=0, help="Show at most N (0: all).")
@json_option
@_sqlite_guard
def ls_cmd(namespace, limit, as_json):
    """List the entries of the local cache, oldest first."""
    from .entry import InvalidEntry, decode
    secret, rows = _secret(), []
    for row in _store().rows(namespace):
        try:
            value, problem = decode(row["entry"], secret).value, None
        except InvalidEntry as e:
            value, problem = None, str(e)
        rows.append({"digest": row["digest"], "namespace": row["namespace"],
                     "problem": row["problem"], "created": row["created"], "value": value,
                     "invalid": problem})
        if limit and len(rows) >= limit:
            break
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    from rich.table import Table
    from rich.text import Text
    table = Table()
    for col in ("namespace", "problem", "digest", "created (UTC)", "value"):
        table.add_column(col, overflow="fold")
    for r in rows:
        shown = json.dumps(r["value"]) if r["invalid"] is None else f"invalid: {r['invalid']}"
        shown = shown if len(shown) < 80 else shown[:77] + "..."
        table.add_row(Text(r["namespace"]), Text(r["problem"][:40]), r["digest"][:12],
                      _when(r["created"]), Text(shown, style="red" if r["invalid"] else ""))
    _console().print(table)


@cache_group.command("export")
@click.argument("file", type=click.Path(dir_okay=False, writable=True, path_type=Path))
@click.option("--namespace", "-n", help="Only entries of this namespace.")
@json_option
@_sqlite_guard
def export_cmd(file, namespace, as_json):
    """Write the local cache to FILE (JSON lines), to `tuner cache import` elsewhere.

    Entries that fail validation are left out and reported. FILE appears complete or not at
    all (written to a temporary file, then renamed).
    """
    from .entry import InvalidEntry, decode
    folder = file.resolve().parent
    if not folder.is_dir():
        _fail(f"{folder} is not a folder")
    secret, good, skipped = _secret(), [], []
    rows = list(_store().rows(namespace))
    with _progress(as_json) as progress:
        for row in progress.track(rows, description="checking"):
            try:
                good.append(decode(row["entry"], secret).text)
            except InvalidEntry as e:
                skipped.append({"digest": row["digest"], "reason": str(e)})
    from .keys import SCHEMA_VERSION
    header = {"format": FORMAT, "schema": SCHEMA_VERSION, "count": len(good),
              "created": time.time()}
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{file.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps(header) + "\n")
            for text in good:
                f.write(text + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, file)
    except BaseException:
        os.unlink(tmp)
        raise
    _report({"file": str(file), "exported": len(good), "skipped": skipped}, as_json,
            f"exported {len(good)} entries to {file}")


@cache_group.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@json_option
def import_cmd(file, as_json):
    """Validate every entry of FILE and add the good ones to the cache.

    Entries go to the local cache and, unless it is off or read-only, to the remote one.
    Bad entries are reported and skipped; the exit status is then 1.
    """
    from .entry import InvalidEntry, decode
    from .keys import SCHEMA_VERSION
    from .layered import build_cache
    cache = build_cache()
    if not cache.enabled:
        _fail("the cache is off (TUNER_CACHE=0): nothing to import into")
    try:
        lines = file.read_text(errors="replace").splitlines()
    except OSError as e:
        _fail(f"cannot read {file}: {e}")
    skipped, imported, first = [], 0, 0
    header = _parse_header(lines[0] if lines else "")
    if header is None:  # still import what can be imported; line 1 is then read as an entry
        skipped.append({"line": None, "reason": "no tuner-cache export header on line 1"})
    else:
        first = 1
        if header.get("schema") != SCHEMA_VERSION:
            skipped.append({"line": 1, "reason": f"file has schema {header.get('schema')}, "
                                                 f"this cache reads {SCHEMA_VERSION}"})
    secret = _secret()
    with _progress(as_json) as progress:
        for n in progress.track(range(first, len(lines)), description="importing"):
            if not lines[n].strip():
                continue
            try:
                cache.put_entry(decode(lines[n], secret))
                imported += 1
            except InvalidEntry as e:
                skipped.append({"line": n + 1, "reason": str(e)})
    found = sum(1 for line in lines[first:] if line.strip())
    if header is not None and header.get("count") != found:
        skipped.append({"line": None, "reason": f"header says {header.get('count')} entries, "
                                                f"file has {found} (truncated?)"})
    stats = cache.stats()
    errors = stats["local"]["errors"] + stats["remote"]["errors"]
    written = stats["local"]["puts"]
    cache.close()
    out = {"file": str(file), "imported": written, "valid": imported, "skipped": skipped,
           "remote_puts": stats["remote"]["puts"], "errors": errors}
    _report(out, as_json, f"imported {written} entries from {file}"
                          + (f" ({stats['remote']['puts']} also to the remote cache)"
                             if stats["remote"]["puts"] else ""))
    if skipped or errors or written != imported:
        sys.exit(1)


def _parse_header(line: str) -> dict | None:
    try:
        header = json.loads(line)
    except ValueError:
        return None
    return header if isinstance(header, dict) and header.get("format") == FORMAT else None


def _report(out: dict, as_json: bool, summary: str) -> None:
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    click.echo(summary)
    for s in out["skipped"]:
        where = f"line {s['line']}" if "line" in s and s["line"] else s.get("digest", "file")
        click.echo(f"  skipped {where}: {s['reason']}", err=True)
    if out["skipped"]:
        click.echo(f"{len(out['skipped'])} problem(s)", err=True)
    if out.get("errors"):
        click.echo(f"{out['errors']} store error(s): see the warnings above", err=True)


@cache_group.command("clear")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@click.option("--remote", "with_remote", is_flag=True,
              help="Also delete every key under TUNER_REMOTE_PREFIX in the remote cache.")
@json_option
def clear_cmd(yes, with_remote, as_json):
    """Delete every entry of the local cache (and with --remote, of the shared one)."""
    from .remote import RemoteConfig, RemoteStore, redact
    store = _store()
    config = RemoteConfig.from_settings() if with_remote else None
    if with_remote and config is None:
        _fail("--remote: TUNER_REMOTE_CACHE is not set")
    if config is not None and config.readonly:
        _fail("--remote: the remote cache is read-only here (TUNER_REMOTE_READONLY=1)")
    what = str(store.path) + (f" and {redact(config.url)} (prefix {config.prefix!r})"
                              if config else "")
    if not yes and not click.confirm(f"Delete every cache entry in {what}?"):
        _fail("nothing deleted")
    out = {"local": store.clear(), "remote": None}
    if config is not None:
        try:
            out["remote"] = RemoteStore(config).clear()
        except Exception as e:
            _fail(f"remote cache {redact(config.url)}: {type(e).__name__}: {e} "
                  f"(the local cache was cleared: {out['local']} entries)")
    if as_json:
        click.echo(json.dumps(out))
    else:
        click.echo(f"deleted {out['local']} local entries"
                   + (f" and {out['remote']} remote entries" if config else ""))
