"""Probe (not maintained): the foreach kernel's tuned configs and the host time per step of a
compiled optimizer step, GPT-2 and ResNet-50 parameter lists, fp32/bf16."""
import cProfile, io, json, os, pstats, sys, time
from pathlib import Path
os.environ["TUNER_LOGS"] = "autotune"
os.environ["TORCH_LOGS"] = "recompiles"
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import torch
import bench_optimizer as b

out = Path(os.environ.get("OUT", "/tmp"))
for params in sys.argv[1:] or ("resnet50", "gpt2"):
    shapes = b.param_shapes(params, False)
    for dt in ("bf16", "fp32"):
        dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[dt]
        for variant in ("tuner", "tuner-max-autotune-no-cudagraphs", "fused"):
            torch._dynamo.reset()
            ps = b.make_state(shapes, dtype, "cuda", 0)
            opt, step = b.build(variant, "adamw", ps, "cuda")
            print(f"=== {params} {dt} {variant}", file=sys.stderr, flush=True)
            for i in range(40):     # which step recompiles (the benchmark's first round is slow)
                t = time.perf_counter()
                step()
                torch.cuda.synchronize()
                elapsed = time.perf_counter() - t
                if elapsed > 0.05:
                    print(f"step {i}: {elapsed:.2f} s", flush=True)
            # host time per step: no sync between steps; the GPU work of ResNet's step is short
            t = time.perf_counter()
            for _ in range(50):
                step()
            host = (time.perf_counter() - t) / 50 * 1e3
            torch.cuda.synchronize()
            gpu = b.time_steps(step, "cuda", 50)
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(20):
                step()
            pr.disable()
            torch.cuda.synchronize()
            s = io.StringIO()
            pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(12)
            print(json.dumps({"params": params, "dtype": dt, "variant": variant,
                              "host_ms_per_step": host, "ms_per_step": gpu}), flush=True)
            print("\n".join(s.getvalue().splitlines()[:30]), flush=True)
            del opt, step, ps
