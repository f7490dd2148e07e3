#!/usr/bin/env python3
"""Held-out score of the mm point's bare-question modules, alone and together (the registry's
rule: every confident module must agree, else unsure).

The two modules were learned from different data with seed-0 splits: the first
(heuristics/artifacts/mm_backend_bare_h100.py) from data/mm/mm_bare_h100_s0 and
mm_bare_large_h100_s0, the second (mm_backend_bare_model_h100.py) from those plus
mm_bare_model_h100_s0. Held out from both: the second's test split, less the problems the
first trained or validated on (its own test split and every bare_model problem stay). A
wrong answer is one more than --tolerance slower than the faster choice.

    python3 scripts/probes/mm_bare_modules_heldout.py [--json out.json]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "mm"
OLD_FILES = ("mm_bare_h100_s0.jsonl.gz", "mm_bare_large_h100_s0.jsonl.gz")
NEW_FILES = OLD_FILES + ("mm_bare_model_h100_s0.jsonl.gz",)
MODULES = ("mm_backend_bare_h100", "mm_backend_bare_model_h100")


def test_ids(files):
    from tuner.heuristics.contexts import DERIVED
    from tuner.heuristics.dataset import read_datasets
    from tuner.heuristics.problems import build_problems, split
    ds = read_datasets([DATA / f for f in files])
    p = build_problems(ds, derived=DERIVED["mm_backend"])
    return {p.ids[i] for i in split(len(p), 0)["test"]}, ds


def load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "heuristics" / "artifacts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--json", type=Path, help="also write the table here")
    args = ap.parse_args(argv)
    from tuner.points.mm import MMProblem
    old_test, _ = test_ids(OLD_FILES)
    new_test, ds = test_ids(NEW_FILES)
    held = sorted(i for i in new_test if i in old_test or i.startswith("bare_model"))
    mods = [load(n) for n in MODULES]

    def together(f):
        said = {a for a in (m.decide(f) for m in mods) if a is not None}
        return next(iter(said)) if len(said) == 1 else None
    rows = []
    problems = ds.problems()
    for name, decide in [(n, m.decide) for n, m in zip(MODULES, mods)] + [("both (agreeing)", together)]:
        c = w = u = 0
        wrong = []
        for pid in held:
            by = {r["choice"]: r for r in problems[pid]}
            e = by["extern"]
            p = MMProblem(e["op"], e["batch"], e["m"], e["n"], e["k"], e["dtype"],
                          bool(e["mat1_transposed"]), bool(e["mat2_transposed"]), epilogue=False)
            a = decide(p.features())
            if a is None:
                u += 1
                continue
            loss = by[a]["time_ms"] / min(by["extern"]["time_ms"], by["template"]["time_ms"])
            if loss > 1 + args.tolerance:
                w += 1
                wrong.append({"problem": pid, "answer": a, "loss": round(loss, 4)})
            else:
                c += 1
        rows.append({"modules": name, "correct": c, "wrong": w, "unsure": u, "total": len(held),
                     "max_loss": max([x["loss"] for x in wrong], default=None), "wrong_answers": wrong})
        print(f"{name}: {c} correct, {w} wrong, {u} unsure of {len(held)}; "
              f"largest loss {rows[-1]['max_loss']}")
    if args.json:
        args.json.write_text(json.dumps({"held_out": len(held), "tolerance": args.tolerance,
                                         "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
