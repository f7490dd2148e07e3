"""Dataset files: a self-describing header line, then one JSON row per (problem, choice).

Format (JSON lines, optionally gzip-compressed when the name ends in .gz):

    {"format": "tuner-dataset", "version": 1, "point": "pad_mm", "gpu_name": ..., ...}
    {"problem": "s0-17", "choice": "pad", "time_ms": 0.031, "reps": 5, "spread": 0.02, "m": ...}
    ...

Rows are flushed one problem at a time, so a killed run leaves a readable file; a reader
drops a truncated last line (and a truncated gzip tail). `--resume` rewrites the complete
problems of an old file atomically and appends after them, so nothing is duplicated.
`record_decision` appends benchmarked decisions of a running program (collect mode).
"""
from __future__ import annotations

import datetime as _dt
import gzip
import hashlib
import json
import os
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


# -- device and versions -------------------------------------------------------------------

def device_metadata(device: str = "cuda") -> dict[str, Any]:
    """GPU name, compute capability, shared memory per block, library versions and timer.

    On a machine without CUDA (or with device="cpu") the GPU fields describe the CPU, so CPU
    datasets never merge with GPU ones.
    """
    import platform

    from tuner.bench import CPU_TIMER, CUDA_TIMER
    meta: dict[str, Any] = {"gpu_name": "cpu", "compute_capability": [0, 0],
                            "shared_memory_per_block": 0, "timer": CPU_TIMER}
    try:
        import torch
        meta["torch"] = torch.__version__
        if device != "cpu" and torch.cuda.is_available():
            idx = torch.device(device).index
            props = torch.cuda.get_device_properties(idx if idx is not None else torch.cuda.current_device())
            meta["gpu_name"] = props.name
            meta["timer"] = CUDA_TIMER
            meta["compute_capability"] = [props.major, props.minor]
            # the opt-in limit is what a kernel can actually use; older torch lacks the field
            meta["shared_memory_per_block"] = int(getattr(props, "shared_memory_per_block_optin", 0)
                                                  or getattr(props, "shared_memory_per_block", 0))
        else:
            meta["gpu_name"] = f"cpu:{platform.machine()}"
    except ImportError:
        meta["torch"] = None
    try:
        import triton
        meta["triton"] = triton.__version__
    except ImportError:
        meta["triton"] = None
    from tuner import __version__
    meta["tuner"] = __version__
    return meta


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


def choice_key(choice: Any) -> str:
    """A choice as a row value: strings as they are, configs as canonical JSON."""
    if isinstance(choice, str):
        return choice
    if hasattr(choice, "to_json"):
        choice = choice.to_json()
    return json.dumps(choice, sort_keys=True, separators=(",", ":"))


def incompatibilities(a: dict, b: dict, keys: Iterable[str] = COMPAT_KEYS) -> list[str]:
    return [f"{k}: {a.get(k)!r} != {b.get(k)!r}" for k in keys if a.get(k) != b.get(k)]


# -- reading -------------------------------------------------------------------------------

def _is_gzip(path: Path) -> bool:
    return path.name.endswith(".gz")


def _read_text(path: Path) -> str:
    raw = path.read_bytes()
    if not (_is_gzip(path) or raw[:2] == b"\x1f\x8b"):
        return raw.decode("utf-8", errors="replace")
    # Decode member by member and keep whatever a killed writer had flushed: gzip.open would
    # raise on the missing end-of-stream marker and lose everything.
    parts, data = [], raw
    while data:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            parts.append(d.decompress(data))
        except zlib.error:
            break
        if not d.eof:
            break
        data = d.unused_data
    return b"".join(parts).decode("utf-8", errors="replace")


