"""`tuner cache ...`: inspect, export, import and clear the tuning cache.

Export file format (JSON lines): a header line
    {"format": "tuner-cache", "schema": SCHEMA_VERSION, "count": N, "created": <unix time>}
then N lines, each one stored entry envelope exactly as the cache keeps it (see entry.py).

What the cache holds may come from anyone who can write the shared Redis or hand over an
export file: namespaces and problems are printed with control characters escaped, and import
reads its file one bounded line at a time (a bad line is reported, never the end of it).
"""
from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import click

from .entry import printable  # standard library only (the cache's warnings use it too)

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
    from .config import settings
    return settings.cache_secret


def _store():
    from .local import LocalStore
    return LocalStore()


def _fail(message: str):
    raise click.ClickException(message)


def _when(t) -> str:
    from .entry import checked_created
    t = checked_created(t)
    if t is None:
        return "?"
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def _created(t):
    from .entry import checked_created
    return checked_created(t)


def _namespace_option(fn):
    def check(ctx, param, value):
        if value is not None and not value.strip():
            raise click.BadParameter("is empty: give a namespace (`tuner cache stats` lists them)"
                                     " or leave the option out for every entry")
        return value
    return click.option("--namespace", "-n", callback=check,
                        help="Only entries of this namespace.")(fn)


def _sqlite_message(path, error) -> str:
    from .local import is_corrupt
    if is_corrupt(error):
        return f"local cache {path}: {error} (`tuner cache clear` removes a broken file)"
    if "locked" in str(error) or "busy" in str(error):
        return f"local cache {path}: {error}: another process holds it; try again when it is done"
    return f"local cache {path}: {error}"


def _sqlite_guard(fn):
    """Turn a broken or locked database file into a clear CLI error instead of a traceback."""
    import functools
    import sqlite3

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except sqlite3.Error as e:
            _fail(_sqlite_message(printable(_store().path), e))
    return wrapper


@click.group("cache")
def cache_group():
    """Inspect, export, import and clear the tuning cache.

    The local cache is one SQLite file in TUNER_CACHE_DIR; the shared one is the Redis at
    TUNER_REMOTE_CACHE, if set. `tuner settings` lists every option.
    """


def _stats_file() -> Path:
    return _store().path.with_name("stats.db")


def _reset_stats(as_json: bool) -> None:
    from . import stats
    path = _stats_file()
    try:
        n = stats.reset(path)
    except Exception as e:
        _fail(f"statistics {printable(path)}: {type(e).__name__}: {e}")
    if as_json:
        click.echo(json.dumps({"reset": True, "namespaces": n, "path": str(path)}, indent=2))
    else:
        click.echo(f"statistics reset ({n} namespaces cleared in {printable(path)})")


