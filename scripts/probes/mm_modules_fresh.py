#!/usr/bin/env python3
"""Score the shipped mm-point modules of one question on fresh dataset files (problems none
of them trained on), the way the compiler asks them: every module of the namespace whose
precondition holds answers, confident ones must agree (heuristics.registry), else unsure.

Counts usable problems (>= --min-reps repetitions, spread <= --max-spread, as `tuner learn`
keeps them) answered correctly (at most --tolerance slower than the faster choice), wrong,
and unsure; lists every answer losing more than 10%. As the point asks: problems whose
operand or output rows are not 16-byte multiples are unsure (tuner.points.mm.aligned_rows);
--no-gate scores every problem as the modules alone answer it.

    python3 scripts/probes/mm_modules_fresh.py --namespace mm_backend.costly \\
        data/mm/mm_costly_h200_s1.jsonl.gz data/mm/mm_costly_h200_s2.jsonl.gz [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _aligned(row) -> bool:
    from tuner.points.mm import aligned_rows, problem_from_row
    return aligned_rows(problem_from_row(row))


def score(namespace, files, tolerance=0.02, min_reps=3, max_spread=0.2, modules=None, gate=True):
    from tuner.heuristics.dataset import read_dataset
    from tuner.heuristics.interface import DeviceInfo
    from tuner.heuristics.problems import build_problems
    from tuner.heuristics.registry import Registry
    reg = Registry(modules)
    rows = []
    for path in files:
        ds = read_dataset(path)
        h = ds.header
        device = DeviceInfo(h["gpu_name"], tuple(h["compute_capability"]), h["shared_memory_per_block"])
        names = list(h["features"])
        # the problems `tuner learn` would keep (both choices timed, finite, enough reps, small spread)
        usable = build_problems(ds, min_reps=min_reps, max_spread=max_spread).ids
        problems = ds.problems()
        c = w = u = 0
        big = []
        for pid in usable:
            by = {r["choice"]: r for r in problems[pid]}
            answer = reg.lookup(namespace, {f: by["extern"][f] for f in names}, device) \
                if not gate or _aligned(by["extern"]) else None
            if answer is None:
                u += 1
                continue
            loss = by[answer]["time_ms"] / min(r["time_ms"] for r in by.values())
            if loss > 1 + tolerance:
                w += 1
            else:
                c += 1
            if loss > 1.10:
                e = by["extern"]
                big.append({"problem": pid, "answer": answer, "loss": round(loss, 4),
                            "shape": f"{e['op']} b{e['batch']} {e['m']}x{e['k']}x{e['n']} {e['dtype']}"
                                     f" t{e['mat1_transposed']}{e['mat2_transposed']}"})
        rows.append({"file": str(path), "gpu": h["gpu_name"], "correct": c, "wrong": w, "unsure": u,
                     "losing_over_10pct": sorted(big, key=lambda x: -x["loss"])})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--namespace", required=True, help="e.g. mm_backend.costly, mm_backend.bare, mm_backend")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--min-reps", type=int, default=3)
    ap.add_argument("--max-spread", type=float, default=0.2)
    ap.add_argument("--module", action="append", type=Path, default=[],
                    help="score this module file instead of the shipped ones (repeatable)")
    ap.add_argument("--no-gate", action="store_true",
                    help="score problems whose rows are not 16-byte multiples too (the point leaves them unsure)")
    ap.add_argument("--json", type=Path, help="also write the rows here")
    args = ap.parse_args(argv)
    modules = None
    if args.module:
        import importlib.util
        modules = []
        for p in args.module:
            spec = importlib.util.spec_from_file_location(p.stem, p)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            modules.append(mod)
    rows = score(args.namespace, args.files, args.tolerance, args.min_reps, args.max_spread, modules=modules,
                 gate=not args.no_gate)
    for r in rows:
        n = r["correct"] + r["wrong"] + r["unsure"]
        print(f"{r['file']}: {r['correct']} correct, {r['wrong']} wrong, {r['unsure']} unsure of {n}; "
              f"{len(r['losing_over_10pct'])} losing > 10%")
        for x in r["losing_over_10pct"]:
            print(f"   {x['loss']:.3f}x  {x['answer']:8s} {x['shape']}  ({x['problem']})")
    if args.json:
        args.json.write_text(json.dumps({"namespace": args.namespace, "tolerance": args.tolerance,
                                         "modules": [str(m) for m in args.module] or "shipped",
                                         "gate": "none" if args.no_gate else "aligned_rows",
                                         "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