@dataclass
class Dataset:
    path: Path | None
    header: dict[str, Any]
    rows: list[dict[str, Any]]
    truncated: bool = False      # a partial last line was dropped

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
    path = Path(path)
    if not path.exists():
        raise DatasetError(f"{path}: no such file")
    text = _read_text(path)
    lines = text.split("\n")
    truncated = False
    if lines and lines[-1] != "":
        # no newline at the end: the writer was killed mid-line
        lines, truncated = lines[:-1], True
    lines = [ln for ln in lines if ln.strip()]
    if not lines:
        raise DatasetError(f"{path}: empty file (no dataset header)")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        raise DatasetError(f"{path}: first line is not a JSON dataset header") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise DatasetError(f"{path}: first line is not a {FORMAT} header")
    for key in ("point", "features", "choices"):
        if key not in header:
            raise DatasetError(f"{path}: header lacks {key!r}")
    rows = []
    needed = set(REQUIRED_ROW_FIELDS) | set(header["features"])
    for lineno, line in enumerate(lines[1:], start=2):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            if lineno == len(lines):     # a torn last line that happened to end in "\n"
                truncated = True
                continue
            raise DatasetError(f"{path}:{lineno}: malformed row") from None
        missing = needed - set(row)
        if missing:
            raise DatasetError(f"{path}:{lineno}: row lacks columns {', '.join(sorted(missing))}")
        rows.append(row)
    return Dataset(path, header, rows, truncated)


def read_datasets(paths: Iterable[str | os.PathLike]) -> Dataset:
    """Merge shards into one dataset; refuse files whose metadata disagree."""
    sets = [read_dataset(p) for p in paths]
    if not sets:
        raise DatasetError("no dataset files given")
    first = sets[0]
    for ds in sets[1:]:
        bad = incompatibilities(first.header, ds.header)
        if bad:
            raise DatasetError(f"{ds.path} does not match {first.path}: " + "; ".join(bad))
    rows, seen = [], set()
    for ds in sets:
        for r in ds.rows:
            key = (str(r["problem"]), r["choice"])
            if key in seen:   # the same shard given twice, or overlapping shards: keep one
                continue
            seen.add(key)
            rows.append(r)
    header = dict(first.header)
    header["merged_from"] = [str(ds.path) for ds in sets]
    return Dataset(None, header, rows, any(ds.truncated for ds in sets))


# -- writing -------------------------------------------------------------------------------

def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _dumps(obj) -> str:
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
        data = (_dumps(obj) + "\n").encode()
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


# -- collect mode ----------------------------------------------------------------------------

def problem_id(features: dict[str, Any]) -> str:
    return hashlib.sha1(_dumps(dict(sorted(features.items()))).encode()).hexdigest()[:16]


def _append_line(path: Path, line: str) -> None:
    # One write() on an O_APPEND descriptor: concurrent processes never interleave a line.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def record_decision(namespace: str, features: dict[str, Any], decision) -> None:
    """Append a benchmarked decision to $TUNER_DATASET_DIR/<namespace>.jsonl (collect mode).

    One row per measured candidate. Never raises: collecting must not break a compile.
    """
    try:
        _record_decision(namespace, features, decision)
    except Exception as e:  # noqa: BLE001 - data collection is best effort
        import warnings
        warnings.warn(f"tuner: could not record a {namespace} decision: {e}", stacklevel=2)


def _record_decision(namespace: str, features: dict[str, Any], decision) -> None:
    from tuner.settings import settings

    if getattr(decision, "source", None) in ("heuristic", "cache"):
        return
    timings = list(getattr(decision, "timings", None) or [])
    if not timings or not features:
        return
    folder = Path(settings.dataset_dir)
    folder.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in namespace)
    path = folder / f"{safe}.jsonl"
    if not path.exists():
        types = {k: ("float" if isinstance(v, float) else "int" if isinstance(v, (int, bool)) else "str")
                 for k, v in features.items()}
        # sorted: the first decision's timing order (fastest first) must not define the file
        header = make_header(namespace, types, sorted({choice_key(c) for c, _ in timings}),
                             device_meta=device_metadata(), source="collect-mode")
        # Publish the header atomically: link() fails if another process got there first.
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(_dumps(header) + "\n")
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    pid = problem_id(features)
    clean = {k: (int(v) if isinstance(v, bool) else v) for k, v in features.items()}
    lines = "".join(_dumps({"problem": pid, "choice": choice_key(c), "time_ms": float(ms),
                            "reps": settings.bench_reps, **clean}) + "\n" for c, ms in timings)
    _append_line(path, lines)
