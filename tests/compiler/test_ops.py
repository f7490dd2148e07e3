"""Each lowering against eager: dtypes, odd sizes, non-contiguous inputs, broadcasting, 0-d."""
import pytest
import torch
import torch.nn.functional as F

import tuner.compiler.stats as stats
from helpers import assert_close, check_forward_and_backward, check_generated, compile_and_check

torch.manual_seed(0)
FLOATS = [torch.float32, torch.float16, torch.bfloat16]

UNARY = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos",
         "tan", "atan", "sinh", "cosh", "tanh", "asinh", "erf", "erfc", "sigmoid", "floor", "ceil",
         "round", "trunc", "abs", "neg", "sign", "reciprocal", "relu", "isnan", "isinf", "frac"]


def _pos(name, x):
    return x.abs() + 0.5 if name in ("log", "log2", "log10", "sqrt", "rsqrt", "log1p") else x


@pytest.mark.parametrize("name", UNARY)
def test_unary_float32(name):
    x = _pos(name, torch.randn(5, 7) * 2)
    s = compile_and_check(lambda t: getattr(torch, name)(t), x)
    assert s.kernels == 1 and not s.fallbacks


@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_chain_dtypes(dtype):
    x = torch.randn(3, 33).to(dtype)
    s = compile_and_check(lambda t: (torch.tanh(t) * t.exp()).sigmoid() + t.abs().sqrt(), x, dtype=dtype)
    assert s.kernels == 1


BINARY = [torch.add, torch.sub, torch.mul, torch.div, torch.maximum, torch.minimum, torch.atan2,
          torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge, torch.fmod, torch.remainder,
          torch.pow, torch.hypot, torch.copysign]


@pytest.mark.parametrize("op", BINARY, ids=lambda o: o.__name__)
def test_binary_broadcast_float(op):
    a = torch.randn(4, 1, 5)
    b = torch.randn(3, 1) + (2.0 if op in (torch.fmod, torch.remainder) else 0)
    if op is torch.pow:
        a = a.abs()
    compile_and_check(lambda x, y: op(x, y), a, b)


@pytest.mark.parametrize("op", [torch.add, torch.sub, torch.mul, torch.floor_divide, torch.remainder,
                                torch.fmod, torch.bitwise_and, torch.bitwise_or, torch.bitwise_xor,
                                torch.maximum, torch.div, torch.eq, torch.lt],
                         ids=lambda o: o.__name__)
def test_binary_int(op):
    a = torch.randint(-20, 20, (6, 5))
    b = torch.randint(1, 7, (5,)) * torch.tensor([1, -1, 1, -1, 1])
    compile_and_check(lambda x, y: op(x, y), a, b)


