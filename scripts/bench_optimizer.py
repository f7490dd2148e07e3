#!/usr/bin/env python3
"""Optimizer steps: eager foreach, eager fused, stock torch.compile and ours, side by side.

For each parameter list (GPT-2 small's 148 tensors, ResNet-50's 161; fp32 or bf16) and each
optimizer (Adam, AdamW; foreach, capturable on CUDA), every variant gets its own copy of the
parameters, gradients and states; all variants are built first (a compiled variant's first
step is its compile, timed), then timed round-robin, three rounds, median kept (the lent GPUs
drift between calls). Per variant: ms per step, % of copy bandwidth (bytes the step must move
over the measured ~3.0 TB/s: Adam reads param, grad, exp_avg, exp_avg_sq and writes three of
them), kernels per step (torch.profiler, one step), compile seconds, and the largest
relative difference from eager foreach after the same two steps from the same state.

Variants: eager (foreach), fused (fused=True), stock (torch.compile of the step), tuner
(ours, default mode), tuner-round (ours, every bf16 op result rounded as eager does),
tuner-max-autotune (CUDA graphs), tuner-max-autotune-no-cudagraphs.

On the GPU machine:
    source scripts/device/env.sh && python3 scripts/bench_optimizer.py --out $OUT
    python3 scripts/bench_optimizer.py --params gpt2 --dtypes fp32 --optimizers adam
On CPU (tiny parameter list, Triton's interpreter):
    python3 scripts/bench_optimizer.py --smoke
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import time
from pathlib import Path

VARIANTS = ("eager", "fused", "stock", "tuner", "tuner-round", "tuner-max-autotune",
            "tuner-max-autotune-no-cudagraphs")
PARAMS = ("gpt2", "resnet50")
OPTIMIZERS = ("adam", "adamw")
DTYPES = ("fp32", "bf16")
LRS = ("float", "tensor")
COPY_TBPS = 3.0     # H100 device-to-device copy, bytes read + written (../shared/GPU.md)


def param_shapes(name, smoke):
    import torch
    if smoke:
        return [(8, 4), (16,), (3, 5, 2), (1,), (7, 7), (32,)]
    if name == "gpt2":
        import transformers
        m = transformers.GPT2LMHeadModel(transformers.GPT2Config())
    else:
        try:
            import torchvision
            m = torchvision.models.resnet50(weights=None)
        except Exception:
            import timm
            m = timm.create_model("resnet50", pretrained=False)
    shapes = [tuple(p.shape) for p in m.parameters()]
    del m
    torch.cuda.empty_cache() if torch.cuda.is_available() else None
    return shapes


def make_state(shapes, dtype, device, seed):
    import torch
    g = torch.Generator(device=device).manual_seed(seed)
    ps = [torch.randn(s, generator=g, device=device, dtype=dtype).requires_grad_() for s in shapes]
    for p in ps:
        p.grad = torch.randn(p.shape, generator=g, device=device, dtype=dtype) * 1e-2
    return ps


def build(variant, opt_name, ps, device, lr="float"):
    import torch
    cls = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[opt_name]
    # a tensor rate (what a scheduler changes without recompiling) needs capturable foreach
    rate = torch.tensor(1e-3, device=device) if lr == "tensor" and device == "cuda" else 1e-3
    kw = dict(lr=rate, weight_decay=0.01 if opt_name == "adamw" else 0.0)
    if variant == "fused":
        kw["fused"] = True
    else:
        kw["foreach"] = True
        kw["capturable"] = device == "cuda"
    opt = cls(ps, **kw)
    if variant in ("eager", "fused"):
        return opt, opt.step
    if variant == "stock":
        return opt, torch.compile(opt.step)
    mode = variant.partition("-")[2] or None
    options = None
    if variant == "tuner-round":     # default mode, every bf16 op result rounded as eager does
        mode, options = None, {"round_intermediates": True}
    from tuner.compiler.backend import tuner_backend

    def backend(gm, inputs):   # ours, with its time (AOTAutograd + our compile) recorded
        t = time.perf_counter()
        try:
            return tuner_backend(gm, inputs, mode=mode, options=options)
        finally:
            BACKEND_S[0] += time.perf_counter() - t
    return opt, torch.compile(opt.step, backend=backend)


BACKEND_S = [0.0]


def sync(device):
    import torch
    if device == "cuda":
        torch.cuda.synchronize()


def time_steps(step, device, n):
    import torch
    if device == "cuda":
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(n):
            step()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / n
    t = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t) * 1e3 / n


def kernels_per_step(step, device):
    import torch
    from torch.profiler import ProfilerActivity, profile
    if device != "cuda":
        return None
    sync(device)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        sync(device)
    names = [e.name for e in prof.events() if e.device_type.name == "CUDA"]
    return len([n for n in names if "memcpy" not in n.lower() and "memset" not in n.lower()])


def run_case(params, dtype_name, opt_name, variants, smoke, device, lr="float"):
    import torch
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[dtype_name]
    shapes = param_shapes(params, smoke)
    numel = sum(torch.Size(s).numel() for s in shapes)
    item = torch.tensor([], dtype=dtype).element_size()
    nbytes = numel * item * 7          # read p, g, m, v; write p, m, v
    built, rows = {}, {}
    # the reference: eager foreach, two steps from the same state every variant starts from
    ref_ps = make_state(shapes, dtype, device, seed=0)
    _, ref_step = build("eager", opt_name, ref_ps, device)
    ref_step()
    ref_step()
    ref = [r.detach().clone() for r in ref_ps]
    del ref_ps, ref_step
    # one reset per case, none between variants: a reset drops the variants built before it,
    # whose first timed round then recompiled (~0.6 s per step in the round); each variant's
    # step is its own optimizer instance and backend, which dynamo's guards tell apart
    torch._dynamo.reset()
    for v in variants:
        ps = make_state(shapes, dtype, device, seed=0)
        row = {"variant": v}
        try:
            opt, step = build(v, opt_name, ps, device, lr)
            sync(device)
            BACKEND_S[0] = 0.0
            if v.startswith("tuner"):
                from tuner.compiler import stats
                stats.reset()
            t = time.perf_counter()
            step()
            sync(device)
            row["first_step_s"] = time.perf_counter() - t
            if v.startswith("tuner"):
                # where the first step went: AOTAutograd + ours (backend_s), ours alone
                # (lowering/fusion/codegen), Triton compiling the kernels, tuning; the rest
                # of first_step_s is dynamo tracing the step
                tot = stats.totals()
                row.update(backend_s=BACKEND_S[0], compile_s=tot.compile_seconds,
                           jit_s=tot.jit_seconds, tuning_s=tot.tuning_seconds,
                           kernels_compiled=tot.kernels)
            step()   # a second step: CUDA graphs record on it
            sync(device)
            row["max_rel_err"] = max(((q.float() - r.float()).abs().max() /
                                      r.float().abs().max().clamp_min(1e-12)).item()
                                     for q, r in zip(ps, ref))
            built[v] = (ps, opt, step)
            row["kernels_per_step"] = kernels_per_step(step, device)
            t = time.perf_counter()   # steps after the profiled one (checks no recompile)
            for _ in range(2):
                step()
            sync(device)
            row["after_profile_s"] = time.perf_counter() - t
        except Exception as e:
            row["error"] = f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:300]}"
        rows[v] = row
        print(json.dumps({"params": params, "dtype": dtype_name, "opt": opt_name, "lr": lr, **row}),
              flush=True)
    n = 3 if smoke else 20
    for _ in range(3):                 # round-robin: every variant once per round
        for v, (_, _, step) in built.items():
            rows[v].setdefault("ms_rounds", []).append(time_steps(step, device, n))
    for v in built:
        ms = statistics.median(rows[v]["ms_rounds"])
        rows[v]["ms"] = ms
        rows[v]["pct_copy"] = 100 * nbytes / (ms * 1e-3) / (COPY_TBPS * 1e12) if device == "cuda" else None
    return {"params": params, "dtype": dtype_name, "optimizer": opt_name, "lr": lr, "numel": numel,
            "tensors": len(shapes), "bytes_per_step": nbytes, "variants": list(rows.values())}


def main(argv=None):
    desc, _, ex = __doc__.partition("On the GPU machine:")
    p = argparse.ArgumentParser(description=desc, epilog="examples, on the GPU machine:" + ex,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--params", default=",".join(PARAMS), help=f"comma-separated, of {', '.join(PARAMS)}")
    p.add_argument("--dtypes", default="fp32,bf16", help=f"comma-separated, of {', '.join(DTYPES)}")
    p.add_argument("--optimizers", default=",".join(OPTIMIZERS), help=f"comma-separated, of {', '.join(OPTIMIZERS)}")
    p.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, of {', '.join(VARIANTS)}")
    p.add_argument("--lrs", default="float", help=f"comma-separated, of {', '.join(LRS)}: the learning "
                   "rate a float or a 0-d tensor on the device (capturable steps)")
    p.add_argument("--smoke", action="store_true", help="tiny parameter list on CPU (Triton interpreter)")
    p.add_argument("--out", default="bench/results/optimizer", help="folder for the JSON result")
    a = p.parse_args(argv)
    sel = {}
    for name, valid in (("params", PARAMS), ("dtypes", DTYPES), ("optimizers", OPTIMIZERS),
                        ("variants", VARIANTS), ("lrs", LRS)):
        sel[name] = [x.strip() for x in getattr(a, name).split(",") if x.strip()]
        bad = [x for x in sel[name] if x not in valid]
        if bad:
            p.error(f"--{name}: unknown {', '.join(bad)}; valid: {', '.join(valid)}")
    if a.smoke:
        os.environ.setdefault("TRITON_INTERPRET", "1")
        sel["params"], sel["dtypes"] = sel["params"][:1], ["fp32"]
        sel["variants"] = [v for v in sel["variants"] if v in ("eager", "tuner")]
    import torch
    device = "cuda" if torch.cuda.is_available() and not a.smoke else "cpu"
    sys.path.insert(0, str(Path(__file__).resolve().parent))   # run with python3 -P too
    from _results_doc import new_document
    doc, path = new_document("optimizer", argv, device, a.out)
    for params in sel["params"]:
        for dt in sel["dtypes"]:
            for opt in sel["optimizers"]:
                for lr in sel["lrs"]:
                    doc["cases"].append(run_case(params, dt, opt, sel["variants"], a.smoke, device, lr))
                    path.write_text(json.dumps(doc, indent=1))
    print(f"{'case':30} {'variant':34} {'ms':>8} {'%copy':>6} {'kernels':>7} {'first s':>8} {'rel err':>8}")
    for c in doc["cases"]:
        for r in c["variants"]:
            ms = f"{r['ms']:8.3f}" if "ms" in r else "   error"
            pct = f"{r['pct_copy']:6.1f}" if r.get("pct_copy") else "     -"
            k = r.get("kernels_per_step")
            case = f"{c['params']} {c['dtype']} {c['optimizer']} lr:{c.get('lr', 'float')}"
            print(f"{case:30} {r['variant']:34} {ms} {pct} "
                  f"{k if k is not None else '-':>7} {r.get('first_step_s', float('nan')):8.1f} "
                  f"{r.get('max_rel_err', float('nan')):8.1e}"
                  + (f"  {r['error']}" if "error" in r else ""))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
