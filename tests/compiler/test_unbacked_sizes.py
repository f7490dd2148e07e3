"""Data-dependent (unbacked) sizes: a size known only after an op ran (nonzero, a boolean mask
index) stays a symbol (`u0`) through the compiled graph (compiler/sizes.py). The op runs as an
ATen call inside the graph, the wrapper reads the symbol from its result, and everything
around it (the mask, the gather, the pointwise math, index_add) runs as generated kernels."""
import pytest
import sympy
import torch
import torch.nn.functional as F

import tuner.compiler.stats as stats
from helpers import assert_close


@pytest.fixture(autouse=True)
def _capture_dynamic_ops():
    # dynamo keeps nonzero and masked indexing in the graph (an unbacked size) instead of
    # breaking the graph around them
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True,
                                    capture_scalar_outputs=True):
        stats.reset()
        yield


def _no_fallback():
    graphs = stats.graphs()
    assert graphs
    assert not any(g.graph_fallback for g in graphs), [g.graph_fallback for g in graphs]
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    return graphs


def _externs(graphs):
    out = {}
    for g in graphs:
        for k, v in g.externs.items():
            out[k] = out.get(k, 0) + v
    return out


def _masked(x):
    return x[x > 0] * 2


def test_boolean_mask_index_runs_as_kernels_around_one_nonzero():
    cf = torch.compile(_masked, backend="tuner")
    for n in (16, 16, 16):
        x = torch.randn(n)
        got = cf(x)
        assert got.shape == _masked(x).shape
        assert_close(got, _masked(x))
    graphs = _no_fallback()
    assert len(graphs) == 1 and graphs[0].symbolic
    # the mask and the gather-times-two are kernels; only nonzero is an ATen call
    assert graphs[0].kernels >= 2
    assert _externs(graphs) == {"aten.nonzero.default": 1}, _externs(graphs)


def test_all_false_mask_gives_zero_rows():
    fn = lambda x: (x[x.sum(1) > 100.0] + 1).relu()  # noqa: E731
    cf = torch.compile(fn, backend="tuner")
    x = torch.randn(8, 4)
    got = cf(x)
    assert got.shape == (0, 4)
    x2 = torch.randn(8, 4)
    x2[3] = 50.0   # one row selected this time, same compiled graph
    assert_close(cf(x2), fn(x2))
    assert_close(cf(x), fn(x))
    graphs = _no_fallback()
    assert len(graphs) == 1 and graphs[0].kernels >= 2


def _nonzero_gather(x, w):
    idx = torch.nonzero(x.sum(1) > 0).squeeze(1)
    return (x[idx] * 3 + 1).sigmoid() @ w


def test_nonzero_then_gather():
    torch.manual_seed(0)
    cf = torch.compile(_nonzero_gather, backend="tuner")
    w = torch.randn(4, 5)
    for _ in range(3):
        x = torch.randn(16, 4)
        assert_close(cf(x, w), _nonzero_gather(x, w))
    graphs = _no_fallback()
    assert len(graphs) == 1 and graphs[0].symbolic and graphs[0].kernels >= 2
    assert set(_externs(graphs)) == {"aten.nonzero.default", "aten.mm.default"}, _externs(graphs)


