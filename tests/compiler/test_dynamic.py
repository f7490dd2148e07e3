"""Models people bring: a second input shape (dynamic sizes), tensor constants, SDPA gradients,
and the fallbacks that keep a model compiling when a part of the compiler cannot."""
import warnings

import pytest
import torch
import torch.nn.functional as F

import tuner.compiler.stats as stats
from helpers import assert_close
from tuner.compiler import lowering
from tuner.compiler.torch_compat import aten


class Frames:
    """A dynamo backend that counts the frames dynamo compiles and hands them to ours."""

    def __init__(self):
        self.count = 0

    def __call__(self, gm, example_inputs):
        self.count += 1
        from tuner.compiler.backend import tuner_backend
        return tuner_backend(gm, example_inputs)


def _shapes(fn, *shape_sets, make=torch.randn):
    frames = Frames()
    cf = torch.compile(fn, backend=frames)
    for shapes in shape_sets:
        args = [make(s) for s in shapes]
        assert_close(cf(*args), fn(*args))
    return frames


def test_second_and_third_shape_compile_once_and_match_eager():
    # dynamo recompiles once with symbolic sizes after the first change; later sizes reuse it
    frames = _shapes(lambda x: (x + 1).relu() * 2, [(2, 8)], [(3, 8)], [(5, 8)], [(7, 8)])
    assert frames.count == 2


def test_dynamic_reduction_and_matmul_shapes():
    def fn(x, w):
        return torch.softmax(x @ w, -1).sum(0), x.mean(-1)
    frames = _shapes(fn, [(4, 6), (6, 5)], [(9, 6), (6, 5)], [(3, 6), (6, 5)])
    assert frames.count == 2
    frames = _shapes(lambda x: F.layer_norm(x, x.shape[-1:]), [(2, 3, 16)], [(3, 5, 16)], [(4, 7, 16)])
    assert frames.count == 2


def test_dynamic_true_from_the_first_call():
    fn = lambda x, y: (x * y.sum()).tanh()  # noqa: E731
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    for n in (3, 5, 11):
        x, y = torch.randn(n, 4), torch.randn(n)
        assert_close(cf(x, y), fn(x, y))


def test_training_step_at_two_batch_sizes_with_mutated_batchnorm_stats():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(4, 3))
    ref = __import__("copy").deepcopy(m)
    cm = torch.compile(m, backend="tuner")
    for shape in ((2, 3, 6, 6), (3, 3, 6, 6), (5, 3, 6, 6)):
        x = torch.randn(shape)
        out, r = cm(x), ref(x)
        assert_close(out, r)
        out.square().sum().backward()
        r.square().sum().backward()
        for p, q in zip(m.parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(m[1].running_mean, ref[1].running_mean)
        torch.testing.assert_close(m[1].running_var, ref[1].running_var)


def test_shape_limit_runs_sizes_no_variant_admits_in_aten(monkeypatch):
    # a guard on the order of two sizes (QR's min(m, n)): a call that flips it needs a second
    # symbolic variant, and past TUNER_SHAPE_LIMIT variants such calls run in ATen, warned once
    monkeypatch.setenv("TUNER_SHAPE_LIMIT", "1")
    def fn(x):
        return torch.linalg.qr(x * 2).Q.sum(-1) + 1
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for m, n in ((5, 3), (6, 4), (3, 5), (4, 6)):
            x = torch.randn(2, m, n, dtype=torch.float64)
            assert_close(cf(x), fn(x))
    assert len(stats.graphs()) == 1 and stats.graphs()[0].symbolic, stats.graphs()
    assert [str(w.message).count("TUNER_SHAPE_LIMIT") for w in caught].count(1) == 1


def test_tensor_constants_zero_d_one_d_and_legacy_empty_in_cat():
    x = torch.randn(2, 3)
    s = _compile_check(lambda x: x * torch.tensor(2.0), x)
    assert s.kernels == 1 and not s.fallbacks
    _compile_check(lambda x: x * torch.tensor([1.0, 2.0, 3.0]), x)
    _compile_check(lambda x: x + torch.tensor(3), torch.arange(6).view(2, 3))
    # a 0-d float64 constant promotes like a tensor, not like a Python scalar
    _compile_check(lambda x: x * torch.tensor(0.5, dtype=torch.float64), x)
    k = torch.randn(2, 3, 4)
    _compile_check(lambda k: torch.cat([torch.tensor([]), k], -2), k)   # Hugging Face's empty cache


def _compile_check(fn, *args):
    torch._dynamo.reset()
    stats.reset()
    assert_close(torch.compile(fn, backend="tuner")(*args), fn(*args))
    return stats.last()


def test_sdpa_backward_matches_eager():
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 6, 8, requires_grad=True) for _ in range(3))
    fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)  # noqa: E731
    out = torch.compile(fn, backend="tuner")(q, k, v)
    out.sum().backward()
    grads = [t.grad.clone() for t in (q, k, v)]
    for t in (q, k, v):
        t.grad = None
    ref = fn(q, k, v)
    ref.sum().backward()
    assert_close(out, ref)
    for g, t in zip(grads, (q, k, v)):
        torch.testing.assert_close(g, t.grad, rtol=1e-4, atol=1e-5)