def test_integer_division_modes():
    a = torch.randint(-20, 20, (17,))
    b = torch.tensor(3)
    compile_and_check(lambda x, y: (torch.div(x, y, rounding_mode="floor"),
                                    torch.div(x, y, rounding_mode="trunc"), x // 4, x % -3), a, b)


def test_type_promotion_mixed():
    a = torch.randint(0, 5, (4, 3), dtype=torch.int32)
    b = torch.randn(3).half()
    c = torch.tensor(2.5, dtype=torch.float64)
    compile_and_check(lambda x, y, z: (x + y, x * z, y * z, x / 2, x > y, (x + 1).to(torch.bool) & (y > 0)),
                      a, b, c)


def test_where_clamp_logical():
    x = torch.randn(5, 6)
    compile_and_check(lambda t: (torch.where(t > 0, t, 0.1 * t), t.clamp(-0.5, 0.7), t.clamp_min(0),
                                 torch.logical_and(t > 0, t < 1), torch.logical_not(t > 0),
                                 torch.logical_xor(t > 0, t > 1)), x)


def test_zero_dim_and_size_one():
    compile_and_check(lambda a, b: (a * b + 1, (a + b).exp()), torch.tensor(3.0), torch.randn(1, 4, 1))


def test_non_contiguous_inputs():
    base = torch.randn(8, 10)
    x = base.t()[1:, ::2]
    y = torch.randn(4, 18)[:, ::2].t()
    compile_and_check(lambda a, b: a * 2 + b.cos(), x, y)


def test_casts():
    x = torch.randn(9) * 100
    compile_and_check(lambda t: (t.to(torch.int32), t.to(torch.float16), t.to(torch.bfloat16),
                                 t.to(torch.bool), (t > 0).to(torch.float32), t.to(torch.int8).to(torch.float64)), x)


@pytest.mark.parametrize("dtype", FLOATS + [torch.int64])
def test_reductions(dtype):
    x = (torch.randn(6, 7, 5) * 4).to(dtype)

    def f(t):
        out = [t.sum(1), t.sum(), t.amax(-1), t.amin(0), t.argmax(1), t.argmin(-1), t.argmax(),
               (t > 0).any(1), (t > 0).all(0), t.max(dim=2).values, t.min(dim=0).indices]
        if dtype.is_floating_point:
            out += [t.mean(1), t.prod(2), t.var(1), t.std(-1, correction=0), t.mean((0, 2), keepdim=True)]
        return out
    compile_and_check(f, x, dtype=dtype)


def test_reduction_nan_propagates():
    x = torch.randn(4, 6)
    x[1, 3] = float("nan")
    compile_and_check(lambda t: (t.amax(1), t.amin(1), t.argmax(1), t.argmin(1), t.sum(1)), x)


def test_looped_reduction_matches_persistent():
    x = torch.randn(5, 70)
    f = lambda t: (t.sum(1), t.amax(1), t.argmax(1), t.var(1), torch.softmax(t, -1))  # noqa: E731
    compile_and_check(f, x, options={"max_persistent_r": 16})
    compile_and_check(f, x)


def test_builders():
    def f(x):
        return (torch.arange(3, 17, 2) * x.sum(), torch.full((2, 3), 7.0) + x[0, :3],
                torch.zeros_like(x) + 1, torch.ones(4, dtype=torch.int64) * 3,
                torch.cat([x, x * 2, x[:, :1]], dim=1), torch.stack([x, x + 1]),
                torch.nn.functional.pad(x, (1, 2, 0, 1), value=-1.0), x.clone(), x.t().contiguous(),
                torch.arange(5.0) / 2)
    compile_and_check(f, torch.randn(3, 4))


def test_views_are_index_maps():
    x = torch.randn(4, 6, 5)
    f = lambda t: (t.permute(2, 0, 1).reshape(5, 24) + 1, t.transpose(0, 1)[:, ::2].unsqueeze(0) * 2,  # noqa: E731
                   t[1].squeeze() - 1, t.expand(2, 4, 6, 5).sum(0), t.select(1, -1).exp(),
                   torch.as_strided(t, (3, 3), (5, 1), 2).sin(), t.view(-1, 5)[::3].cos())
    s = compile_and_check(f, x)
    assert not s.fallbacks


def test_flip_is_an_index_map():
    # flip decomposes to prims.rev: read backwards along the flipped dims, inlined into the
    # consumer (a scan's gradient flips its input and its result)
    x = torch.randn(4, 6, 5)
    s = compile_and_check(lambda t: (t.flip(0, 2) * 2, t.transpose(0, 2).flip(-1).exp(),
                                     t[:, ::2].flip(1).sum(1)), x)
    assert not s.fallbacks


def test_sum_over_leading_dims_of_noncontiguous():
    x = torch.randn(5, 6, 7).permute(1, 2, 0)
    compile_and_check(lambda t: (t.sum(0), t.sum(-1), t.sum((0, 1))), x)


def test_masked_load_at_constant_index():
    # cat's first piece is x[0] (index free of the loop variable) under the piece's mask:
    # a scalar pointer with a block mask, which Triton rejects (GPT-2's position shift).
    x, y = torch.randn(257), torch.randn(2, 257)
    compile_and_check(lambda a, b: torch.cat([a[:1], a[:-1] * 2]) + b, x, y)
    # the same inside a reduction loop (looped and persistent)
    f = lambda a, b: (torch.cat([a[:1], a[:-1] * 2]) + b).sum(1)  # noqa: E731
    compile_and_check(f, x, y, options={"max_persistent_r": 16})
    compile_and_check(f, x, y)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_split_reductions_match(dtype):
    # Few outputs over a long reduced range: two kernels (partials over chunks, then the
    # chunks), for leading-dim (x-contiguous) and trailing-dim and full reductions.
    # (sizes above SMALL_REDUCTION_NUMEL elements, and inner rows above half of it: smaller
    # ones are not split)
    x = torch.randn(518, 130).to(dtype)   # 518 = 2 * 259: only a 2-way split divides it
    y = torch.randn(40000, 5).to(dtype)   # (its rows, transposed: long enough to split alone)
    s = compile_and_check(lambda a: a.sum(0), y, dtype=dtype)
    assert s.kernels == 2
    s = compile_and_check(lambda a: a.t().contiguous().sum(1), y, dtype=dtype)
    assert s.kernels >= 2
    compile_and_check(lambda a, b: (a.sum(0), a.amax(0), (a > 0).any(0), (b > 3).all(0), b.sum(),
                                    a.mean(0), b.amin(), (b.float() * 1e-3 + 1).prod(0)), x, y, dtype=dtype)
    # (prod in fp32: the interpreter's bf16 casts truncate, so a long bf16 product drifts)


def test_one_pass_reductions_stream_their_loads_multi_phase_ones_keep_them_in_l2():
    # evict_first (H100: x.sum(1) 0.056 -> 0.050 ms) only where each element is read once; a
    # LayerNorm's second phase re-reads x (with the hint: 0.095 -> 0.106 ms)
    x = torch.randn(8, 40)
    s = compile_and_check(lambda t: t.sum(1), x)
    assert s.kernels == 1 and "eviction_policy='evict_first'" in s.source
    s = compile_and_check(lambda t: torch.nn.functional.layer_norm(t, (40,)), x)
    assert s.kernels == 1 and "evict_first" not in s.source
    s = compile_and_check(lambda t: torch.softmax(t, -1), x, options={"max_persistent_r": 8})
    assert "for roffset" in s.source and "evict_first" not in s.source


def test_argmax_argmin_over_all_elements_keepdim_keeps_every_dim():
    x = torch.randn(3, 5, 4)
    compile_and_check(lambda t: (t.argmax(keepdim=True), t.argmin(keepdim=True), t.argmax()), x)


def test_compiled_graphs_leave_no_ir_alive(monkeypatch):
    # A long-lived process compiles many graphs; none of their IR nodes may stay referenced
    # (the scheduler's access memo lives on the nodes, not in a module-level cache).
    import gc
    import weakref

    from tuner.compiler import scheduler
    nodes = []
    init = scheduler.Scheduler.__init__

    def spy(self, graph):
        nodes.extend(weakref.ref(n) for n in graph.nodes)
        init(self, graph)
    monkeypatch.setattr(scheduler.Scheduler, "__init__", spy)
    compile_and_check(lambda t: torch.softmax(t, -1) * 2, torch.randn(4, 6))
    torch._dynamo.reset()
    gc.collect()
    assert nodes and not any(r() is not None for r in nodes)


def test_split_chunk_unbind_are_views_not_externs():
    # q/k/v splits (GPT-2) lower to slices that fuse into their consumers: no ATen call.
    x = torch.randn(3, 10, 12)

    def f(x):
        y = x * 2
        a, b, c = y.split([3, 4, 5], dim=-1)
        d, e = x.chunk(2, dim=1)
        u = x.unbind(0)
        p, q = torch.split(x, 7, dim=2)
        return a.sum(-1) + c[..., :3].sum(-1), b + 1, d - e, u[2] * u[0], p.sum(), q.exp()

    s = compile_and_check(f, x)
    names = " ".join(map(str, s.externs))
    assert "split" not in names and "unbind" not in names, s.externs


def test_repeat_is_a_fused_broadcast_not_an_aten_call():
    # Bloom's alibi, GPT-J's rotary tables: Tensor.repeat, leading new dims included
    x = torch.randn(3, 5)
    s = compile_and_check(lambda t: (t.exp().repeat(2, 1, 3) + 1, t.repeat(1, 1), t.repeat(4, 1)), x)
    assert not s.fallbacks, s.fallbacks
    assert "aten.repeat.default" not in s.externs


@pytest.mark.parametrize("dim,start,end", [(1, 2, 5), (0, None, 2), (-1, -3, None), (1, 0, 6)])
def test_slice_assignment_is_one_fused_kernel_not_an_aten_copy(dim, start, end):
    # functionalization turns `t[..., a:b] = v` into slice_scatter (KV-cache updates)
    x = torch.randn(4, 6, 5)

    def f(x, v):
        t = x * 2
        sl = [slice(None)] * 3
        sl[dim] = slice(start, end)
        t[tuple(sl)] = v.sin()
        return t + 1
    sl = [slice(None)] * 3
    sl[dim] = slice(start, end)
    v = torch.randn(x[tuple(sl)].shape)
    s = compile_and_check(f, x, v)
    assert not s.externs and not s.fallbacks and s.kernels == 1, (s.externs, s.fallbacks, s.kernels)


@pytest.mark.parametrize("start,end,step", [(0, None, 2), (1, None, 2), (1, 6, 3), (2, 7, 2), (-5, None, 4)])
def test_strided_slice_assignment_is_lowered_not_an_aten_copy(start, end, step):
    # `t[..., a:b:step] = v` and the backward of a strided slice (GPT-J's rotate_every_two
    # reads x[..., ::2] and x[..., 1::2]) are slice_scatter with a step
    x = torch.randn(3, 9)

    def f(x, v):
        y = x * 2
        y[:, start:end:step] = v.sin()
        return y + 1

    n = len(range(9)[start:end:step])
    s = compile_and_check(f, x, torch.randn(3, n))
    assert not s.fallbacks, s.fallbacks

    def g(x):
        return (x[:, start:end:step].tanh() * 3).sum()

    torch._dynamo.reset()
    x1 = torch.randn(3, 9, requires_grad=True)
    x2 = x1.detach().clone().requires_grad_()
    g(x1).backward()
    torch.compile(g, backend="tuner")(x2).backward()
    assert_close(x2.grad, x1.grad)
    assert not stats.last().fallbacks, stats.last().fallbacks


def test_select_assignment_is_one_fused_kernel():
    def f(x, v):
        t = x * 2
        t[:, -1] = v
        return t.relu()
    s = compile_and_check(f, torch.randn(4, 6, 5), torch.randn(4, 5))
    assert not s.externs and not s.fallbacks and s.kernels == 1, (s.externs, s.fallbacks, s.kernels)


@pytest.mark.parametrize("kernel,stride,padding,dilation,ceil", [
    (3, 2, 1, 1, False), (2, 2, 0, 1, False), (3, 2, 1, 1, True), (3, 1, 1, 2, False), ((2, 3), (1, 2), (1, 0), 1, True)])
def test_max_pool_fuses_with_the_activation_before_it(kernel, stride, padding, dilation, ceil):
    x = torch.randn(2, 3, 9, 10)
    x[0, 0, 2, 3] = float("nan")

    def f(x):
        return F.max_pool2d(torch.relu(x * 2 - 0.5), kernel, stride, padding, dilation, ceil_mode=ceil)
    s = compile_and_check(f, x)
    assert not s.externs and not s.fallbacks and s.kernels == 1, (s.externs, s.fallbacks, s.kernels)


def test_max_pool_indices_and_its_backward_match_eager():
    x = torch.randn(2, 3, 8, 8, requires_grad=True)
    x2 = x.detach().clone().requires_grad_()
    f = lambda t: F.max_pool2d(t.relu(), 3, 2, 1, return_indices=True)   # noqa: E731
    cf = torch.compile(f, backend="tuner")
    (out, idx), (rout, ridx) = cf(x), f(x2)
    assert torch.equal(idx, ridx)
    assert_close(out, rout)
    out.square().sum().backward()
    rout.square().sum().backward()
    assert_close(x.grad, x2.grad)


def test_max_pool_keeps_a_channels_last_layout():
    x = torch.randn(2, 8, 10, 10).to(memory_format=torch.channels_last)
    f = lambda x: F.max_pool2d(torch.relu(x), 3, 2, 1)   # noqa: E731
    torch._dynamo.reset()
    out = torch.compile(f, backend="tuner")(x)
    assert out.stride() == f(x).stride()
    assert_close(out, f(x))


AVG_POOLS = [   # kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
    (2, 2, 0, False, True, None), (3, 2, 1, False, True, None), (3, 2, 1, False, False, None),
    (3, 2, 1, True, True, None), (3, 2, 1, True, False, None), (3, 1, 1, False, False, None),
    ((2, 3), (1, 2), (1, 0), True, True, None), ((3, 2), (2, 3), (1, 1), True, False, None),
    (3, 2, 1, True, False, 5), (2, 2, 0, True, True, 3)]


@pytest.mark.parametrize("kernel,stride,padding,ceil,include,divisor", AVG_POOLS)
@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "nhwc"])
def test_avg_pool_is_a_fused_pointwise_value(kernel, stride, padding, ceil, include, divisor,
                                             channels_last):
    # odd sizes (9 x 10, 11 x 7): ceil_mode adds a clipped last window on some axes only
    for shape in ((2, 3, 9, 10), (1, 4, 11, 7)):
        x = torch.randn(*shape)
        if channels_last:
            x = x.to(memory_format=torch.channels_last)

        def f(x):
            return F.avg_pool2d(torch.relu(x * 2 - 0.5), kernel, stride, padding, ceil_mode=ceil,
                                count_include_pad=include, divisor_override=divisor) + 1
        s = compile_and_check(f, x)
        assert not s.externs and not s.fallbacks and s.kernels == 1, (s.externs, s.fallbacks, s.kernels)
        torch._dynamo.reset()
        assert torch.compile(f, backend="tuner")(x).stride() == f(x).stride()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_avg_pool_dtypes_and_3d_input(dtype):
    x = torch.randn(3, 9, 9).to(dtype)   # (C, H, W)
    s = compile_and_check(lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False), x,
                          dtype=dtype)
    assert not s.externs and s.kernels == 1


