#!/usr/bin/env python3
"""Host cost of one ATen call made the way the generated wrapper makes it (the OpOverload,
e.g. torch.ops.aten.convolution.default) against the public torch function (torch.convolution),
on small CUDA tensors so the host is the bottleneck. Prints microseconds per call.

    source scripts/device/env.sh && python3 scripts/probes/probe_extern_calls.py
"""
import time

import torch


def per_call_us(f, args, kwargs, n=2000):
    for _ in range(50):
        f(*args, **kwargs)
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        f(*args, **kwargs)
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6


def main():
    aten = torch.ops.aten
    bf = dict(device="cuda", dtype=torch.bfloat16)
    x = torch.randn(8, 64, 14, 14, **bf).contiguous(memory_format=torch.channels_last)
    w = torch.randn(64, 64, 3, 3, **bf).contiguous(memory_format=torch.channels_last)
    a, b, bias = torch.randn(64, 64, **bf), torch.randn(64, 64, **bf), torch.randn(64, **bf)
    conv = (x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    cases = [("convolution", aten.convolution.default, torch.convolution, conv, {}),
             ("mm", aten.mm.default, torch.mm, (a, b), {}),
             ("addmm", aten.addmm.default, torch.addmm, (bias, a, b), {"beta": 1, "alpha": 1}),
             ("bmm", aten.bmm.default, torch.bmm, (a[None], b[None]), {})]
    print(f"{'op':14} {'OpOverload us':>14} {'torch.* us':>11}")
    for name, overload, public, args, kw in cases:
        print(f"{name:14} {per_call_us(overload, args, kw):14.1f} {per_call_us(public, args, kw):11.1f}")


if __name__ == "__main__":
    main()
