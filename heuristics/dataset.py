"""Dataset files: a self-describing header line, then one JSON row per (problem, choice).

Format (JSON lines, optionally gzip-compressed when the name ends in .gz):

    {"format": "tuner-dataset", "version": 1, "point": "pad_mm", "gpu_name": ..., ...}
    {"problem": "s0-17", "choice": "pad", "time_ms": 0.031, "reps": 5, "spread": 0.02, "m": ...}
    ...

Rows are flushed one problem at a time, so a killed run leaves a readable file; a reader
drops a truncated last line (and a truncated gzip tail). A reader streams the file a chunk
and a line at a time, and refuses a .gz that decompresses to over 200x its size (a bomb). `--resume` rewrites the complete
problems of an old file atomically and appends after them, so nothing is duplicated.

The format is where data generation and learning meet: `tuner collect` (datagen/) and the
engine's collect mode (tuner/collect.py) write it, `tuner learn` reads it. Standard library
only, so the heuristics package stays below the engine.
"""
from __future__ import annotations

import datetime as _dt
import fnmatch
import gzip
import json
import os
import re
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

FORMAT = "tuner-dataset"
FORMAT_VERSION = 1
# Row fields that are not features.
ROW_FIELDS = ("problem", "choice", "time_ms", "reps", "spread", "min_ms", "max_ms", "bench_s")
REQUIRED_ROW_FIELDS = ("problem", "choice", "time_ms")
# Header fields that must agree for two files to be merged (learning) or continued (resume):
# everything that changes what a time means. Shard, seed and dates may differ.
# "timer" says how times were taken (tuner.bench.CUDA_TIMER): files from before the GPU
# run-ahead have none and do not merge with later ones (their small-kernel times include the
# host's launch speed).
COMPAT_KEYS = ("format", "version", "point", "feature_schema", "features", "choices",
               "gpu_name", "compute_capability", "shared_memory_per_block", "torch", "triton",
               "timer")


class DatasetError(ValueError):
    """A dataset file is missing, malformed or incompatible; the message names the problem."""


# header keys whose disagreement between merged files is warned about, not refused:
# template_revision, which mm template a `tuner collect mm` file timed (tuner/points/mm.py;
# absent before revision 2: the bias fix changed only addmm's times)
WARN_KEYS = ("template_revision",)