def test_avg_pool_backward_matches_eager():
    # the forward is generated; avg_pool2d_backward stays an ATen call
    f = lambda t: F.avg_pool2d(t.relu(), 3, 2, 1, ceil_mode=True, count_include_pad=False)   # noqa: E731
    check_forward_and_backward(f, torch.randn(2, 3, 9, 9, requires_grad=True))


def test_pools_with_a_single_output_row_decide_their_padding_taps_statically():
    # one output row: the padding row's condition is a constant, decided in the lowering (as
    # a 0-d mask in a load, the Triton interpreter refused it and the graph ran in ATen)
    x = torch.randn(2, 3, 4, 9)
    s = compile_and_check(lambda t: F.avg_pool2d(t, (3, 4), (4, 3), (1, 0), count_include_pad=False), x)
    assert not s.externs and not s.fallbacks and s.kernels == 1
    torch._dynamo.reset()
    f = lambda t: F.max_pool2d(t, (3, 4), (4, 3), (1, 0), return_indices=True)   # noqa: E731
    (out, idx), (rout, ridx) = torch.compile(f, backend="tuner")(x), f(x)
    assert torch.equal(idx, ridx) and torch.equal(out, rout)
    assert not stats.last().fallbacks and stats.last().kernels == 1


def test_avg_pool_windows_too_large_to_unroll_run_in_aten():
    x = torch.randn(2, 3, 14, 14)
    s = compile_and_check(lambda t: F.avg_pool2d(t.relu(), 14), x)   # 196 taps
    assert s.fallbacks == {"aten.avg_pool2d.default": 1}, s.fallbacks


