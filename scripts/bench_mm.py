#!/usr/bin/env python3
"""Matmul suite: real-model matmuls with their epilogues, every variant side by side.

Cases (bf16 unless named): GPT-2/BERT/LLaMA projections, MLP up with GELU and down with a
residual, SwiGLU's gate, attention bmm, odd sizes (4095x4097x4093, 8192x1023x1024), skinny
decode shapes (m = 1..64), batch 1..64, and weight gradients (x^T @ grad: small outputs over
a long K). Variants:
  eager                      the function as written
  stock                      torch.compile, default mode
  stock-max-autotune         torch.compile(mode="max-autotune-no-cudagraphs")
  tuner                      ours, default mode (matmul as an ATen call + a fused epilogue kernel)
  tuner-template             ours, options={"mm": "template"} (the template's default config)
  tuner-template-max-autotune  ours, TUNER_MM=template, max-autotune-no-cudagraphs (tuned)
  tuner-max-autotune         ours, TUNER_MM=auto, max-autotune-no-cudagraphs: the mm point
                             measures ATen + epilogue against the tuned template per problem
  tuner-max-autotune-padded  as tuner-max-autotune with TUNER_MM_PADDED=measure: where the pad_mm
                             point pads, the mm point also times the template against the padded ATen call
Per case every variant is compiled first (compile seconds recorded), checked against an fp32
reference on fresh inputs, then all are timed round-robin, three rounds, median of the
medians (the GPU's clocks drift between calls: only variants of one run compare), by
default as the GPU time of the call replayed in a CUDA graph (--timer wall: per-call time
with the host's launch overhead, which dominated the small cases before). Prints
ms and TFLOP/s per variant and the best of ours over the best stock; JSON under --out.

On the GPU machine:
    source scripts/device/env.sh && python3 scripts/bench_mm.py --out $OUT
    python3 scripts/bench_mm.py --cases gpt2_qkv,odd_4095 --variants tuner,tuner-template,stock
On CPU (tiny shapes, Triton's interpreter):
    python3 scripts/bench_mm.py --smoke
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import statistics
import sys
import time
from pathlib import Path

VARIANTS = ("eager", "stock", "stock-max-autotune", "tuner", "tuner-template",
            "tuner-template-max-autotune", "tuner-max-autotune", "tuner-max-autotune-padded")


def _linear(act):
    import torch.nn.functional as F

    def fn(x, w, b):
        y = F.linear(x, w, b)
        return {"gelu": F.gelu, "none": lambda t: t, "relu": F.relu}[act](y)
    return fn


def _residual(x, w, r):
    import torch.nn.functional as F
    return F.linear(x, w) + r


def _swiglu(x, wg, wu):
    import torch.nn.functional as F
    return F.silu(F.linear(x, wg)) * F.linear(x, wu)


def _bmm_scale(q, k):
    return (q @ k) * 0.125


def _weight_grad(x, g):
    # a linear layer's weight gradient as the backward computes it: x^T @ grad over the tokens
    return x.t() @ g


# name: (fn, shapes of the inputs (weights as (n, k) for F.linear), description)
def cases():
    return {
        "gpt2_qkv": (_linear("none"), [(4096, 768), (2304, 768), (2304,)], "GPT-2 qkv, b8 s512"),
        "gpt2_mlp_up": (_linear("gelu"), [(4096, 768), (3072, 768), (3072,)], "GPT-2 MLP up + GELU"),
        "gpt2_mlp_down": (_residual, [(4096, 3072), (768, 3072), (4096, 768)], "GPT-2 MLP down + residual"),
        "bert_out": (_linear("none"), [(4096, 768), (768, 768), (768,)], "BERT attention out"),
        "llama_qkv": (_linear("none"), [(2048, 4096), (12288, 4096), (12288,)], "LLaMA-7B qkv, s2048"),
        "llama_swiglu": (_swiglu, [(2048, 4096), (11008, 4096), (11008, 4096)], "LLaMA SwiGLU gate/up"),
        "llama_down": (_residual, [(2048, 11008), (4096, 11008), (2048, 4096)], "LLaMA down + residual"),
        "attn_qk": (_bmm_scale, [(96, 512, 64), (96, 64, 512)], "attention q@k^T, 96 heads x 512"),
        "attn_pv": (lambda p, v: p @ v, [(96, 512, 512), (96, 512, 64)], "attention p@v"),
        "odd_4095": (_linear("gelu"), [(4095, 4093), (4097, 4093), (4097,)], "4095x4097x4093 + GELU"),
        "odd_8192x1023": (_linear("gelu"), [(8192, 1024), (1023, 1024), (1023,)], "8192x1023x1024 + GELU"),
        "decode_m1": (_linear("none"), [(1, 4096), (4096, 4096), (4096,)], "decode m=1"),
        "decode_m16": (_linear("relu"), [(16, 4096), (11008, 4096), (11008,)], "decode m=16 + ReLU"),
        "decode_m64": (_linear("gelu"), [(64, 768), (3072, 768), (3072,)], "decode m=64 + GELU"),
        "batch1_proj": (_linear("none"), [(128, 1024), (1024, 1024), (1024,)], "batch 1 seq 128"),
        "batch64_proj": (_linear("gelu"), [(8192, 1024), (4096, 1024), (4096,)], "batch 64 seq 128 + GELU"),
        "square_4096": (_linear("gelu"), [(4096, 4096), (4096, 4096), (4096,)], "4096^3 + bias + GELU"),
        # small outputs over a long K (the split-K variant's case): GPT-2's weight gradients, b8 s512
        "wgrad_768": (_weight_grad, [(4096, 768), (4096, 768)], "weight grad 768x768 over 4096 tokens"),
        "wgrad_mlp": (_weight_grad, [(4096, 768), (4096, 3072)], "weight grad 768x3072 over 4096 tokens"),
        # a LoRA adapter's weight gradient (rank 16, LLaMA width, b8 s4096): 4096 x 16 output tiles
        # are far fewer than the SMs, over 32768 tokens
        "wgrad_lora": (_weight_grad, [(32768, 4096), (32768, 16)], "LoRA weight grad 4096x16 over 32768 tokens"),
    }


def _flops(name, shapes):
    if name.startswith("wgrad"):
        (k, m), (_, n) = shapes
        return 2 * m * n * k
    if name.startswith("attn"):
        b, m, k = shapes[0]
        return 2 * b * m * k * shapes[1][-1]
    m, k = shapes[0]
    n = shapes[1][0]
    return 2 * m * n * k * (2 if name == "llama_swiglu" else 1)


def _compile(fn, variant):
    import torch
    if variant == "eager":
        return fn
    if variant == "stock":
        return torch.compile(fn)
    if variant == "stock-max-autotune":
        return torch.compile(fn, mode="max-autotune-no-cudagraphs")
    if variant == "tuner":
        return torch.compile(fn, backend="tuner", options={"mm": "extern"})
    if variant == "tuner-template":
        return torch.compile(fn, backend="tuner", options={"mm": "template"})
    # a mode and options cannot both be given: the setting carries the matmul mode
    os.environ["TUNER_MM"] = "template" if variant == "tuner-template-max-autotune" else "auto"
    if variant == "tuner-max-autotune-padded":
        os.environ["TUNER_MM_PADDED"] = "measure"
    # a backend object of its own: dynamo keeps compiled code per (backend, mode), so two
    # max-autotune variants through "tuner" would share the first one's code
    from tuner.compiler.backend import tuner_backend
    return torch.compile(fn, backend=functools.partial(tuner_backend), mode="max-autotune-no-cudagraphs")


def _inputs(shapes, device, dtype, seed):
    import torch
    g = torch.Generator(device=device).manual_seed(seed)
    # scaled so that outputs stay O(1) in bf16
    return [torch.randn(s, generator=g, device=device, dtype=torch.float32).div_(s[-1] ** 0.25).to(dtype)
            for s in shapes]


def _ms(fn, args, device, smoke, timer="cudagraph"):
    """ms per call. On CUDA, "cudagraph" replays the call captured in a CUDA graph (GPU time:
    the compiled wrappers' host overhead, which differs between ours and stock and dominated
    the small cases, drops out; a call that cannot be captured falls back to "wall"), "wall"
    times each call with CUDA events, host launch included."""
    import torch
    if device != "cuda":
        t = time.perf_counter()
        for _ in range(2):
            fn(*args)
        return (time.perf_counter() - t) * 500, "perf-counter"
    from triton.testing import do_bench, do_bench_cudagraph
    if timer == "cudagraph":
        try:
            return do_bench_cudagraph(lambda: fn(*args), rep=100), "cudagraph"
        except Exception:   # noqa: BLE001 - not capturable: time it per call
            torch.cuda.synchronize()
    return do_bench(lambda: fn(*args), warmup=25, rep=100), "wall"


@contextlib.contextmanager
def variant_settings():
    """A block compiling one variant: the settings `_compile` sets for it (TUNER_MM,
    TUNER_MM_PADDED, TUNER_COMPILE_OPTIONS) are cleared before and restored after."""
    user_options = os.environ.get("TUNER_COMPILE_OPTIONS")
    os.environ.pop("TUNER_MM", None)
    os.environ.pop("TUNER_MM_PADDED", None)
    try:
        yield
    finally:
        os.environ.pop("TUNER_MM", None)
        os.environ.pop("TUNER_MM_PADDED", None)
        if user_options is None:
            os.environ.pop("TUNER_COMPILE_OPTIONS", None)
        else:
            os.environ["TUNER_COMPILE_OPTIONS"] = user_options


def run_case(name, variants, smoke, device, timer="cudagraph"):
    import torch
    fn, shapes, desc = cases()[name]
    if smoke:
        shapes = [tuple(max(1, min(d, 48 if i == len(s) - 1 else 40)) for i, d in enumerate(s))
                  for s in shapes]
        shapes = _consistent(name, shapes)
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    x0, x1 = _inputs(shapes, device, dtype, 0), _inputs(shapes, device, dtype, 1)
    ref = fn(*[t.float() for t in x1])
    rows = {}
    # one reset per case, none between variants (a reset drops the variants compiled before
    # it, which would recompile inside their first timing); dynamo's backend guard keeps
    # each variant's compiled code apart
    torch._dynamo.reset()
    # every variant is a cache entry of the case's code: past dynamo's limit the rest would
    # run eager under a compiled variant's name
    torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, len(variants) + 1)
    for v in variants:
        row = {"variant": v}
        with variant_settings():
            try:
                f = _compile(fn, v)
                if v.startswith("tuner"):
                    from tuner.compiler import stats
                    stats.reset()
                t = time.perf_counter()
                f(*x0)
                if device == "cuda":
                    torch.cuda.synchronize()
                row["compile_s"] = time.perf_counter() - t
                if v.startswith("tuner"):   # what the mm point chose (mm="auto" only), the kernels
                    row["mm_backend"] = dict(stats.totals().mm_backend)
                    row["kernel_kinds"] = list(stats.last().kernel_kinds)
                out = f(*x1)
                err = ((out.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-6)).item()
                row["rel_err"] = err
                row["ok"] = err < (5e-2 if dtype == torch.bfloat16 else 1e-3)
                rows[v] = (row, f)
            except Exception as e:
                row["error"] = f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:300]}"
                rows[v] = (row, None)
    for _ in range(3):
        for v, (row, f) in rows.items():
            if f is not None and row.get("ok"):
                ms, row["timer"] = _ms(f, x0, device, smoke, timer)
                row.setdefault("ms_rounds", []).append(ms)
    flops = _flops(name, shapes)
    out = []
    for v, (row, _) in rows.items():
        if row.get("ms_rounds"):
            row["ms"] = statistics.median(row["ms_rounds"])
            row["tflops"] = flops / (row["ms"] * 1e-3) / 1e12
        out.append(row)
    return {"case": name, "description": desc, "shapes": shapes, "flops": flops, "variants": out}


def _consistent(name, shapes):
    """Smoke shapes shrunk independently: make the inner dimensions agree again."""
    if name.startswith("attn"):
        a, b = shapes
        return [a, (a[0], a[2], b[2])]
    if name.startswith("wgrad"):   # K = 64 tokens: four slices of 16 (split-K applies)
        x, g = shapes
        return [(64, x[1]), (64, g[1])]
    x, w, *rest = shapes
    w = (w[0], x[1])
    if name == "llama_swiglu":
        return [x, w, (w[0], x[1])]
    if rest and len(rest[0]) == 2:       # a residual of the output's shape
        return [x, w, (x[0], w[0])]
    return [x, w] + [(w[0],)] * len(rest)


def main(argv=None):
    desc, _, ex = __doc__.partition("On the GPU machine:")
    p = argparse.ArgumentParser(description=desc, epilog="examples, on the GPU machine:" + ex,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", default="all", help="comma-separated case names, or all")
    p.add_argument("--variants", default=None,
                   help=f"comma-separated, of {', '.join(VARIANTS)} (default: all; with --smoke: "
                        f"eager, tuner, tuner-template, the ones the interpreter runs in seconds)")
    p.add_argument("--smoke", action="store_true", help="tiny shapes on CPU (Triton interpreter)")
    p.add_argument("--out", default="bench/results/mm", help="folder for the JSON result")
    p.add_argument("--timer", choices=("cudagraph", "wall"), default="cudagraph",
                   help="on CUDA: GPU time of the call replayed in a CUDA graph (default), or "
                        "per-call wall time with the host's launch overhead")
    a = p.parse_args(argv)
    names = list(cases()) if a.cases == "all" else [c.strip() for c in a.cases.split(",") if c.strip()]
    default = "eager,tuner,tuner-template" if a.smoke else ",".join(VARIANTS)
    variants = [v.strip() for v in (a.variants or default).split(",") if v.strip()]
    bad = [c for c in names if c not in cases()] + [v for v in variants if v not in VARIANTS]
    if bad:
        p.error(f"unknown {', '.join(bad)}; cases: {', '.join(cases())}; variants: {', '.join(VARIANTS)}")
    if a.smoke:
        os.environ.setdefault("TRITON_INTERPRET", "1")
        variants = [v for v in variants if v.startswith("tuner") or v == "eager"]
    import torch
    device = "cuda" if torch.cuda.is_available() and not a.smoke else "cpu"
    sys.path.insert(0, str(Path(__file__).resolve().parent))   # run with python3 -P too
    from _results_doc import new_document
    doc, path = new_document("mm", argv, device, a.out)
    for name in names:
        doc["cases"].append(run_case(name, variants, a.smoke, device, a.timer))
        path.write_text(json.dumps(doc, indent=1))
        print(f"== {name} done", file=sys.stderr, flush=True)
    print(f"{'case':16} " + " ".join(f"{v:>28}" for v in variants) + "   ours/stock best")
    for c in doc["cases"]:
        by = {r["variant"]: r for r in c["variants"]}
        cells = []
        for v in variants:
            r = by.get(v, {})
            cells.append(f"{r['ms']:9.4f} ms {r['tflops']:7.1f} TF/s" if "ms" in r else
                         f"{'error' if 'error' in r else 'mismatch':>28}")
        ours = [by[v]["ms"] for v in variants if v.startswith("tuner") and "ms" in by.get(v, {})]
        stock = [by[v]["ms"] for v in variants if v.startswith("stock") and "ms" in by.get(v, {})]
        ratio = f"{min(stock) / min(ours):6.3f}x" if ours and stock else "     -"
        print(f"{c['case']:16} " + " ".join(f"{x:>28}" for x in cells) + f"   {ratio}")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
