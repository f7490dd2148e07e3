"""One JSON results document for the small GPU scripts (profile_compiler, bench_mm, bench_optimizer): the
script name, UTC date, GPU, torch/Triton versions and the rows, written as
<out>/<script>_<local time>.json. Returns the path."""
from __future__ import annotations

import datetime
import json
from pathlib import Path


def write_results(script: str, rows: list, out: str | Path) -> Path:
    import torch
    doc = {"script": script, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
           "torch": torch.__version__,
           "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu",
           "results": rows}
    try:
        import triton
        doc["triton"] = triton.__version__
    except ImportError:
        pass
    Path(out).mkdir(parents=True, exist_ok=True)
    path = Path(out) / f"{script}_{datetime.datetime.now():%Y%m%d-%H%M%S}.json"
    path.write_text(json.dumps(doc, indent=1))
    return path


def new_document(stem: str, argv, device: str, out: str | Path) -> tuple[dict, Path]:
    """The JSON document a bench script fills case by case (bench_mm, bench_optimizer): the
    command as given, local date stamp, Python, torch, Triton and GPU, an empty "cases" list;
    and its path, <out>/<stem>_<stamp>.json (the folder is made)."""
    import platform
    import sys

    import torch
    import triton
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    doc = {"command": " ".join([Path(sys.argv[0]).name] + (argv if argv is not None else sys.argv[1:])),
           "date": stamp, "python": platform.python_version(), "torch": torch.__version__,
           "triton": triton.__version__,
           "gpu": torch.cuda.get_device_name() if device == "cuda" else None, "cases": []}
    return doc, out / f"{stem}_{stamp}.json"
