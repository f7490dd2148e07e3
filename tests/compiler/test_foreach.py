"""Compiled optimizers: `_foreach_*` lowerings, in-place updates of inputs as the last store of
a fused kernel, and combo kernels that put independent per-tensor kernels in one launch."""
import pytest
import torch

import tuner.compiler.stats as stats
from helpers import assert_close

SHAPES = [(4, 5), (7,), (), (6, 3), (33,), (2, 3, 4), (1,), (16, 8)]


def _params(shapes, contiguous=True):
    torch.manual_seed(0)
    ps = [torch.randn(s, requires_grad=True) for s in shapes]
    if not contiguous:   # one parameter in a transposed layout (its states follow it)
        ps.append(torch.randn(3, 2, 5).transpose(0, 2).requires_grad_())
    return ps


def _steps_match(opt, ropt, ps, ref, steps):
    """`steps` compiled steps of opt against eager steps of ropt on the same gradients: the
    parameters after each and the states after the last match."""
    step = torch.compile(opt.step, backend="tuner")
    stats.reset()
    for _ in range(steps):
        for p, r in zip(ps, ref):
            g = torch.randn(p.shape)
            p.grad, r.grad = g.clone(), g.clone()
        step()
        ropt.step()
        for p, r in zip(ps, ref):
            torch.testing.assert_close(p, r, rtol=1e-5, atol=1e-6)
    for p, r in zip(ps, ref):
        for name, value in opt.state[p].items():
            torch.testing.assert_close(value, ropt.state[r][name], rtol=1e-5, atol=1e-6)
    return stats.graphs()


def _step_against_eager(opt_cls, steps=3, contiguous=True, **kw):
    ps = _params(SHAPES, contiguous)
    ref = [p.detach().clone().requires_grad_() for p in ps]
    return _steps_match(opt_cls(ps, **kw), opt_cls(ref, **kw), ps, ref, steps)


@pytest.mark.parametrize("opt_cls, kw", [
    (torch.optim.Adam, dict(lr=0.01, foreach=True)),
    (torch.optim.AdamW, dict(lr=0.01, foreach=True, weight_decay=0.1)),
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9, foreach=True)),
    (torch.optim.Adagrad, dict(lr=0.1, foreach=True)),
    (torch.optim.RMSprop, dict(lr=0.01, momentum=0.5, foreach=True)),
    # ASGD: a fused group between two others once fused into a cycle (scheduler._creates_cycle
    # checked node paths only); the whole graph fell back to ATen
    (torch.optim.ASGD, dict(lr=0.01, foreach=True)),
], ids=["adam", "adamw", "sgd_momentum", "adagrad", "rmsprop", "asgd"])
def test_optimizer_step_matches_eager_in_two_launches(opt_cls, kw):
    graphs = _step_against_eager(opt_cls, **kw)
    for g in graphs:
        assert not g.externs, g.externs        # every _foreach_* op lowered
        assert not g.graph_fallback, g.graph_fallback
        # the per-tensor kernels (step counters, then the update) share launches; ASGD's
        # per-parameter eta and mu updates read the new step: one level more
        limit = 3 if opt_cls is torch.optim.ASGD else 2
        assert g.kernels <= limit and "foreach" in g.kernel_kinds, g.kernel_kinds
        kinds = {"foreach", "pointwise"} if opt_cls is torch.optim.ASGD else {"foreach"}
        assert set(g.kernel_kinds) <= kinds, g.kernel_kinds


@pytest.mark.parametrize("opt_cls", [torch.optim.Adam, torch.optim.AdamW], ids=["adam", "adamw"])
def test_a_tensor_learning_rate_keeps_the_step_in_two_launches(opt_cls):
    # every update reads the 0-d learning rate: fusion once paired groups on that shared read,
    # merging the updates of same-sized parameters into a pointwise kernel beside the foreach
    # launch (three launches), and scoring those pairs was quadratic in the parameter count
    ps = _params([(16, 8), (24,), (8, 8, 2)] * 4)
    ref = [p.detach().clone().requires_grad_() for p in ps]
    # (eager takes neither a CPU capturable step nor a tensor rate with foreach: its
    # reference is the same update with a float rate)
    opt = opt_cls(ps, lr=torch.tensor(0.01), foreach=True, capturable=True, weight_decay=0.1)
    ropt = opt_cls(ref, lr=0.01, foreach=True, weight_decay=0.1)
    for g in _steps_match(opt, ropt, ps, ref, steps=2):
        assert not g.externs and not g.graph_fallback, (g.externs, g.graph_fallback)
        assert g.kernels <= 2 and set(g.kernel_kinds) == {"foreach"}, g.kernel_kinds