def _saved(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


@cache_group.command("stats")
@json_option
@click.option("--reset", is_flag=True, help="Set the hit/miss statistics back to zero (entries stay).")
@_sqlite_guard
def stats_cmd(as_json, reset):
    """Entries per namespace and size of the local cache; hits, misses, rejected entries and
    tuning time saved per namespace, over every process since the last --reset (kept in
    stats.db beside cache.db); reachability of the remote one.

    Exits 1 when the remote cache is configured but cannot be reached."""
    if reset:
        _reset_stats(as_json)
        return
    from . import stats
    from .graphs import NAMESPACE as GRAPH_NAMESPACE
    from .remote import RemoteConfig, RemoteStore, RemoteUnavailable, redact
    store = _store()
    per_ns = store.count_by_namespace()
    try:
        counters, counters_error = stats.read(_stats_file()), None
    except Exception as e:   # statistics are best effort: a broken file is reported, not fatal
        counters, counters_error = {}, f"{type(e).__name__}: {e}"
    out = {"local": {"path": str(store.path), "entries": sum(per_ns.values()),
                     "bytes": store.size_bytes(), "namespaces": per_ns},
           "counters": counters, "remote": None}
    if counters_error:
        out["counters_error"] = counters_error
    config = RemoteConfig.from_settings()
    if config is not None:
        remote = {"url": redact(config.url), "prefix": config.prefix, "readonly": config.readonly,
                  "ttl": config.ttl, "reachable": False, "entries": None}
        try:
            remote_store = RemoteStore(config)
        except ValueError as e:  # a bad URL or prefix: never connected
            remote_store, remote["error"], remote["misconfigured"] = None, redact(str(e)), True
        except RemoteUnavailable as e:   # no redis package here
            remote_store, remote["error"] = None, str(e)
        if remote_store is not None:
            try:
                digests, skipped = remote_store.listing()
                remote["entries"], remote["skipped_keys"] = len(digests), skipped
                remote["reachable"] = True
            except Exception as e:
                remote["error"] = f"{type(e).__name__}: {redact(str(e))}"
            remote_store.close()
        out["remote"] = remote
    unreachable = out["remote"] is not None and not out["remote"]["reachable"]
    if as_json:
        click.echo(json.dumps(out, indent=2))
        if unreachable:
            sys.exit(1)
        return
    from rich.table import Table
    local = out["local"]
    console = _console()
    console.print(f"local cache {printable(local['path'])}: {local['entries']} entries, "
                  f"{local['bytes'] / 1024:.0f} KiB", soft_wrap=True)
    table = Table()
    table.add_column("namespace")
    table.add_column("entries", justify="right")
    for ns, n in per_ns.items():
        table.add_row(printable(ns), str(n))
    if per_ns:
        console.print(table)
    if counters:
        click.echo("lookups since the last `tuner cache stats --reset` (all processes):")
        for ns, c in counters.items():
            hits = c["hits_local"] + c["hits_remote"]
            asked = hits + c["misses"]
            rate = f"hit rate {100 * hits / asked:.0f}%, " if asked else ""
            click.echo(f"  {printable(ns)}: {hits} hits ({c['hits_local']} local, "
                       f"{c['hits_remote']} remote), {c['misses']} misses, {c['rejected']} "
                       f"rejected entries; {rate}{_saved(c['saved_s'])} of "
                       f"{'compiling' if ns == GRAPH_NAMESPACE else 'tuning'} saved")
    elif counters_error:
        click.echo(f"statistics unreadable ({printable(counters_error)})", err=True)
    else:
        console.print("no lookups counted yet (statistics since the last reset: none)")
    remote = out["remote"]
    if remote is None:
        console.print("remote cache: off (TUNER_REMOTE_CACHE is not set)")
    elif remote["reachable"]:
        skipped = remote["skipped_keys"]
        console.print(f"remote cache {printable(remote['url'])} (prefix "
                      f"{printable(repr(remote['prefix']))}"
                      f"{', read-only' if remote['readonly'] else ''}): {remote['entries']} entries"
                      + (f" ({skipped} key{'s' if skipped > 1 else ''} under the prefix skipped: "
                         "not UTF-8 text)" if skipped else ""))
    else:
        why = "not used" if remote.get("misconfigured") else "unreachable"
        click.echo(f"remote cache {printable(remote['url'])}: {why} "
                   f"({printable(remote['error'])})", err=True)
        sys.exit(1)


@cache_group.command("reset-stats")
@json_option
def reset_stats_cmd(as_json):
    """Set the hit/miss statistics back to zero (the same as `stats --reset`)."""
    _reset_stats(as_json)


LS_LIMIT = 50      # entries `tuner cache ls` shows unless told otherwise
VALUE_WIDTH = 100  # characters of an entry's value summary, at most


def _positive_limit(ctx, param, value):
    if value is not None and value < 1:
        raise click.BadParameter(f"{value} is not a number of entries: give 1 or more "
                                 "(--all lists every entry)")
    return value


def _brief(value, budget: int):
    """Pieces of a one-line summary of a JSON value (floats to 4 significant digits, strings
    bare where they are plain words, long ones cut to 20 characters), produced until about `budget` characters are out, so a
    large value costs no more than its first line."""
    if isinstance(value, bool) or value is None:
        yield json.dumps(value)
    elif isinstance(value, float):
        yield f"{value:.4g}"
    elif isinstance(value, int):
        yield str(value)   # _Count: "[12 items]"
    elif isinstance(value, str):
        bare = value.isidentifier()
        if len(value) > 24:      # a hash, a path: its start says enough here
            value = value[:20] + "…"
        yield value if bare else json.dumps(value, ensure_ascii=False)
    elif isinstance(value, (dict, list)):
        items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
        opened = "{" if isinstance(value, dict) else "["
        yield opened
        used = 1
        for i, (k, v) in enumerate(items):
            if used > budget:
                return
            piece = ("," if i else "") + (f"{k}:" if k is not None else "")
            yield piece
            used += len(piece)
            for part in _brief(v, budget - used):
                yield part
                used += len(part)
                if used > budget:
                    return
        yield "}" if opened == "{" else "]"
    else:
        yield str(value)


# a decision record's fields (tuner/decision.py to_record) that say the most, shown first
SUMMARY_FIRST = ("choice", "time_ms", "default_time_ms", "found_by", "n_measured")


class _Count(int):
    def __str__(self):
        return f"[{int(self)} items]"


def value_summary(value, width: int = VALUE_WIDTH) -> str:
    """One line saying what an entry holds: its top-level fields as key=value, nested objects
    compact; cut to `width` characters (ending in "…" when cut) and safe to print."""
    if isinstance(value, dict):
        pieces, used = [], 0
        first = [k for k in SUMMARY_FIRST if k in value]
        keys = first + [k for k in value if k not in SUMMARY_FIRST]
        for i, k in enumerate(keys):
            if used > width:
                break
            v = value[k]
            head = (" " if i else "") + f"{k}="
            pieces.append(head)
            used += len(head)
            if isinstance(v, list) and len(v) > 3:   # timings and the like: how many
                v = _Count(len(v))
            for part in _brief(v, width - used):
                pieces.append(part)
                used += len(part)
                if used > width:
                    break
    else:
        pieces = list(_brief(value, width))
    text = printable("".join(pieces))
    return text if len(text) <= width else text[:width - 1] + "…"


@cache_group.command("ls")
@_namespace_option
@click.option("--limit", type=int, default=None, callback=_positive_limit, metavar="N",
              help=f"Show the newest N entries (default {LS_LIMIT}).")
@click.option("--all", "show_all", is_flag=True, help="Show every entry.")
@json_option
@_sqlite_guard
def ls_cmd(namespace, limit, show_all, as_json):
    """List the entries of the local cache, newest first: the newest 50 unless --limit or
    --all says otherwise, then how many more there are. Each value is shown as a one-line
    summary; --json prints the full records (to the same limit)."""
    from .entry import InvalidEntry, decode
    if show_all and limit is not None:
        raise click.UsageError("--limit and --all do not go together: give one of them")
    limit = None if show_all else (limit or LS_LIMIT)
    store = _store()
    secret, rows = _secret(), []
    for row in store.rows(namespace, newest_first=True, limit=limit):
        try:
            value, problem = decode(row["entry"], secret).value, None
        except InvalidEntry as e:
            value, problem = None, str(e)
        rows.append({"digest": row["digest"], "namespace": row["namespace"],
                     "problem": row["problem"], "created": _created(row["created"]),
                     "value": value, "invalid": problem})
    more = store.count(namespace) - len(rows) if limit is not None and len(rows) == limit else 0
    note = (f"{more} more entr{'ies' if more > 1 else 'y'} not shown (the newest {len(rows)} "
            f"are): `tuner cache ls --limit N` shows more, `--all` every one") if more > 0 else None
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        if note:
            click.echo(note, err=True)   # stdout stays one JSON document
        return
    from rich.table import Table
    from rich.text import Text
    from rich import box
    console = _console()
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)   # no side borders: room for the value
    table.add_column("namespace", overflow="fold")
    table.add_column("problem", overflow="fold")
    table.add_column("digest", no_wrap=True)
    table.add_column("created (UTC)", no_wrap=True)
    # the value summary fills what the other columns leave of the terminal, on one line
    fixed = 12 + 19 + 3 * 5 + 1 + sum(min(40, max([len(printable(r[c])) for r in rows] + [9]))
                                      for c in ("namespace", "problem"))
    table.add_column("value", no_wrap=True, overflow="ellipsis",
                     max_width=max(16, min(VALUE_WIDTH, console.width - fixed)))
    for r in rows:
        shown = value_summary(r["value"]) if r["invalid"] is None else \
            value_summary(f"invalid: {r['invalid']}")
        table.add_row(Text(printable(r["namespace"])), Text(printable(r["problem"])[:40]),
                      printable(r["digest"][:12]), _when(r["created"]),
                      Text(shown, style="red" if r["invalid"] else ""))
    console.print(table)
    if note:
        click.echo(note)


