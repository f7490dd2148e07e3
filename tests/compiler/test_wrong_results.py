"""Cases that once compiled silently to wrong values: each compares with eager on random inputs
and asserts the graph ran as generated code (no graph fallback)."""
import pytest
import sympy
import torch

import tuner.compiler.stats as stats
from helpers import compile_and_check
from tuner.compiler import sym as S


def _no_graph_fallback(s):
    assert not s.graph_fallback, s.graph_fallback
    assert s.kernels >= 1


# ProphetNet's n-gram streams: chunks of a reshaped transpose, stacked or concatenated. The
# second chunk's offset made a floor division's argument negative (its // was then dropped).
STREAMS = {
    "stack_reshape_mul": lambda x: torch.stack(
        x.transpose(1, 2).contiguous().reshape(2, 4, -1, 16).chunk(3, dim=2)[1:], 1) * 1.0,
    "stack_reshape": lambda x: torch.stack(
        x.transpose(1, 2).contiguous().reshape(2, 4, -1, 16).chunk(3, dim=2)[1:], 1),
    "cat_reshape_mul": lambda x: torch.cat(
        x.transpose(1, 2).contiguous().reshape(2, 4, -1, 16).chunk(3, dim=2)[1:], 1) * 1.0,
    "stack_view_mul": lambda x: torch.stack(
        x.transpose(1, 2).contiguous().view(2, 4, -1, 16).chunk(3, dim=2)[1:], 1) * 1.0,
    "cat_all_chunks_dim2": lambda x: torch.cat(
        x.transpose(1, 2).contiguous().reshape(2, 4, -1, 16).chunk(3, dim=2)[::-1], 2) + 1,
}


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_chunks_of_reshaped_transpose(name):
    x = torch.randn(2, 18, 4, 16)
    _no_graph_fallback(compile_and_check(STREAMS[name], x))


def test_slices_with_offsets_through_views():
    # offsets that are not multiples of the inner sizes, through a reshape that merges dims
    def f(x):
        y = x.permute(0, 2, 1).reshape(3, -1)      # (3, 35): flat index over (5, 7) rows
        return torch.cat([y[:, 9:20], y[:, 1:4], y[:, 30:]], 1) * 2
    _no_graph_fallback(compile_and_check(f, torch.randn(3, 7, 5)))


def test_floor_div_keeps_negative_offsets_inside():
    t, c = S.sym("t"), S.sym("c")
    e = S.FloorDiv(288 * t + 16 * c - 960, sympy.Integer(288))
    # the split moves the offset's multiple of 288 out and keeps the rest non-negative
    assert e == t - 4 + S.FloorDiv(16 * c + 192, sympy.Integer(288))
    assert S.with_bounds(e, {"t": 7, "c": 5}) == t - 4
    assert S.ModIdx(288 * t + 16 * c - 960, sympy.Integer(288)) == S.ModIdx(16 * c + 192, sympy.Integer(288))


def test_no_split_with_a_negative_term():
    t, c = S.sym("t"), S.sym("c")
    e = S.FloorDiv(8 * t + 20 - c, sympy.Integer(4))
    assert isinstance(e, S.FloorDiv) and e.args[0] == 8 * t + 20 - c


def test_with_bounds_folds_within_one_multiple():
    c = S.sym("c")
    assert S.with_bounds(S.FloorDiv(c + 300, sympy.Integer(288)), {"c": 100}) == 1
    assert S.with_bounds(S.ModIdx(c + 300, sympy.Integer(288)), {"c": 100}) == c + 12
    # spans two multiples: kept
    assert isinstance(S.with_bounds(S.FloorDiv(c + 200, sympy.Integer(288)), {"c": 100}), S.FloorDiv)


# Zero-element tensors: the kernel that computes nothing is not launched, but its outputs are
# still allocated (the wrapper once returned a buffer it never made: NameError, graph in ATen).
ZERO = {
    "exp": (torch.exp, torch.randn(0, 3)),
    "sigmoid_mul": (lambda t: torch.sigmoid(t) * 2, torch.randn(4, 0, 2)),
    "new_zeros": (lambda t: t.new_zeros((0, 4)), torch.randn(2)),
    "tile_zero": (lambda t: t.tile((2, 0)), torch.randn(3, 2)),
    "softmax_empty_dim0": (lambda t: torch.softmax(t, 0), torch.randn(0, 4)),
    "sum_to_empty": (lambda t: (t * 2).sum(1), torch.randn(0, 5)),
    "sum_over_empty": (lambda t: (t * 2).sum(0), torch.randn(0, 5)),
    "mixed_outputs": (lambda t: (t.exp(), t[:0] + 1, t.sum()), torch.randn(3, 4)),
}