class TinyMoE(torch.nn.Module):
    """Mixtral-like sparse MoE routing: a router picks top-2 experts per token; each expert
    takes its tokens by nonzero, runs a Linear and adds its weighted output back by index_add_."""

    def __init__(self, hidden=8, experts=4, top_k=2):
        super().__init__()
        self.router = torch.nn.Linear(hidden, experts, bias=False)
        self.experts = torch.nn.ModuleList(torch.nn.Linear(hidden, hidden) for _ in range(experts))
        self.top_k = top_k

    def forward(self, x):
        logits = self.router(x)
        weights = F.softmax(logits, dim=-1)
        weights, chosen = torch.topk(weights, self.top_k, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            hit = (chosen == e).nonzero()
            token, slot = hit[:, 0], hit[:, 1]
            y = expert(x[token]) * weights[token, slot, None]
            out.index_add_(0, token, y)
        return out


def test_moe_routing_matches_eager():
    torch.manual_seed(0)
    moe = TinyMoE().eval()
    cf = torch.compile(moe, backend="tuner")
    with torch.no_grad():
        for _ in range(3):
            x = torch.randn(12, 8)
            assert_close(cf(x), moe(x))
    graphs = _no_fallback()
    assert len(graphs) == 1 and graphs[0].symbolic
    ext = _externs(graphs)
    assert ext.get("aten.nonzero.default") == 4, ext
    # the routing math, the gathers, the scaling and the index_adds are generated kernels
    assert graphs[0].kernels >= 5, (graphs[0].kernels, ext)
    assert "aten.index_add.default" not in ext and "aten.index.Tensor" not in ext, ext


def test_dynamic_true_with_a_mask():
    fn = lambda x, y: (x[x[:, 0] > 0] * y).sum(0) + y  # noqa: E731
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    torch.manual_seed(0)
    for n in (5, 9, 13):
        x, y = torch.randn(n, 3), torch.randn(3)
        assert_close(cf(x, y), fn(x, y))
    x = -torch.rand(7, 3)   # nothing selected
    assert_close(cf(x, torch.ones(3)), fn(x, torch.ones(3)))
    graphs = _no_fallback()
    assert all(g.symbolic for g in graphs)
    assert len(graphs) == 1 and graphs[0].kernels >= 2
    assert _externs(graphs) == {"aten.nonzero.default": 1}, _externs(graphs)


def test_column_mask_and_a_reduction_over_the_selection():
    fns = [lambda x: x[:, x[0] > 0].exp(),            # a mask over a later dim
           lambda x: x[x > 0].sum() + x.amax()]       # a reduction over u0 elements
    for fn in fns:
        torch._dynamo.reset()
        stats.reset()
        cf = torch.compile(fn, backend="tuner")
        for x in (torch.randn(4, 6), -torch.rand(4, 6)):   # (the second selects nothing)
            assert_close(cf(x), fn(x))
        graphs = _no_fallback()
        assert graphs[0].symbolic and graphs[0].kernels >= 2


def test_item_falls_back_whole_and_counted():
    # .item()'s value may be negative: no size reasoning holds for it (compiler/sizes.py)
    fn = lambda x: x[: (x > 0).sum().item()] * 2  # noqa: E731
    cf = torch.compile(fn, backend="tuner")
    x = torch.randn(16)
    assert_close(cf(x), fn(x))
    assert any("data-dependent scalar" in r for r in stats.symbolic_fallbacks), stats.symbolic_fallbacks
    assert any(g.graph_fallback for g in stats.graphs())


def test_a_user_bound_on_a_data_dependent_size_stays_checked():
    # torch._check narrows the ShapeEnv's range of u0; only the graph's runtime assertion makes
    # it true, so the compile never takes it as known (here: the graph runs in ATen, asserting)
    def fn(x):
        y = x[x > 0]
        torch._check(y.shape[0] <= 3)
        return y * 2
    cf = torch.compile(fn, backend="tuner")
    x = -torch.rand(16)
    x[:2] = 1.0
    assert_close(cf(x), fn(x))
    with pytest.raises(RuntimeError):
        cf(torch.rand(16) + 0.5)


def test_a_sign_that_must_be_right_is_never_taken_size_obliviously():
    # abs() and trunc need the true sign: u0 - 1 is -1 at u0 = 0, though a size-oblivious
    # choice (u0 at least 2) calls it non-negative
    from tuner.compiler.sizes import SizeVars, Undecided
    sv = SizeVars()
    u = sympy.Symbol("u0", integer=True)
    sv.define(u, 0, 64)
    assert sv.decide(sympy.Ge(u - 1, 0)) is True   # (fine where either answer is correct)
    with pytest.raises(Undecided):
        sv.decide(sympy.Ge(u - 1, 0), exact=True)
    with pytest.raises(Undecided):
        abs(sv.wrap(u - 1))
    assert abs(sv.wrap(u + 1)).expr == u + 1 and not sv.guards   # (its range decides it)
