#!/usr/bin/env python3
"""Varying input shapes: one compiled model called at several batch sizes and sequence lengths.

Per model and variant (each in its own subprocess, fresh caches), the model is compiled once
and called at every shape in turn (a batch sweep at one sequence length, then a sequence sweep
at one batch size). Per shape: the first call's seconds (a compile where one happens), the
frames dynamo compiled so far (recompiles), outputs vs eager bf16 on the same input, and the
median ms per call (wall, host included) and, on CUDA, the GPU time of a call (the
benchmarker's run-ahead: host launch speed drops out). Variants:
  tuner          backend="tuner", automatic dynamic (dynamo recompiles once with symbolic
                 sizes; our backend then compiles per concrete shape)
  tuner-static   backend="tuner", dynamic=False: dynamo recompiles for every shape (the
                 static-shape speed the dynamic variant must match within 5%)
  inductor-dynamic  stock torch.compile with dynamic=True
  inductor       stock torch.compile, automatic dynamic
Writes JSON under --out after every variant and prints a table last.

--serving N (a server's traffic): per model and variant, one compiled model called once at each
of N distinct (batch, sequence) pairs in a fixed pseudo-random order (batch 1-16, sequence
16-512); per variant the total first-call seconds (compiles included), the kernels generated
(ours: kernels in the compiled graphs; stock: Triton kernels it generated), and afterwards the
median ms per call at 8 of those shapes (GPU time on CUDA), every output checked against eager.

--paired (the "within 5% of static shapes" check): per model, in one process, ours with
automatic dynamic and ours with dynamic=False (each its own model copy and counting
backend) are called at every shape; per shape both are timed round-robin, --rounds rounds (5) of
GPU time (wall time on CPU), median each, and the row gives dynamic / static. Separate
processes could not compare: the GPUs drift 20-50% between calls, and HF models sync with
the host inside a call.

On the GPU machine:
    source scripts/device/env.sh && python3 scripts/bench_dynamic.py --out $OUT
    python3 scripts/bench_dynamic.py --paired --models gpt2,bert --out $OUT
    python3 scripts/bench_dynamic.py --serving 50 --models gpt2 --variants tuner,inductor-dynamic --out $OUT
On CPU (tiny models, Triton's interpreter):
    python3 scripts/bench_dynamic.py --smoke --variants tuner,tuner-static
    python3 scripts/bench_dynamic.py --smoke --paired --models bert
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VARIANTS = ("tuner", "tuner-static", "inductor-dynamic", "inductor")
MODELS = ("gpt2", "bert")
BATCHES, SEQS = (1, 3, 8, 17), (128, 200, 512)
SMOKE_BATCHES, SMOKE_SEQS = (1, 3), (8, 13)


def shapes(smoke):
    b, s = (SMOKE_BATCHES, SMOKE_SEQS) if smoke else (BATCHES, SEQS)
    out = [(x, s[0]) for x in b] + [(b[-2], y) for y in s[1:]]
    return list(dict.fromkeys(out))


def build(model, smoke):
    """bench_compiler.py's GPT-2 small (default settings) or BERT-base, tiny with --smoke."""
    import torch
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_compiler as bc
    torch.manual_seed(0)
    m = (bc._gpt2_defaults if model == "gpt2" else bc._bert)(smoke)
    return m.eval(), m.config.vocab_size


def _first(out):
    import bench_compiler as bc    # (build put it on the path)
    return bc._first_tensor(out)


def _median_ms(fn, device, reps):
    import torch
    times = []
    for _ in range(reps):
        if device == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        if device == "cuda":
            torch.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def _timed_call(cm, x, device):
    """(cm(x)'s first tensor, seconds of the call: a compile where one happens)."""
    import torch
    if device == "cuda":
        torch.cuda.synchronize()
    t = time.perf_counter()
    out = _first(cm(x))
    if device == "cuda":
        torch.cuda.synchronize()
    return out, time.perf_counter() - t


def compiled_model(model_name, variant, smoke):
    """(device, eager model, vocab, the variant's compiled model, its dynamo frame count: a
    one-item list)."""
    import torch
    device = "cuda" if torch.cuda.is_available() and not smoke else "cpu"
    m, vocab = build(model_name, smoke)
    m = m.to(device=device, dtype=torch.bfloat16 if device == "cuda" else torch.float32)
    frames = [0]

    def counting(gm, example_inputs):
        frames[0] += 1
        if variant.startswith("tuner"):
            from tuner.compiler.backend import tuner_backend
            return tuner_backend(gm, example_inputs)
        from torch._inductor.compile_fx import compile_fx
        return compile_fx(gm, example_inputs)

    dynamic = {"tuner-static": False, "inductor-dynamic": True}.get(variant)
    return device, m, vocab, torch.compile(m, backend=counting, dynamic=dynamic), frames


