"""Every private torch API the compiler uses, in one place (works on torch 2.11 and 2.13).

Capture (AOTAutograd with our forward/backward compilers), the decomposition table
(PyTorch's own decompositions only), eager's elementwise type promotion.
"""
from __future__ import annotations

import torch

try:   # defines prims.fma, which decompositions under dynamo emit (Tensor.addcmul_)
    import torch._inductor.inductor_prims  # noqa: F401
except ImportError:   # a torch without it: graphs then carry no prims.fma either
    pass

aten = torch.ops.aten
prims = torch.ops.prims

# Ops that core ATen keeps but PyTorch ships decompositions for: decomposing them exposes
# pointwise/reduction structure the scheduler can fuse (softmax, norms, activations, losses).
_EXTRA_DECOMPOSE = [
    "_softmax", "_log_softmax", "_softmax_backward_data", "_log_softmax_backward_data",
    "native_layer_norm", "native_layer_norm_backward", "native_group_norm",
    "native_group_norm_backward", "_native_batch_norm_legit_functional",
    "_native_batch_norm_legit_no_training", "native_batch_norm_backward",
    # _no_training decomposes to _native_batch_norm_legit(training=False), whose schema says
    # it mutates the running stats; decompositions run below functionalization, so it must be
    # decomposed too or AOTAutograd finds a non-functional graph (eval-mode batch norm).
    "_native_batch_norm_legit",
    "gelu", "gelu_backward", "silu", "silu_backward", "sigmoid_backward", "tanh_backward",
    "threshold_backward", "hardtanh", "hardtanh_backward", "leaky_relu", "leaky_relu_backward",
    "elu", "elu_backward", "hardswish", "hardsigmoid", "mish", "softplus", "softplus_backward",
    "var", "var_mean", "std", "std_mean", "logsumexp", "embedding", "embedding_dense_backward",
    "nll_loss_forward", "nll_loss_backward", "mse_loss", "mse_loss_backward", "smooth_l1_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "addcmul", "addcdiv", "lerp",
    "masked_fill", "nan_to_num", "logit", "frac", "xlogy", "rsub", "norm",
    "linalg_vector_norm", "stack", "hstack", "vstack", "narrow", "select_backward",
    "slice_backward", "index_select_backward", "diagonal_backward", "_to_copy_",
    "native_dropout_backward", "glu", "glu_backward", "roll", "flip", "tril", "triu",
    "_adaptive_avg_pool2d", "avg_pool2d", "upsample_nearest2d", "clamp_min", "clamp_max",
    "squeeze", "unsqueeze_copy", "expand_copy", "permute_copy", "t_copy", "view_copy",
    # expand + copy: a broadcast load fused into its consumer (Bloom's alibi, GPT-J's rotary
    # embedding, Whisper's attention bias), not an ATen call
    "repeat",
    # into ops that lower (mv, linalg_vector_norm, as_strided and clone)
    "addmv", "dist", "as_strided_copy",
    # batch norm's newer entry points (torch >= 2.5: F.batch_norm called through
    # torch.ops.aten._batch_norm_with_update) and unbind_copy: into ops that lower
    "_batch_norm_with_update_functional", "batch_norm_backward", "unbind_copy",
    # into slices that lower (issue 45's OpInfo coverage): narrow_copy (3-d and adaptive max
    # pooling and grid sampling are ours: compiler/decompositions_nn.py; max pooling's
    # backward too, as a gather: lowerings/pool_backward.py)
    "narrow_copy",
]


def decomposition_table(keep_dropout: bool = True):
    """PyTorch's decompositions and ours; keep_dropout: native_dropout stays whole (ATen draws
    its mask, as eager) rather than decomposing into a random draw our kernels make."""
    from torch._decomp import core_aten_decompositions, get_decompositions

    table = dict(core_aten_decompositions())
    ops = []
    for name in _EXTRA_DECOMPOSE:
        packet = getattr(aten, name, None)
        if packet is not None:
            ops.append(packet)
    table.update(get_decompositions(ops))
    from .decompositions import DECOMPOSITIONS   # ours, for ops PyTorch's table lacks
    table.update(DECOMPOSITIONS)
    # Keep matmuls whole (extern calls now, templates later) and dropout's RNG in ATen.
    for keep in (aten.addmm.default, *((aten.native_dropout.default,) if keep_dropout else ())):
        table.pop(keep, None)
    if not keep_dropout:   # a comparison of rand_like with p, drawn by our kernels
        table.update(get_decompositions([aten.native_dropout]))
    # A fused attention kernel stays whole: its backward (an ATen kernel) reads the forward's
    # logsumexp, which a decomposed forward computes differently (CPU training gradients were
    # off by a relative error of ~4). The CUDA variants have no decomposition in the table.
    for name in ("_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_flash_attention",
                 "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
                 "_flash_attention_forward", "_efficient_attention_forward"):
        packet = getattr(aten, name, None)
        for overload in (packet.overloads() if packet is not None else ()):
            table.pop(getattr(packet, overload), None)
    # repeat's decomposition keeps a permuted input's layout where eager's repeat returns a
    # contiguous tensor, so a .view the model does next (WavLM's position bias) fails to trace
    repeat = table.get(aten.repeat.default)
    if repeat is not None:
        table[aten.repeat.default] = lambda self, repeats: repeat(self, repeats).contiguous()
    return table