@cache_group.command("export")
@click.argument("file", type=click.Path(dir_okay=False, writable=True, allow_dash=True,
                                        path_type=Path))
@_namespace_option
@json_option
@_sqlite_guard
def export_cmd(file, namespace, as_json):
    """Write the local cache to FILE (JSON lines; - for stdout), to `tuner cache import` elsewhere.

    Entries that fail validation are left out and reported. FILE appears complete or not at
    all (written to a temporary file, then renamed). With -, the report goes to stderr.
    """
    from .entry import InvalidEntry, decode
    to_stdout = str(file) == "-"
    folder = Path.cwd() if to_stdout else file.resolve().parent
    if not folder.is_dir():
        _fail(f"{printable(folder)} is not a folder")
    secret, good, skipped = _secret(), [], []
    rows = list(_store().rows(namespace))
    with _progress(as_json or to_stdout) as progress:
        for row in progress.track(rows, description="checking"):
            try:
                good.append(decode(row["entry"], secret).text)
            except InvalidEntry as e:
                skipped.append({"digest": row["digest"], "reason": str(e)})
    from .keys import SCHEMA_VERSION
    header = {"format": FORMAT, "schema": SCHEMA_VERSION, "count": len(good),
              "created": time.time()}
    if to_stdout:
        click.echo(json.dumps(header))
        for text in good:
            click.echo(text)
        _report({"file": "-", "exported": len(good), "skipped": skipped}, as_json,
                f"exported {len(good)} entries to stdout", err=True)
        return
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
            f"exported {len(good)} entries to {printable(file)}")


