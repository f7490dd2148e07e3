"""Graphs with dynamic sizes compiled once with the sizes kept symbolic (compiler/sizes.py):
kernels take the sizes as arguments, one compile serves every size its guards admit, and a
graph that cannot stay symbolic runs in ATen (counted and named)."""
import random

import pytest
import sympy
import torch
import torch.nn.functional as F

import tuner.compiler.stats as stats
from helpers import assert_close
from tuner.compiler.sizes import SizeVars, Unsupported, view_strides


def _block(x, w, kv):
    """A decoder step's shapes: a norm, a projection, attention over a cache that grows
    along the sequence (cat), a residual."""
    h = F.layer_norm(x, x.shape[-1:])
    q = (h @ w).view(x.shape[0], x.shape[1], 2, 8).transpose(1, 2)
    k = torch.cat([kv, h.view(x.shape[0], x.shape[1], 2, 8).transpose(1, 2)], 2)
    att = torch.softmax(q @ k.transpose(-1, -2) / 4.0, -1)
    return x + (att @ k).transpose(1, 2).reshape(x.shape), k[:, :, 1:]


def test_fifty_sequence_lengths_compile_no_more_kernel_sources_than_two():
    torch.manual_seed(0)
    w = torch.randn(16, 16)
    cf = torch.compile(_block, backend="tuner", dynamic=True)
    stats.reset()

    def kernel_sources():
        return {line for g in stats.graphs() for line in g.source.splitlines() if line.startswith("# def ")}
    # (lengths from 3: at 2 dynamo would unify the length with the batch of 2)
    for n in range(3, 53):
        x, kv = torch.randn(2, n, 16), torch.randn(2, 2, 3, 8)
        out, cache = cf(x, w, kv)
        want, want_cache = _block(x, w, kv)
        assert_close(out, want)
        assert_close(cache, want_cache)
        if n == 4:
            first_two = kernel_sources()
    graphs = stats.graphs()
    assert all(g.symbolic for g in graphs) and not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert not any(g.graph_fallback for g in graphs)
    assert kernel_sources() == first_two
    # the softmax over the growing cache is one kernel for every row length (persistent where
    # the launch's block covers the row, else looped): no variant per power of two of the row,
    # one graph per dynamo frame (it recompiles once, at 4: at 3 the cache's 3 was the same size)
    assert len(graphs) == 2, [g.guards for g in graphs]


def test_a_new_size_in_a_known_bucket_compiles_nothing():
    cf = torch.compile(lambda x, y: (x * y.sum(-1, keepdim=True)).tanh() + 1, backend="tuner", dynamic=True)
    for n in (5, 6):
        x, y = torch.randn(n, 8), torch.randn(n, 3)
        assert_close(cf(x, y), (x * y.sum(-1, keepdim=True)).tanh() + 1)
    before = len(stats.graphs())
    for n in (7, 9, 13, 40):
        x, y = torch.randn(n, 8), torch.randn(n, 3)
        assert_close(cf(x, y), (x * y.sum(-1, keepdim=True)).tanh() + 1)
    assert len(stats.graphs()) == before   # no graph compiled, so no kernel either


def test_a_norm_over_short_rows_guards_nothing_on_the_row_count():
    # GPT-2's LayerNorm over 768 at any number of tokens: short rows are never split, so the
    # split rule records no guard on the row count and one variant serves 6 x 32 tokens as
    # well as 14 x 36 (a guard `rows >= 256` sent every call below 256 rows to a compile of
    # its own: 8 s of the serving bench's compile time)
    w = torch.randn(768)
    f = lambda x: F.layer_norm(x, (768,), w) * 2   # noqa: E731
    cf = torch.compile(f, backend="tuner", dynamic=True)
    stats.reset()
    for shape in ((14, 36), (6, 32), (3, 5)):
        x = torch.randn(*shape, 768)
        assert_close(cf(x), f(x))
    graphs = stats.graphs()
    assert len(graphs) == 1 and graphs[0].symbolic, [g.guards for g in graphs]


@pytest.mark.parametrize("case", ["views", "slices", "cat", "reduce_dynamic_dim", "scalar_size"])
def test_symbolic_graphs_match_eager(case):
    fns = {
        "views": lambda x: x.view(x.shape[0], -1, 4).transpose(0, 1).contiguous() * 2,
        "slices": lambda x: x[:, 1:] - x[:, :-1],
        "cat": lambda x: torch.cat([x, x[:1] * 3], 0).relu(),
        "reduce_dynamic_dim": lambda x: x.softmax(0) + x.sum(0),
        "scalar_size": lambda x: x.new_ones(x.shape[0]) * x.shape[1] + x.mean(1),
    }
    fn = fns[case]
    cf = torch.compile(fn, backend="tuner")
    stats.reset()
    for n in (3, 6, 11, 17):
        x = torch.randn(n, 8)
        torch._dynamo.mark_dynamic(x, 0)   # the batch dynamic, the features not
        assert_close(cf(x), fn(x))
    assert any(g.symbolic for g in stats.graphs()), stats.symbolic_fallbacks
    assert not any(g.graph_fallback for g in stats.graphs())