def test_a_zero_width_pad_is_a_view_not_a_copy():
    # timm's 'same' padding before a stride-2 pool of an even map pads nothing (MaxViT): the
    # pad is its input's buffer itself, so an ATen consumer (here the pool, run in ATen as too
    # large) reads that buffer and no copy kernel is added
    x = torch.randn(2, 3, 16, 16)
    s = compile_and_check(lambda t: F.avg_pool2d(F.pad(t, (0, 0, 0, 0)), 16), x)
    assert s.kernels == 0 and s.fallbacks == {"aten.avg_pool2d.default": 1}, (s.kernels, s.fallbacks)
    # a pad with several consumers is no copy either; as a graph output it is one (eager's
    # result is a new tensor, it must not alias the input)
    s = compile_and_check(lambda t: (lambda p: p.sum(0) + p.amax(0))(F.pad(t, (0, 0))), x)
    assert s.kernels == 1
    out = torch.compile(lambda t: F.pad(t, (0, 0)), backend="tuner")(x)
    assert out.data_ptr() != x.data_ptr()
    assert_close(out, x)
    # and MaxViT's pattern: a zero 'same' pad, then a 2x2 avg pool, fused with the producer
    s = compile_and_check(lambda t: F.avg_pool2d(F.pad(t * 2, (0, 0, 0, 0)), 2, 2, count_include_pad=False), x)
    assert not s.externs and not s.fallbacks and s.kernels == 1


