"""`torch.compile(fn, backend="tuner", mode=..., options=...)`.

Capture: dynamo hands us an FX graph; AOTAutograd (with PyTorch's own decompositions)
splits it into forward/backward ATen graphs, each compiled by `compile_graph`. Modes:
"default" and "max-autotune-no-cudagraphs" launch directly; "reduce-overhead" and
"max-autotune" replay CUDA graphs (on CUDA inputs); "max-autotune*" tunes every kernel
through tuner.engine on its first call. options: {"max_persistent_r": int (default 8192),
"max_autotune": bool, "cudagraphs": bool, "cudagraph_min_launches": int (a graph of fewer
kernel/extern launches runs directly; default 2), "cudagraph_address_replay": bool (replay
without input copies when inputs sit where they were recorded; default True), "pad_mm":
"auto" | "always" | "never" (default: the TUNER_PAD_MM setting)}. torch.compile takes a
mode or options, not both: with a mode, options come from the TUNER_COMPILE_OPTIONS setting.
Dynamo finds the backend by name through the `torch_dynamo_backends` entry point in
pyproject.toml.
"""
from __future__ import annotations

from .torch_compat import aot_backend, boxed, decomposition_table

MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def tuner_backend(gm, example_inputs, mode=None, options=None, **kwargs):
    mode = mode or "default"
    if mode not in MODES:
        raise ValueError(f"tuner backend: unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    from tuner.settings import settings
    options = {**settings.compile_options, **(options or {})}   # code wins over the setting

    from .lowerings.matmul import PAD_MM_MODES
    if options.get("pad_mm", "auto") not in PAD_MM_MODES:
        raise ValueError(f"tuner backend: options['pad_mm']={options['pad_mm']!r}; "
                         f"expected one of {', '.join(PAD_MM_MODES)}")
    settings.pad_mm   # a bad TUNER_PAD_MM fails here, before any graph is lowered
    use_graphs = options.get("cudagraphs", mode in ("reduce-overhead", "max-autotune"))
    # H100, 8192^2 bf16 memory-bound cases in max-autotune (bench/results/compiler/
    # compiler_20261122-174855.json vs -173617): one-kernel graphs run directly and multi-kernel
    # ones replay on the caller's tensors: pointwise 0.414 -> 0.139 ms (copy-speed 98%)
    min_launches = int(options.get("cudagraph_min_launches", 2))
    address_replay = bool(options.get("cudagraph_address_replay", True))

    def compiler(gm_, inputs_, inference=False):
        from .compile_graph import compile_graph
        call = compile_graph(gm_, inputs_, mode, dict(options, _inference=inference))
        st = getattr(call, "_tuner_stats", None)
        launches = st.kernels + sum(st.externs.values()) if st is not None else min_launches
        # A graph of one launch saves a few microseconds of host time but may cost copies of
        # inputs at new addresses (and of outputs a caller keeps): it runs directly.
        if use_graphs and launches >= min_launches and any(getattr(t, "is_cuda", False) for t in inputs_):
            from .cudagraphs import CUDAGraphed
            call = CUDAGraphed(call, address_replay)
        return boxed(call)

    def inference_compiler(gm_, inputs_):
        # no backward will read this graph's outputs: they may keep padded layouts (pad_mm)
        return compiler(gm_, inputs_, inference=True)

    backend = aot_backend(compiler, compiler, decomposition_table(), inference_compiler)
    return backend(gm, example_inputs)
