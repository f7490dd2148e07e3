"""Probe (not maintained): what a kernel's first launch costs in the process that tunes it
when another process compiled it (the compile workers' case), with and without that process
also loading it (`_init_handles`: the cubin, and on Triton versions that generate a C launcher
per argument signature, that launcher's build into Triton's cache). Prints one JSON line per
phase: seconds of the first launches in this process, summed over kernels.
    python3 scripts/probes/launcher_build_probe.py"""
import json, os, subprocess, sys, tempfile, textwrap, time
from pathlib import Path

KERNEL = textwrap.dedent('''
    import triton
    import triton.language as tl

    @triton.jit
    def k(a, b, c, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        x = tl.load(a + i, mask=m).to(tl.float32)
        y = tl.load(b + i, mask=m).to(tl.float32)
        tl.store(c + i, (x * 2 + y).to(c.dtype.element_ty), mask=m)
''')
DTYPES = [("float32", "float32", "float32"), ("bfloat16", "bfloat16", "bfloat16"),
          ("float16", "float16", "float16"), ("bfloat16", "float32", "bfloat16"),
          ("float32", "bfloat16", "float32"), ("int32", "float32", "float32"),
          ("float16", "float32", "bfloat16"), ("int64", "bfloat16", "float32")]
BLOCKS = [128, 256, 512, 1024]


def tensors(dts):
    import torch
    return [torch.ones(4096, dtype=getattr(torch, d), device="cuda") for d in dts]


def compile_all(init: bool):
    import importlib.util
    import torch
    spec = importlib.util.spec_from_file_location("kmod", os.environ["PROBE_KERNEL"])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    t = time.perf_counter()
    for dts in DTYPES:
        for b in BLOCKS:
            ck = mod.k.warmup(*tensors(dts), 4096, BLOCK=b, grid=(1,))
            if init:
                ck._init_handles()
    torch.cuda.synchronize()
    return time.perf_counter() - t


def first_launches():
    import importlib.util
    import torch
    spec = importlib.util.spec_from_file_location("kmod", os.environ["PROBE_KERNEL"])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = []
    for dts in DTYPES:
        for b in BLOCKS:
            args = tensors(dts)
            torch.cuda.synchronize()
            t = time.perf_counter()
            mod.k[(4096 // b,)](*args, 4096, BLOCK=b)
            torch.cuda.synchronize()
            out.append(time.perf_counter() - t)
    return out


if __name__ == "__main__":
    if len(sys.argv) > 1:           # the "worker": compile (and maybe load) every kernel
        print(json.dumps({"worker_s": round(compile_all(sys.argv[1] == "init"), 3)}))
        sys.exit(0)
    import triton
    drv = Path(triton.__file__).parent / "backends" / "nvidia" / "driver.py"
    text = drv.read_text() if drv.exists() else ""
    print(json.dumps({"triton": triton.__version__,
                      "per_signature_c_launcher": "def make_launcher" in text}), flush=True)
    for phase in ("none", "init"):
        d = tempfile.mkdtemp()
        kf = Path(d) / "kmod.py"
        kf.write_text(KERNEL)
        env = dict(os.environ, TRITON_CACHE_DIR=str(Path(d) / "cache"), PROBE_KERNEL=str(kf))
        w = subprocess.run([sys.executable, __file__, phase], env=env, capture_output=True, text=True)
        worker = w.stdout.strip().splitlines()[-1] if w.stdout.strip() else w.stderr[-300:]
        r = subprocess.run([sys.executable, "-c", f"import sys, json; sys.path.insert(0, {str(Path(__file__).parent)!r});"
                            "import launcher_build_probe as p; t = p.first_launches();"
                            "print(json.dumps({'first_launch_s': round(sum(t), 3), 'max_s': round(max(t), 3),"
                            " 'first_s': round(t[0], 3), 'n': len(t)}))"],
                           env=env, capture_output=True, text=True)
        main = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr[-300:]
        print(json.dumps({"worker_loads": phase == "init", "worker": worker, "main": main}), flush=True)