SKIPPED_KEPT = 20     # skipped lines a report names one by one; the rest are counted
SKIPPED_REASONS = 50  # distinct reasons counted apart; further ones count as "other"


class _Skips:
    """What an import (or export) skipped, in memory bounded whatever the file holds: the
    first SKIPPED_KEPT problems in full (and every file-level one), then counts per reason
    (the reason with its numbers replaced by N, so "line 7" and "line 9" count together)."""

    def __init__(self):
        self.kept: list[dict] = []
        self.total = 0
        self.by_reason: dict[str, int] = {}

    def add(self, item: dict, always: bool = False) -> None:
        self.total += 1
        if always or len(self.kept) < SKIPPED_KEPT:
            self.kept.append(item)
        kind = re.sub(r"\d+", "N", str(item["reason"]))[:100]
        if kind not in self.by_reason and len(self.by_reason) >= SKIPPED_REASONS:
            kind = "other reasons"
        self.by_reason[kind] = self.by_reason.get(kind, 0) + 1

    def __bool__(self) -> bool:
        return self.total > 0

    def report(self) -> dict:
        return {"skipped": self.kept, "skipped_total": self.total,
                "skipped_by_reason": dict(sorted(self.by_reason.items(), key=lambda kv: -kv[1]))}


@cache_group.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@json_option
def import_cmd(file, as_json):
    """Validate every entry of FILE and add the good ones to the cache.

    Entries go to the local cache and, unless it is off or read-only, to the remote one.
    FILE is read one line at a time; bad lines (malformed, over the size or nesting limit,
    badly signed) and repeated keys are reported and skipped, and the exit status is then 1.
    The report names the first 20 problems and counts every one by reason, so a file of
    millions of bad lines costs no more memory than one of twenty. Compiled graphs (namespace
    graph: code the compiler runs) are imported only with TUNER_CACHE_SECRET set, which
    verifies their signatures; without it they are skipped.
    """
    from .entry import InvalidEntry, decode
    from .graphs import NAMESPACE as GRAPH_NAMESPACE
    from .keys import SCHEMA_VERSION
    from .layered import build_cache
    cache = build_cache()
    if not cache.enabled:
        _fail("the cache is off (TUNER_CACHE=0): nothing to import into")
    try:
        f = open(file, "rb")
        size = os.fstat(f.fileno()).st_size
    except OSError as e:
        _fail(f"cannot read {printable(file)}: {e}")
    skipped, imported, found, first_line = _Skips(), 0, 0, {}
    header, secret = None, _secret()
    with f, _progress(as_json) as progress:
        task = progress.add_task("importing", total=size)
        for n, line, length in _lines(f):
            progress.advance(task, length)
            if n == 1:
                header = _parse_header(line)
                if header is not None:
                    if header.get("schema") != SCHEMA_VERSION:
                        skipped.add({"line": 1, "reason": f"file has schema "
                                     f"{printable(header.get('schema'))}, this cache reads "
                                     f"{SCHEMA_VERSION}"})
                    continue
                # still import what can be imported; line 1 is then read as an entry
                skipped.add({"line": None, "reason": "no tuner-cache export header on line 1"},
                            always=True)
            if line is not None and not line.strip():
                continue
            found += 1
            if line is None:
                skipped.add({"line": n, "reason": f"{length} bytes, over the limit of "
                                                  f"{_max_bytes()}"})
                continue
            try:
                entry = decode(line, secret)
                if entry.digest in first_line:
                    skipped.add({"line": n, "reason": "duplicate key (first on line "
                                                      f"{first_line[entry.digest]}): not "
                                                      "imported again"})
                    continue
                first_line[entry.digest] = n
                if entry.key.namespace == GRAPH_NAMESPACE and not secret:
                    # a compiled graph is code the compiler runs: only from a signed file
                    skipped.add({"line": n, "reason": "a compiled graph is imported only when "
                                                      "TUNER_CACHE_SECRET verifies its signature"})
                    continue
                cache.put_entry(entry)
                imported += 1
            except InvalidEntry as e:
                skipped.add({"line": n, "reason": printable(e)})
            except Exception as e:  # whatever one line provokes, the lines after it still count
                skipped.add({"line": n, "reason": f"{type(e).__name__}: {printable(e)}"})
    if header is not None and header.get("count") != found:
        skipped.add({"line": None, "reason": f"header says {printable(header.get('count'))} "
                                             f"entries, file has {found} (truncated?)"}, always=True)
    stats = cache.stats()
    errors = stats["local"]["errors"] + stats["remote"]["errors"]
    written = stats["local"]["puts"]
    cache.close()
    out = {"file": str(file), "imported": written, "valid": imported, **skipped.report(),
           "remote_puts": stats["remote"]["puts"], "errors": errors}
    _report(out, as_json, f"imported {written} entries from {printable(file)}"
                          + (f" ({stats['remote']['puts']} also to the remote cache)"
                             if stats["remote"]["puts"] else ""))
    if skipped or errors or written != imported:
        sys.exit(1)


