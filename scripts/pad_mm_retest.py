#!/usr/bin/env python3
"""How reproducible are measured timings? Compare two dataset files that measured the same
problems (the same `tuner collect` stream and seed run twice): per choice, how often a time
moved by more than 10% between the runs (overall and by kernel size), and how often the
winner flipped. A label that flips between two runs of the same problem cannot be learned.

    python3 scripts/pad_mm_retest.py FIRST.jsonl.gz SECOND.jsonl.gz [--out results.json]
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import sys
from pathlib import Path

SIZE_BUCKETS_US = ((0, 10), (10, 20), (20, 50), (50, 100), (100, math.inf))


def compare(first: str, second: str) -> dict:
    import numpy as np

    from tuner.heuristics.dataset import read_dataset
    from tuner.heuristics.learn import build_problems

    da, db = read_dataset(first), read_dataset(second)
    a, b = build_problems(da), build_problems(db)
    if a.choices != b.choices:
        raise SystemExit(f"the files measured different choices: {a.choices} vs {b.choices}")
    where = {pid: i for i, pid in enumerate(a.ids)}
    pairs = [(where[pid], j) for j, pid in enumerate(b.ids) if pid in where]
    if not pairs:
        raise SystemExit("no problem kept in both files (different streams or seeds?)")
    ia = np.array([i for i, _ in pairs])
    ib = np.array([j for _, j in pairs])
    ta, tb = a.times[ia], b.times[ib]
    big = math.log(1.1)
    moved = np.abs(np.log(tb / ta)) > big                      # (n, 2): per choice
    la, lb = a.target[ia], b.target[ib]                        # log(time first / time second)
    flip10 = ((la > big) & (lb < -big)) | ((la < -big) & (lb > big))
    # the first run's winner, timed by the second run: what a perfect learner of run 1 loses
    loss = np.where(la > 0, tb[:, 1] / tb[:, 0], tb[:, 0] / tb[:, 1])
    fastest_us = np.minimum(ta[:, 0], ta[:, 1]) * 1e3
    buckets = []
    for lo, hi in SIZE_BUCKETS_US:
        k = (fastest_us >= lo) & (fastest_us < hi)
        buckets.append({"fastest_us": [lo, None if math.isinf(hi) else hi], "problems": int(k.sum()),
                        **{f"moved_10pct_{c}": float(moved[k, i].mean()) if k.any() else None
                           for i, c in enumerate(a.choices)}})
    return {
        "first": {"file": Path(first).name, "timer": da.header.get("timer"), "problems": len(a)},
        "second": {"file": Path(second).name, "timer": db.header.get("timer"), "problems": len(b)},
        "gpu_name": da.header.get("gpu_name"), "torch": da.header.get("torch"),
        "triton": da.header.get("triton"),
        "common_problems": len(pairs),
        **{f"moved_10pct_{c}": float(moved[:, i].mean()) for i, c in enumerate(a.choices)},
        "winner_agrees": float((np.sign(la) == np.sign(lb)).mean()),
        "winner_flipped_both_by_10pct": int(flip10.sum()),
        "first_winner_loses_in_second_2pct": int((loss > 1.02).sum()),
        "first_winner_loses_in_second_10pct": int((loss > 1.1).sum()),
        "by_size": buckets,
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("first")
    p.add_argument("second")
    p.add_argument("--out", help="write the JSON result here too")
    a = p.parse_args(argv)
    for f in (a.first, a.second):
        if not Path(f).is_file():
            p.error(f"no such dataset: {f}")
    r = compare(a.first, a.second)
    c0, c1 = (k.removeprefix("moved_10pct_") for k in r if k.startswith("moved_10pct_"))
    print(f"{r['common_problems']} problems in both ({r['first']['file']}, {r['second']['file']}; "
          f"timer {r['first']['timer']} / {r['second']['timer']})")
    print(f"times moved > 10%: {c0} {100 * r[f'moved_10pct_{c0}']:.2f}%, {c1} {100 * r[f'moved_10pct_{c1}']:.2f}%; "
          f"winner agrees {100 * r['winner_agrees']:.1f}%, flipped with both runs > 10% apart: "
          f"{r['winner_flipped_both_by_10pct']}")
    print(f"first run's winners timed by the second: {r['first_winner_loses_in_second_2pct']} lose > 2%, "
          f"{r['first_winner_loses_in_second_10pct']} lose > 10%")
    for bk in r["by_size"]:
        lo, hi = bk["fastest_us"]
        if bk["problems"]:
            print(f"  fastest {lo}-{hi if hi is not None else 'inf'} us: {bk['problems']:6d} problems, moved > 10%: "
                  f"{c0} {100 * bk[f'moved_10pct_{c0}']:.1f}%, {c1} {100 * bk[f'moved_10pct_{c1}']:.1f}%")
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps(r, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
