#!/usr/bin/env python3
"""Table of max-autotune compile cost per model from scripts/device/ma_compile_table.sh output.

Reads the JSON lines the device script writes ($OUT/ma_compile_table.jsonl) or the merged JSON
committed under bench/results/compiler/ (a document with "rows"), and prints per model: the
first call's seconds in default mode, in max-autotune with the shipped heuristics (ma) and
without (ma-off) (medians over rounds), the ratios to default (warm max-autotune to warm
default), and, of a variant's first round, every benchmark run and the benchmarks spent on
matmuls (the mm point's and the template configs' measured decisions); the other variants of
scripts/device/ma_compile_table.sh (ma-p16, ma-remote, ...) to cold default too. --merge-into appends
rows: merge each device file once.

    python3 scripts/ma_compile_report.py bench/results/compiler/ma_compile_table_20261125.json
    python3 scripts/ma_compile_report.py out/ma_compile_table.jsonl --merge-into merged.json
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

MM_NAMESPACES = ("mm_backend", "triton.template")


def rows_of_lines(lines) -> list[dict]:
    """One row per probe run: the label line the script writes, then the probe's summary
    line, then one line per measured decision."""
    rows, label = [], None
    for line in lines:
        line = line.strip()
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        if "variant" in d and "round" in d:
            label = d
        elif "first_s" in d and label is not None:
            rows.append({**label, **d, "measured": []})
        elif "failed" in d and label is not None:
            rows.append({**label, "failed": d["failed"], "measured": []})
        elif "ns" in d and rows:
            rows[-1]["measured"].append(d)
        elif "profile_own" in d and rows:   # a ma-prof run's cProfile of its first call
            rows[-1]["profile"] = d
    return rows


def load(path: Path) -> list[dict]:
    text = path.read_text()
    if path.suffix == ".json":
        return json.loads(text)["rows"]
    return rows_of_lines(text.splitlines())


def mm_benchmarks(row: dict) -> int:
    return sum(d["n"] for d in row["measured"] if d["ns"] in MM_NAMESPACES)


def table(rows: list[dict]) -> list[dict]:
    by: dict = {}
    for r in rows:
        if "first_s" in r:
            by.setdefault(r["case"], {}).setdefault(r["variant"], []).append(r)
    out = []
    for case, vs in by.items():
        med = {v: round(statistics.median(x["first_s"] for x in rs), 2) for v, rs in vs.items()}
        first = {v: rs[0] for v, rs in vs.items()}
        d = med.get("default")
        row = {"case": case, **{f"{v}_s": s for v, s in med.items()}}
        # a fresh machine over a warm Redis compiles every kernel as cold default mode does
        for v in med:   # every cold max-autotune variant (a fresh machine over a warm Redis too)
            if d and v.startswith("ma") and v != "ma-warm" and not v.endswith("up"):
                row[f"{v}/default"] = round(med[v] / d, 2)
        if "ma-warm" in med and med.get("default-warm"):   # warm against warm, same call
            row["ma-warm/default-warm"] = round(med["ma-warm"] / med["default-warm"], 2)
        for v in ("ma", "ma-off"):
            if v in first:
                row[f"{v}_benchmarks"] = first[v]["benchmarks"]
                row[f"{v}_mm_benchmarks"] = mm_benchmarks(first[v])
        if row.get("ma-off_mm_benchmarks") and "ma_mm_benchmarks" in row:
            row["mm_benchmarks_ratio"] = round(row["ma_mm_benchmarks"] / row["ma-off_mm_benchmarks"], 2)
        out.append(row)
    return out


def main(argv=None) -> int:
    desc, _, ex = __doc__.rpartition("\n\n")
    ap = argparse.ArgumentParser(description=desc, epilog="examples:\n" + ex,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+", type=Path, help="ma_compile_table.jsonl files or merged JSON documents")
    ap.add_argument("--merge-into", type=Path, help="append the inputs' rows to this JSON document's rows")
    a = ap.parse_args(argv)
    loaded = {}
    for p in a.inputs:
        if not p.is_file():
            ap.error(f"{p}: no such file")
        loaded[p] = load(p)
    rows = [r for rs in loaded.values() for r in rs]
    if a.merge_into:
        doc = json.loads(a.merge_into.read_text()) if a.merge_into.exists() else {"rows": []}
        doc["rows"] += [r for p, rs in loaded.items() if p.suffix != ".json" for r in rs]
        a.merge_into.write_text(json.dumps(doc, indent=1))
    t = table(rows)
    cols = list(dict.fromkeys(k for r in t for k in r))
    print(" | ".join(cols))
    for r in t:
        print(" | ".join(str(r.get(c, "")) for c in cols))
    total = [(r.get("ma_mm_benchmarks"), r.get("ma-off_mm_benchmarks")) for r in t]
    total = [(w, wo) for w, wo in total if w is not None and wo]
    if total:
        w, wo = sum(x for x, _ in total), sum(y for _, y in total)
        print(f"matmul benchmarks with the shipped heuristics / without, all models: {w} / {wo} = {w / wo:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