def _max_bytes() -> int:
    from .entry import MAX_ENTRY_BYTES
    return MAX_ENTRY_BYTES


def _lines(f):
    """(line number, bytes or None when longer than an entry may be, bytes read) for each line
    of the binary file f; memory stays bounded by the entry limit whatever the file holds."""
    limit = _max_bytes() + 2  # the entry, a \r\n
    n = 0
    while True:
        line = f.readline(limit + 1)
        if not line:
            return
        n += 1
        length = len(line)
        if length > limit:  # too long: skip to the end of this line, without keeping it
            while not line.endswith(b"\n"):
                line = f.readline(1 << 16)
                if not line:
                    break
                length += len(line)
            yield n, None, length
        else:
            yield n, line.rstrip(b"\r\n"), length


def _parse_header(line: bytes | None) -> dict | None:
    from .entry import InvalidEntry, load_json
    if line is None:
        return None
    try:
        header = load_json(line)
    except InvalidEntry:
        return None
    return header if isinstance(header, dict) and header.get("format") == FORMAT else None


def _report(out: dict, as_json: bool, summary: str, err: bool = False) -> None:
    if as_json:
        click.echo(json.dumps(out, indent=2), err=err)
        return
    click.echo(summary, err=err)
    for s in out["skipped"]:
        where = f"line {s['line']}" if "line" in s and s["line"] else s.get("digest", "file")
        click.echo(f"  skipped {where}: {printable(s['reason'])}", err=True)
    total = out.get("skipped_total", len(out["skipped"]))
    if total > len(out["skipped"]):
        click.echo(f"  ... and {total - len(out['skipped'])} more; every problem by reason:",
                   err=True)
        for reason, n in out["skipped_by_reason"].items():
            click.echo(f"    {n} x {printable(reason)}", err=True)
    if total:
        click.echo(f"{total} problem(s)", err=True)
    if out.get("errors"):
        click.echo(f"{out['errors']} store error(s): see the warnings above", err=True)