@pytest.mark.parametrize("name", sorted(ZERO))
def test_zero_elements(name):
    fn, x = ZERO[name]
    s = compile_and_check(fn, x)
    assert not s.graph_fallback, s.graph_fallback


def test_zero_elements_backward():
    # Reformer's training step: a zero-size buffer inside the backward graph
    def f(t):
        return torch.cat([t[:, :0].exp(), t.sigmoid()], 1) * 3
    x = torch.randn(3, 4, requires_grad=True)
    x2 = x.detach().clone().requires_grad_()
    stats.reset()
    out = torch.compile(f, backend="tuner")(x)
    ref = f(x2)
    torch.testing.assert_close(out, ref)
    out.sum().backward()
    ref.sum().backward()
    torch.testing.assert_close(x.grad, x2.grad)
    assert not any(g.graph_fallback for g in stats.graphs())


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(STREAMS) + [f"zero:{n}" for n in sorted(ZERO)])
def test_on_gpu(name):
    if name.startswith("zero:"):
        fn, x = ZERO[name[5:]]
    else:
        fn, x = STREAMS[name], torch.randn(2, 18, 4, 16)
    s = compile_and_check(fn, x.cuda())
    assert not s.graph_fallback, s.graph_fallback


# An expand saved for backward: the forward stored it dense while the backward, lowered with
# the strides of its FX value (stride 0 along the expanded dim), read it as broadcast. The
# gradient of F.normalize was off by up to 3.9.
SAVED_EXPANDS = {
    "clamp_expand": lambda x: x * x.sum(1, keepdim=True).clamp_min(0.1).expand_as(x),
    "normalize": lambda x: torch.nn.functional.normalize(x, dim=1),
    "normalize_dim_last": lambda x: torch.nn.functional.normalize(x * 2, dim=-1) + x,
}


@pytest.mark.parametrize("name", sorted(SAVED_EXPANDS))
def test_expand_saved_for_backward(name):
    fn = SAVED_EXPANDS[name]
    x = torch.randn(2, 3, 4, 5, requires_grad=True)
    x2 = x.detach().clone().requires_grad_()
    stats.reset()
    out = torch.compile(fn, backend="tuner")(x)
    ref = fn(x2)
    torch.testing.assert_close(out, ref)
    w = torch.randn(ref.shape)
    (out * w).sum().backward()
    (ref * w).sum().backward()
    torch.testing.assert_close(x.grad, x2.grad, rtol=1e-4, atol=1e-5)
    assert not any(g.graph_fallback for g in stats.graphs())


def test_an_expanded_output_keeps_eagers_strides():
    fn = lambda x: x.sum(1, keepdim=True).exp().expand(-1, 3, -1)   # noqa: E731
    x = torch.randn(2, 3, 4)
    out = torch.compile(fn, backend="tuner")(x)
    ref = fn(x)
    torch.testing.assert_close(out, ref)
    assert out.stride() == ref.stride()


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(SAVED_EXPANDS))
def test_expand_saved_for_backward_on_gpu(name):
    fn = SAVED_EXPANDS[name]
    x = torch.randn(2, 3, 4, 5, device="cuda", requires_grad=True)
    x2 = x.detach().clone().requires_grad_()
    out = torch.compile(fn, backend="tuner")(x)
    ref = fn(x2)
    torch.testing.assert_close(out, ref)
    w = torch.randn(ref.shape, device="cuda")
    (out * w).sum().backward()
    (ref * w).sum().backward()
    torch.testing.assert_close(x.grad, x2.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.gpu
def test_interpreter_mismatches_match_eager_on_gpu():
    """The OpInfo sweep's mismatches it puts down to Triton's interpreter (its float32 ->
    bfloat16 cast truncates) are exact where Triton compiles for a GPU."""
    from torch.testing._internal.common_methods_invocations import op_db

    from opinfo_expected import KNOWN_INTERPRETER_MISMATCHES
    assert KNOWN_INTERPRETER_MISMATCHES
    for key in KNOWN_INTERPRETER_MISMATCHES:
        name, _, variant = key.partition(".")
        (op,) = [o for o in op_db if o.name == name and o.variant_test_name == variant]
        for sample in list(op.sample_inputs("cuda", torch.float32))[:2]:
            def fn(inp, args, kwargs):
                return op(inp, *args, **kwargs)
            torch._dynamo.reset()
            stats.reset()
            ref = fn(sample.input, sample.args, sample.kwargs)
            out = torch.compile(fn, backend="tuner")(sample.input, sample.args, sample.kwargs)
            torch.testing.assert_close(out, ref, rtol=0, atol=0)
            assert not any(g.graph_fallback for g in stats.graphs())
