"""The compiled-graph cache in front of AOTAutograd (compiler/graph_front.py): an inference graph
compiled before is found from dynamo's graph, with no pass, no AOTAutograd trace and no
lowering, and gives identical outputs; graphs whose AOTAutograd runtime is not a pass-through
(an input written, an output aliasing an input, training) are never linked; the traced global
state is part of the key. CPU, Triton's interpreter (tests/compiler/conftest.py)."""
import pytest
import torch

import tuner.compiler.stats as stats
from tuner.compiler import backend as backend_mod
from tuner.compiler import compile_graph as cg
from tuner.compiler import graph_front


pytestmark = pytest.mark.usefixtures("graph_cache_on")


@pytest.fixture
def traced(monkeypatch):
    """[AOTAutograd calls, lowerings] made by the backend."""
    count = [0, 0]
    real_aot, real_lower = backend_mod.aot_backend, cg._lower

    def aot(*a, **kw):
        inner = real_aot(*a, **kw)

        def call(*args, **kwargs):
            count[0] += 1
            return inner(*args, **kwargs)
        return call

    def lower(*a, **kw):
        count[1] += 1
        return real_lower(*a, **kw)
    monkeypatch.setattr(backend_mod, "aot_backend", aot)
    monkeypatch.setattr(cg, "_lower", lower)
    return count


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32),
                               torch.nn.Linear(32, 4)).eval()


def compiled_run(fn, *args):
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(fn, backend="tuner")(*args)
    return out, [g.graph_cache for g in stats.graphs()]


def test_second_compile_skips_aotautograd_and_lowering(traced):
    m, x = model(), torch.randn(8, 16)
    with torch.no_grad():
        first, kinds1 = compiled_run(m, x)
        assert kinds1 == ["stored"] and traced == [1, 1]
        second, kinds2 = compiled_run(m, x)
        expected = m(x)
    assert kinds2 == ["hit (local), before AOTAutograd"] and traced == [1, 1], (kinds2, traced)
    torch.testing.assert_close(second, first, rtol=0, atol=0)
    torch.testing.assert_close(second, expected)
    # fresh inputs through the hit's graph: still eager's values
    y = torch.randn(8, 16)
    with torch.no_grad():
        torch.testing.assert_close(torch.compile(m, backend="tuner")(y), m(y))


def test_parameters_without_grad_needed_link_too(traced):
    # grad mode on, but nothing needs a gradient: AOTAutograd's inference path, linked
    m, x = model(), torch.randn(8, 16)
    for p in m.parameters():
        p.requires_grad_(False)
    compiled_run(m, x)
    out, kinds = compiled_run(m, x)
    assert kinds == ["hit (local), before AOTAutograd"] and traced == [1, 1]
    torch.testing.assert_close(out, m(x))


def test_a_conv_net_with_max_pooling_links(traced):
    # F.max_pool2d's qualname is boolean_dispatch.<locals>.fn: the key names it by its module
    # attribute instead of refusing the graph (ResNet-50 paid AOTAutograd on every hit)
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8),
                            torch.nn.ReLU(inplace=True), torch.nn.MaxPool2d(3, 2, 1)).eval()
    x = torch.randn(2, 3, 8, 8)
    with torch.no_grad():
        compiled_run(m, x)
        out, kinds = compiled_run(m, x)
        ref = m(x)
    assert kinds == ["hit (local), before AOTAutograd"] and traced == [1, 1], (kinds, traced)
    torch.testing.assert_close(out, ref)


def test_a_target_is_named_by_where_it_lives():
    import torch.nn.functional as F
    from tuner.compiler.graph_cache import _target
    assert _target(F.max_pool2d) == "torch.nn.functional.max_pool2d"
    assert _target(F.adaptive_max_pool2d) == "torch.nn.functional.adaptive_max_pool2d"

    def local():
        pass
    assert "<locals>" in _target(local)   # still refused by the front key