def test_a_graph_that_cannot_stay_symbolic_runs_in_aten_counted_and_named(monkeypatch):
    # no per-shape compile any more (dynamo's dynamic=False is that path): the graph runs in
    # ATen, its reason counted in stats.symbolic_fallbacks and the graph's graph_fallback
    def refuse(self, value):
        raise Unsupported("test: no symbolic sizes")
    monkeypatch.setattr(SizeVars, "wrap", refuse)
    fn = lambda x: x.exp() * 2  # noqa: E731
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for n in (3, 4, 5):
        x = torch.randn(n, 2)
        assert_close(cf(x), fn(x))
    assert stats.symbolic_fallbacks == {"Unsupported: test: no symbolic sizes": 1}
    fell = [g.graph_fallback for g in stats.graphs() if g.graph_fallback]
    assert fell == ["Unsupported: test: no symbolic sizes"] and not any(g.symbolic for g in stats.graphs())


def test_running_out_of_memory_compiling_a_variant_is_not_a_refusal(monkeypatch):
    # a transient failure (memory, while tuning) runs that call in ATen, and a later call
    # compiles the variant; a refusal (above) would have left the graph in ATen for good
    real, failed = SizeVars.wrap, []

    def wrap_once(self, value, *args, **kwargs):
        if not failed:
            failed.append(1)
            raise torch.OutOfMemoryError("test: out of memory")
        return real(self, value, *args, **kwargs)
    monkeypatch.setattr(SizeVars, "wrap", wrap_once)
    fn = lambda x: x.exp() * 2  # noqa: E731
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for n in (3, 4, 5):
        x = torch.randn(n, 2)
        assert_close(cf(x), fn(x))
    assert failed and not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert any(g.symbolic for g in stats.graphs()) and not any(g.graph_fallback for g in stats.graphs())


def test_view_strides_agree_with_torch():
    rng = random.Random(0)
    for _ in range(300):
        size = [rng.choice([1, 2, 3, 4, 6]) for _ in range(rng.randint(1, 4))]
        t = torch.empty(size)
        perm = list(range(len(size)))
        rng.shuffle(perm)
        t = t.permute(perm)
        if rng.random() < 0.3 and t.dim() > 0 and t.shape[0] > 1:
            t = t[::2]
        numel = t.numel()
        factors = [d for d in (1, 2, 3, 4, 6, 12) if numel % d == 0]
        new, rest = [], numel
        while rest > 1 and len(new) < 4:
            d = rng.choice([f for f in factors if rest % f == 0])
            new.append(d)
            rest //= d
        new.append(rest)
        try:
            want = t.view(new).stride()
        except RuntimeError:
            want = None
        got = view_strides(tuple(t.shape), tuple(t.stride()), new)
        assert (None if got is None else tuple(got)) == (None if want is None else tuple(want)), \
            (tuple(t.shape), t.stride(), new)


def test_guards_are_recorded_only_where_the_bounds_cannot_decide():
    sv = SizeVars()
    s, t = sympy.Symbol("s0", integer=True, positive=True), sympy.Symbol("s1", integer=True, positive=True)
    sv.bind(s, 5)
    sv.bind(t, 7)
    a, b = sv.wrap(s), sv.wrap(t)
    assert a != 1 and a * b > b and a >= 2 and not sv.guards   # sizes are at least 2
    assert a < 512 and (a * b) // a == b
    assert [str(g) for g in sv.guards] == ["s0 < 512"]
    assert a < b and len(sv.guards) == 2
    with pytest.raises(Unsupported):   # a guard the wrapper could not check: no input holds s0
        sv.checker()
    sv.read(s, 0, "value")
    sv.read(t, 1, "value")
    check = sv.checker()
    assert check([6, 9]) and not check([9, 6]) and not check([600, 700])
    with pytest.raises(Unsupported):   # a concrete int: the graph compiles per shape
        int(a)


def _two_sizes(a, b):
    """A size table with the sizes s0 = a and s1 = b: (table, s0, s1)."""
    sv = SizeVars()
    s, t = sympy.Symbol("s0", integer=True, positive=True), sympy.Symbol("s1", integer=True, positive=True)
    sv.bind(s, a)
    sv.bind(t, b)
    return sv, s, t


