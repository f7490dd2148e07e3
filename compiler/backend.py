"""`torch.compile(fn, backend="tuner", mode=..., options=...)`.

Capture: dynamo hands us an FX graph; AOTAutograd (with PyTorch's own decompositions)
splits it into forward/backward ATen graphs, each compiled by `compile_graph`. Modes:
"default" and "max-autotune-no-cudagraphs" launch directly; "reduce-overhead" and
"max-autotune" replay CUDA graphs (on CUDA inputs); "max-autotune*" tunes every kernel
through tuner.engine on its first call. options: {"max_persistent_r": int (default 8192),
"max_autotune": bool, "cudagraphs": bool, "pad_mm": "auto" | "always" | "never" (default:
the TUNER_PAD_MM setting)}. Dynamo finds the backend by name through the
`torch_dynamo_backends` entry point in pyproject.toml.
"""
from __future__ import annotations

from .torch_compat import aot_backend, boxed, decomposition_table

MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def tuner_backend(gm, example_inputs, mode=None, options=None, **kwargs):
    mode = mode or "default"
    if mode not in MODES:
        raise ValueError(f"tuner backend: unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    options = dict(options or {})
    from tuner.settings import settings

    from .lowerings.matmul import PAD_MM_MODES
    if options.get("pad_mm", "auto") not in PAD_MM_MODES:
        raise ValueError(f"tuner backend: options['pad_mm']={options['pad_mm']!r}; "
                         f"expected one of {', '.join(PAD_MM_MODES)}")
    settings.pad_mm   # a bad TUNER_PAD_MM fails here, before any graph is lowered
    use_graphs = options.get("cudagraphs", mode in ("reduce-overhead", "max-autotune"))

    def compiler(gm_, inputs_, inference=False):
        from .compile_graph import compile_graph
        call = compile_graph(gm_, inputs_, mode, dict(options, _inference=inference))
        if use_graphs and any(getattr(t, "is_cuda", False) for t in inputs_):
            from .cudagraphs import CUDAGraphed
            call = CUDAGraphed(call)
        return boxed(call)

    def inference_compiler(gm_, inputs_):
        # no backward will read this graph's outputs: they may keep padded layouts (pad_mm)
        return compiler(gm_, inputs_, inference=True)

    backend = aot_backend(compiler, compiler, decomposition_table(), inference_compiler)
    return backend(gm, example_inputs)
