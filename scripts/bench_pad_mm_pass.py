#!/usr/bin/env python3
"""The compiler's pad_mm pass on the matmuls it was built for: eager, stock inductor and
`backend="tuner"` with options={"pad_mm": never | always | auto}, per case; auto_off is auto with
TUNER_HEURISTICS=off (the decision is always benchmarked), so auto against auto_off is the
compile time the learned heuristic saves when it answers.

For each (case, variant): check against eager (relative to the result's largest magnitude),
then time the compiled call (tuner.bench.benchmark: median of CUDA-event timings after an
L2 flush, every run queued before the GPU starts: GPU time, the host's launch cost excluded), and record what the pass did (stats.pad_mm) and, for auto, where the decision
came from (heuristic, cache or a benchmark), how long deciding took and the first call's wall
time (compile included). The auto variants use an empty temporary cache unless --keep-cache,
so they really decide. A table is printed last; JSON goes to --out.

On the GPU machine:
    source scripts/device/env.sh && python3 scripts/bench_pad_mm_pass.py --out $OUT
On CPU (tiny fp32 shapes, Triton interpreter, no inductor):
    python3 scripts/bench_pad_mm_pass.py --smoke
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys
import tempfile
from pathlib import Path

VARIANTS = ("eager", "inductor", "never", "always", "auto", "auto_off")

# name -> (doc, full-size shapes, smoke shapes). A "linear" case is x @ w.t() (+ bias), as
# nn.Linear lowers it; "bmm" is a batched product.
CASES = {
    "lm_head": ("GPT-2 lm head: (4096x768) @ (50257x768).t(), no bias",
                dict(kind="linear", m=4096, k=768, n=50257, bias=False),
                dict(kind="linear", m=33, k=16, n=37, bias=False)),
    "linear_unaligned": ("nn.Linear(4093, 4097) on 4095 rows, with bias",
                         dict(kind="linear", m=4095, k=4093, n=4097, bias=True),
                         dict(kind="linear", m=33, k=19, n=37, bias=True)),
    "bmm_unaligned": ("bmm (96 x 500x64) @ (96 x 64x500), attention-like",
                      dict(kind="bmm", b=96, m=500, k=64, n=500),
                      dict(kind="bmm", b=3, m=9, k=8, n=10)),
}


def _inputs(spec, dtype, device, seed=0):
    import torch
    g = torch.Generator(device=device).manual_seed(seed)

    def rand(*shape, scale=1.0):
        return (torch.randn(*shape, generator=g, device=device) * scale).to(dtype)
    if spec["kind"] == "bmm":
        return rand(spec["b"], spec["m"], spec["k"]), rand(spec["b"], spec["k"], spec["n"], scale=0.1)
    x, w = rand(spec["m"], spec["k"]), rand(spec["n"], spec["k"], scale=0.02)
    return (x, w, rand(spec["n"])) if spec["bias"] else (x, w)


def _fn(spec):
    import torch
    import torch.nn.functional as F
    if spec["kind"] == "bmm":
        return torch.bmm
    return F.linear


def run_variant(name, spec, variant, dtype, device, smoke, keep_cache):
    heuristics = os.environ.get("TUNER_HEURISTICS")
    if variant == "auto_off":
        os.environ["TUNER_HEURISTICS"] = "off"
    try:
        return _run_variant(name, spec, variant, dtype, device, smoke, keep_cache)
    finally:
        if heuristics is None:
            os.environ.pop("TUNER_HEURISTICS", None)
        else:
            os.environ["TUNER_HEURISTICS"] = heuristics


def _sync(device):
    import torch
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


def _run_variant(name, spec, variant, dtype, device, smoke, keep_cache):
    import time
    import torch
    import tuner.compiler.stats as stats
    import tuner.engine as engine
    from tuner.bench import benchmark

    fn = _fn(spec)
    args = _inputs(spec, dtype, device)
    ref = fn(*args)
    row = {"case": name, "variant": variant}
    torch._dynamo.reset()
    stats.reset()
    engine.HISTORY.clear()
    if variant == "eager":
        call = fn
    elif variant == "inductor":
        call = torch.compile(fn)
    else:
        if variant.startswith("auto") and not keep_cache:
            os.environ["TUNER_CACHE_DIR"] = tempfile.mkdtemp(prefix="pad-mm-bench-")
            from tuner.cache import reset_cache
            reset_cache()
        mode = "auto" if variant.startswith("auto") else variant
        call = torch.compile(fn, backend="tuner", options={"pad_mm": mode})
    try:
        _sync(device)
        t0 = time.perf_counter()
        out = call(*args)
        _sync(device)
        row["first_call_s"] = time.perf_counter() - t0
    except Exception as e:   # a failing variant is reported, not fatal to the run
        row["error"] = f"{type(e).__name__}: {e}"[:300]
        return row
    err = (out.float() - ref.float()).abs().max().item() / max(ref.float().abs().max().item(), 1e-6)
    row["rel_err"] = err
    row["ok"] = err <= (2e-2 if dtype != torch.float32 else 1e-4)
    if variant not in ("eager", "inductor"):
        row["pad_mm"] = dict(stats.totals().pad_mm)
        decisions = [d for d in engine.HISTORY if d.namespace == "pad_mm"]
        if decisions:
            d = decisions[-1]
            row["decision"] = {"choice": d.choice, "source": d.source,
                               "tuning_seconds": d.tuning_seconds,
                               "timings": [[c, t] for c, t in d.timings]}
    if row["ok"]:
        reps = 3 if smoke else 50
        row["ms"] = benchmark(lambda: call(*args), warmup=1 if smoke else 10, reps=reps,
                              device=str(device))
    return row


def environment(device):
    import torch
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    gpu = torch.cuda.get_device_name() if str(device).startswith("cuda") else "cpu"
    return {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "gpu": gpu, "torch": torch.__version__, "triton": triton_version}


def table(rows):
    eager = {r["case"]: r.get("ms") for r in rows if r["variant"] == "eager"}
    lines = [f"{'case':<18} {'variant':<9} {'ms':>9} {'vs eager':>9} {'1st call s':>10}  pad_mm / decision"]
    for r in rows:
        ms = r.get("ms")
        base = eager.get(r["case"])
        speed = f"{base / ms:8.2f}x" if ms and base else ""
        what = r.get("error") or ("" if r.get("ok", True) else f"MISMATCH rel_err={r['rel_err']:.2e}")
        if "pad_mm" in r:
            what += f"{r['pad_mm'] or '{}'}"
        if "decision" in r:
            d = r["decision"]
            what += f" {d['choice']} from {d['source']} in {d['tuning_seconds'] * 1e3:.1f} ms"
        ms_s = f"{ms:9.4f}" if ms is not None else f"{'-':>9}"
        first = f"{r['first_call_s']:10.2f}" if "first_call_s" in r else f"{'-':>10}"
        lines.append(f"{r['case']:<18} {r['variant']:<9} {ms_s} {speed:>9} {first}  {what}")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="cases: " + "; ".join(f"{k}: {v[0]}" for k, v in CASES.items()))
    p.add_argument("--cases", default=",".join(CASES), help="comma-separated cases (default: all)")
    p.add_argument("--variants", default=None,
                   help=f"comma-separated among {', '.join(VARIANTS)} (default: all; smoke: no inductor)")
    p.add_argument("--dtype", default=None, choices=("bfloat16", "float16", "float32"),
                   help="operand dtype (default bfloat16; float32 with --smoke)")
    p.add_argument("--smoke", action="store_true", help="tiny shapes on CPU (Triton interpreter)")
    p.add_argument("--keep-cache", action="store_true",
                   help="let auto use the configured tuning cache instead of an empty one")
    p.add_argument("--out", default="bench/results/", help="folder for the JSON result")
    p.add_argument("--json", action="store_true", help="print the JSON document instead of the table")
    a = p.parse_args(argv)

    cases = [c.strip() for c in a.cases.split(",") if c.strip()]
    unknown = [c for c in cases if c not in CASES]
    variants = [v.strip() for v in (a.variants or ",".join(
        v for v in VARIANTS if not (a.smoke and v == "inductor"))).split(",") if v.strip()]
    bad = [v for v in variants if v not in VARIANTS]
    if unknown or bad or not cases or not variants:
        p.error(f"unknown cases {unknown} (known: {', '.join(CASES)}) or variants {bad} "
                f"(known: {', '.join(VARIANTS)})" if unknown or bad else "no cases or variants")
    if a.smoke:
        os.environ.setdefault("TRITON_INTERPRET", "1")
    import torch
    device = torch.device("cpu" if a.smoke else "cuda")
    if device.type == "cuda" and not torch.cuda.is_available():
        p.error("no CUDA GPU here: run with --smoke on CPU")
    dtype = getattr(torch, a.dtype or ("float32" if a.smoke else "bfloat16"))

    from rich.progress import Progress
    rows = []
    with Progress(transient=True, disable=a.json) as bar:
        task = bar.add_task("pad_mm pass", total=len(cases) * len(variants))
        for c in cases:
            spec = CASES[c][2 if a.smoke else 1]
            for v in variants:
                bar.update(task, description=f"{c} / {v}")
                rows.append(run_variant(c, spec, v, dtype, device, a.smoke, a.keep_cache))
                bar.advance(task)

    doc = {"schema": 1, **environment(device), "dtype": str(dtype).removeprefix("torch."),
           "smoke": a.smoke, "cases": {c: CASES[c][0] for c in cases}, "results": rows}
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = out / f"pad_mm_pass_{'smoke_' if a.smoke else ''}{stamp}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    tmp.replace(path)
    if a.json:
        print(json.dumps(doc, indent=1))
    else:
        print(f"wrote {path}", file=sys.stderr)
        print(table(rows))
    return 0 if all(r.get("ok") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