def test_bf16_op_results_stay_fp32_until_stored_unless_asked_to_round():
    # An AdamW-like bf16 chain: by default the fused kernel computes in fp32 and rounds only
    # at its store (no `.to(tl.bfloat16).to(tl.float32)` per op: on the H100 those
    # instructions made a bf16 optimizer step no faster than the fp32 one);
    # round_intermediates=True rounds every op result as eager does. Explicit casts round
    # either way.
    x, m = torch.randn(300).bfloat16(), torch.randn(300).bfloat16()

    def f(a, b):
        b2 = b * 0.9 + a * 0.1
        return (a - 1e-3 * b2 / (b2.abs().sqrt() + 1e-8)), b2

    rounding = ".to(tl.bfloat16).to(tl.float32)"
    s = compile_and_check(f, x, m, dtype=torch.bfloat16)
    assert rounding not in s.source and s.kernels == 1
    s = compile_and_check(f, x, m, dtype=torch.bfloat16, options={"round_intermediates": True})
    assert rounding in s.source
    # an explicit downcast inside the kernel is eager's rounding, kept
    s = compile_and_check(lambda a: (a.float() * 3).bfloat16().float() * 2, x, dtype=torch.bfloat16)
    assert rounding in s.source


@pytest.mark.parametrize("fn", [
    lambda x: torch.nn.functional.pad(x, (0, 0, 0, 0)).view(-1),
    lambda x: torch.nn.functional.pad(x, (0, 0)).t(),
    lambda x: (x * 2, torch.nn.functional.pad(x * 2, (0, 0)).view(-1)),
], ids=["view", "transpose", "two_outputs"])
def test_zero_pad_reaching_an_output_through_a_view_is_a_new_tensor(fn):
    # a zero-width pad is its input's buffer only where nothing can see the alias: returned
    # through a view, the caller's in-place update of the output must not reach the input
    x, xr = torch.zeros(3, 4), torch.zeros(3, 4)
    out, ref = torch.compile(fn, backend="tuner")(x), fn(xr)
    outs, refs = (out, ref) if isinstance(out, tuple) else ((out,), (ref,))
    for o, r in zip(outs, refs):
        o.add_(1)
        r.add_(1)
    assert all(torch.equal(o, r) for o, r in zip(outs, refs))
    assert torch.equal(x, xr)