def worker(model_name, variant, smoke):
    import torch
    device, m, vocab, cm, frames = compiled_model(model_name, variant, smoke)
    rows = []
    for b, s in shapes(smoke):
        g = torch.Generator(device=device).manual_seed(b * 1000 + s)
        x = torch.randint(0, vocab, (b, s), generator=g, device=device)
        row = {"batch": b, "seq": s}
        try:
            with torch.no_grad():
                out, row["first_call_s"] = _timed_call(cm, x, device)
                ref = _first(m(x))
                err = ((out.float() - ref.float()).abs().max() / ref.float().abs().max().clamp_min(1e-6)).item()
                row["rel_err_vs_eager"] = err
                row["ok"] = err < 5e-2
                row["ms"] = _median_ms(lambda: cm(x), device, 3 if smoke else 30)
                row["eager_ms"] = _median_ms(lambda: m(x), device, 3 if smoke else 30)
                if device == "cuda":
                    # GPU time: the benchmarker queues every timed run before the GPU starts
                    # them, so the host's launch speed (noisy, 20-50% between calls) drops out
                    from tuner.bench import benchmark
                    row["gpu_ms"] = benchmark(lambda: cm(x), device="cuda", warmup=3, reps=20)
        except Exception as e:
            row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
        row["frames"] = frames[0]
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def serving_shapes(n, smoke):
    """n distinct (batch, sequence) pairs in a fixed pseudo-random order."""
    import random
    rng = random.Random(0)
    bmax, smin, smax = (4, 4, 32) if smoke else (16, 16, 512)
    out = []
    while len(out) < min(n, bmax * (smax - smin + 1)):
        pair = (rng.randint(1, bmax), rng.randint(smin, smax))
        if pair not in out:
            out.append(pair)
    return out