def test_a_pooled_size_divides_and_compares_without_a_parity_guard():
    from tuner.compiler.sizes import surely
    sv, s, t = _two_sizes(7, 3)
    pooled = (sv.wrap(s) + 1) // 2            # a pooling's output size: a FloorDiv term
    assert "FloorDiv" in str(pooled.expr)
    assert (pooled * sv.wrap(t) * 4) // 2 == pooled * sv.wrap(t) * 2   # exact: no Unsupported
    # the last window's end against the input: true at odd sizes only, so undecided, no guard
    assert surely(sympy.Ge, 2 * pooled - 1, sv.wrap(s)) is None
    assert surely(sympy.Lt, 0, sv.wrap(s)) is True and surely(sympy.Lt, 3, 2) is False
    assert not sv.guards


def test_a_stride_max_the_sizes_order_is_folded_without_a_guard():
    from torch.utils._sympy.functions import Max, Min
    sv, s, t = _two_sizes(5, 7)
    # PyTorch's dense strides over sizes that might be 0 or 1; a size here is at least 2
    assert sv.wrap(Max(1, s - 1)).expr == s - 1 and sv.wrap(Min(s, s + 1)).expr == s
    assert sv.wrap(Max(1, s * t - 1)).expr == s * t - 1
    assert not sv.guards
    # not ordered by the ranges: the one winning at the hints, under a guard
    assert sv.wrap(Max(s, t)).expr == t and sv.guards


def test_a_dense_stride_over_an_integer_argument_drops_its_max():
    # torch.ones(3, n) for an integer argument n (no lower bound: it might be 0) has the
    # stride Max(1, n): where n is 0 no element exists, so n serves (it had no kernel source)
    from torch.utils._sympy.functions import Max
    sv = SizeVars()
    n = sympy.Symbol("s0", integer=True)
    sv.bind(n, 4, None)
    assert sv.wrap_stride(Max(1, 3 * n)).expr == 3 * n
    assert not sv.guards
    assert sv.wrap(Max(1, 3 * n)).expr == 3 * n and sv.guards   # a size: under a guard


def test_an_integer_division_is_never_ordered_by_intervals():
    # PyTorch's FloorDiv evaluated over [2, oo) intervals to 1, so Max(1, s0 // s1) was
    # folded to 1: channel_shuffle's gradient came out wrong under dynamic=True
    from torch.utils._sympy.functions import FloorDiv, Max
    sv, s, t = _two_sizes(6, 3)
    assert sv.wrap(Max(1, FloorDiv(s, t))).expr != 1

    def fn(x, groups):
        return F.channel_shuffle(x, groups)
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    for shape, groups in (((1, 4, 10, 10), 2), ((2, 6, 8, 8), 3)):
        x = torch.randn(shape, requires_grad=True)
        x2 = x.detach().clone().requires_grad_()
        ct = torch.randn(shape)
        (cf(x, groups) * ct).sum().backward()
        (fn(x2, groups) * ct).sum().backward()
        assert_close(x.grad, x2.grad)


def _gradients_match(fn, shapes):
    """fn compiled with dynamic=True gives eager's input gradient at each shape."""
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    for shape in shapes:
        x = torch.randn(shape, requires_grad=True)
        x2 = x.detach().clone().requires_grad_()
        ct = torch.randn_like(fn(x2))
        (cf(x) * ct).sum().backward()
        (fn(x2) * ct).sum().backward()
        assert_close(x.grad, x2.grad)


def test_a_ceil_mode_pooled_size_divides_with_floor_semantics_in_kernels():
    # ceil mode writes the pooled size as 1 - (3 - s) // 2: Python floors (3 - 6) // 2 to -2,
    # Triton truncated it to -1, and max_pool3d's gradient scattered into the wrong rows
    from tuner.compiler import sym as S
    s = sympy.Symbol("s0", integer=True, positive=True)
    src = S.texpr(S.FloorDiv(3 - s, 2))
    assert eval(src, {"s0": 6}) == -2 and "%" in src and S.texpr(S.FloorDiv(s, 2)) == "(s0 // 2)"
    assert S.value_range(S.FloorDiv(3 - s, 2), {}) == (None, 1)   # (not "at least 0")

    def fn(x):
        return F.max_pool3d(x, 3, 2, ceil_mode=True)
    _gradients_match(fn, ((1, 2, 3, 6, 5), (2, 2, 5, 7, 6)))


@pytest.mark.parametrize("name", ["adaptive_avg_pool", "ceil_max_pool", "adaptive_max_pool", "roll",
                                  "trace", "arange_down"])
