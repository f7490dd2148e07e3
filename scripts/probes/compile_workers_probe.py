"""Probe (not maintained): wall seconds to compile N configs of one Triton kernel with the
thread pool alone vs worker processes first (tuner.compile_workers), fresh caches each."""
import importlib.util, json, os, sys, tempfile, textwrap, time
from pathlib import Path
import torch

SRC = textwrap.dedent('''
    import triton
    import triton.language as tl

    @triton.jit
    def k(x_ptr, y_ptr, n, SALT: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        v = tl.load(x_ptr + offs, mask=m)
        for i in range(8):
            v = tl.sin(v) * 1.0001 + tl.cos(v * SALT)
        tl.store(y_ptr + offs, v, mask=m)
''')
from tuner import bench, compile_workers as cw

n = int(sys.argv[1]) if len(sys.argv) > 1 else 16
x = torch.randn(4096, device="cuda"); y = torch.empty_like(x)
for mode in ("threads", "processes", "processes-warm"):
    if mode != "processes-warm":   # (warm: the workers keep their cache dir; a new source)
        os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
        cw.shutdown()
    d = Path(tempfile.mkdtemp()); p = d / f"tuner_gen_probe_{mode.replace('-', '_')}.py"; p.write_text(SRC.replace("1.0001", str(1.0001 + len(mode) * 1e-4)))
    spec = importlib.util.spec_from_file_location(p.stem, p); mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    cands = [(s, b) for s in range(1, n // 4 + 1) for b in (128, 256, 512, 1024)][:n]
    call = lambda c: mod.k.warmup(x, y, 4096, grid=(1,), SALT=c[0], BLOCK=c[1])
    jobs = None if mode == "threads" else (lambda c: cw.describe(mod.k, [x, y, 4096], dict(SALT=c[0], BLOCK=c[1])))
    t = time.perf_counter()
    jt = []
    if jobs:
        t0 = time.perf_counter(); r = cw.run_jobs([jobs(c) for c in cands], bench.compile_processes()); jt = [time.perf_counter() - t0, r[:2]]
    errs = bench.compile_all(call, cands)
    print(json.dumps({"mode": mode, "n": n, "wall_s": round(time.perf_counter() - t, 2), "workers_s": jt,
                      "errors": sum(e is not None for e in errs.values())}), flush=True)
