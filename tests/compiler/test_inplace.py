"""Graphs that only write their inputs in place (optimizer steps) compile without AOTAutograd
(compiler/inplace.py); anything else still goes through it, with the same results."""
import os

os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402
import torch  # noqa: E402
from torch.testing import assert_close  # noqa: E402

import tuner.compiler.backend as tb  # noqa: E402
from tuner.compiler import stats  # noqa: E402


@pytest.fixture
def aot_calls(monkeypatch):
    """How many graphs went through AOTAutograd."""
    calls = []
    real = tb.aot_backend

    def counting(*a, **k):
        inner = real(*a, **k)

        def backend(gm, example_inputs):
            calls.append(gm)
            return inner(gm, example_inputs)
        return backend
    monkeypatch.setattr(tb, "aot_backend", counting)
    return calls


def _params(seed, shapes=((16, 8), (7,), (3, 5, 2), ())):
    torch.manual_seed(seed)
    ps = [torch.nn.Parameter(torch.randn(s)) for s in shapes]
    for p in ps:
        p.grad = torch.randn_like(p)
    return ps


def _kernel_kinds(name, kw):
    opt = getattr(torch.optim, name)(_params(0), **kw)
    torch._dynamo.reset()
    stats.reset()
    torch.compile(opt.step, backend="tuner")()
    return [g.kernel_kinds for g in stats.graphs()]


def _three_compiled_steps_match_eager(name, kw):
    """Three steps of optimizer `name` compiled and eager: parameters and states (step counters
    included: they were written back too) agree."""
    ours, ref = _params(0), _params(0)
    opt, ref_opt = getattr(torch.optim, name)(ours, **kw), getattr(torch.optim, name)(ref, **kw)
    torch._dynamo.reset()
    step = torch.compile(opt.step, backend="tuner")
    for _ in range(3):
        step()
        ref_opt.step()
    for a, b in zip(ours, ref):
        assert_close(a, b, rtol=1e-5, atol=1e-6)
        for k in ref_opt.state[b]:
            assert_close(opt.state[a][k], ref_opt.state[b][k], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["AdamW", "SGD"])
def test_an_optimizer_step_compiles_without_aotautograd(aot_calls, monkeypatch, name):
    kw = {"lr": 1e-2, "foreach": True, **({"momentum": 0.9} if name == "SGD" else {})}
    _three_compiled_steps_match_eager(name, kw)
    # AdamW's step is one graph; SGD's first step makes its momentum buffers (a graph that
    # returns them: AOTAutograd), the later steps only update in place
    assert len(aot_calls) == (0 if name == "AdamW" else 1)
    # the same kernels as through AOTAutograd (the foreach launch and its neighbours)
    kinds = _kernel_kinds(name, kw)
    seen = len(aot_calls)
    monkeypatch.setattr(tb, "_inplace_update", lambda *a, **k: None)
    assert _kernel_kinds(name, kw) == kinds and len(aot_calls) > seen


def test_graphs_that_return_values_or_write_through_views_still_use_aotautograd(aot_calls):
    # a model's graph returns its output: AOTAutograd, as before
    lin = torch.nn.Linear(8, 4)
    x = torch.randn(3, 8)
    with torch.no_grad():
        torch._dynamo.reset()
        out = torch.compile(lin, backend="tuner")(x)
        assert_close(out, lin(x))
    assert len(aot_calls) == 1
    # a write through a view of a captured tensor: not ours to functionalize
    buf = torch.zeros(8)
    state = {"buf": buf, "head": buf[:4]}

    def update():
        state["head"].add_(1.0)
        state["buf"].mul_(2.0)
    expect = torch.zeros(8)
    expect[:4] += 1.0
    expect *= 2.0
    torch._dynamo.reset()
    torch.compile(update, backend="tuner")()
    assert_close(buf, expect)
    assert len(aot_calls) == 2


def test_a_write_through_a_split_is_declined():
    # the items of a split or unbind are views: writing one writes the input, which the
    # functional rewrite would lose (the other write alone would have been taken)
    from torch.fx.experimental.proxy_tensor import make_fx

    from tuner.compiler.inplace import _write_back

    def through_split(x, g):
        x.split(4)[0].add_(g)
        g.mul_(2.0)

    def direct(x, g):
        x.add_(g)
        g.mul_(2.0)
    assert _write_back(make_fx(through_split)(torch.zeros(8), torch.ones(4))) is None
    assert _write_back(make_fx(direct)(torch.zeros(4), torch.ones(4))) is not None


def test_a_write_through_an_in_place_result_reaches_the_input(aot_calls):
    # the single-tensor AdamW (CPU's default, foreach=False) writes its states and parameters
    # through what an earlier in-place op returned: `exp_avg_sq.mul_(b2).addcmul_(g, g)` and
    # `param.mul_(1 - lr * wd)` then `param.addcdiv_(...)` (decomposed: copy_ into the mul_'s
    # result). Those writes reach the inputs, and later reads of either name see them.
    stats.reset()
    _three_compiled_steps_match_eager("AdamW", {"lr": 1e-2, "foreach": False})
    assert len(aot_calls) == 0   # the in-place path took it
    assert not stats.totals().fallbacks   # prims.fma (addcmul_) lowered, not run in ATen

    def chained(x, y):
        x.mul_(2.0).add_(1.0)     # x = 2x + 1, written through mul_'s result
        y.copy_(x * 3.0)          # reads x by its own name: the final value
    x, y = torch.arange(4.0), torch.zeros(4)
    torch._dynamo.reset()
    torch.compile(chained, backend="tuner")(x, y)
    assert_close(x, torch.arange(4.0) * 2 + 1)
    assert_close(y, (torch.arange(4.0) * 2 + 1) * 3)


def test_the_lowerings_import_in_a_fresh_process_before_anything_compiled():
    # prims.fma (lowered for addcmul_) is defined by torch's inductor prims, which dynamo loads
    # at its first compile: importing our lowerings first (a script, a probe) must not fail
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", "import tuner.compiler.lowerings, torch; "
                        "from tuner.compiler.lowering import lookup; "
                        "print(lookup(torch.ops.prims.fma.default) is not None)"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "True"