def test_zero_pad_of_an_input_written_later_keeps_the_old_values():
    def fn(x):
        y = torch.nn.functional.pad(x, (0, 0))
        x.add_(1)
        return y.view(-1)
    x, xr = torch.zeros(3), torch.zeros(3)
    assert torch.equal(torch.compile(fn, backend="tuner")(x), fn(xr))
    assert torch.equal(x, xr)


def test_scalar_comparison_and_block_mask():
    """A comparison of 0-d values (a 0-d input, a constant mask: SqueezeBERT's and ConvBERT's
    all-ones attention mask) combined with a block of bools by `&`: the interpreter used to
    fill the broadcast scalar with floats and the graph fell back to ATen on its first call."""
    x, s = torch.randn(16), torch.tensor(0.5)
    st = compile_and_check(lambda a, b: torch.where((b > 0) & (a > 0), a, -a), x, s)
    assert not st.graph_fallback, st.graph_fallback
    st = compile_and_check(lambda a: torch.where(torch.logical_or(a > 1, torch.ones(()).bool()) & (a < 0.5), a, 0.0), x)
    assert not st.graph_fallback, st.graph_fallback
    st = compile_and_check(lambda a, b: torch.logical_xor(b, a > 0) | (b < 1), x, s)
    assert not st.graph_fallback, st.graph_fallback


def test_complex_values_run_in_aten_not_the_whole_graph():
    """FNet: a float -> complex64 cast before an FFT, the real part after it. The cast was
    lowered to a kernel value that code generation could not type (KeyError), and the whole
    graph fell back to ATen; ops on complex tensors now fall back one by one."""
    x = torch.randn(4, 6)
    st = compile_and_check(lambda t: torch.fft.fftn(t.to(torch.complex64), dim=(-1,)).real.relu() * 2 + t, x)
    assert not st.graph_fallback, st.graph_fallback
    assert st.fallbacks["aten._to_copy.default"] == 1 and st.kernels >= 1, (st.fallbacks, st.kernels)


def test_empty_like_and_empty_permuted_lower_without_aten():
    # empty_like decomposes to empty_permuted (cosine_embedding_loss builds its target with it)
    a, b, y = torch.randn(5, 6), torch.randn(5, 6), torch.tensor([1.0, -1, 1, -1, 1])
    s = compile_and_check(lambda a, b, y: F.cosine_embedding_loss(a, b, y, margin=0.3), a, b, y)
    assert not s.fallbacks, dict(s.fallbacks)
    s = compile_and_check(lambda x: torch.empty_like(x.t()).fill_(2.5) * x.t(), torch.randn(3, 4))
    assert not s.fallbacks, dict(s.fallbacks)


@pytest.mark.parametrize("offset, dim1, dim2", [(0, 0, 1), (2, 0, 1), (-1, 0, 1), (1, 2, 0),
                                                (-2, -1, 1), (5, 0, 1)])
def test_diagonal_scatter_lowers_without_aten(offset, dim1, dim2):
    x = torch.randn(4, 5, 3)
    src_shape = x.diagonal(offset, dim1, dim2).shape
    src = torch.randn(src_shape)
    s = compile_and_check(lambda a, b: torch.diagonal_scatter(a * 2, b + 1, offset, dim1, dim2), x, src)
    assert not s.fallbacks, dict(s.fallbacks)


def test_diagonal_backward_is_a_scatter_kernel():
    x = torch.randn(5, 6, requires_grad=True)
    check_forward_and_backward(lambda t: torch.diagonal(t.sin(), 1) * 3, x)
    assert not any(g.fallbacks for g in stats.graphs()[-2:])


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64], ids=str)
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_reduce_by_atomics(reduce, include_self, dtype, dim):
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(5, 6, generator=g) * 10).to(dtype)
    index = torch.randint(0, x.shape[dim], (4, 6) if dim == 0 else (5, 4), generator=g)   # repeats
    src = (torch.randn(index.shape, generator=g) * 10).to(dtype)
    s = compile_and_check(lambda a, i, b: torch.scatter_reduce(a + 1, dim, i, b, reduce,
                                                              include_self=include_self), x, index, src)
    assert not s.fallbacks, dict(s.fallbacks)