def test_divisions_by_sizes_and_ceil_forms_stay_symbolic(name):
    # adaptive pooling divides a size by a size (each window's start (i * s0) // s1), ceil
    # forms divide a possibly negative size ((3 - s) // 2, -s // 2), roll reads PyTorch's
    # PythonMod of a size, trace's backward is an arange stepping by a size (n + 1), a
    # descending arange's length a ceiling of a negative step: each compiled per shape
    # ("Unsupported: s // s", "a concrete value of the size s is needed")
    fn = {"adaptive_avg_pool": lambda x: F.adaptive_avg_pool2d(x, (x.shape[-2] // 2 + 1, 3)),
          "ceil_max_pool": lambda x: F.max_pool2d(x, 3, 2, ceil_mode=True),
          "adaptive_max_pool": lambda x: F.adaptive_max_pool1d(x.flatten(1), 3),
          "roll": lambda x: x.roll(x.shape[-1] // 2 + 1, -1) * 2,
          "trace": lambda x: torch.trace(x.flatten(0, 1).flatten(1)),
          "arange_down": lambda x: x[..., torch.arange(x.shape[-1] - 1, -1, -2)] * 2}[name]
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for shape in ((2, 3, 7, 5), (1, 3, 10, 9), (2, 2, 6, 11)):
        x = torch.randn(shape, requires_grad=True)
        x2 = x.detach().clone().requires_grad_()
        ct = torch.randn_like(fn(x2))
        (cf(x) * ct).sum().backward()
        (fn(x2) * ct).sum().backward()
        assert_close(cf(x), fn(x2))
        assert_close(x.grad, x2.grad)
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert all(g.symbolic for g in stats.graphs())


def test_the_value_range_of_a_product_of_sizes():
    # a window start (i * s0) // s1 multiplies symbols: value_range recursed on s0*s1 itself
    from tuner.compiler import sym as S
    i, s0, s1 = sympy.symbols("i s0 s1", integer=True, nonnegative=True)
    assert S.value_range(i * s0, {"i": 3, "s0": 5}) == (0, 15)
    assert S.value_range(2 * i * s0 + 1, {"i": 3}) == (1, None)
    assert S.value_range(S.FloorDiv(i * s0, s1), {"i": 3, "s0": 5}) == (0, None)


def test_a_square_root_of_a_size_stays_symbolic():
    # SDPA's default scale is 1 / sqrt(head size); its math form (is_causal with fewer queries
    # than keys) scales q and k by the scale's square root (head size ** -1/4): that needed
    # the concrete size (compiled per shape)
    from tuner.compiler import sym as S
    s = sympy.Symbol("s0", integer=True, positive=True)
    assert eval(S.float_source(s ** sympy.Rational(-1, 4), lambda e, src: f"float({src})",
                               lambda r: f"{r} ** 0.5"), {"s0": 16}) == 0.5

    def fn(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for n, d in ((3, 8), (4, 5), (5, 16)):
        q = torch.randn(2, n, d, dtype=torch.float64)
        k, v = torch.randn(2, 2 * n, d, dtype=torch.float64), torch.randn(2, 2 * n, d, dtype=torch.float64)
        assert_close(cf(q, k, v), fn(q, k, v))
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert all(g.symbolic for g in stats.graphs())


def test_grid_sample_unnormalizes_with_a_float_of_sizes_symbolically():
    # align_corners=False maps [-1, 1] to ((g + 1) * n - 1) / 2: (s - 1) / 2 and s / 2 were
    # refused as fractional factors, and the graph compiled per shape
    def fn(x, g):
        return F.grid_sample(x, g, align_corners=False) * 2
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for h, w in ((5, 6), (7, 9), (8, 4)):
        x = torch.randn(2, 3, h, w, dtype=torch.float64)
        g = torch.rand(2, 4, 5, 2, dtype=torch.float64) * 2 - 1
        assert_close(cf(x, g), fn(x, g))
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert all(g.symbolic for g in stats.graphs())


def test_interpolate_by_a_scale_factor_stays_symbolic():
    # the output size is trunc(float(s) * 0.5): math.trunc of a float of sizes returned
    # dynamo's own SymInt, and PyTorch's TruncToInt in a size read from the graph could not
    # be printed (compiled per shape)
    def fn(x):
        return F.interpolate(x, scale_factor=0.5, mode="bilinear") + F.interpolate(
            x, scale_factor=1.5, mode="nearest").sum()
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for h, w in ((6, 8), (7, 9), (10, 5)):
        x = torch.randn(2, 3, h, w, dtype=torch.float64)
        assert_close(cf(x), fn(x))
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert all(g.symbolic for g in stats.graphs())


def test_the_smaller_of_two_unordered_sizes_is_taken_at_the_hints_under_a_guard():
    # LAPACK shapes hold min(m, n): Min(s0, s1) reached kernels and the wrapper unprinted
    # (compiled per shape); now the order at the hints is a guard, and a shape that flips it
    # compiles again
    def fn(x):
        return torch.linalg.qr(x * 2).Q.sum(-1) + 1
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for m, n in ((5, 3), (6, 4), (7, 5)):
        x = torch.randn(2, m, n, dtype=torch.float64)
        assert_close(cf(x), fn(x))
    assert len(stats.graphs()) == 1 and stats.graphs()[0].symbolic and stats.graphs()[0].guards
    x = torch.randn(2, 3, 5, dtype=torch.float64)
    assert_close(cf(x), fn(x))
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert len(stats.graphs()) == 2 and all(g.symbolic for g in stats.graphs())


def test_the_absolute_value_of_a_size_difference_stays_symbolic():
    # abs() of sizes fell through to the FX meta value (dynamo's own SymInt), and the slice's
    # size read from the graph held sympy's Abs, which kernels cannot print (per shape)
    def fn(x):
        return x[: abs(x.shape[0] - 10)] * 2
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for n in (14, 17, 19):
        x = torch.randn(n)
        assert_close(cf(x), fn(x))
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert len(stats.graphs()) == 1 and stats.graphs()[0].symbolic


def test_a_backward_called_with_none_for_an_input_stays_symbolic():
    # linalg.inv's backward is called with None for a tensor input: binding its sizes raised
    # an AttributeError, and the graph compiled per shape
    def fn(x):
        return torch.linalg.inv(x) * 2
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for n in (3, 5, 6):
        x = torch.randn(2, n, n, dtype=torch.float64, requires_grad=True)
        x2 = x.detach().clone().requires_grad_()
        cf(x).sum().backward()
        fn(x2).sum().backward()
        assert_close(x.grad, x2.grad)
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert all(g.symbolic for g in stats.graphs())


def test_means_and_variances_over_a_symbolic_dim_stay_symbolic():
    # the divisor is the reduced dims' element count: a float() of it compiled per shape
    def fn(x):
        return x.mean(0) + x.var(0) * x.std(0, correction=0)   # (1.0 and 0.0 as floats)
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for n in (5, 7, 12):
        x = torch.randn(n, 6)
        assert_close(cf(x), fn(x))
    graphs = stats.graphs()
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert len(graphs) == 1 and graphs[0].symbolic


def test_a_float_of_a_symbolic_size_stays_symbolic():
    # group_norm and layer_norm over a symbolic dim divide by sym_float(n) (wav2vec2's first
    # conv layer normalises over time): float() of a size compiled the graph per shape
    gn, ln = torch.nn.GroupNorm(4, 8), torch.nn.LayerNorm(8)

    def fn(x):
        y = gn(x)                                              # (b, c, t): over c/g x t
        z = F.layer_norm(y.transpose(1, 2), (y.shape[1],))     # a static normalised dim
        return z * (x.shape[-1] * 2.0) + F.layer_norm(x, x.shape[1:]).transpose(1, 2)
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for t in (5, 9, 16):
        x = torch.randn(3, 8, t, requires_grad=True)
        x2 = x.detach().clone().requires_grad_()
        ct = torch.randn(3, t, 8)
        assert_close(cf(x), fn(x2))
        (cf(x) * ct).sum().backward()
        (fn(x2) * ct).sum().backward()
        assert_close(x.grad, x2.grad)
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert all(g.symbolic for g in stats.graphs())


def test_a_float_of_sizes_promotes_as_a_float_and_refuses_an_inexact_factor():
    from tuner.compiler.lowering import meta_of
    from tuner.compiler.sizes import SymFloat, sym_float
    sv, s, t = _two_sizes(6, 3)
    f = sym_float(sv.wrap(s))
    assert isinstance(f, SymFloat) and sym_float(f) is f and sym_float(4) == 4.0
    assert isinstance(f * 2 + sv.wrap(t), SymFloat) and isinstance(3.0 - f, SymFloat)
    assert all(isinstance(v, SymFloat) for v in (sv.wrap(t) + f, sv.wrap(t) - f, sv.wrap(t) * f))
    with pytest.raises(Unsupported):    # a float's comparison: the concrete value
        sv.wrap(t) < f
    assert repr(f * 2.0) == "float((2 * s0))"   # (the wrapper passes it to an ATen call so)
    # an int tensor times it is a float tensor (times the size itself, an int one)
    i32 = torch.ones(2, dtype=torch.int32)
    assert (i32 * meta_of(f)).dtype == torch.float32 and (i32 * meta_of(sv.wrap(s))).dtype == torch.int32
    q = 1.0 / (f - 1) * sv.wrap(t)      # quotients of sizes stay symbolic, computed as doubles
    assert isinstance(q, SymFloat) and repr(q) == "(float(s1) / float((-1 + s0)))"
    assert "tl.float64" in q.kernel_source() and eval(repr(q), {"s0": 6, "s1": 3}) == 3 / 5
    h = (sv.wrap(s) - 1) * 0.5 + 0.25   # a dyadic factor is exact in a double, as eager's
    assert isinstance(h, SymFloat) and eval(repr(h), {"s0": 7}) == 3.25
    with pytest.raises(Unsupported):    # 0.1 * n is not: the concrete value (per shape)
        f * 0.1
    r = f ** -0.5    # SDPA's scale over a symbolic head size: a square root stays symbolic
    assert isinstance(r, SymFloat) and eval(repr(r), {"s0": 16}) == 0.25
    assert "tl.sqrt(" in r.kernel_source()


def test_batch_norm_training_over_symbolic_sizes_stays_symbolic():
    # batch norm's statistics divide by numel / channels and scale the running variance by
    # n / (n - 1): a true division of sizes needed the concrete value (per shape)
    import copy
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU())
    ref = copy.deepcopy(m)
    cf = torch.compile(m, backend="tuner", dynamic=True)
    stats.reset()
    for n, hw in ((2, 7), (3, 9), (4, 6)):
        x = torch.randn(n, 3, hw, hw)
        y, y2 = cf(x), ref(x)
        ct = torch.randn_like(y2)
        (y * ct).sum().backward()
        (y2 * ct).sum().backward()
        assert_close(y, y2)
        assert_close(m[0].weight.grad, ref[0].weight.grad)
        assert_close(m[1].running_var, ref[1].running_var)
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert any(g.symbolic for g in stats.graphs())


def test_pytorchs_floor_division_of_a_size_is_ours():
    # wav2vec2: a view's size read from the graph held PyTorch's FloorDiv, the numel computed
    # by the conv lowering ours; dividing one by the other raised (compiled per shape)
    from torch.utils._sympy.functions import FloorDiv
    from tuner.compiler import sym as S
    sv, s, t = _two_sizes(160, 2)
    theirs = sv.wrap(t * (FloorDiv(s, 10) - 1))
    ours = sv.wrap(t) * ((sv.wrap(s) // 10) - 1) * 32
    assert not any(type(a).__name__ == "FloorDiv" and not isinstance(a, S.FloorDiv)
                   for a in theirs.expr.atoms(sympy.Function))
    assert ours // theirs == 32 and not sv.guards


def test_an_input_at_a_symbolic_storage_offset_stays_symbolic():
    # the second half of a split along a symbolic dim starts at a symbolic offset (reformer's
    # chunked training, multi-head attention's packed projections): compiled per shape
    def fn(a, b):
        return a * 2 + b.as_strided(b.shape, b.stride())   # (as_strided: offset-relative)
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for n in (4, 6, 10):
        x = torch.randn(2 * n, 3)
        lo, hi = x[:n], x[n:]
        assert_close(cf(hi, lo), fn(hi, lo))
        assert_close(cf(lo, hi), fn(lo, hi))
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert all(g.symbolic for g in stats.graphs())


def test_an_integer_argument_is_not_a_size_it_may_be_negative():
    # dynamic=True makes a slice's bounds symbols too; they had a size's lower bound of 0, so
    # `end < 0` was decided False for end = -2 without a guard and slice(1, -2) of 30 rows came
    # out empty (the OpInfo sweep's --dynamic run). A guard now records the sign.
    sv = SizeVars()
    e = sympy.Symbol("s7", integer=True)
    sv.bind(e, -2, lower=None)
    assert sv.wrap(e) < 0 and [str(g) for g in sv.guards] == ["s7 < 0"]

    def f(x, start, end):
        return torch.ops.aten.slice.Tensor(x, 1, start, end) * 2
    g = torch.compile(f, backend="tuner", dynamic=True)
    stats.reset()
    for start, end in ((1, -2), (2, -5), (3, 25), (0, -29)):
        x = torch.randn(4, 30, 5)
        assert_close(g(x, start, end), f(x, start, end))
    assert not any(gr.graph_fallback for gr in stats.graphs())
    assert any(gr.symbolic for gr in stats.graphs())


def test_an_attention_bias_is_aligned_with_symbolic_sizes():
    # the fused CUDA attention kernels' bias rows are padded to 8 elements; with a dynamic
    # sequence length the padded stride is an expression, not a refusal (GPT-2's mask on GPU)
    from tuner.compiler.attn_bias import aligned_strides
    sv = SizeVars()
    s = sympy.Symbol("s0", integer=True, positive=True)
    sv.bind(s, 13)
    n = sv.wrap(s)
    strides = aligned_strides((2, 1, n, n), 8)
    assert [sv.hint(st) for st in strides] == list(aligned_strides((2, 1, 13, 13), 8)) == [208, 208, 16, 1]
    for length in (8, 9, 16, 17):
        want = aligned_strides((2, 1, length, length), 8)
        assert [int(sympy.sympify(st.expr if hasattr(st, "expr") else st).subs(s, length))
                for st in strides] == list(want)


def test_a_sum_of_sizes_stays_symbolic():
    # torch.sym_sum over sizes (dynamo writes a KV cache's new length so, as in Hugging Face
    # generate with a wrapped forward): a raw SymInt reached the lowerings, which failed
    # (clone, view) and the graph then ran in ATen from its first call
    def f(past, new):
        n = torch.sym_sum([past.shape[1], new.shape[1]])
        kv = torch.cat([past, new], 1)
        return (kv.reshape(kv.shape[0], n, -1) * 2).clone(), torch.arange(n) + 1
    cf = torch.compile(f, backend="tuner", dynamic=True)
    stats.reset()
    for n in (3, 5, 9):
        past, new = torch.randn(2, n, 4), torch.randn(2, 1, 4)
        out, pos = cf(past, new)
        want, want_pos = f(past, new)
        assert_close(out, want)
        assert torch.equal(pos, want_pos)
    graphs = stats.graphs()
    assert graphs and all(g.symbolic for g in graphs) and not stats.symbolic_fallbacks
    assert not any(g.graph_fallback or g.lowering_errors for g in graphs), \
        [(g.graph_fallback, g.lowering_errors) for g in graphs]


def test_a_persistent_reduction_serves_every_row_length_from_one_source():
    # rows from 3 to 500: the row's block is its size bucket's (a config per bucket at launch);
    # where a launch's block does not cover the row, the same kernel loops over it
    def f(x):
        return torch.softmax(x * 2, -1) + x.sum(-1, keepdim=True)
    cf = torch.compile(f, backend="tuner", dynamic=True)
    stats.reset()
    for n in (5, 7, 9, 17, 33, 70, 300, 500, 3, 64):
        x = torch.randn(4, n)
        assert_close(cf(x), f(x))
    graphs = stats.graphs()
    assert len(graphs) == 1 and graphs[0].symbolic and graphs[0].kernel_kinds == ["persistent_reduction"]
    assert "<= RBLOCK:" in graphs[0].source


def test_a_launch_whose_block_misses_the_row_runs_the_looped_body():
    # the launcher's config for a bucket covers it; a config of a smaller bucket (as a tuned
    # or cached answer may be) must still reduce the whole row
    from tuner.compiler.runtime import launch
    cf = torch.compile(lambda x: x.sum(-1) * 2, backend="tuner", dynamic=True)
    for n in (5, 6):
        cf(torch.randn(3, n))
    seen = []
    orig = launch.Launcher._to_bucket

    def small_block(self, args):
        orig(self, args)
        if self.config is not None and "RBLOCK" in self.config:
            self.config = dict(self.config, RBLOCK=8)   # rows up to 300 below: looped
            self._compiled, self._grid = {}, None
            seen.append(self.config["RBLOCK"])
    launch.Launcher._to_bucket = small_block
    try:
        for n in (40, 300):
            x = torch.randn(3, n)
            assert_close(cf(x), x.sum(-1) * 2)
    finally:
        launch.Launcher._to_bucket = orig
    assert seen


def _i64(n, hi):
    return torch.randint(0, hi, (n,), generator=torch.Generator().manual_seed(n))


# ops whose kernels once needed static sizes (their row length or element count was a
# compile-time constant): each stays kernels under symbolic sizes; (fn, inputs of size n, op)
SIZED_OPS = {
    "sort": (lambda x: torch.sort(x, -1, descending=True), lambda n: (torch.randn(3, n),), "aten.sort"),
    "argsort": (lambda x: torch.argsort(x, dim=0, stable=True), lambda n: (torch.randn(n, 4),), "aten.sort"),
    "topk": (lambda x: torch.topk(x, 2, -1), lambda n: (torch.randn(3, n),), "aten.topk"),
    "kthvalue": (lambda x: torch.kthvalue(x, 2, -1), lambda n: (torch.randn(3, n),), "aten.kthvalue"),
    "median": (lambda x: torch.median(x, -1), lambda n: (torch.randn(3, n),), "aten.median"),
    "searchsorted": (lambda b, v: torch.searchsorted(b, v), lambda n: (torch.randn(n).sort()[0],
                     torch.randn(2, n + 1)), "aten.searchsorted"),
    "put": (lambda x, i, s: x.put(i, s, accumulate=True), lambda n: (torch.randn(n, 3), _i64(n, 3 * n),
            torch.randn(n)), "aten.put"),
    "masked_scatter": (lambda x, m, s: x.masked_scatter(m, s), lambda n: (torch.randn(n, 3),
                       torch.randn(n, 3) > 0, torch.randn(n, 3)), "aten.masked_scatter"),
    "nonzero_static": (lambda x: torch.nonzero_static(x, size=4), lambda n: (torch.randn(n, 3) > 0.5,),
                       "aten.nonzero_static"),
    "histc": (lambda x: torch.histc(x, 5, -1.0, 1.0), lambda n: (torch.randn(n, 2),), "aten.histc"),
    "scatter_prod": (lambda x, i, s: x.scatter_reduce(0, i, s, "prod"), lambda n: (
                     torch.randn(n, 2), _i64(2 * n, n).view(n, 2), torch.randn(n, 2)), "aten.scatter_reduce"),
    # integer arguments dynamic=True makes symbols: histc's range, an initial value (dynamo
    # itself pins histc's bins)
    "histc_int_args": (lambda x, lo: torch.histc(x, 5, lo, 3), lambda n: (
                       torch.randn(n, 2) * 3, -(n % 3) - 2), "aten.histc"),
    "segment_initial": (lambda d, lens, init: torch.segment_reduce(d, "sum", lengths=lens, initial=init),
                        lambda n: (torch.randn(n, 2), torch.tensor([n - 2, 2]), n), "aten.segment_reduce"),
}


@pytest.mark.parametrize("name", sorted(SIZED_OPS))
def test_sorting_selection_and_counting_ops_stay_kernels_under_symbolic_sizes(name):
    fn, make, op = SIZED_OPS[name]
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for n in (5, 7, 12):
        args = make(n)
        assert_close(cf(*args), fn(*args))
    graphs = stats.graphs()
    assert graphs and all(g.symbolic for g in graphs), stats.symbolic_fallbacks
    calls = [k for g in graphs for k in (*g.externs, *g.fallbacks, *g.lowering_errors)]
    assert not [k for k in calls if k.startswith(op)], calls
    assert len(graphs) == 1, [g.guards for g in graphs]   # one compile served the three sizes


def test_a_symbolic_exponent_is_never_compared_with_a_constant():
    # dynamic=True makes an integer argument a symbol (torch.dist's p, norm's p): pow compared
    # it with 0.5 to pick a square root, which needed its value, so the graph compiled per shape
    def fn(a, b, p):
        return torch.dist(a, b, p) + (a.abs() + 1).pow(p).sum()
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for shape, p in (((3, 5), 3), ((4, 7), 4), ((2, 9), 5)):
        a, b = torch.randn(shape), torch.randn(shape)
        assert_close(cf(a, b, p), fn(a, b, p))
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert len(stats.graphs()) <= 2   # (the first call's static graph, then one symbolic)


def test_as_strideds_gradient_takes_the_min_of_sizes_symbolically():
    # as_strided's backward computes sym_min(0, offset) and sym_max of sizes; torch's own
    # sym_min refused our sizes ("expected (int, float ...), got SymSize"): per shape
    def fn(x):
        n = x.shape[1]
        return x.as_strided((x.shape[0] - 1, n - 1), (n, 1), 1) * 3
    stats.reset()
    _gradients_match(fn, ((3, 5), (4, 7), (6, 4)))
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks


def test_matrix_ranks_epsilon_tolerance_stays_symbolic():
    # matrix_rank's default tolerance is float32's epsilon (2**-23) times a float of the
    # larger size: a power of two, exact in a double, but past the 2**16 a float of sizes took
    fn = torch.linalg.matrix_rank
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for m, n in ((5, 3), (4, 6), (7, 7)):
        a = torch.randn(m, 2) @ torch.randn(2, n)       # rank 2
        assert torch.equal(cf(a), fn(a))
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks


def test_a_descending_arange_by_an_integer_argument_stays_symbolic():
    # its length divides by -step; sympy moved the sign into the divisor, which no range
    # proves positive ("-s1 + s0 - 1 // -s1"), so the graph compiled per shape
    def fn(x, step):
        return x[torch.arange(x.shape[0] - 1, -1, step)] * 2
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for n, step in ((10, -2), (13, -3), (17, -4)):
        x = torch.randn(n)
        assert_close(cf(x, step), fn(x, step))
    assert not stats.symbolic_fallbacks and len(stats.graphs()) == 1, stats.symbolic_fallbacks