def serving(model_name, variant, smoke, n):
    """One compiled model called once at each of n shapes, then timed at 8 of them."""
    import torch
    for name in ("cache_size_limit", "recompile_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, 64)
    device, m, vocab, cm, frames = compiled_model(model_name, variant, smoke)
    ours = variant.startswith("tuner")

    def kernels():
        if ours:
            from tuner.compiler import stats
            return stats.totals().kernels
        from torch._inductor import metrics
        return metrics.generated_kernel_count

    pairs = serving_shapes(n, smoke)
    inputs = {}
    res = {"shapes": len(pairs), "first_call_s": [], "bad": [], "errors": []}
    for b, s in pairs:
        g = torch.Generator(device=device).manual_seed(b * 1000 + s)
        x = inputs[(b, s)] = torch.randint(0, vocab, (b, s), generator=g, device=device)
        try:
            with torch.no_grad():
                out, seconds = _timed_call(cm, x, device)
                res["first_call_s"].append(seconds)
                ref = _first(m(x)).float()
                err = ((out.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-6)).item()
                if not err < 5e-2:
                    res["bad"].append([b, s, err])
        except Exception as e:
            res["errors"].append([b, s, f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"])
        print(json.dumps({"batch": b, "seq": s, "first_call_s": res["first_call_s"][-1:],
                          "frames": frames[0]}), flush=True)
    res["total_first_call_s"] = sum(res["first_call_s"])
    res["frames"], res["kernels"] = frames[0], kernels()
    res["steady_ms"] = {}
    with torch.no_grad():
        for b, s in pairs[::max(1, len(pairs) // 8)][:8]:
            x = inputs[(b, s)]
            if device == "cuda":
                from tuner.bench import benchmark
                ms = benchmark(lambda: cm(x), device="cuda", warmup=3, reps=20)
            else:
                ms = _median_ms(lambda: cm(x), device, 3)
            res["steady_ms"][f"{b}x{s}"] = ms
    res["frames_after_steady"] = frames[0]
    return res


def paired(model_name, smoke, rounds=5):
    """Ours dynamic vs ours static at every shape, in this process, timed interleaved."""
    import copy

    import torch
    from tuner.compiler.backend import tuner_backend
    device = "cuda" if torch.cuda.is_available() and not smoke else "cpu"
    base, vocab = build(model_name, smoke)
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    base = base.to(device=device, dtype=dtype)
    # one frame per shape for the static side, plus the dynamic side's: past the default
    # limit dynamo would run the model eagerly
    for name in ("cache_size_limit", "recompile_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, 64)
    frames = {"dynamic": 0, "static": 0}

    def counting(kind):
        def backend(gm, example_inputs):
            frames[kind] += 1
            return tuner_backend(gm, example_inputs)
        return backend
    models = {"dynamic": copy.deepcopy(base), "static": copy.deepcopy(base)}
    compiled = {"dynamic": torch.compile(models["dynamic"], backend=counting("dynamic")),
                "static": torch.compile(models["static"], backend=counting("static"), dynamic=False)}

    def timed(fn):
        if device == "cuda":
            from tuner.bench import benchmark
            return benchmark(fn, device="cuda", warmup=3, reps=20)
        return _median_ms(fn, device, 3)
    rows = []
    for b, s in shapes(smoke):
        g = torch.Generator(device=device).manual_seed(b * 1000 + s)
        x = torch.randint(0, vocab, (b, s), generator=g, device=device)
        row = {"batch": b, "seq": s}
        try:
            with torch.no_grad():
                ref = _first(base(x)).float()
                for kind, cm in compiled.items():
                    t = time.perf_counter()
                    out = _first(cm(x)).float()
                    if device == "cuda":
                        torch.cuda.synchronize()
                    row[f"{kind}_first_call_s"] = time.perf_counter() - t
                    row[f"{kind}_rel_err"] = ((out - ref).abs().max() / ref.abs().max().clamp_min(1e-6)).item()
                times = {k: [] for k in compiled}
                walls = {k: [] for k in compiled}
                for _ in range(rounds):
                    for kind, cm in compiled.items():
                        times[kind].append(timed(lambda: cm(x)))
                        # wall time per call, host included (what a caller waits for): the
                        # dynamic side's guards and shape dispatch are host work
                        walls[kind].append(_median_ms(lambda: cm(x), device, 10))
            for kind in compiled:
                row[f"{kind}_ms_rounds"] = times[kind]
                row[f"{kind}_ms"] = statistics.median(times[kind])
                row[f"{kind}_wall_ms_rounds"] = walls[kind]
                row[f"{kind}_wall_ms"] = statistics.median(walls[kind])
            row["dynamic_over_static"] = row["dynamic_ms"] / row["static_ms"]
            row["dynamic_over_static_wall"] = row["dynamic_wall_ms"] / row["static_wall_ms"]
            row["ok"] = max(row["dynamic_rel_err"], row["static_rel_err"]) < 5e-2
        except Exception as e:
            row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
        row["frames_dynamic"], row["frames_static"] = frames["dynamic"], frames["static"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main(argv=None):
    desc, _, ex = __doc__.partition("On the GPU machine:")
    p = argparse.ArgumentParser(description=desc, epilog="examples, on the GPU machine:" + ex,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default=",".join(MODELS), help=f"comma-separated, of {', '.join(MODELS)}")
    p.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, of {', '.join(VARIANTS)}")
    p.add_argument("--smoke", action="store_true", help="tiny models on CPU (Triton interpreter)")
    p.add_argument("--out", default="bench/results/dynamic", help="folder for the JSON result")
    p.add_argument("--timeout-s", type=float, default=900, help="per (model, variant) subprocess")
    p.add_argument("--paired", action="store_true",
                   help="ours dynamic vs ours static in one process, interleaved per shape "
                        "(--variants is ignored)")
    p.add_argument("--rounds", type=int, default=5,
                   help="--paired: interleaved timing rounds per shape (median; default 5)")
    p.add_argument("--serving", type=int, default=0, metavar="N",
                   help="call each model once at N distinct (batch, sequence) pairs: total "
                        "first-call seconds, kernels generated, then steady ms at 8 of them")
    p.add_argument("--worker", nargs=2, metavar=("MODEL", "VARIANT"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        if a.serving:
            rows = serving(a.worker[0], a.worker[1], a.smoke, a.serving)
        elif a.worker[1] == "paired":
            rows = paired(a.worker[0], a.smoke, a.rounds)
        else:
            rows = worker(a.worker[0], a.worker[1], a.smoke)
        print("RESULT " + json.dumps(rows), flush=True)
        return 0
    models = [m.strip() for m in a.models.split(",") if m.strip()]
    variants = [v.strip() for v in a.variants.split(",") if v.strip()]
    bad = [m for m in models if m not in MODELS] + [v for v in variants if v not in VARIANTS]
    if a.paired:
        variants = ["paired"]
    if a.serving < 0 or (a.serving and a.paired):
        p.error(f"--serving takes a positive count and not --paired, got {a.serving}")
    if a.rounds < 1:
        p.error(f"--rounds must be >= 1, got {a.rounds}")
    if bad:
        p.error(f"unknown model or variant {', '.join(bad)}; models: {', '.join(MODELS)}; "
                f"variants: {', '.join(VARIANTS)}")
    import torch
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _results_doc import cold_cache_env, new_document
    doc, path = new_document("dynamic", argv, "cuda" if torch.cuda.is_available() else "cpu", a.out)
    del doc["cases"]
    doc.update(shapes=serving_shapes(a.serving, a.smoke) if a.serving else shapes(a.smoke), results=[])
    for model in models:
        for variant in variants:
            with tempfile.TemporaryDirectory() as tmp:   # fresh compiler caches per variant
                env = cold_cache_env(tmp, a.smoke)
                cmd = [sys.executable, __file__, "--worker", model, variant, "--rounds", str(a.rounds),
                       "--serving", str(a.serving)] + (["--smoke"] if a.smoke else [])
                print(f"== {model} {variant}", file=sys.stderr, flush=True)
                try:
                    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=a.timeout_s)
                    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
                    rows = json.loads(lines[-1][7:]) if lines else []
                    err = None if lines else (r.stderr.strip().splitlines() or ["no output"])[-1][:300]
                except subprocess.TimeoutExpired:
                    rows, err = [], f"timed out after {a.timeout_s:.0f} s"
            doc["results"].append({"model": model, "variant": variant, "rows": rows, "error": err})
            path.write_text(json.dumps(doc, indent=1))
    print(table(doc))
    print(f"wrote {path}")
    return 0


def table(doc):
    if doc["results"] and isinstance(doc["results"][0]["rows"], dict):   # --serving
        lines = [f"{'model':6} {'variant':17} {'shapes':>6} {'compile s':>9} {'kernels':>7} {'frames':>6} "
                 f"{'steady ms (median of 8 shapes)':>30}"]
        for r in doc["results"]:
            row = r["rows"]
            if not row:
                lines.append(f"{r['model']:6} {r['variant']:17} error: {r['error']}")
                continue
            steady = statistics.median(row["steady_ms"].values()) if row["steady_ms"] else float("nan")
            lines.append(f"{r['model']:6} {r['variant']:17} {row['shapes']:6} {row['total_first_call_s']:9.1f} "
                         f"{row['kernels']:7} {row['frames']:6} {steady:30.3f}"
                         + (f"  {len(row['bad'])} differ from eager" if row["bad"] else "")
                         + (f"  {len(row['errors'])} errors" if row["errors"] else ""))
        lines.append("compile s: the first calls' seconds summed; kernels: ours in compiled graphs, stock "
                     "Triton kernels generated")
        return "\n".join(lines)
    if doc["results"] and doc["results"][0]["variant"] == "paired":
        lines = [f"{'model':6} {'shape':>8} {'dynamic ms':>11} {'static ms':>10} {'dyn/static':>10} "
                 f"{'wall dyn/st':>11} frames"]
        for r in doc["results"]:
            for row in r["rows"]:
                shape = f"{row['batch']}x{row['seq']}"
                if "dynamic_ms" in row:
                    lines.append(f"{r['model']:6} {shape:>8} {row['dynamic_ms']:11.3f} {row['static_ms']:10.3f} "
                                 f"{row['dynamic_over_static']:10.3f} "
                                 f"{row.get('dynamic_over_static_wall', float('nan')):11.3f} "
                                 f"{row['frames_dynamic']}/{row['frames_static']}"
                                 + ("" if row.get("ok") else "  differs from eager"))
                else:
                    lines.append(f"{r['model']:6} {shape:>8} error: {row.get('error', '')}")
            if r["error"]:
                lines.append(f"{r['model']:6} {r['error']}")
        lines.append("median of interleaved rounds (GPU time on CUDA; wall: per-call time, host "
                     "included); frames: dynamo compiles so far, dynamic/static")
        return "\n".join(lines)
    lines = [f"{'model':6} {'variant':17} {'frames':>6} " + " ".join(f"{b}x{s:<8}" for b, s in doc["shapes"])]
    for r in doc["results"]:
        cells = []
        for row in r["rows"]:
            if "ms" in row:
                ms = row.get("gpu_ms", row["ms"])
                cells.append(f"{ms:7.2f}{'' if row.get('ok') else '!'}")
            else:
                cells.append("  error ")
        frames = r["rows"][-1]["frames"] if r["rows"] else "-"
        lines.append(f"{r['model']:6} {r['variant']:17} {frames:>6} " + " ".join(f"{c:<10}" for c in cells)
                     + (f"  {r['error']}" if r["error"] else ""))
    lines.append("ms per call (median; GPU time on CUDA, wall time elsewhere); '!' output differs from "
                 "eager; frames: dynamo compiles")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
