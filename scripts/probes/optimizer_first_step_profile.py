"""Probe (not maintained): where the first compiled AdamW step over GPT-2's parameter list
goes, fp32 and bf16 (cProfile of the step, sorted by cumulative and by own time), and the
kernels the backend compiled (TUNER_LOGS=output_code goes to stderr)."""
import cProfile, io, os, pstats, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import torch
import bench_optimizer as b

out = Path(os.environ.get("OUT", "/tmp"))
shapes = b.param_shapes("gpt2", False)
for dt in sys.argv[1:] or ("bf16", "fp32"):
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[dt]
    torch._dynamo.reset()
    ps = b.make_state(shapes, dtype, "cuda", 0)
    opt, step = b.build("tuner", "adamw", ps, "cuda")
    torch.cuda.synchronize()
    from tuner.compiler import stats
    stats.reset()
    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    step()
    torch.cuda.synchronize()
    prof.disable()
    first = time.perf_counter() - t
    tot = stats.totals()
    s = io.StringIO()
    st = pstats.Stats(prof, stream=s)
    st.sort_stats("cumulative").print_stats(70)
    st.sort_stats("tottime").print_stats(40)
    head = (f"{dt}: first step {first:.2f} s, graphs {len(stats.graphs())}, kernels {tot.kernels} "
            f"{tot.kernel_kinds}, compile_s {tot.compile_seconds:.2f}, jit_s {tot.jit_seconds:.2f}\n")
    print(head, flush=True)
    (out / f"first_step_{dt}.txt").write_text(head + s.getvalue())