def test_scatter_reduce_prod_is_generated():
    # no atomic for a product: a reduction over the index (indexing.py, _prod_into)
    x, index, src = torch.randn(4, 3), torch.tensor([[0, 1, 0], [2, 2, 1]]), torch.randn(2, 3)
    s = compile_and_check(lambda a, i, b: torch.scatter_reduce(a, 0, i, b, "prod"), x, index, src)
    assert "aten.scatter_reduce.two" not in s.externs and not s.fallbacks


@pytest.mark.parametrize("reduce", ["mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64], ids=str)
def test_index_reduce_by_atomics(reduce, include_self, dtype):
    g = torch.Generator().manual_seed(5)
    x = (torch.randn(4, 6, generator=g) * 10).to(dtype)
    index = torch.tensor([2, 0, 2, 5])   # a repeat; slices 1, 3, 4 receive nothing
    source = (torch.randn(4, 4, generator=g) * 10).to(dtype)
    s = compile_and_check(lambda a, i, b: (a * 2).index_reduce(1, i, b, reduce, include_self=include_self),
                          x, index, source)
    assert not s.fallbacks and not s.externs, (dict(s.fallbacks), dict(s.externs))


def test_index_add_alpha_and_a_zero_dim_input():
    x, index, source = torch.randn(5, 3), torch.tensor([4, 0, 4]), torch.randn(3, 3)
    s = compile_and_check(lambda a, i, b: a.index_add(0, i, b, alpha=-2.5), x, index, source)
    assert not s.fallbacks
    s = compile_and_check(lambda a, i, b: (a + 1).index_reduce(0, i, b, "amax"),
                          torch.tensor(1.5), torch.tensor([0]), torch.tensor(3.0))
    assert not s.fallbacks


@pytest.mark.parametrize("dim, size, step", [(0, 2, 1), (1, 3, 2), (-1, 4, 3), (2, 1, 1)])
def test_unfold_is_a_strided_view(dim, size, step):
    x = torch.randn(4, 7, 5)
    s = compile_and_check(lambda t: (t * 2).unfold(dim, size, step).sin(), x)
    assert not s.fallbacks, dict(s.fallbacks)
    x = torch.randn(6, 7, requires_grad=True)
    check_forward_and_backward(lambda t: t.unfold(1, 3, 2) * 3, x)
    s = compile_and_check(lambda t: t.unfold(0, 1, 1) + 1, torch.tensor(2.0))
    assert not s.fallbacks


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8])
def test_integer_pow_is_eagers_integer_power(dtype):
    # eager's integer power: exact products that wrap on overflow, and a negative exponent
    # gives 1 for a base of 1, +-1 for -1, 0 otherwise (a float pow or numpy's power refuses
    # or rounds); tensor exponents and a scalar base
    signed = dtype != torch.uint8
    base = torch.tensor([-3, -1, 0, 1, 2, 7, 3, -2] if signed else [0, 1, 2, 3, 7, 9, 15, 255]).to(dtype)
    exps = torch.arange(-3 if signed else 0, 5 if signed else 8).to(dtype)
    a, b = base.repeat(8, 1), exps.reshape(8, 1).expand(8, 8).contiguous()
    check_generated(lambda x, y: x ** y, a, b, generated=("aten.pow.Tensor_Tensor",), min_kernels=1)
    check_generated(lambda y: torch.pow(3, y), b, generated=("aten.pow.Scalar",), min_kernels=1)
    if dtype == torch.int64:   # products past 2**63 wrap as eager's do
        big, e = torch.tensor([3, 7, -5, 2]), torch.tensor([40, 63, 33, 64])
        check_generated(lambda x, y: x ** y, big, e, generated=("aten.pow.Tensor_Tensor",))


BOOL_ACCUMULATES = {   # GPUs have no atomics on bytes: a boolean sum or max is an or, a min an and
    "index_add": lambda x, i, s: x.index_add(0, i, s),
    "scatter_add": lambda x, i, s: x.scatter_add(0, i, s),
    "index_put_accumulate": lambda x, i, s: x.index_put((i,), s, accumulate=True),
    "scatter_amin": lambda x, i, s: x.scatter_reduce(0, i, s, "amin"),
    "scatter_amax_without_self": lambda x, i, s: x.scatter_reduce(0, i, s, "amax", include_self=False),
    "scatter_sum": lambda x, i, s: x.scatter_reduce(0, i, s, "sum"),
}