def test_failing_lowering_falls_back_to_aten_for_that_op_only(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("cannot lower this")
    monkeypatch.setitem(lowering.LOWERINGS, aten.sin.default, broken)
    stats.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = _compile_check(lambda x: x.sin().exp() + 1, torch.randn(4, 5))
    assert s.fallbacks["aten.sin.default"] == 1
    assert "cannot lower this" in s.lowering_errors["aten.sin.default"]
    assert s.kernels == 1   # exp and add still fuse into one kernel
    assert any("aten.sin.default" in str(w.message) for w in caught)


def test_compiler_error_after_lowering_runs_the_graph_in_aten(monkeypatch):
    from tuner.compiler import scheduler

    def broken(self):
        raise RuntimeError("scheduler bug")
    monkeypatch.setattr(scheduler.Scheduler, "fuse", broken)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = _compile_check(lambda x: x.cos() * 3, torch.randn(4, 5))
    assert "scheduler bug" in s.graph_fallback
    assert any("scheduler bug" in str(w.message) for w in caught)


def test_failure_on_the_first_call_retries_in_aten(monkeypatch):
    from tuner.compiler.runtime import launch

    def broken(self, *args):
        raise RuntimeError("kernel does not compile")
    monkeypatch.setattr(launch.Launcher, "__call__", broken)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        s = _compile_check(lambda x: x.cos() * 3, torch.randn(4, 5))
    assert "kernel does not compile" in s.graph_fallback


@pytest.mark.parametrize("make", [lambda n: torch.randn(n, 6), lambda n: torch.randn(6, n).t()])
def test_second_shape_keeps_input_layouts(make):
    fn = lambda x: (x * 2).sum(-1)  # noqa: E731
    cf = torch.compile(fn, backend="tuner")
    for n in (3, 4, 7):
        x = make(n)
        assert_close(cf(x), fn(x))


def test_max_autotune_tunes_once_per_size_bucket():
    # The symbolic graph's kernel keeps a config per power-of-two bucket of its extent: a new
    # size in a tuned bucket asks nothing, a new bucket is tuned once
    from tuner.engine import HISTORY
    fn = lambda x: (x * 2).sin() + 1  # noqa: E731
    cf = torch.compile(fn, backend="tuner", mode="max-autotune-no-cudagraphs")
    HISTORY.clear()
    stats.reset()
    # 9x33 = 297 and 12x33 = 396 share the bucket 512; 20x33 = 660 is in 1024
    for n in (4, 9, 12, 20):
        x = torch.randn(n, 33)
        assert_close(cf(x), fn(x))
    sym = [g for g in stats.graphs() if g.symbolic]
    assert len(sym) == 1 and sym[0].kernels == 1
    assert len(HISTORY) == 3, [d.source for d in HISTORY]   # n=4 (static graph), 9, 20


def test_bucketed_key_blanks_sizes_but_keeps_structure_and_dtypes():
    from tuner.compiler.runtime.launch import Launcher
    from tuner.points.triton_kernel import KernelMeta

    def key(source, n, r=None, bucketed=True):
        meta = KernelMeta("reduction" if r else "pointwise", source, xnumel=n, rnumel=r,
                          bucketed=bucketed)
        launcher = Launcher(None, meta, [0], False)
        return launcher.problem([torch.empty(1, dtype=torch.float32)])

    assert key("x < 297", 297) == key("x < 396", 396)
    assert key("x < 297", 297) != key("x < 660", 660)          # another bucket
    assert key("x < 297", 297) != key("y < 297", 297)          # another kernel
    assert key("r < 100", 8, 100) != key("r < 300", 8, 300)    # reduced extent bucketed too
    assert key("x < 297", 297, bucketed=False) != key("x < 396", 396, bucketed=False)


def test_cpu_tensors_without_the_interpreter_run_in_aten_and_say_how():
    # said when the graph compiles (here and on a GPU machine, where Triton's driver would take
    # the CPU pointers and fail the first launch); an ATen-only graph still compiles
    import os
    import subprocess
    import sys
    code = ("import torch\n"
            "import tuner.compiler.stats as stats\n"
            "cf = torch.compile(lambda x: x.sin() + 1, backend='tuner')\n"
            "x = torch.randn(4)\n"
            "assert torch.allclose(cf(x), x.sin() + 1)\n"
            "print(stats.graphs()[-1].graph_fallback)\n"
            "mm = torch.compile(lambda a, b: a @ b, backend='tuner')\n"
            "assert torch.allclose(mm(x[None], x[:, None]), x[None] @ x[:, None])\n"
            "print(stats.graphs()[-1].graph_fallback or 'compiled')\n")
    env = {**os.environ, "TRITON_INTERPRET": "0"}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "TRITON_INTERPRET=1" in r.stderr and "runs in ATen" in r.stderr
    reason, matmul = r.stdout.strip().splitlines()[-2:]
    assert "interpreter" in reason and "first call" not in reason, reason
    assert matmul == "compiled"


def test_training_at_a_second_shape_through_a_pool_of_a_transposed_linear():
    # SEW's feature projection: the backward of avg_pool over a transposed (channels-last)
    # value reads its memory format off the saved unsqueeze's strides; a stride of 0 there made
    # ATen return a contiguous gradient, and the dynamic backward graph's view failed
    torch.manual_seed(0)
    stats.reset()
    lin, pool = torch.nn.Linear(16, 32), torch.nn.AvgPool1d(2, 2)
    fn = lambda x: pool(lin(x).transpose(1, 2))   # noqa: E731
    cf = torch.compile(fn, backend="tuner")
    for shape in ((2, 30, 16), (3, 46, 16)):
        x = torch.randn(shape)
        grads = []
        for f in (fn, cf):
            lin.weight.grad = None
            xi = x.clone().requires_grad_()
            y = f(xi)
            (y * torch.linspace(-1, 1, y.numel()).view(y.shape)).sum().backward()
            grads.append((y, xi.grad, lin.weight.grad))
        for got, want in zip(grads[1], grads[0]):
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    assert not any(g.graph_fallback for g in stats.graphs())


def test_a_symbolic_compile_decides_each_size_relation_once(monkeypatch):
    # fusion asks the same few relations over sizes thousands of times in a decoder's graph:
    # each is decided (built, checked against the bounds, its guard recorded) once
    from tuner.compiler.sizes import SizeVars
    decided = []
    decide = SizeVars.decide

    def recording(self, rel, exact=False):
        if rel not in (True, False):   # (those sympy evaluated when the relation was built)
            decided.append(rel)
        return decide(self, rel, exact)
    monkeypatch.setattr(SizeVars, "decide", recording)

    def block(x, w1, w2):
        for _ in range(3):   # three layers: the same shapes, the same relations again
            h = F.layer_norm(x, x.shape[-1:])
            x = x + F.gelu(h @ w1) @ w2
        return x
    w1, w2 = torch.randn(16, 32), torch.randn(32, 16)
    cf = torch.compile(block, backend="tuner", dynamic=True)
    stats.reset()
    for n in (3, 5):
        x = torch.randn(2, n, 16)
        assert_close(cf(x, w1, w2), block(x, w1, w2))
    assert stats.graphs()[-1].symbolic and not stats.graphs()[-1].graph_fallback
    assert decided and len(decided) == len(set(decided)), \
        [r for r in set(decided) if decided.count(r) > 1][:5]