def test_optimizer_with_a_transposed_parameter():
    graphs = _step_against_eager(torch.optim.Adam, contiguous=False, lr=0.01, foreach=True)
    assert all(not g.externs for g in graphs)


def test_in_place_update_of_an_input_is_the_kernels_last_store():
    def f(x, y):
        x.mul_(0.5).add_(y)
        return x.sum()
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    xr = x.clone()
    stats.reset()
    out = torch.compile(f, backend="tuner")(x, y)
    assert_close(out, f(xr, y))
    assert_close(x, xr)
    s = stats.last()
    assert "scatter" not in s.kernel_kinds, s.kernel_kinds


def test_in_place_update_read_elsewhere_is_not_fused_across_elements():
    # x is read at another element (a flip) before being overwritten: the write may not share
    # a kernel with that read, or a program would read a value another one already wrote
    def f(x):
        y = x.flip(0) * 2
        x.copy_(x + 1)
        return y
    x = torch.randn(64)
    xr = x.clone()
    out = torch.compile(f, backend="tuner")(x)
    assert_close(out, f(xr))
    assert_close(x, xr)


def test_an_output_reading_an_input_before_its_update_sees_the_old_contents():
    # AOTAutograd's copy_ into x comes before the lazily built output in lowering order:
    # the output (x * 3 of the old x) once read the new x
    def f(x):
        n = x + 1
        out = n * 2 + x * 3
        x.copy_(n)
        return out
    x = torch.randn(8)
    xr = x.clone()
    out = torch.compile(f, backend="tuner")(x)
    assert_close(out, f(xr))
    assert_close(x, xr)


def test_inputs_that_swap_contents_read_each_others_old_values():
    def f(a, b):
        t = a.clone()
        a.copy_(b * 2)
        b.copy_(t)
    a, b = torch.randn(5), torch.randn(5)
    ar, br = a.clone(), b.clone()
    torch.compile(f, backend="tuner")(a, b)
    f(ar, br)
    assert_close(a, ar)
    assert_close(b, br)


def test_new_step_counters_are_written_in_place_not_into_temporaries():
    # capturable Adam's step += 1 is read by every parameter's update: the incremented value
    # is stored into the step tensor itself and read from there, not into a per-call 0-d
    # temporary per parameter (161 allocations per ResNet-50 step, ~0.3 ms of host time)
    ps = _params(SHAPES)
    ref = [p.detach().clone().requires_grad_() for p in ps]
    kw = dict(lr=0.01, foreach=True, weight_decay=0.1)   # eager refuses capturable on CPU
    opt, ropt = torch.optim.AdamW(ps, capturable=True, **kw), torch.optim.AdamW(ref, **kw)
    _steps_match(opt, ropt, ps, ref, steps=3)
    s = stats.last()
    assert s.kernels == 2
    assert "empty_strided" not in s.source.split("def call")[1], s.source.split("def call")[1]


def _against_eager(f, *xs, options=None):
    torch._dynamo.reset()
    e_in, c_in = [x.clone() for x in xs], [x.clone() for x in xs]
    ref = f(*e_in)
    out = torch.compile(f, backend="tuner", options=options)(*c_in)
    if ref is not None:
        assert_close(out, ref)
    for a, b in zip(c_in, e_in):
        assert_close(a, b)


def test_in_place_update_reading_other_elements_of_its_input():
    # a program must not overwrite elements another program still reads (the roll reads the
    # element before, across block boundaries; the broadcast reads row 0): the value is
    # computed into a buffer first, whether the write is a copy node or a retargeted buffer
    def shifted(x):
        x.add_(torch.roll(x, 1, 0))
        return x * 2                 # a second reader: the sum is realized, then retargeted

    def shifted_alone(x):
        x.add_(torch.roll(x, 1, 0))

    def row0(x):
        x.add_(x[0].clone())
        return x * 2
    _against_eager(shifted, torch.arange(4096.))
    _against_eager(shifted_alone, torch.arange(4096.))
    _against_eager(row0, torch.arange(64 * 64.).reshape(64, 64))


