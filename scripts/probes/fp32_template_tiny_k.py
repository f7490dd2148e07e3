#!/usr/bin/env python3
"""Why our matmul template is many times slower than cuBLAS on fp32 matmuls with a tiny K
(data/mm/mm_cheap_h200_s1 s1-15: addmm 8014 x 1024, k = 3, + ReLU: template 0.72 ms vs 0.034):
the template's loop body alone (tl.dot with input_precision ieee / tf32, or a broadcast
multiply-sum), over block shapes, timed with triton.testing.do_bench. GPU only.

    python3 scripts/probes/fp32_template_tiny_k.py [--json out.json]
"""
import argparse
import json
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _mm(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
        BLOCK_K: tl.constexpr, MODE: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm * sam + (rk[None, :] + k0) * sak, mask=(rm < M) & (rk[None, :] + k0 < K), other=0.0)
        b = tl.load(b_ptr + (rk[:, None] + k0) * sbk + rn * sbn, mask=(rk[:, None] + k0 < K) & (rn < N), other=0.0)
        if MODE == 0:
            acc += tl.dot(a, b, input_precision="ieee")
        elif MODE == 1:
            acc += tl.dot(a, b, input_precision="tf32")
        else:
            acc += tl.sum(a[:, :, None] * b[None, :, :], axis=1)
    tl.store(c_ptr + rm * N + rn, acc, mask=(rm < M) & (rn < N))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    rows = []
    for (m, n, k) in [(8014, 1024, 3), (88, 203, 1), (6547, 285, 2), (1024, 1024, 64), (4096, 4096, 512)]:
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(k, n, device="cuda")
        ref = a @ b
        t_ref = triton.testing.do_bench(lambda: a @ b)
        for mode, name in [(0, "dot-ieee"), (1, "dot-tf32"), (2, "fma-sum")]:
            for bm, bn, bk in [(64, 64, 32), (64, 64, 16), (128, 128, 32), (32, 32, 16)]:
                if mode == 2 and bm * bn * bk > 64 * 64 * 16:
                    continue
                c = torch.empty(m, n, device="cuda")
                grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
                f = lambda: _mm[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),  # noqa: E731
                                      BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, MODE=mode, num_warps=4, num_stages=3)
                try:
                    f()
                    err = (c - ref).abs().max().item() / max(ref.abs().max().item(), 1e-9)
                    t = triton.testing.do_bench(f)
                except Exception as e:  # noqa: BLE001
                    err, t = None, None
                    print(f"{m}x{n}x{k} {name} {bm}x{bn}x{bk}: failed {type(e).__name__}: {str(e)[:120]}")
                    continue
                row = {"m": m, "n": n, "k": k, "mode": name, "block": [bm, bn, bk], "ms": t,
                       "cublas_ms": t_ref, "rel_err": err}
                rows.append(row)
                print(f"{m}x{n}x{k} {name:9s} {bm}x{bn}x{bk}: {t:.4f} ms (cuBLAS {t_ref:.4f}) err {err:.1e}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "triton": triton.__version__, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
