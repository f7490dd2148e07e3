#!/usr/bin/env python3
"""Where the time goes in one compiled case (GPU): wall time per call against GPU busy time per
call (host-bound when wall >> busy), and the GPU kernels grouped and ranked by total time,
from torch.profiler. Cases and their inputs are bench_compiler.py's (same names).

    source scripts/device/env.sh && python3 scripts/profile_compiler.py resnet50 gpt2 \\
        --variants tuner,inductor --out $OUT

Each (case, variant) runs in its own process; a table per run is printed and everything lands
in one JSON file under --out.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _group(name: str) -> str:
    """A kernel name -> a coarse family, so that 50 convolution kernels read as one line."""
    n = name.lower()
    if n.startswith("triton_") or n.startswith("tk_") or "triton" in n:
        return "triton: " + re.sub(r"_\d+$", "", name)[:60]
    for key, fam in (("gemm", "cublas gemm"), ("cutlass", "cutlass"), ("sm90_xmma", "cublas gemm"),
                     ("nvjet", "cublas gemm"), ("conv", "cudnn conv"), ("implicit", "cudnn conv"),
                     ("flash", "attention"), ("fmha", "attention"), ("attention", "attention"),
                     ("elementwise", "aten elementwise"), ("reduce", "aten reduce"),
                     ("copy", "aten copy"), ("nchw", "layout transform"), ("nhwc", "layout transform"),
                     ("memset", "memset"), ("memcpy", "memcpy")):
        if key in n:
            return f"{fam}"
    return "other: " + name[:60]


def worker(case_name: str, variant: str, iters: int, smoke: bool = False,
           cprofile: int = 0) -> dict:
    import torch
    sys.path.insert(0, str(HERE))
    import bench_compiler as bc
    case = bc.CASE_BY_NAME[case_name]
    dev = "cpu" if smoke else "cuda"
    built = case.build(smoke, dev)
    inputs = built.make_inputs(0)
    fn = built.fn
    if variant != "eager":
        backend, _, mode = variant.partition("-")
        fn = torch.compile(fn, backend=backend, mode=mode or "default")
    with torch.no_grad():
        t0 = time.perf_counter()
        fn(*inputs)
        sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
        sync()
        compile_s = time.perf_counter() - t0
        for _ in range(5):
            fn(*inputs)
        sync()
        t0 = time.perf_counter()
        for _ in range(iters):
            fn(*inputs)
        sync()
        wall_ms = (time.perf_counter() - t0) / iters * 1e3
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(iters):
                fn(*inputs)
            sync()
        host = _host_profile(fn, inputs, sync, cprofile) if cprofile else None
    kernels: dict[str, list] = defaultdict(lambda: [0.0, 0])
    fams: dict[str, list] = defaultdict(lambda: [0.0, 0])
    busy_us = 0.0
    runtime: dict[str, list] = defaultdict(lambda: [0.0, 0])
    for ev in prof.events():
        dev_type = getattr(ev, "device_type", None)
        if dev_type is None or "CUDA" not in str(dev_type):
            # CUDA runtime/driver API calls on the host (launches, syncs, mallocs, copies)
            if ev.name.startswith(("cuda", "cu")) and not ev.name.startswith("cudnn"):
                rt = runtime[ev.name]
                rt[0] += ev.cpu_time_total
                rt[1] += 1
            continue
        us = ev.device_time if hasattr(ev, "device_time") else ev.cuda_time
        if not us:
            continue
        busy_us += us
        k = kernels[ev.name]
        k[0] += us
        k[1] += 1
        f = fams[_group(ev.name)]
        f[0] += us
        f[1] += 1
    res = {"case": case_name, "variant": variant, "iters": iters, "compile_s": compile_s,
           "wall_ms": wall_ms, "gpu_busy_ms": busy_us / iters / 1e3,
           "families": sorted(([n, v[0] / iters / 1e3, v[1] / iters] for n, v in fams.items()),
                              key=lambda r: -r[1]),
           "runtime_api": sorted(([n, v[0] / iters / 1e3, v[1] / iters] for n, v in runtime.items()),
                                 key=lambda r: -r[1])[:12],
           "top_kernels": sorted(([n[:120], v[0] / iters / 1e3, v[1] / iters] for n, v in kernels.items()),
                                 key=lambda r: -r[1])[:25]}
    if host is not None:
        res["host_profile"] = host
    if variant.startswith("tuner"):
        import tuner.compiler.stats as stats
        t = stats.totals()
        res["stats"] = {"kernels": t.kernels, "externs": dict(t.externs),
                        "fallbacks": dict(t.fallbacks),
                        "kinds": dict(__import__("collections").Counter(t.kernel_kinds))}
    return res


def _host_profile(fn, inputs, sync, top: int) -> list:
    """cProfile over 20 calls: the `top` functions by own time, per call (us): where the host
    time of a host-bound graph goes (wrapper lines, launches, externs, guards)."""
    import cProfile
    import pstats
    calls = 20
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn(*inputs)
    sync()
    prof.disable()
    st = pstats.Stats(prof)
    rows = []
    for (file, line, func), (cc, nc, tt, ct, _) in st.stats.items():
        rows.append([f"{Path(file).name}:{line}({func})", nc / calls, tt / calls * 1e6, ct / calls * 1e6])
    rows.sort(key=lambda r: -r[2])
    return rows[:top]


def _print(r: dict) -> None:
    print(f"\n== {r['case']} / {r['variant']}: wall {r['wall_ms']:.3f} ms/call, GPU busy "
          f"{r['gpu_busy_ms']:.3f} ms/call, compile {r['compile_s']:.1f} s")
    if "stats" in r:
        ext = r["stats"]["externs"]
        print(f"   kinds {r['stats']['kinds']}")
        print(f"   kernels {r['stats']['kernels']}, externs {sum(ext.values())}: "
              + ", ".join(f"{k} {v}" for k, v in sorted(ext.items(), key=lambda kv: -kv[1])[:10]))
    print(f"   {'family':62} {'ms/call':>8} {'launches':>8}")
    for n, ms, cnt in r["families"][:14]:
        print(f"   {n:62} {ms:8.3f} {cnt:8.1f}")
    if r.get("host_profile"):
        print(f"   host (cProfile, per call): {'function':70} {'calls':>6} {'own us':>8} {'cum us':>8}")
        for n, nc, tt, ct in r["host_profile"]:
            print(f"   {n[:96]:96} {nc:6.0f} {tt:8.1f} {ct:8.1f}")
    print("   CUDA runtime API on the host (ms/call, calls/call):")
    for n, ms, cnt in r.get("runtime_api", [])[:8]:
        print(f"   {n[:62]:62} {ms:8.3f} {cnt:8.1f}")
    print("   top kernels:")
    for n, ms, cnt in r["top_kernels"][:12]:
        print(f"   {n[:62]:62} {ms:8.3f} {cnt:8.1f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", help="bench_compiler case names (gpt2, resnet50, softmax, ...)")
    ap.add_argument("--variants", default="tuner,inductor",
                    help="comma list: eager or BACKEND[-MODE] (default tuner,inductor)")
    ap.add_argument("--iters", type=int, default=10, help="profiled calls per run (default 10)")
    ap.add_argument("--timeout-s", type=float, default=300.0, help="per run (default 300)")
    ap.add_argument("--out", default="bench/results/compiler", help="folder for the JSON")
    ap.add_argument("--cprofile", type=int, default=0, metavar="N",
                    help="also cProfile 20 calls and list the N functions with most own time")
    ap.add_argument("--smoke", action="store_true", help="tiny shapes on CPU (a check of this script)")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        print("RESULT " + json.dumps(worker(a.worker[0], a.worker[1], a.iters, a.smoke, a.cprofile)))
        return 0
    if not a.cases:
        ap.error("name at least one case")
    sys.path.insert(0, str(HERE))
    import bench_compiler as bc
    unknown = [c for c in a.cases if c not in bc.CASE_BY_NAME]
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(bc.CASE_BY_NAME)}")
    rows = []
    for case in a.cases:
        for v in a.variants.split(","):
            t0 = time.time()
            try:
                p = subprocess.run([sys.executable, __file__, "--worker", case, v, "--iters", str(a.iters)] + (["--smoke"] if a.smoke else []) + ["--cprofile", str(a.cprofile)],
                                   capture_output=True, text=True, timeout=a.timeout_s, env=dict(os.environ))
                line = next((ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")), None)
                r = json.loads(line[7:]) if line else {"case": case, "variant": v,
                                                       "error": (p.stderr or p.stdout)[-1500:]}
            except subprocess.TimeoutExpired:
                r = {"case": case, "variant": v, "error": f"timed out after {a.timeout_s:.0f} s"}
            r["run_s"] = time.time() - t0
            rows.append(r)
            if "error" in r:
                print(f"\n== {case} / {v}: ERROR\n{r['error']}")
            else:
                _print(r)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from results_doc import write_results
    path = write_results("profile_compiler", rows, a.out)
    print(f"\nwrote {path}")
    return 0 if all("error" not in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