@pytest.mark.parametrize("case", ["writes_input", "returns_view_of_input"])
def test_graphs_aotautograd_rewrites_are_not_linked(traced, case):
    def writes_input(x):
        x.mul_(2)
        return torch.relu(x) + 1

    def returns_view_of_input(x):
        return x.view(-1), torch.tanh(x)
    fn = {"writes_input": writes_input, "returns_view_of_input": returns_view_of_input}[case]
    x = torch.randn(8, 16)
    a, b = x.clone(), x.clone()
    compiled_run(fn, a)
    out, kinds = compiled_run(fn, b)
    # the ATen-level entry serves it, after AOTAutograd traced it again
    assert kinds == ["hit (local)"] and traced[0] == 2, (kinds, traced)
    expected_in = x.clone()
    expected = fn(expected_in)
    torch.testing.assert_close(b, expected_in)
    for got, want in zip(out if isinstance(out, tuple) else (out,),
                         expected if isinstance(expected, tuple) else (expected,)):
        torch.testing.assert_close(got, want)


def test_training_graph_is_not_linked(traced):
    m, x = model().train(), torch.randn(8, 16)
    for _ in range(2):
        out, kinds = compiled_run(m, x)
        out.sum().backward()
    assert traced[0] == 2 and not any("before AOTAutograd" in k for k in kinds), kinds


def test_traced_state_is_in_the_key():
    x = torch.randn(8, 16)
    gm = torch.fx.symbolic_trace(lambda t: torch.relu(t) * 2)
    with torch.no_grad():
        k1 = graph_front.key(gm, [x], "default", {})
    k2 = graph_front.key(gm, [x], "default", {})           # grad mode on
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        k3 = graph_front.key(gm, [x], "default", {})
    with torch.no_grad():
        k4 = graph_front.key(gm, [x], "max-autotune", {})
        k5 = graph_front.key(gm, [x], "default", {"layout": "keep"})
        again = graph_front.key(gm, [x], "default", {})
    parts = [(k.problem, k.configs_hash) for k in (k1, k2, k3, k4, k5)]
    assert (again.problem, again.configs_hash) == parts[0] and len(set(parts)) == 5


def test_lambda_targets_are_refused():
    f = lambda t: t + 1   # noqa: E731
    gm = torch.fx.symbolic_trace(lambda t: f(t) * 2)
    gm.graph.call_function(f, (next(iter(gm.graph.nodes)),))   # a node calling a lambda
    assert graph_front.key(gm, [torch.randn(3)], "default", {}) is None


def test_a_link_made_under_the_rule_misses_once_an_answer_is_stored(traced):
    # a graph linked while the layout rule answered (keep, on CPU) must not hide an answer
    # stored later (max-autotune measuring channels-last faster, here or on another machine)
    from tuner.engine import decide
    from tuner.points import answers
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                            torch.nn.Conv2d(8, 8, 3, padding=1)).eval()
    x = torch.randn(2, 3, 8, 8)
    with torch.no_grad(), answers.watch() as seen:
        compiled_run(m, x)
    assert dict(stats.layouts) == {"keep": 1} and dict(stats.layout_sources) == {"rule": 1}
    [(namespace, signature, candidates, choice)] = seen
    assert namespace == "layout" and choice is None
    with torch.no_grad():
        out, kinds = compiled_run(m, x)
    assert kinds == ["hit (local), before AOTAutograd"] and traced == [1, 1], kinds
    decide(namespace, signature, candidates, lambda c: 1.0 if c == "channels_last" else 2.0)
    with torch.no_grad():
        out, kinds = compiled_run(m, x)
        ref = m(x)
    assert not any("before AOTAutograd" in k for k in kinds) and traced[0] == 2, (kinds, traced)
    assert dict(stats.layouts) == {"channels_last": 1} and dict(stats.layout_sources) == {"cache": 1}
    torch.testing.assert_close(out, ref)
    with torch.no_grad():   # linked anew under the stored answer: a hit again
        out, kinds = compiled_run(m, x)
    assert kinds == ["hit (local), before AOTAutograd"] and traced[0] == 2, kinds
    torch.testing.assert_close(out, ref)
