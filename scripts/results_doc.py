"""One JSON results document for the small GPU scripts (profile_compiler, sweep_reductions, probes/compiler_probe): the
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