def test_in_place_update_and_a_looped_reduction_over_the_same_input():
    # a looped reduction passes over R more than once: fused with the input's write, a later
    # pass read (or recomputed from) the new contents
    def temperature_softmax(logits):
        logits.div_(0.7)
        return torch.softmax(logits, -1)

    def normalize_then_scale(x):
        out = x / x.sum(1, keepdim=True)
        x.mul_(2)
        return out

    def shift_then_normalize(x):
        x.add_(1)
        return x / x.sum(1, keepdim=True)
    looped = {"max_persistent_r": 64}
    torch.manual_seed(0)
    _against_eager(temperature_softmax, torch.randn(2, 257), options=looped)
    _against_eager(normalize_then_scale, torch.rand(2, 257) + 0.5, options=looped)
    _against_eager(shift_then_normalize, torch.rand(2, 257), options=looped)


def test_in_place_update_after_reads_through_an_aten_view_of_the_input():
    # unfold runs in ATen and returns a view of x: its readers read x, so x's update waits
    # for them (and a value copied into another input is computed before it)
    def read_then_update(x):
        v = x.unfold(0, 2, 1) * 2
        x.add_(1)
        return v.sum(1), x * 3

    def copy_the_old_view(a, b):
        t = a.unfold(0, 2, 1) * 2
        a.add_(1)
        b.copy_(t)
    _against_eager(read_then_update, torch.arange(8.))
    _against_eager(copy_the_old_view, torch.arange(8.), torch.zeros(7, 2))


def test_clip_grad_norm_foreach_matches_eager():
    ps = _params(SHAPES)
    ref = [p.detach().clone() for p in ps]
    for p, r in zip(ps, ref):
        g = torch.randn(p.shape) * 3
        p.grad, r.grad = g.clone(), g.clone()

    def clip(params):
        return torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=True)
    stats.reset()
    total = torch.compile(clip, backend="tuner")(ps)
    rtotal = torch.nn.utils.clip_grad_norm_([r.requires_grad_() for r in ref], 1.0, foreach=True)
    assert_close(total, rtotal)
    for p, r in zip(ps, ref):
        torch.testing.assert_close(p.grad, r.grad, rtol=1e-5, atol=1e-6)
    assert not any(g.externs for g in stats.graphs())


def test_foreach_ops_lowered_per_tensor():
    xs = [torch.randn(s) for s in [(3,), (2, 2), ()]]
    ys = [torch.rand(s) + 0.5 for s in [(3,), (2, 2), ()]]

    def f(xs, ys):
        a = torch._foreach_addcdiv(xs, xs, ys, 0.5)
        b = torch._foreach_pow(ys, 2.0)
        c = torch._foreach_lerp(xs, ys, 0.25)
        d = torch._foreach_maximum(xs, 0.1)
        e = torch._foreach_sqrt(torch._foreach_abs(xs))
        n = torch._foreach_norm(xs, 2)
        return a, b, c, d, e, n
    stats.reset()
    out = torch.compile(f, backend="tuner")(xs, ys)
    assert_close(out, f(xs, ys))
    assert not stats.last().externs


def test_many_independent_small_kernels_share_a_launch_and_few_do_not():
    def f(*xs):
        return [(x * 2).sin() for x in xs]
    xs = [torch.randn(n) for n in (5, 17, 300, 1, 64)]
    stats.reset()
    assert_close(torch.compile(f, backend="tuner")(*xs), f(*xs))
    # one body for every tensor but the 1-element one (its loads are scalar): a table kernel
    # of two bodies, or without tables one branch per tensor
    assert stats.last().kernel_kinds == ["foreach"]
    assert "elif body == 1:" in stats.last().source and "body == 2" not in stats.last().source
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(f, backend="tuner", options={"foreach_kernels": False})(*xs)
    assert_close(out, f(*xs))
    assert stats.last().kernel_kinds == ["combo"]
    torch._dynamo.reset()
    stats.reset()
    assert_close(torch.compile(f, backend="tuner")(*xs[:2]), f(*xs[:2]))
    assert stats.last().kernel_kinds == ["pointwise", "pointwise"]   # two launches save little
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(f, backend="tuner", options={"combo_kernels": False})(*xs)
    assert_close(out, f(*xs))
    assert stats.last().kernels == 5


@pytest.mark.parametrize("tables", [True, False])
def test_combined_kernels_tune_in_max_autotune(tables):
    def f(*xs):
        return [x + 1 for x in xs]
    xs = [torch.randn(n) for n in (5, 17, 300, 64)]
    stats.reset()
    opts = {"max_autotune": True, "cudagraphs": False, "foreach_kernels": tables}
    out = torch.compile(f, backend="tuner", options=opts)(*xs)
    assert_close(out, f(*xs))
    assert stats.last().kernel_kinds == ["foreach" if tables else "combo"]
    assert stats.last().decisions == 1