def aot_backend(fw_compiler, bw_compiler, decompositions, inference_compiler=None,
                partitioner="min_cut"):
    """AOTAutograd around our compilers. partitioner "min_cut": the forward saves fewer values
    for the backward, which recomputes the cheap ones (GPT-2, 2 layers: 1.73 -> 1.20 MB
    saved per step), as the stock compiler does; "default": every value the backward reads
    is saved."""
    from torch._dynamo.backends.common import aot_autograd

    kwargs = dict(fw_compiler=fw_compiler, bw_compiler=bw_compiler,
                  decompositions=decompositions)
    if partitioner == "min_cut":
        from torch._functorch.partitioners import min_cut_rematerialization_partition
        kwargs["partition_fn"] = min_cut_rematerialization_partition
    if inference_compiler is not None:
        kwargs["inference_compiler"] = inference_compiler
    try:
        return aot_autograd(keep_inference_input_mutations=True, **kwargs)
    except TypeError:  # older signature without the flag
        return aot_autograd(**kwargs)


def donated_inputs(example_inputs) -> frozenset:
    """Indices of a backward graph's inputs that AOTAutograd donated: saved activations that
    alias no forward input, user output or gradient, so no one reads them after this backward
    (AOTAutograd reports none when the backward keeps its graph, retain_graph=True). Read, as
    the stock compiler reads it, from the tracing context's forward metadata while the backward
    compiles; none where this torch reports nothing there. One sharing its storage with another
    input is left out: writing it could change that one."""
    try:
        from torch._guards import TracingContext
        meta = getattr(TracingContext.try_get(), "fw_metadata", None)
        if getattr(meta, "tokens", None):
            # a graph with effect tokens (an op under with_effects: linalg's error checks):
            # AOTAutograd's report slices its user outputs without the tokens and names a
            # saved tensor that IS a user output (linalg.inv's result was overwritten)
            return frozenset()
        idxs = list(getattr(meta, "bw_donated_idxs", None) or ())
    except Exception:   # noqa: BLE001 - a torch without the report: nothing donated
        return frozenset()
    storages: dict = {}
    for i, t in enumerate(example_inputs):
        if isinstance(t, torch.Tensor):
            try:
                key = t.untyped_storage()._cdata
            except Exception:   # noqa: BLE001 - (a tensor without storage)
                key = ("no storage", i)
            storages.setdefault(key, []).append(i)
    alone = {ix[0] for ix in storages.values() if len(ix) == 1}
    return frozenset(i for i in idxs if isinstance(i, int) and i in alone)


def data_dependent_errors() -> tuple:
    """Fake-tensor errors for sizes or values known only at run time (narrow at a tensor's
    value, nonzero): dynamo answers them itself by running that code in eager."""
    from torch._subclasses import fake_tensor as ft
    return tuple(getattr(ft, n) for n in ("DataDependentOutputException", "DynamicOutputShapeException")
                 if hasattr(ft, n))


def has_unbacked(gm) -> bool:
    """Whether an FX graph's values hold data-dependent (unbacked) size symbols: an op whose
    result size depends on data (nonzero, a boolean-mask index, .item()) kept in the graph
    (dynamo's capture_dynamic_output_shape_ops / capture_scalar_outputs)."""
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
    sym = (torch.SymInt, torch.SymFloat, torch.SymBool)
    for n in gm.graph.nodes:
        val = n.meta.get("val")
        for v in val if isinstance(val, (list, tuple)) else (val,):
            # (a static graph's sizes are ints: the cheap isinstance test passes them over)
            if isinstance(v, torch.Tensor):
                if any(isinstance(d, torch.SymInt) for d in (*v.shape, *v.stride())) \
                        and free_unbacked_symbols(v):
                    return True
            elif isinstance(v, sym) and free_unbacked_symbols(v):
                return True
    return False


def promote(args, kind: str):
    """(compute dtype, result dtype) of an elementwise op under eager's rules."""
    from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes
    return elementwise_dtypes(*args, type_promotion_kind=getattr(ELEMENTWISE_TYPE_PROMOTION_KIND, kind))


def empty_strided_fast(device_type: str):
    """torch's C allocator (size, stride, dtype) on the current device of `device_type`,
    skipping the dispatcher and device parsing of torch.empty_strided (several microseconds per
    buffer per call of a generated wrapper); None where this torch has none."""
    guards = getattr(getattr(torch._C, "_dynamo", None), "guards", None)
    return getattr(guards, f"_empty_strided_{device_type}", None)


def outside_fake_mode():
    """A context in which ops run on real tensors although a compile runs under a fake-tensor
    mode (reading a graph's tensor constants)."""
    try:
        from torch._subclasses.fake_tensor import unset_fake_temporarily
        return unset_fake_temporarily()
    except ImportError:
        from torch.utils._python_dispatch import _disable_current_modes
        return _disable_current_modes()


def add_graph_constant(gm, name: str, value) -> None:
    """`value` as a buffer of dynamo's GraphModule `gm` under `name`, read with get_attr:
    AOTAutograd lifts it to an input of the compiled graph. Dynamo's graphs name a source for
    each buffer AOTAutograd lifts (gm._param_name_to_source); the new one gets a constant
    source of its own (a copy of the dict: dynamo's OutputGraph holds the original)."""
    gm.register_buffer(name, value)
    sources = getattr(gm, "_param_name_to_source", None)
    if sources is not None:
        from torch._dynamo.source import ConstantSource
        gm._param_name_to_source = {**sources, name: ConstantSource(f"__tuner_{name}")}
