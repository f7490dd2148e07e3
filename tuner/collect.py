"""Collect mode: with TUNER_HEURISTICS=collect the engine hands every benchmarked decision to
`record_decision`, which appends one row per measured candidate to
$TUNER_DATASET_DIR/<namespace>.jsonl (the dataset format of tuner.heuristics.dataset, which
`tuner learn` reads). `device_metadata` describes the machine and versions in every dataset
header, here and in `tuner collect`.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

from tuner.heuristics.dataset import dumps_line, choice_key, make_header


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


# -- collect mode ----------------------------------------------------------------------------

def problem_id(features: dict[str, Any]) -> str:
    return hashlib.sha1(dumps_line(dict(sorted(features.items()))).encode()).hexdigest()[:16]


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
            f.write(dumps_line(header) + "\n")
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    pid = problem_id(features)
    clean = {k: (int(v) if isinstance(v, bool) else v) for k, v in features.items()}
    lines = "".join(dumps_line({"problem": pid, "choice": choice_key(c), "time_ms": float(ms),
                            "reps": settings.bench_reps, **clean}) + "\n" for c, ms in timings)
    _append_line(path, lines)