def test_foreach_kernel_over_many_tensors_compiles_one_body():
    # 60 tensors of one update: one launch of one body (combo kernels would need two launches
    # of 32 branches each); misaligned views (offset by one element) take the unvectorized
    # variant and still match eager
    def f(xs, ys):
        torch._foreach_mul_(xs, 0.5)
        torch._foreach_add_(xs, ys)
    base = torch.randn(60 * 41 + 1)
    for off in (0, 1):
        xs = [base[off + 41 * i: off + 41 * i + 40 - i % 3] for i in range(60)]
        ys = [torch.randn(x.shape) for x in xs]
        ref = [x.clone() for x in xs]
        f(ref, ys)
        torch._dynamo.reset()
        stats.reset()
        torch.compile(f, backend="tuner")(xs, ys)
        for x, r in zip(xs, ref):
            assert_close(x, r)
        assert stats.last().kernel_kinds == ["foreach"], stats.last().kernel_kinds
        assert "body ==" not in stats.last().source


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("opt_cls", [torch.optim.Adam, torch.optim.AdamW])
def test_capturable_optimizer_on_cuda_matches_eager(opt_cls, dtype):
    torch.manual_seed(0)
    shapes = [(768, 768), (3072,), (), (50, 768), (1,), (4, 3, 7)]
    ps = [torch.randn(s, device="cuda", dtype=dtype, requires_grad=True) for s in shapes]
    ref = [p.detach().clone().requires_grad_() for p in ps]
    kw = dict(lr=torch.tensor(1e-3, device="cuda"), foreach=True, capturable=True)
    opt, ropt = opt_cls(ps, **kw), opt_cls(ref, **kw)
    step = torch.compile(opt.step, backend="tuner")
    stats.reset()
    for _ in range(4):
        for p, r in zip(ps, ref):
            g = torch.randn(p.shape, device="cuda", dtype=dtype)
            p.grad, r.grad = g.clone(), g.clone()
        step()
        ropt.step()
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == torch.float32 else dict(rtol=2e-2, atol=2e-2)
    for p, r in zip(ps, ref):
        torch.testing.assert_close(p, r, **tol)
    assert all(not g.externs and g.kernels <= 2 for g in stats.graphs()), \
        [(g.kernels, dict(g.externs)) for g in stats.graphs()]


