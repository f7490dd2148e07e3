#!/usr/bin/env python3
"""Would Hopper variants of the matmul template pay: a persistent program loop, TMA tensor
descriptors (tl.make_tensor_descriptor), both, or neither, on F.linear + bias + tanh-GELU in
bf16 (x row-major, the weight (n, k) row-major, as a model's linear layer has them), against
cuBLAS's addmm followed by the GELU kernel (what the mm point's extern choice runs) and the
addmm alone (the floor an unfused extern cannot go under). One kernel with constexpr switches,
a few configs each, timed with triton.testing.do_bench (L2 flushed), median of 3 interleaved
rounds. GPU only (sm90 for TMA).

    python3 scripts/probes/template_tma_persistent.py [--shapes 4096x4096x4096,...] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

try:
    from triton.language.extra import libdevice
except ImportError:   # older layouts
    from triton.language.extra.cuda import libdevice


@triton.jit
def _linear_gelu(x_ptr, w_ptr, bias_ptr, out_ptr, M, N, K,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 GROUP_M: tl.constexpr, TMA: tl.constexpr, PERSISTENT: tl.constexpr,
                 PROGRAMS: tl.constexpr, ACT: tl.constexpr = 0):
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    tiles = grid_m * grid_n
    if TMA:
        x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, K], strides=[K, 1],
                                           block_shape=[BLOCK_M, BLOCK_K])
        w_desc = tl.make_tensor_descriptor(w_ptr, shape=[N, K], strides=[K, 1],
                                           block_shape=[BLOCK_N, BLOCK_K])
    if PERSISTENT:
        first, step = tl.program_id(0), PROGRAMS
    else:
        first, step = tl.program_id(0), tiles
    for tile in range(first, tiles, step):
        width = GROUP_M * grid_n
        first_m = (tile // width) * GROUP_M
        group_m = tl.minimum(grid_m - first_m, GROUP_M)
        pid_m = first_m + (tile % width) % group_m
        pid_n = (tile % width) // group_m
        rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        if TMA:
            for k0 in range(0, K, BLOCK_K):
                a = x_desc.load([pid_m * BLOCK_M, k0])
                b = w_desc.load([pid_n * BLOCK_N, k0])
                acc = tl.dot(a, b.T, acc)
        else:
            rk = tl.arange(0, BLOCK_K)
            a_ptrs = x_ptr + rm[:, None] * K + rk[None, :]
            b_ptrs = w_ptr + rn[None, :] * K + rk[:, None]
            for k0 in range(0, K, BLOCK_K):
                a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] + k0 < K), other=0.0)
                b = tl.load(b_ptrs, mask=(rk[:, None] + k0 < K) & (rn[None, :] < N), other=0.0)
                acc = tl.dot(a, b, acc)
                a_ptrs += BLOCK_K
                b_ptrs += BLOCK_K
        y = acc + tl.load(bias_ptr + rn, mask=rn < N, other=0.0)[None, :].to(tl.float32)
        z = 0.7978845608028654 * (y + 0.044715 * y * y * y)
        if ACT == 0:     # tanh(z) = 2 sigmoid(2z) - 1
            g = 0.5 * y * (2.0 * tl.sigmoid(2.0 * z))
        elif ACT == 1:   # libdevice's tanh, as the compiler's generated code calls it
            g = 0.5 * y * (1.0 + libdevice.tanh(z))
        else:            # the sigmoid form, a short odd series near 0 (relative accuracy)
            z2 = z * z
            t = tl.where(z2 < 0.0039, z * (1.0 - z2 * (0.3333333333 - z2 * 0.1333333333)),
                         2.0 * tl.sigmoid(2.0 * z) - 1.0)
            g = 0.5 * y * (1.0 + t)
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        tl.store(out_ptr + rm[:, None] * N + rn[None, :], g.to(tl.bfloat16), mask)


CONFIGS = [  # BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, warps, stages
    (128, 128, 64, 8, 8, 3), (128, 128, 64, 8, 4, 4), (128, 256, 64, 8, 8, 3), (128, 256, 64, 8, 8, 4),
    (64, 256, 64, 8, 4, 4), (128, 128, 128, 8, 8, 3),
]
VARIANTS = [("plain", False, False), ("persistent", False, True), ("tma", True, False),
            ("tma_persistent", True, True)]


def _runner(x, w, bias, out, variant, cfg, sms, act=0):
    _, tma, persistent = variant
    bm, bn, bk, gm, warps, stages = cfg
    m, k = x.shape
    n = w.shape[0]
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    programs = min(sms, tiles) if persistent else tiles

    def run():
        _linear_gelu[(programs,)](x, w, bias, out, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                  GROUP_M=gm, TMA=tma, PERSISTENT=persistent, PROGRAMS=programs, ACT=act,
                                  num_warps=warps, num_stages=stages)
    return run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default="4096x4096x4096,4096x3072x768,2048x12288x4096,8192x4096x1024",
                    help="MxNxK,... (F.linear of an MxK input with an NxK weight)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--act-study", action="store_true",
                    help="time the GELU's tanh three ways (sigmoid form, libdevice, sigmoid form + "
                         "series near 0) in the plain and the TMA-persistent variant, two configs")
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("template_tma_persistent: needs a CUDA GPU", file=sys.stderr)
        return 2
    if hasattr(triton, "set_allocator"):   # device-side descriptors need a scratch allocator
        triton.set_allocator(lambda size, align, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    doc = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
           "date": time.strftime("%Y%m%d-%H%M%S"), "command": "template_tma_persistent.py " + " ".join(argv or sys.argv[1:]),
           "rows": []}
    for shape in args.shapes.split(","):
        m, n, k = (int(v) for v in shape.split("x"))
        g = torch.Generator(device="cuda").manual_seed(0)
        x = (torch.randn(m, k, device="cuda", generator=g) / k ** 0.25).bfloat16()
        w = (torch.randn(n, k, device="cuda", generator=g) / k ** 0.25).bfloat16()
        bias = torch.randn(n, device="cuda", generator=g).bfloat16()
        ref = F.gelu(F.linear(x, w, bias), approximate="tanh")
        out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        fns = {"cublas+gelu": lambda: F.gelu(F.linear(x, w, bias), approximate="tanh"),
               "cublas addmm alone": lambda: F.linear(x, w, bias)}
        plan = [(v, c, 0) for v in VARIANTS for c in CONFIGS]
        if args.act_study:
            plan = [(v, c, act) for v in (VARIANTS[0], VARIANTS[3]) for c in (CONFIGS[0], CONFIGS[2])
                    for act in (0, 1, 2)]
        for variant, cfg, act in plan:
            fn = _runner(x, w, bias, out, variant, cfg, sms, act)
            try:
                out.zero_()
                fn()
                torch.cuda.synchronize()
                err = ((out.float() - ref.float()).abs().max() / ref.float().abs().max()).item()
                if err > 2e-2:
                    print(f"{shape} {variant[0]} {cfg} act {act}: wrong (rel err {err:.3g})", flush=True)
                    continue
            except Exception as e:  # noqa: BLE001 - a config that does not fit is skipped
                print(f"{shape} {variant[0]} {cfg}: {type(e).__name__}: {str(e)[:120]}", flush=True)
                continue
            fns[f"{variant[0]}{' act%d' % act if args.act_study else ''} {cfg}"] = fn
        times = {name: [] for name in fns}
        for _ in range(args.rounds):
            for name, fn in fns.items():
                times[name].append(triton.testing.do_bench(fn, warmup=10, rep=40))
        med = {name: statistics.median(t) for name, t in times.items()}
        best = {}
        for name, t in med.items():
            kind = name.split(" (")[0]
            if kind not in best or t < best[kind][1]:
                best[kind] = (name, t)
        base = med["cublas+gelu"]
        print(f"== {shape} (flops {2 * m * n * k / 1e9:.1f} G)")
        for kind, (name, t) in sorted(best.items(), key=lambda kv: kv[1][1]):
            print(f"   {kind:20s} {t:8.4f} ms  {2 * m * n * k / t / 1e9:7.1f} TF/s  {base / t:5.3f}x of cuBLAS+GELU  {name}")
        doc["rows"].append({"shape": [m, n, k], "ms": med, "best": {k_: v for k_, v in best.items()}})
        if args.json:
            with open(args.json, "w") as f:
                json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
