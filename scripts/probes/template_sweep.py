"""Probe (not maintained): every template config of a wide grid timed on one bench_mm case
(our template forced, exhaustive search over the grid below instead of the point's list), the
best few printed, then the sweep's compiled call beside stock max-autotune, CUDA-graph timer,
3 interleaved rounds. (Our own max-autotune is not timed here: compiled after the sweep with
the same backend and mode, dynamo would reuse the sweep's code; bench_mm.py times it.)
What it answers:
does any config of our template reach stock's time (then seeds and descent are what lose),
or none (then the kernel is what loses).
    python3 scripts/probes/template_sweep.py decode_m16 attn_qk"""
import itertools, json, os, statistics, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("TUNER_TUNE_BUDGET_S", "100000")
import torch
import bench_mm
from tuner import engine
from tuner.points import kernel_kinds, triton_kernel as tk


def grid(m, n, k):
    bms = (16, 32, 64) if m <= 64 else (32, 64, 128, 256)
    bns = (16, 32, 64) if n <= 64 else (32, 64, 128, 256)
    bks = (32, 64) if k <= 64 else (32, 64, 128, 256)
    out = []
    for bm, bn, bk, nw, ns in itertools.product(bms, bns, bks, (2, 4, 8), (2, 3, 4, 5)):
        if bm * bn > 128 * 256 or bm * bn // (32 * nw) > 128 or (bm * bk + bk * bn) * 2 * ns > 200_000:
            continue
        if bm * bn >= 128 * 128 and nw == 2:
            continue
        out.append({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "num_warps": nw, "num_stages": ns})
    return out


def main(names):
    _orig = kernel_kinds.Template.candidates

    def candidates(self, meta):
        _, m, n, k = meta.mm
        return grid(m, n, k)
    for name in names:
        fn, shapes, desc = bench_mm.cases()[name]
        x = bench_mm._inputs(shapes, "cuda", torch.bfloat16, 0)
        torch._dynamo.reset()
        compiled = {}
        kernel_kinds.Template.candidates = candidates
        os.environ["TUNER_SEARCH"] = "exhaustive"
        engine.HISTORY.clear()
        compiled["sweep"] = bench_mm._compile(fn, "tuner-template-max-autotune")
        compiled["sweep"](*x)
        os.environ.pop("TUNER_SEARCH")
        os.environ.pop("TUNER_MM", None)
        kernel_kinds.Template.candidates = _orig
        tops = []
        for d in engine.HISTORY:
            if d.namespace == "triton.template":
                tops = [(round(t, 5), str(c)) for c, t in d.timings[:12]]
                print(json.dumps({"case": name, "swept": len(d.timings), "top": tops}), flush=True)
        tk.forget_templates()
        compiled["stock-max-autotune"] = bench_mm._compile(fn, "stock-max-autotune")
        compiled["stock-max-autotune"](*x)
        ms = {v: [] for v in compiled}
        for _ in range(3):
            for v, f in compiled.items():
                ms[v].append(bench_mm._ms(f, x, "cuda", False)[0])
        print(json.dumps({"case": name, "ms": {v: round(statistics.median(t), 5) for v, t in ms.items()}}),
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["decode_m16", "attn_qk"])
