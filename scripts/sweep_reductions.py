#!/usr/bin/env python3
"""Which reduction configs win on this GPU: for each case (bench_compiler.py's sum_dim0 /
sum_dim1 / layernorm / softmax ...), and each split setting of the two-stage reduction
(compiler/lowerings/reductions.py TARGET_PROGRAMS), the compiled case's time with the fixed
default configs against the time after max-autotune tuned every kernel over a widened candidate
list, and each kernel's best configs. Feeds the default-config heuristics in
compiler/codegen/triton.py (default_config), which run without benchmarking.

    source scripts/device/env.sh && python3 scripts/sweep_reductions.py sum_dim0 sum_dim1 --out $OUT
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def widened(orig):
    """The reduction policy's candidates (kernel_kinds.Reduction.candidates) plus larger tiles
    and num_stages 2 for looped reductions."""
    from tuner.points.kernel_kinds import next_pow2

    def candidates(self, meta):
        out = list(orig(self, meta))
        if meta.kind not in ("reduction", "persistent_reduction"):
            return out
        persistent = meta.kind == "persistent_reduction"
        extra = []
        if meta.outer:
            rbs = [max(2, next_pow2(meta.rnumel))] if persistent else [4, 8, 16, 32, 64]
            for rb in rbs:
                for xb in (64, 128, 256, 512, 1024):
                    if rb * xb <= 16384 and xb <= max(next_pow2(meta.xnumel), 1):
                        for nw in (4, 8, 16):
                            extra.append({"XBLOCK": xb, "RBLOCK": rb, "num_warps": nw, "num_stages": 1})
        elif not persistent:
            for rb in (1024, 2048, 4096, 8192):
                for xb in (1, 2, 4):
                    for nw in (4, 8, 16):
                        for ns in (1, 2):
                            extra.append({"XBLOCK": xb, "RBLOCK": rb, "num_warps": nw, "num_stages": ns})
        return out + [c for c in extra if c not in out]
    return candidates


def run(case_name, targets, max_rs, smoke=False):
    import torch
    from tuner.bench import benchmark
    sys.path.insert(0, str(HERE))
    import bench_compiler as bc
    import tuner.compiler.compile_graph as cgm
    import tuner.compiler.lowerings.reductions as red
    from tuner.compiler.runtime.launch import Launcher
    from tuner.points import kernel_kinds

    kernel_kinds.Reduction.candidates = widened(kernel_kinds.Reduction.candidates)
    os.environ["TUNER_SEARCH"] = "exhaustive"   # sweep the widened list, not a descent
    calls = []
    orig_compile = cgm.compile_graph

    def recording(*a, **k):
        c = orig_compile(*a, **k)
        calls.append(c)
        return c
    cgm.compile_graph = recording

    dev = "cpu" if smoke else "cuda"
    built = bc.CASE_BY_NAME[case_name].build(smoke, dev)
    inputs = built.make_inputs(0)
    ref = built.fn(*inputs)
    rows = []
    for target, max_r in [(t, r) for t in targets for r in max_rs]:
        red.TARGET_PROGRAMS = target
        row = {"case": case_name, "target_programs": target, "max_persistent_r": max_r}
        for mode in ("default", "max-autotune-no-cudagraphs"):
            torch._dynamo.reset()
            calls.clear()
            # torch.compile takes a mode or options, not both: the option goes by the setting
            os.environ["TUNER_COMPILE_OPTIONS"] = json.dumps({"max_persistent_r": max_r})
            fn = torch.compile(built.fn, backend="tuner", mode=mode)
            with torch.no_grad():
                out = fn(*inputs)
                torch.testing.assert_close(out.float(), ref.float(), atol=2e-2, rtol=2e-2)
                ms = benchmark(lambda: fn(*inputs), device=dev)
            row[mode] = ms
            kernels = []
            for c in calls:
                for name, obj in sorted(c.__globals__.items()):
                    if isinstance(obj, Launcher):
                        k = {"kernel": name, "kind": obj.kind, "xnumel": obj.xnumel, "config": obj.config}
                        if obj.decision is not None:
                            k["default_ms"] = obj.decision.default_time_ms
                            k["best_ms"] = obj.decision.time_ms
                            k["top"] = [(str(ch), t) for ch, t in obj.decision.timings[:5]]
                        kernels.append(k)
            row[f"{mode}_kernels"] = kernels
        rows.append(row)
        print(f"{case_name} target={target} max_persistent_r={max_r}: default {row['default']:.4f} ms, tuned "
              f"{row['max-autotune-no-cudagraphs']:.4f} ms", flush=True)
        for k in row["max-autotune-no-cudagraphs_kernels"]:
            print(f"   {k['kernel']} {k['kind']} x={k['xnumel']} default {k.get('default_ms')} best "
                  f"{k.get('best_ms')} {k['config']}", flush=True)
            for ch, t in k.get("top", [])[:3]:
                print(f"      {t:.4f} {ch}", flush=True)
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("cases", nargs="+", help="bench_compiler.py case names (e.g. sum_dim0 sum_dim1)")
    p.add_argument("--targets", default="256,1024,2048,4096",
                   help="comma list of TARGET_PROGRAMS values (two-stage split size) to try")
    p.add_argument("--max-persistent-r", default="8192",
                   help="comma list of the max_persistent_r compile option (whole rows in registers up to it)")
    p.add_argument("--smoke", action="store_true",
                   help="tiny shapes on CPU (Triton interpreter): checks the script, times nothing real")
    p.add_argument("--out", default="bench/results/compiler", help="folder for the JSON results")
    a = p.parse_args(argv)
    import torch
    if a.smoke:
        os.environ.setdefault("TRITON_INTERPRET", "1")
    elif not torch.cuda.is_available():
        p.error("needs a CUDA GPU (run it on the device machine)")
    targets = [int(t) for t in a.targets.split(",")]
    rows = []
    for case in a.cases:
        rows += run(case, targets, [int(r) for r in a.max_persistent_r.split(",")], a.smoke)
    sys.path.insert(0, str(HERE))
    from results_doc import write_results
    print("results:", write_results("sweep_reductions", rows, a.out))


if __name__ == "__main__":
    main()
