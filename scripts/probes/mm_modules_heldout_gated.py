#!/usr/bin/env python3
"""The shipped mm modules on the test split they were learned beside (tuner learn's split seed
0 over the files heuristics/README.md names), asked as the modules alone answer and as the
point asks them (unsure where a row is not a 16-byte multiple, tuner.points.mm.aligned_rows):
correct / wrong (2% tolerance) / unsure and the worst loss, one JSON row per module.

    python3 scripts/probes/mm_modules_heldout_gated.py OUT.json
"""
import argparse, importlib, json
from pathlib import Path
from tuner.heuristics.contexts import DERIVED
from tuner.heuristics.dataset import read_datasets
from tuner.heuristics.interface import DeviceInfo
from tuner.heuristics.problems import build_problems, split
from tuner.heuristics.registry import lookup
from tuner.points.mm import aligned_rows, problem_from_row
data = Path("data/mm")
ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("out", type=Path, help="JSON file to write")
args = ap.parse_args()
# (namespace, module, files): the recipes of heuristics/README.md; each module's --keep filters
# come from its TRAINING
sets = [("mm_backend", "mm_backend_sm90", ["mm_cheap_h200_s3", "mm_cheap_model_h100_s0"]),
        ("mm_backend.bare", "mm_backend_bare_sm90", ["mm_bare_h200_s1", "mm_bare_large_h100_s0", "mm_bare_model_h100_s0"]),
        ("mm_backend.costly", "mm_backend_costly_sm90",
         ["mm_costly_h200_s5", "mm_costly_h200_s4", "mm_costly_h200_s1", "mm_costly_h200_s2",
          "mm_costly_large_h100_s0"])]
device = DeviceInfo("NVIDIA H100 80GB HBM3", (9, 0), 232448)
out = []
for ns, module, files in sets:
    keep = importlib.import_module(f"tuner.heuristics.artifacts.{module}").TRAINING.get("keep", ())
    ds = read_datasets([data / f"{f}.jsonl.gz" for f in files], keep=keep)
    p = build_problems(ds, derived=DERIVED["mm_backend"])
    problems = ds.problems()
    seed = 0   # the split the shipped modules learned on (other seeds' tests hold training rows)
    held = [p.ids[i] for i in split(len(p), seed)["test"]]
    row = {"namespace": ns, "seed": seed, "held_out": len(held)}
    for gate in (False, True):
        c = w = u = 0; worst = 1.0
        for pid in held:
            by = {r["choice"]: r for r in problems[pid]}
            e = by["extern"]
            ok = aligned_rows(problem_from_row(e))
            a = lookup(ns, {f: e[f] for f in ds.header["features"]}, device) if (ok or not gate) else None
            if a is None: u += 1; continue
            loss = by[a]["time_ms"] / min(r["time_ms"] for r in by.values())
            worst = max(worst, loss)
            if loss > 1.02: w += 1
            else: c += 1
        row["gated" if gate else "ungated"] = {"correct": c, "wrong": w, "unsure": u, "worst": round(worst, 4)}
    out.append(row)
    print(json.dumps(row))
args.out.write_text(json.dumps({"device_asked": "NVIDIA H100 80GB HBM3 (sm90 modules)", "tolerance": 0.02,
    "command": "python3 scripts/probes/mm_modules_heldout_gated.py OUT (split seed 0 of tuner learn over the files heuristics/README.md names; gate: tuner.points.mm.aligned_rows)",
    "rows": out}, indent=1) + "\n")
