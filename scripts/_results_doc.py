"""The JSON results document bench_mm.py, bench_optimizer.py, bench_dynamic.py and bench_generate.py fill (a helper module, not a
script: the leading underscore keeps it out of the scripts' --help smoke test)."""
from __future__ import annotations

import datetime
from pathlib import Path


def new_document(stem: str, argv, device: str, out: str | Path) -> tuple[dict, Path]:
    """The JSON document a bench script fills case by case: the
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


def cold_cache_env(tmp, smoke: bool) -> dict:
    """os.environ with fresh compiler cache folders under `tmp` (tuner, inductor, Triton: a
    worker's compile times are cold-start numbers), and Triton's interpreter for --smoke."""
    import os
    env = dict(os.environ, TUNER_CACHE_DIR=os.path.join(tmp, "tuner"),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"),
               TRITON_CACHE_DIR=os.path.join(tmp, "triton"))
    if smoke:
        env["TRITON_INTERPRET"] = "1"
    return env