@pytest.mark.gpu
def test_optimizer_step_under_cuda_graphs():
    torch.manual_seed(0)
    ps = [torch.randn(s, device="cuda", requires_grad=True) for s in [(256, 64), (64,), (3, 3)]]
    ref = [p.detach().clone().requires_grad_() for p in ps]
    kw = dict(lr=1e-2, foreach=True, capturable=True)
    opt, ropt = torch.optim.Adam(ps, **kw), torch.optim.Adam(ref, **kw)
    step = torch.compile(opt.step, backend="tuner", mode="reduce-overhead")
    for _ in range(5):
        for p, r in zip(ps, ref):
            g = torch.randn(p.shape, device="cuda")
            p.grad.copy_(g) if p.grad is not None else setattr(p, "grad", g.clone())
            r.grad = g.clone()
        step()
        ropt.step()
    for p, r in zip(ps, ref):
        torch.testing.assert_close(p, r, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("tables", [True, False])
def test_a_cached_config_that_fails_retunes_on_copies_not_on_the_tensors(monkeypatch, tables):
    # the cache answers a config that does not launch: the call runs the default once and the
    # kernel re-tunes on copies of what it writes (tuning on the caller's tensors would apply
    # the update once per measurement)
    import tuner.points.triton_kernel as point
    from tuner.decision import Decision
    real, calls = point.decide_config, []

    def cached_then_real(meta, args, launch, **kw):
        calls.append(meta.kind)
        if len(calls) == 1:   # XBLOCK 100: not a power of two, the launch raises
            return Decision(point.to_config({"XBLOCK": 100, "num_warps": 1, "num_stages": 1}), None,
                            None, "cache", namespace="triton_kernel", problem="p")
        return real(meta, args, launch, **kw)
    monkeypatch.setattr(point, "decide_config", cached_then_real)

    def f(xs):
        torch._foreach_add_(xs, 1.0)
    xs = [torch.zeros(n) for n in (5, 17, 300, 64)]
    opts = {"max_autotune": True, "cudagraphs": False, "foreach_kernels": tables}
    torch.compile(f, backend="tuner", options=opts)(xs)
    assert len(calls) == 2
    for x in xs:
        assert torch.equal(x, torch.ones_like(x))


def test_tuning_copies_keep_the_strides_of_non_dense_outputs():
    # what a kernel writes is copied for tuning with its own strides: a dense clone of a
    # column slice would be indexed past its end
    def f(xs):
        torch._foreach_mul_(xs, 2.0)
    bases = [torch.randn(64, 64) for _ in range(4)]
    xs = [b[:, :5] for b in bases]
    ref = [b.clone() for b in bases]
    for r in ref:
        r[:, :5] *= 2
    torch.compile(f, backend="tuner", options={"max_autotune": True, "cudagraphs": False})(xs)
    for b, r in zip(bases, ref):
        assert torch.equal(b, r)


@pytest.mark.gpu
def test_foreach_tables_built_during_cuda_graph_capture_replay_right():
    # intermediates live at other addresses during capture (the graph's pool) than in the
    # warm-up, and an optimizer's gradients move when zero_grad sets them to None: both build
    # a pointer table while a graph is being captured, from a pinned buffer of its own
    xs = [torch.randn(n, device="cuda") for n in (5, 17, 300, 64, 1000)]
    f = torch.compile(lambda *xs: [(x + 1) * 2 for x in [y.sin() for y in xs]], backend="tuner",
                      mode="reduce-overhead")
    for _ in range(4):
        for x in xs:
            x.copy_(torch.randn_like(x))
        for got, x in zip(f(*xs), xs):
            torch.testing.assert_close(got, (x.sin() + 1) * 2)
    torch.manual_seed(0)
    ps = [torch.randn(s, device="cuda", requires_grad=True) for s in [(256, 64), (64,), (3, 3), (7,)]]
    ref = [p.detach().clone().requires_grad_() for p in ps]
    kw = dict(lr=1e-2, foreach=True, capturable=True)
    opt, ropt = torch.optim.Adam(ps, **kw), torch.optim.Adam(ref, **kw)
    step = torch.compile(opt.step, backend="tuner", mode="reduce-overhead")
    for _ in range(6):
        opt.zero_grad(set_to_none=True)
        for p, r in zip(ps, ref):
            g = torch.randn(p.shape, device="cuda")
            p.grad, r.grad = g.clone(), g.clone()   # new gradient tensors every step
        step()
        ropt.step()
    for p, r in zip(ps, ref):
        torch.testing.assert_close(p, r, rtol=1e-5, atol=1e-6)


def test_a_kernel_failing_on_the_first_call_after_inputs_were_written_applies_the_step_once(monkeypatch):
    # Adam's step: the first kernel increments the step counters (inputs, in place), the
    # second does the update. When the second fails on the graph's first call, the graph
    # falls back to ATen and the call is retried there: the counters written by the first
    # kernel must be restored first, or the retry counts the step twice (bias correction off).
    from tuner.compiler.runtime import launch
    calls = [0]
    real = {cls: cls.__call__ for cls in (launch.Launcher, launch.ForeachLauncher)}

    def failing_second(cls):
        def call(self, *args):
            calls[0] += 1
            if calls[0] == 2:
                raise RuntimeError("injected: the second kernel does not build")
            return real[cls](self, *args)
        return call
    for cls in real:
        monkeypatch.setattr(cls, "__call__", failing_second(cls))
    # three parameters of different sizes: per-tensor kernels, the first writing a counter
    ps = _params([(4, 5), (7,), (6, 3)])
    ref = [p.detach().clone().requires_grad_() for p in ps]
    opt = torch.optim.Adam(ps, lr=0.01, foreach=True)
    ropt = torch.optim.Adam(ref, lr=0.01, foreach=True)
    for p, r in zip(ps, ref):
        g = torch.randn(p.shape)
        p.grad, r.grad = g.clone(), g.clone()
    opt.step()     # the states exist before the compiled step (the counters are graph inputs)
    ropt.step()
    step = torch.compile(opt.step, backend="tuner")
    stats.reset()
    with pytest.warns(RuntimeWarning, match="injected"):
        step()
    ropt.step()
    assert calls[0] >= 2, "the injected failure never ran"
    assert "injected" in stats.last().graph_fallback
    for p, r in zip(ps, ref):
        assert opt.state[p]["step"].item() == ropt.state[r]["step"].item() == 2
        torch.testing.assert_close(p, r, rtol=1e-5, atol=1e-6)