def make_header(point: str, features: dict[str, str], choices: Iterable[Any], *,
                device_meta: dict[str, Any], feature_schema: int = 1, **extra) -> dict[str, Any]:
    clash = sorted(set(features) & set(ROW_FIELDS))
    if clash:
        raise DatasetError(f"feature names clash with row fields: {', '.join(clash)}")
    header = {"format": FORMAT, "version": FORMAT_VERSION, "point": point,
              "feature_schema": feature_schema, "features": dict(features),
              "choices": [choice_key(c) for c in choices],
              "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    header.update(device_meta)
    header.update(extra)
    return header


# Header names reach generated code (as identifiers, dict keys, text): a strict schema.
POINT_RE = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*")
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TEXT_KEYS = ("gpu_name", "torch", "triton", "tuner", "created", "timer")
MAX_TEXT = 200


def header_problem(header: dict) -> str | None:
    """What is wrong with a dataset header's names and fields, or None. Point and feature
    names must be plain names; text fields short printable strings."""
    if header.get("version") != FORMAT_VERSION:
        return f"header version {header.get('version')!r} is not {FORMAT_VERSION} (this tuner reads version {FORMAT_VERSION})"
    point = header.get("point")
    if not isinstance(point, str) or not POINT_RE.fullmatch(point):
        return f"header point {str(point)[:60]!r} is not a point name (lowercase words joined by '_' or '.')"
    features = header.get("features")
    if not isinstance(features, dict):
        return "header features is not an object {name: kind}"
    for name, kind in features.items():
        if not NAME_RE.fullmatch(name) or not isinstance(kind, str) or len(kind) > MAX_TEXT:
            return f"header feature {name[:60]!r} is not a plain name with a short kind"
    choices = header.get("choices")
    if not isinstance(choices, list) or not all(isinstance(c, str) and len(c) <= 4 * MAX_TEXT for c in choices):
        return "header choices is not a list of short strings"
    for key in TEXT_KEYS:
        v = header.get(key)
        if v is not None and (not isinstance(v, str) or len(v) > MAX_TEXT or not v.isprintable()):
            return f"header {key} is not a short printable string"
    return None


def choice_key(choice: Any) -> str:
    """A choice as a row value: strings as they are, configs as canonical JSON."""
    if isinstance(choice, str):
        return choice
    if hasattr(choice, "to_json"):
        choice = choice.to_json()
    return json.dumps(choice, sort_keys=True, separators=(",", ":"))


def board_slug(gpu_name: str) -> str:
    """A board's short name, as modules and data files are named ("NVIDIA H100 80GB HBM3": h100)."""
    tokens = [t for t in re.findall(r"[a-z0-9]+", gpu_name.lower())
              if t not in ("nvidia", "geforce", "tesla", "amd", "instinct")]
    return tokens[0] if tokens else "gpu"


def incompatibilities(a: dict, b: dict, keys: Iterable[str] = COMPAT_KEYS) -> list[str]:
    return [f"{k}: {a.get(k)!r} != {b.get(k)!r}" for k in keys if a.get(k) != b.get(k)]


# -- reading -------------------------------------------------------------------------------

def _is_gzip(path: Path) -> bool:
    return path.name.endswith(".gz")


def _read_text(path: Path) -> str:
    return _decode(path)[0]


def _decode(path: Path) -> tuple[str, bool]:
    """(the file's text, whether it was whole), for the writer's compaction of its own file:
    a gzip stream that stops before its end gives what was flushed, and False."""
    src = _Lines(path)
    text = b"".join(src.chunks()).decode("utf-8", errors="replace")
    return text, src.whole


READ_CHUNK = 1 << 20           # bytes read, and decompressed, at a time
GZIP_MAX_RATIO = 200           # decompressed / compressed size beyond which a .gz is a bomb...
GZIP_MIN_LIMIT = 64 << 20      # ...once over this: real datasets decompress about 7-10x


class _Lines:
    """The complete lines of a dataset file (bytes, without their newline), read as a stream:
    memory holds one chunk and one line, never the file. A gzip file is decoded member by
    member with zlib, keeping what a killed writer had flushed (gzip.open would raise on the
    missing end-of-stream marker and lose everything); one that decompresses to more than
    GZIP_MAX_RATIO times its size (and over GZIP_MIN_LIMIT) is refused as a bomb.

    After iteration: `whole` is False when a gzip stream stopped before its end (or was
    damaged), `torn` is True when bytes followed the last newline (they are not a line)."""

    def __init__(self, path: Path):
        self.path = path
        self.whole = True
        self.torn = False

    def chunks(self):
        with open(self.path, "rb") as f:
            if not (_is_gzip(self.path) or f.read(2) == b"\x1f\x8b"):
                f.seek(0)
                while chunk := f.read(READ_CHUNK):
                    yield chunk
                return
            f.seek(0)
            limit = max(GZIP_MIN_LIMIT, GZIP_MAX_RATIO * os.fstat(f.fileno()).st_size)
            out, data = 0, b""
            while True:                         # one gzip member per turn
                data = data or f.read(READ_CHUNK)
                if not data:
                    return                      # every member ended properly
                d, at_end = zlib.decompressobj(16 + zlib.MAX_WBITS), False
                while True:
                    try:
                        piece = d.decompress(data, READ_CHUNK)  # output bounded per call
                    except zlib.error:
                        self.whole = False      # damaged: keep what came before
                        return
                    out += len(piece)
                    if out > limit:
                        raise DatasetError(
                            f"{self.path}: decompresses to over {limit >> 20} MiB from "
                            f"{os.path.getsize(self.path)} bytes (over {GZIP_MAX_RATIO}x): not a "
                            "dataset (a gzip bomb?); refused")
                    if piece:
                        yield piece
                    if d.eof:
                        data = d.unused_data    # another member may follow
                        break
                    data = d.unconsumed_tail
                    if not data:
                        if at_end and not piece:
                            self.whole = False  # the stream stops before its end
                            return
                        if not at_end:
                            data = f.read(READ_CHUNK)
                            at_end = not data

    def __iter__(self):
        pending: list[bytes] = []
        for chunk in self.chunks():
            parts = chunk.split(b"\n")
            if len(parts) == 1:
                pending.append(chunk)
                continue
            pending.append(parts[0])
            yield b"".join(pending)
            yield from parts[1:-1]
            pending = [parts[-1]] if parts[-1] else []
        self.torn = any(pending)


@dataclass
class Dataset:
    path: Path | None
    header: dict[str, Any]
    rows: list[dict[str, Any]]
    truncated: bool = False      # a partial last line (or gzip tail) was dropped
    truncated_files: tuple = ()  # the files that were (a merge's shards; this file's path)

    @property
    def feature_names(self) -> list[str]:
        return list(self.header["features"])

    def problems(self) -> dict[str, list[dict]]:
        out: dict[str, list[dict]] = {}
        for r in self.rows:
            out.setdefault(str(r["problem"]), []).append(r)
        return out

    def complete_problems(self) -> dict[str, list[dict]]:
        """Problems with a row for every choice of the header."""
        want = set(self.header["choices"])
        return {p: rs for p, rs in self.problems().items() if {r["choice"] for r in rs} >= want}


def read_dataset(path: str | os.PathLike) -> Dataset:
    """Read a dataset file one line at a time (see _Lines): a torn last line, or a gzip tail
    a killed writer left, is dropped and the dataset marked truncated."""
    path = Path(path)
    if not path.exists():
        raise DatasetError(f"{path}: no such file")
    src = _Lines(path)
    # the file's non-blank complete lines, as text
    lines = (text for text in (ln.decode("utf-8", errors="replace") for ln in src)
             if text.strip())
    first = next(lines, None)
    if first is None:
        if not src.whole:
            raise DatasetError(f"{path}: a gzip stream that is damaged or ends before its first line")
        raise DatasetError(f"{path}: empty file (no dataset header)")
    try:
        header = json.loads(first)
    except json.JSONDecodeError:
        raise DatasetError(f"{path}: first line is not a JSON dataset header") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise DatasetError(f"{path}: first line is not a {FORMAT} header")
    for key in ("point", "features", "choices"):
        if key not in header:
            raise DatasetError(f"{path}: header lacks {key!r}")
    problem = header_problem(header)
    if problem:
        raise DatasetError(f"{path}: {problem}")
    rows, truncated = [], False
    needed = set(REQUIRED_ROW_FIELDS) | set(header["features"])
    # one line of look-ahead: a malformed row is a torn write only when it is the last line
    held = None
    for lineno, line in enumerate(lines, start=2):
        if held is not None:
            truncated |= _add_row(rows, *held, path, needed, last=False)
        held = (lineno, line)
    if held is not None:
        truncated |= _add_row(rows, *held, path, needed, last=True)
    truncated = truncated or not src.whole or src.torn
    return Dataset(path, header, rows, truncated, (str(path),) if truncated else ())


def _add_row(rows: list, lineno: int, line: str, path: Path, needed: set, last: bool) -> bool:
    """Append one row line's row to rows; True when it is a torn last line (dropped)."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError:
        if last:                         # a torn last line that happened to end in "\n"
            return True
        raise DatasetError(f"{path}:{lineno}: malformed row") from None
    except RecursionError:
        raise DatasetError(f"{path}:{lineno}: row nested too deep") from None
    except ValueError as e:              # an integer of more digits than Python converts
        raise DatasetError(f"{path}:{lineno}: malformed row ({str(e)[:80]})") from None
    if not isinstance(row, dict):
        raise DatasetError(f"{path}:{lineno}: row is not a JSON object")
    missing = needed - set(row)
    if missing:
        raise DatasetError(f"{path}:{lineno}: row lacks columns {', '.join(sorted(missing))}")
    rows.append(row)
    return False


def parse_keep(text: str) -> tuple[str, str, tuple[str, ...]]:
    """A row filter for one or more files, "GLOB:COLUMN=VALUE[|VALUE...]": rows of the files
    GLOB matches (fnmatch on the file's name; on its whole path where GLOB has a "/") are kept
    only where COLUMN equals one of the values, compared as JSON text (a string as written,
    numbers as 4 or 0.5, booleans as true/false). E.g. "mm_costly_h200_s1*:dtype=float32"."""
    glob, sep, cond = text.rpartition(":")
    column, eq, values = cond.partition("=")
    vals = tuple(v.strip() for v in values.split("|") if v.strip())
    if not sep or not glob or not eq or not column.strip() or not vals:
        raise DatasetError(f"--keep {text!r}: expected GLOB:COLUMN=VALUE[|VALUE...], "
                           "e.g. 'mm_costly_h200_s1*:dtype=float32'")
    return glob, column.strip(), vals


def keep_text(rule) -> str:
    """A rule as --keep writes it (rules given as triples are recorded in this form)."""
    if isinstance(rule, str):
        return rule
    glob, column, vals = rule
    return f"{glob}:{column}={'|'.join(vals)}"


def _keep_matches(glob: str, path: Path) -> bool:
    return fnmatch.fnmatch(str(path) if "/" in glob else path.name, glob)


def _cell(v) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def _apply_keep(ds: Dataset, rules) -> str | None:
    """Filters ds.rows in place by the rules whose glob matches its file (rules naming the same
    column are one rule: their values are alternatives; different columns must all hold);
    returns a note of what was kept, or None where no rule matched. A column some row lacks,
    or rules that leave the file no row (a mistyped value), are refused with the values the
    column has."""
    path = Path(ds.path)
    by_column: dict[str, list[str]] = {}
    for glob, column, vals in rules:
        if _keep_matches(glob, path):
            by_column.setdefault(column, [])
            by_column[column] += [v for v in vals if v not in by_column[column]]
    if not by_column:
        return None
    before = len(ds.rows)
    for column, vals in by_column.items():
        lacking = next((r for r in ds.rows if column not in r), None)
        if lacking is not None:
            raise DatasetError(f"--keep ...:{column}=...: rows of {path} have no column {column!r} "
                               f"(they have {', '.join(sorted(lacking))})")
    kept = [r for r in ds.rows if all(_cell(r[c]) in vals for c, vals in by_column.items())]
    if before and not kept:
        seen = {c: sorted({_cell(r[c]) for r in ds.rows})[:12] for c in by_column}
        raise DatasetError(f"--keep: no row of {path} has "
                           + " and ".join(f"{c} in {'|'.join(v)}" for c, v in by_column.items())
                           + " (its values: " + "; ".join(f"{c}: {', '.join(v)}" for c, v in seen.items())
                           + ")")
    ds.rows = kept
    conds = "; ".join(f"{c} in {'|'.join(v)}" for c, v in by_column.items())
    return f"{conds}: {len(kept)} of {before} rows"


def read_datasets(paths: Iterable[str | os.PathLike], keep=()) -> Dataset:
    """Merge shards into one dataset; refuse files whose metadata disagree.

    keep: row filters (`parse_keep`'s triples, or their text); every filter must match at
    least one file (a typo must not pass unnoticed); the merged header's `kept` names what
    each filtered file contributed.

    Files measured on different boards of one generation (the same compute capability, shared
    memory and timer: what a module's precondition matches, e.g. an H100 and an H200) merge, as
    `tuner learn-configs` merges them: the header's gpu_name lists the boards, and each problem
    id is prefixed with its board ("h200/bare-s1-5") so that one seed's stream measured on two
    boards stays two problems."""
    sets = [read_dataset(p) for p in paths]
    if not sets:
        raise DatasetError("no dataset files given")
    rules = [parse_keep(k) if isinstance(k, str) else tuple(k) for k in keep]
    for glob, column, _ in rules:
        if not any(_keep_matches(glob, Path(ds.path)) for ds in sets):
            raise DatasetError(f"--keep {glob}:{column}=...: {glob!r} matches none of the files ("
                               + ", ".join(Path(ds.path).name for ds in sets) + ")")
    kept = {str(ds.path): note for ds in sets if (note := _apply_keep(ds, rules)) is not None}
    first = sets[0]
    keys = tuple(k for k in COMPAT_KEYS if k != "gpu_name")
    for ds in sets[1:]:
        bad = incompatibilities(first.header, ds.header, keys)
        if bad:
            raise DatasetError(f"{ds.path} does not match {first.path}: "
                               + "; ".join(incompatibilities(first.header, ds.header)))
    boards = list(dict.fromkeys(str(ds.header.get("gpu_name")) for ds in sets))
    if len(boards) > 1 and any(not ds.header.get("gpu_name") for ds in sets):
        raise DatasetError("files of several boards merge only when each names its board: "
                           + ", ".join(str(ds.path) for ds in sets if not ds.header.get("gpu_name"))
                           + " has no gpu_name")
    # one prefix per board, unique even where two boards share a short name (H100 SXM / PCIe)
    prefixes, used = {}, set()
    for board in boards:
        slug = base = board_slug(board)
        n = 2
        while slug in used:
            slug, n = f"{base}_{n}", n + 1
        used.add(slug)
        prefixes[board] = slug
    rows, seen = [], set()
    for ds in sets:
        prefix = f"{prefixes[str(ds.header.get('gpu_name'))]}/" if len(boards) > 1 else ""
        for r in ds.rows:
            if prefix:
                r = {**r, "problem": prefix + str(r["problem"])}
            key = (str(r["problem"]), r["choice"])
            if key in seen:   # the same shard given twice, or overlapping shards: keep one
                continue
            seen.add(key)
            rows.append(r)
    header = dict(first.header)
    header["merged_from"] = [str(ds.path) for ds in sets]
    # keys that say what was timed without refusing a merge (a revision may change only some
    # problems' times): files that disagree are named, per key, for the learner to warn about
    mixed = {key: {str(ds.path): ds.header.get(key) for ds in sets} for key in WARN_KEYS}
    mixed = {key: files for key, files in mixed.items() if len(set(map(repr, files.values()))) > 1}
    if mixed:
        header["mixed"] = mixed
    if kept:
        header["kept"] = kept
    if len(boards) > 1:
        header["gpu_name"] = " + ".join(boards)
    return Dataset(None, header, rows, any(ds.truncated for ds in sets),
                   tuple(str(ds.path) for ds in sets if ds.truncated))


# -- writing -------------------------------------------------------------------------------

def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def dumps_line(obj) -> str:
    """One row or header as the file holds it (compact JSON, NaN allowed)."""
    return json.dumps(obj, separators=(",", ":"), allow_nan=True)


class DatasetWriter:
    """Appends problems to a dataset file, flushing after each one; a .gz file is compacted
    into one gzip stream when the writer closes.

    resume=True keeps the complete problems of an existing file (its header must agree on
    COMPAT_KEYS plus `resume_keys`), rewritten atomically so a torn tail is gone, and
    `done` holds their ids so the caller skips them.
    """

    def __init__(self, path: str | os.PathLike, header: dict[str, Any], *, resume: bool = False,
                 resume_keys: Iterable[str] = ()):
        self.path = Path(path)
        self.header = header
        self.done: set[str] = set()
        keep: list[dict] = []
        if resume and self.path.exists() and self.path.stat().st_size > 0:
            old = read_dataset(self.path)
            bad = incompatibilities(old.header, header, (*COMPAT_KEYS, *resume_keys))
            if bad:
                raise DatasetError(f"{self.path}: cannot resume, the existing file differs: "
                                   + "; ".join(bad))
            self.header = old.header            # keep the original creation date
            for pid, rs in old.complete_problems().items():
                self.done.add(pid)
                keep.extend(rs)
        elif self.path.exists() and not resume:
            raise DatasetError(f"{self.path} exists (pass --resume to continue it, or remove it)")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Write header + kept rows into a temp file beside the target, then rename: the old
        # file stays intact until the new one is complete, and we keep appending to it.
        fd, tmp = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".tmp", dir=self.path.parent)
        os.chmod(tmp, 0o666 & ~_umask())     # mkstemp makes 0600; a dataset is meant to be shared
        self._raw = os.fdopen(fd, "wb")
        self._gz = gzip.GzipFile(fileobj=self._raw, mode="wb") if _is_gzip(self.path) else None
        self._write_line(self.header)
        for r in keep:
            self._write_line(r)
        self.flush()
        os.replace(tmp, self.path)
        self.rows_written = 0

    def _write_line(self, obj) -> None:
        data = (dumps_line(obj) + "\n").encode()
        (self._gz or self._raw).write(data)

    def flush(self) -> None:
        if self._gz is not None:
            self._gz.flush()          # Z_SYNC_FLUSH: everything so far is decodable
        self._raw.flush()

    def write_problem(self, rows: list[dict[str, Any]]) -> None:
        for r in rows:
            self._write_line(r)
        self.rows_written += len(rows)
        self.flush()

    def close(self) -> None:
        if self._gz is not None:
            self._gz.close()
        self._raw.close()
        if self._gz is not None:
            self._compact()

    def _compact(self) -> None:
        """Rewrite a finished .gz file as one stream: the per-problem sync flushes that keep a
        killed run readable cost about 16% of the size. Atomic: a failure leaves the flushed
        file as it was."""
        data = gzip.compress(_read_text(self.path).encode(), compresslevel=9, mtime=0)
        fd, tmp = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