@pytest.mark.parametrize("case", sorted(BOOL_ACCUMULATES))
def test_boolean_accumulating_scatters_are_generated_and_match_eager(case):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(10, generator=g) > 0.7
    idx, src = torch.randint(0, 10, (20,), generator=g), torch.rand(20, generator=g) > 0.5
    check_generated(BOOL_ACCUMULATES[case], x, idx, src, min_kernels=1)
    if case == "index_add":   # 0-d: the condition a scalar comparison (OpInfo's sample)
        check_generated(lambda x, i, s: x.index_add(0, i, s), torch.tensor(False), torch.tensor([0]),
                        torch.tensor(True))


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16])
def test_accumulating_into_bytes_or_halfwords_leaves_the_op_to_aten(dtype):
    # no GPU atomics on 8- and 16-bit integers: the op runs in ATen (counted), not the graph
    g = torch.Generator().manual_seed(0)
    x, src = torch.randint(0, 5, (10,), generator=g).to(dtype), torch.randint(0, 5, (20,), generator=g).to(dtype)
    idx = torch.randint(0, 10, (20,), generator=g)
    stats.reset()
    compile_and_check(lambda x, i, s: (x * 2).index_add(0, i, s) + 1, x, idx, src)
    (graph,) = stats.graphs()
    assert not graph.graph_fallback and graph.fallbacks == {"aten.index_put.default": 1}, graph.fallbacks
    assert graph.kernels >= 1   # the ops around it are still generated


@pytest.mark.parametrize("src", [torch.int32, torch.int64, torch.float64])
@pytest.mark.parametrize("dst", [torch.bfloat16, torch.float16])
def test_ints_and_doubles_convert_to_16_bit_floats_as_eager(src, dst):
    # eager converts through float32 (c10's Half and BFloat16 take a float): the kernel too
    # (the interpreter's direct int32 -> bfloat16 cast gave NaN for -8)
    vals = [-8, -1, 0, 3, 255, 16777217, 33554435, -2147483647]
    x = torch.tensor(vals, dtype=src)
    check_generated(lambda t: (t * 1).to(dst), x, min_kernels=1)


def test_bilinear_of_integers_keeps_their_dtype():
    g = torch.Generator().manual_seed(0)
    a, b = torch.randint(-3, 4, (2, 3), generator=g, dtype=torch.int32), torch.randint(-3, 4, (2, 4), generator=g, dtype=torch.int32)
    w, bias = torch.randint(-3, 4, (5, 3, 4), generator=g, dtype=torch.int32), torch.randint(-3, 4, (5,), generator=g, dtype=torch.int32)
    check_generated(F.bilinear, a, b, w, bias, min_kernels=1)


@pytest.mark.parametrize("op", ["any", "all"])
def test_any_and_all_of_uint8_return_uint8_as_eager(op):
    x = torch.tensor([[0, 3, 0], [1, 2, 255]], dtype=torch.uint8)
    check_generated(lambda t: getattr(torch, op)(t), x, min_kernels=1)
    check_generated(lambda t: getattr(torch, op)(t * 1, 1, keepdim=True), x, min_kernels=1)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_half_maxima_and_minima_by_index_leave_the_op_to_aten(dtype, reduce):
    # Triton has atomic adds on float16 but no atomic max or min (the float16 OpInfo sweep:
    # index_reduce's first call failed and its whole graph ran in ATen): that op runs in ATen
    g = torch.Generator().manual_seed(0)
    x, src = torch.randn(6, 3, generator=g).to(dtype), torch.randn(8, 3, generator=g).to(dtype)
    idx = torch.randint(0, 6, (8,), generator=g)
    stats.reset()
    compile_and_check(lambda x, i, s: (x * 2).index_reduce(0, i, s, reduce) + 1, x, idx, src)
    (graph,) = stats.graphs()
    assert not graph.graph_fallback and len(graph.fallbacks) == 1, graph.fallbacks
    assert graph.kernels >= 1   # the ops around it are still generated


def test_a_bfloat16_cast_rounds_to_nearest_as_on_a_gpu():
    # 1 + 0.75 ulp of bfloat16: truncation (the interpreter's own cast) gives 1.0, a GPU's and
    # eager's rounding 1 + 2^-7 (tests/conftest.py installs tests/triton_rounding.py)
    x = torch.tensor([1 + 3 * 2.0 ** -9, -(1 + 3 * 2.0 ** -9), 3.0])
    out = torch.compile(lambda t: (t * 1.0).to(torch.bfloat16), backend="tuner")(x)
    assert out.tolist() == x.to(torch.bfloat16).tolist() == [1 + 2.0 ** -7, -(1 + 2.0 ** -7), 3.0]
