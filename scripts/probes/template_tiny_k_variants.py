#!/usr/bin/env python3
"""Which part of our generated template makes addmm 8014 x 1024 x 3 (fp32, + bias + ReLU) take
0.72 ms where a plain Triton matmul takes 0.028 (scripts/probes/fp32_template_tiny_k.py):
the generated kernel's source (scripts/probes/mm_runner_profile.py) with one change at a
time, timed with triton.testing.do_bench. GPU only.

    python3 scripts/probes/template_tiny_k_variants.py [--dtype float32] [--shape 8014,1024,3]
"""
import argparse
import sys
import tempfile
import importlib.util

import torch
import triton

SRC = '''
import triton
import triton.language as tl

@triton.jit
def kern(in_ptr0, in_ptr1, in_ptr2, out_ptr3, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = (MDIM + BLOCK_M - 1) // BLOCK_M
    grid_n = (NDIM + BLOCK_N - 1) // BLOCK_N
    tiles = grid_m * grid_n
    tile = pid % tiles
    width = GROUP_M * grid_n
    first_m = (tile // width) * GROUP_M
    group_m = tl.minimum(grid_m - first_m, GROUP_M)
    pid_m = first_m + (tile % width) % group_m
    pid_n = (tile % width) // group_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = in_ptr0 + 0 + rm * KDIM + rk[None, :] * 1
    b_ptrs = in_ptr1 + 0 + rk[:, None] * NDIM + rn * 1
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, KDIM, BLOCK_K):
        a_tile = tl.load(a_ptrs, mask=(rm < MDIM) & (rk[None, :] + k0 < KDIM), other=0.0)
        b_tile = tl.load(b_ptrs, mask=(rk[:, None] + k0 < KDIM) & (rn < NDIM), other=0.0)
        acc += tl.dot(a_tile, b_tile PRECISION)
        a_ptrs += BLOCK_K * 1
        b_ptrs += BLOCK_K * NDIM
    xmask = (rm < MDIM) & (rn < NDIM)
    x = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.int32)
    BIAS
    tl.store(out_ptr3 + ((NDIM * rm) + rn), OUT, xmask)
'''

VARIANTS = {
    "as generated": {},
    "no bias": {"BIAS": "t2 = acc", },
    "bias as a row": {"BIAS": "t1 = tl.load(in_ptr2 + rn, mask=rn < NDIM, other=0)\n    t2 = (acc + t1)"},
    "no relu": {"OUT": "t2.to(tl.float32)"},
    "tl.maximum relu": {"OUT": "tl.maximum(t2, 0.0).to(tl.float32)"},
}
BASE = {"PRECISION": ", input_precision='ieee'",
        "BIAS": "t1 = tl.load(in_ptr2 + (rn) + tl.zeros_like(x), mask=xmask, other=0)\n    t2 = (acc + t1)",
        "OUT": "th.maximum_nan(t2, tl.full([], 0.0, tl.float32)).to(tl.float32)"}


def build(subs, m, n, k):
    src = SRC
    for key, val in {**BASE, **subs}.items():
        src = src.replace(key, val)
    src = src.replace("MDIM", str(m)).replace("NDIM", str(n)).replace("KDIM", str(k))
    src = src.replace("import triton.language as tl", "import triton.language as tl\nfrom tuner.compiler.runtime import helpers as th")
    f = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False)
    f.write(src)
    f.close()
    spec = importlib.util.spec_from_file_location("k", f.name)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.kern


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--shape", default="8014,1024,3", help="m,n,k")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--configs", default="64x64x32w4s3,64x64x32w4s1,64x64x16w4s3",
                    help="BMxBNxBKwWsS,...")
    args = ap.parse_args(argv)
    dt = getattr(torch, args.dtype)
    M, N, K = (int(v) for v in args.shape.split(","))
    if dt != torch.float32:
        BASE["PRECISION"] = ""
        BASE["OUT"] = BASE["OUT"].replace(".to(tl.float32)", ".to(out_ptr3.dtype.element_ty)")
        for v in VARIANTS.values():
            if "OUT" in v:
                v["OUT"] = v["OUT"].replace(".to(tl.float32)", ".to(out_ptr3.dtype.element_ty)")
    a = torch.randn(M, K, device="cuda", dtype=dt)
    b = torch.randn(K, N, device="cuda", dtype=dt)
    bias = torch.randn(N, device="cuda", dtype=dt)
    out = torch.empty(M, N, device="cuda", dtype=dt)
    print(f"{args.shape} {args.dtype} cuBLAS addmm + relu:", triton.testing.do_bench(lambda: torch.relu(torch.addmm(bias, a, b))))
    import re
    configs = [tuple(int(x) for x in re.fullmatch(r"(\d+)x(\d+)x(\d+)w(\d+)s(\d+)", c).groups())
               for c in args.configs.split(",")]
    for name in args.variants.split(","):
        subs = VARIANTS[name]
        k = build(subs, M, N, K)
        for bm, bn, bk, w, s in configs:
            grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
            f = lambda: k[grid](a, b, bias, out, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,  # noqa: E731
                                num_warps=w, num_stages=s)
            try:
                f()
                t = triton.testing.do_bench(f)
                print(f"{name:18s} {bm}x{bn}x{bk} w{w} s{s}: {t:.4f} ms", flush=True)
            except Exception as e:  # noqa: BLE001
                print(f"{name:18s} {bm}x{bn}x{bk} w{w} s{s}: failed {type(e).__name__}: {str(e)[:150]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