@cache_group.command("clear")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@click.option("--remote", "with_remote", is_flag=True,
              help="Also delete every key under TUNER_REMOTE_PREFIX in the remote cache.")
@json_option
def clear_cmd(yes, with_remote, as_json):
    """Delete every entry of the local cache (and with --remote, of the shared one).

    A read-only or locked local cache is an error (exit 1, nothing deleted); a file that is
    not a SQLite database is removed, and the command says so.
    """
    from .remote import RemoteConfig, RemoteStore, RemoteUnavailable, redact
    store = _store()
    config = RemoteConfig.from_settings() if with_remote else None
    if with_remote and config is None:
        _fail("--remote: TUNER_REMOTE_CACHE is not set")
    if config is not None and config.readonly:
        _fail("--remote: the remote cache is read-only here (TUNER_REMOTE_READONLY=1)")
    remote_store = None
    if config is not None:  # a bad URL or prefix fails here, before anything is deleted
        try:
            remote_store = RemoteStore(config)
        except (ValueError, RemoteUnavailable) as e:
            _fail(f"--remote: {printable(redact(str(e)))} (nothing deleted)")
    path = printable(store.path)
    what = path + (f" and {printable(redact(config.url))} (prefix {config.prefix!r})"
                   if config else "")
    if not yes and not click.confirm(f"Delete every cache entry in {what}?"):
        _fail("nothing deleted")
    out = {"local": _clear_local(store, path), "remote": None}
    if out["local"] is None:
        out["local"], out["replaced"] = 0, True
    if config is not None:
        try:
            out["remote"] = remote_store.clear()
        except Exception as e:
            _fail(f"remote cache {printable(redact(config.url))}: {type(e).__name__}: "
                  f"{printable(redact(str(e)))} (the local cache was cleared: {out['local']} "
                  "entries)")
    if as_json:
        click.echo(json.dumps(out))
    else:
        click.echo(f"deleted {out['local']} local entries"
                   + (f" and {out['remote']} remote entries" if config else ""))


def _clear_local(store, path: str) -> int | None:
    """Rows deleted, or None when the file was not a database and was removed (said on stderr)."""
    import sqlite3

    from .local import ReadOnlyCache, is_corrupt
    try:
        return store.clear()
    except ReadOnlyCache:
        _fail(f"local cache {path} is read-only here: nothing deleted (clear it where it is "
              "written, or point TUNER_CACHE_DIR at another folder)")
    except sqlite3.DatabaseError as e:
        if not is_corrupt(e):
            _fail(_sqlite_message(path, e) + " (nothing deleted)")
        try:
            removed = store.replace_corrupt()
        except (ValueError, OSError) as e2:
            _fail(f"local cache {path}: {printable(e2)}")
        notadb = "NOTADB" in (getattr(e, "sqlite_errorname", "") or "")
        what = "was not a SQLite database" if notadb else "was damaged"
        click.echo(f"local cache {path} {what} ({e}): removed the file ({removed} bytes); the "
                   "next write starts a new one", err=True)
        return None
