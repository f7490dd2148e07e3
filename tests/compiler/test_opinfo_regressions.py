"""Graphs that fell back whole to ATen (or crashed) on samples of PyTorch's OpInfo database
(float32, CPU, interpreter): each compiles now and matches eager."""
import pytest
import torch

import tuner.compiler.stats as stats
from helpers import assert_close, check_generated, compile_and_check

torch.manual_seed(0)


def check(fn, *args, generated=(), **kw):
    return check_generated(fn, *args, generated=generated, min_kernels=0, **kw)


def check_grad(fn, *args, generated=()):
    """fn compiled against eager, forward and the gradients of every float input that
    requires one (a fixed random weighting of the first output); no graph fell back."""
    stats.reset()
    torch._dynamo.reset()
    ref_args = [a.detach().clone().requires_grad_(a.requires_grad) if isinstance(a, torch.Tensor)
                else a for a in args]
    ref = fn(*ref_args)
    out = torch.compile(fn, backend="tuner")(*args)
    ref0 = ref[0] if isinstance(ref, (tuple, list)) else ref
    out0 = out[0] if isinstance(out, (tuple, list)) else out
    assert_close(out0, ref0)
    w = torch.randn(ref0.shape)
    (out0 * w).sum().backward()
    (ref0 * w).sum().backward()
    for a, r in zip(args, ref_args):
        if isinstance(a, torch.Tensor) and a.requires_grad:
            assert_close(a.grad, r.grad)
    graphs = stats.graphs()
    assert len(graphs) >= 2, "no backward graph was compiled"
    for g in graphs:
        assert not g.graph_fallback, g.graph_fallback
        for name in generated:
            assert name not in g.fallbacks and name not in g.lowering_errors, \
                (name, dict(g.fallbacks), g.lowering_errors)


def _spd(n=4):
    a = torch.randn(n, n)
    return a @ a.T + n * torch.eye(n)


# -- ops called for their side effect (linalg's error checks, through with_effects) ---------

LINALG = {
    "inv": (torch.linalg.inv, lambda: (_spd(),)),
    "solve": (torch.linalg.solve, lambda: (_spd(), torch.randn(4, 2))),
    "cholesky": (torch.linalg.cholesky, lambda: (_spd(),)),
    "lu_factor": (torch.linalg.lu_factor, lambda: (_spd(),)),
    "ldl_factor": (torch.linalg.ldl_factor, lambda: (_spd(),)),
    "tensorinv": (lambda x: torch.linalg.tensorinv(x, ind=2), lambda: (_spd(6).reshape(2, 3, 6),)),
    "tensorsolve": (torch.linalg.tensorsolve, lambda: (_spd(6).reshape(2, 3, 6), torch.randn(2, 3))),
    "eig": (lambda x: torch.view_as_real(torch.linalg.eig(x)[0]), lambda: (_spd(),)),
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg_check_errors_compiles(name):
    fn, make = LINALG[name]
    check(fn, *make())


def test_eigvals_gradient_compiles():
    # the backward graph carries the error check of the eigenvectors' normalization
    x = torch.randn(4, 4, requires_grad=True)
    check_grad(lambda t: torch.view_as_real(torch.linalg.eigvals(t)), x)


def test_linalg_check_errors_still_raise():
    f = torch.compile(torch.linalg.inv, backend="tuner")
    f(_spd())
    assert not stats.last().graph_fallback
    for _ in range(2):   # the first call, then the compiled graph as it stays
        with pytest.raises(torch.linalg.LinAlgError):
            f(torch.zeros(4, 4))


def test_check_without_effect_token_is_called():
    # a torch that does not thread the check through with_effects calls it plainly: it
    # returns nothing, stays in the wrapper (nothing reads its result) and still raises
    import operator

    from tuner.compiler.compile_graph import compile_graph
    aten = torch.ops.aten
    g = torch.fx.Graph()
    a = g.placeholder("a")
    res = g.call_function(aten.linalg_inv_ex.default, (a,))
    inv = g.call_function(operator.getitem, (res, 0))
    info = g.call_function(operator.getitem, (res, 1))
    g.call_function(aten._linalg_check_errors.default, (info, "linalg.inv"), {"is_matrix": True})
    g.output((g.call_function(aten.mul.Tensor, (inv, 2.0)),))
    call = compile_graph(torch.fx.GraphModule({}, g), [_spd(3)])
    x = _spd(3)
    assert_close(call([x])[0], torch.linalg.inv(x) * 2)
    with pytest.raises(torch.linalg.LinAlgError):
        call([torch.zeros(3, 3)])


def test_extern_with_infinite_float_argument():
    # cdist ran in ATen; its p=inf was written into the wrapper as the name `inf`. cdist now
    # decomposes (compiler/decompositions_nn.py), so the ATen call is built as a graph here
    from tuner.compiler.compile_graph import compile_graph
    aten = torch.ops.aten
    g = torch.fx.Graph()
    a = g.placeholder("a")
    g.output((g.call_function(aten._cdist_forward.default, (a, a, float("inf"), None)),))
    x = torch.randn(4, 5)
    stats.reset()
    call = compile_graph(torch.fx.GraphModule({}, g), [x])
    assert "aten._cdist_forward.default" in stats.last().fallbacks   # (the ATen call)
    assert_close(call([x])[0], torch.cdist(x, x, p=float("inf")))
    check(lambda t: torch.cdist(t, t, p=float("inf")), x)


# -- generated code the interpreter refused ------------------------------------------------

def _opinfo_samples(name, n=2, variant=""):
    """The first n samples of an OpInfo entry with elements (float32, CPU)."""
    from torch.testing._internal.common_methods_invocations import op_db
    op = next(o for o in op_db if o.name == name and o.variant_test_name == variant)
    out = []
    for s in op.sample_inputs("cpu", torch.float32):
        if s.input.numel() and all(a.numel() for a in s.args if isinstance(a, torch.Tensor)):
            out.append((op, s))
        if len(out) == n:
            break
    return out


@pytest.mark.parametrize("name", ["nn.functional.logsigmoid", "nn.functional.multilabel_soft_margin_loss"])
def test_opinfo_minimum_of_a_constant(name):
    # logsigmoid is min(0, x) - log1p(exp(-|x|)): minimum_nan with a 0-d first operand
    for op, s in _opinfo_samples(name):
        check(lambda x, *a: op.op(x, *a, **s.kwargs), s.input, *s.args)
        assert stats.last().kernels >= 1


@pytest.mark.parametrize("op", [torch.minimum, torch.maximum], ids=lambda o: o.__name__)
def test_min_max_constant_first_with_nan(op):
    x = torch.randn(3, 17)
    x[1, 3] = float("nan")
    s = check(lambda t: op(torch.tensor(0.5), t) + op(torch.tensor(float("nan")), t[0]), x)
    assert not s.fallbacks


def test_lgamma_at_poles_and_mvlgamma():
    # math.lgamma raised at 0 and the negative integers (a masked lane loads 0 too)
    x = torch.tensor([0.0, -1.0, -2.0, -2.5, 0.5, 1.0, 3.7, 10.0, -0.3, 1e-3, 2.0])
    s = check(torch.lgamma, x)
    assert not s.fallbacks and s.kernels == 1
    for op, sample in _opinfo_samples("mvlgamma", variant="mvlgamma_p_3"):
        check(lambda t: op.op(t, *sample.args, **sample.kwargs), sample.input)


INT_DTYPES = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]


def _int_ops(x, y):
    """Integer division and remainder in every spelling, with tensor and scalar operands of
    both signs; scalars are cast to x's dtype as eager does (-3 is 253 in uint8)."""
    return (torch.floor_divide(x, y), torch.remainder(x, y), x // y, x % y, torch.fmod(x, y),
            x // 3, x // -3, x % 3, x % -3, torch.remainder(7, y), torch.floor_divide(-7, y),
            torch.div(x, -3, rounding_mode="floor"), torch.div(x, -3, rounding_mode="trunc"),
            torch.div(x, y, rounding_mode="trunc"), x - 7, 7 - x, x * -2, x + 200,
            torch.where(x > 5, x, -1), x.clamp(-5, 100), x.masked_fill(x < 2, -1))


def _int_inputs(dtype):
    """x and y of dtype with negatives (but for uint8), no zero divisor, a -1 and -3 (uint8: 3
    and 255) among the divisors and a 0 dividend."""
    lo = 0 if dtype == torch.uint8 else -50
    x = torch.randint(lo, 50, (5, 13)).to(dtype)
    y = torch.randint(lo, 50, (13,)).to(dtype)
    y[y == 0] = 7
    y[0], y[1] = (3, 255) if dtype == torch.uint8 else (-1, -3)
    x[0, 0] = 0
    return x, y


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
def test_integer_division_and_scalars_out_of_range(dtype):
    s = check(_int_ops, *_int_inputs(dtype))
    assert not s.fallbacks, dict(s.fallbacks)


def test_reshape_of_zero_elements_padded():
    # F.unfold's and logdet's gradient samples with a size-0 dim: the reshape's index map
    # divided by the zero size while lowering; padded, the result has elements
    x = torch.randn(2, 0, 3)
    check(lambda t: torch.nn.functional.pad((t * 2).reshape(0, 6), (0, 0, 1, 1), value=1.5), x)


# -- lowerings that raised (the op fell back alone) ----------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=str)
@pytest.mark.parametrize("decimals", [0, 1, 3, -1, -2, 40, -400])
def test_round_decimals(decimals, dtype):
    x = torch.cat([torch.randn(30) * 1000, torch.randn(10),
                   torch.tensor([0.125, 0.375, 2.5, -2.5, 1.005, 15.0, 25.0, -35.0, -0.0,
                                 float("nan"), float("inf"), float("-inf")])]).to(dtype)
    stats.reset()
    out = torch.compile(lambda t: torch.round(t, decimals=decimals), backend="tuner")(x)
    ref = torch.round(x, decimals=decimals)
    assert out.dtype == ref.dtype
    assert torch.equal(out.nan_to_num(), ref.nan_to_num()) and torch.equal(out.isnan(), ref.isnan())
    s = stats.last()
    assert not s.graph_fallback and not s.fallbacks and s.kernels == 1, (s.graph_fallback, s.fallbacks)


def test_round_decimals_opinfo():
    for op, s in _opinfo_samples("round", variant="decimals_3"):
        check(lambda x: op.op(x, **s.kwargs), s.input, generated=["aten.round.decimals"])


ISEL = "aten.index_select.default"


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select_dims(dim):
    x = torch.randn(4, 6)
    i = torch.tensor([3, 0, 3, 1])
    s = check(lambda t, j: torch.index_select(t, dim, j) * 2, x, i, generated=[ISEL])
    assert not s.fallbacks
    check(lambda t, j: torch.index_select(t, dim, j), x, i.to(torch.int32), generated=[ISEL])


def test_index_select_zero_dim_index_and_scalar_input():
    x = torch.randn(4, 6)
    check(lambda t, j: torch.index_select(t, 1, j) + 1, x, torch.tensor(5), generated=[ISEL])
    for j in (torch.tensor([0]), torch.tensor(0)):
        s = check(lambda t, j: torch.index_select(t, 0, j) + 1, torch.tensor(2.5), j, generated=[ISEL])
        assert not s.fallbacks, dict(s.fallbacks)


@pytest.mark.parametrize("case", ["negative", "too_large", "scalar_input"])
def test_index_select_out_of_range_raises(case):
    # eager refuses these too: a negative index is not counted from the end
    x, i = {"negative": (torch.randn(4, 6), torch.tensor([0, -1])),
            "too_large": (torch.randn(4, 6), torch.tensor([4])),
            "scalar_input": (torch.tensor(2.5), torch.tensor([1]))}[case]
    with pytest.raises(Exception, match="out of range"):
        x.index_select(0, i)
    with pytest.raises(Exception, match="out of bounds"):
        torch.compile(lambda t, j: torch.index_select(t, 0, j) * 2, backend="tuner")(x, i)


def test_index_select_opinfo():
    for op, s in _opinfo_samples("index_select", n=3):
        check(lambda x, *a: op.op(x, *a, **s.kwargs), s.input, *s.args, generated=[ISEL])


INDEX_GRADS = {   # their backward graphs select the output's gradient at the index
    "index_add_0d": (lambda x, v: torch.index_add(x, 0, torch.tensor([0]), v, alpha=2), (), ()),
    "index_add_2d": (lambda x, v: torch.index_add(x, -1, torch.tensor([4, 0, 4]), v, alpha=-1),
                     (5, 5), (5, 3)),
    "index_reduce_prod_0d": (lambda x, v: torch.index_reduce(x, 0, torch.tensor([0]), v, "prod"),
                             (), ()),
    "index_reduce_amax_2d": (lambda x, v: torch.index_reduce(x, 1, torch.tensor([1, 3]), v, "amax",
                                                             include_self=False), (5, 5), (5, 2)),
}


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("name", sorted(INDEX_GRADS))
def test_index_add_and_index_reduce_gradients(name):
    fn, xs, vs = INDEX_GRADS[name]
    x, v = torch.randn(xs, requires_grad=True), torch.randn(vs, requires_grad=True)
    check_grad(fn, x, v, generated=[ISEL])


# -- AOTAutograd failures: the graph runs in ATen, named in stats ----------------------------

def _stock_aot_fails(m, x) -> bool:
    torch._dynamo.reset()
    try:
        with torch._dynamo.config.patch(allow_rnn=True):
            torch.compile(m, backend="aot_eager")(x)
    except Exception:
        return True
    finally:
        torch._dynamo.reset()
    return False


def test_lstm_with_allow_rnn_falls_back_to_aten():
    # AOTAutograd asserts on the first call (mkldnn_rnn_layer returns no tensor where its
    # meta promised one, saved for backward); the stock compiler fails the same way
    torch.manual_seed(0)
    m = torch.nn.LSTM(4, 3, batch_first=True)
    ref_m = torch.nn.LSTM(4, 3, batch_first=True)
    ref_m.load_state_dict(m.state_dict())
    x = torch.randn(2, 5, 4)
    stats.reset()
    with torch._dynamo.config.patch(allow_rnn=True):
        cm = torch.compile(m, backend="tuner")
        for _ in range(2):   # the first call falls back, the second runs the fallback
            out, (h, c) = cm(x)
            ref, (rh, rc) = ref_m(x)
            assert_close((out, h, c), (ref, rh, rc))
    reasons = [g.graph_fallback for g in stats.graphs() if g.graph_fallback]
    if _stock_aot_fails(ref_m, x):
        assert len(reasons) == 1 and "AOTAutograd" in reasons[0], reasons
        assert stats.last().graph_fallback == reasons[0]
    else:   # a torch whose AOTAutograd handles it: the graph compiles
        assert not reasons, reasons
    (out * out).sum().backward()
    (ref * ref).sum().backward()
    for p, rp in zip(m.parameters(), ref_m.parameters()):
        assert_close(p.grad, rp.grad)


def test_aot_capture_failure_falls_back_to_aten(monkeypatch):
    import tuner.compiler.backend as backend

    def failing(*args, **kwargs):
        def capture(gm, example_inputs):
            raise RuntimeError("injected capture failure")
        return capture
    monkeypatch.setattr(backend, "aot_backend", failing)
    x = torch.randn(3, 4)
    s = compile_and_check(lambda t: (t.sin() * 2, t.sum()), x)
    assert "injected capture failure" in s.graph_fallback and "AOTAutograd" in s.graph_fallback


# -- the same cases through Triton's compiler on a GPU ---------------------------------------

def _gpu_int(dtype):
    return _int_ops, _int_inputs(dtype)


GPU_CASES = {
    "int8": lambda: _gpu_int(torch.int8),
    "uint8": lambda: _gpu_int(torch.uint8),
    "int32": lambda: _gpu_int(torch.int32),
    "logsigmoid": lambda: (torch.nn.functional.logsigmoid,
                           (torch.tensor([float("nan"), -3.0, 0.0, 5.0, float("inf")]),)),
    "minimum_nan_constant": lambda: (lambda t: torch.minimum(torch.tensor(0.0), t),
                                     (torch.tensor([float("nan"), -1.0, 2.0]),)),
    "lgamma_poles": lambda: (torch.lgamma, (torch.tensor([0.0, -1.0, -2.0, 0.5, 3.0, -2.5]),)),
    "round_decimals": lambda: (lambda t: torch.round(t, decimals=2), (torch.randn(64) * 100,)),
    "index_select": lambda: (lambda t, i: torch.index_select(t, 1, i) * 2,
                             (torch.randn(4, 9), torch.tensor([8, 0, 3, 3]))),
    "linalg_inv": lambda: (lambda a: torch.linalg.inv(a) + 1, (_spd(),)),
    "diagonal_scatter": lambda: (lambda a, b: torch.diagonal_scatter(a * 2, b, -1),
                                 (torch.randn(5, 6), torch.randn(4))),
    "empty_like": lambda: (lambda a: torch.empty_like(a.t()).fill_(2.0) * a.t(), (torch.randn(3, 4),)),
}
GPU_CASES["index_reduce_amax"] = lambda: (lambda a, i, b: a.index_reduce(1, i, b, "amax", include_self=False),
                                          (torch.randn(4, 6), torch.tensor([2, 0, 2, 5]), torch.randn(4, 4)))
GPU_CASES["index_add_alpha"] = lambda: (lambda a, i, b: a.index_add(0, i, b, alpha=-2.5),
                                        (torch.randn(5, 3), torch.tensor([4, 0, 4]), torch.randn(3, 3)))
GPU_CASES["unfold"] = lambda: (lambda a: (a * 2).unfold(1, 3, 2).sin(), (torch.randn(4, 7, 5),))
# bfloat16 atomic adds: Triton's interpreter has none (the bfloat16 OpInfo sweep declares those
# graph fallbacks for CPU), a GPU compiles them
GPU_CASES["index_add_bf16"] = lambda: (lambda a, i, b: a.index_add(0, i, b * 2),
                                       (torch.randn(5, 3).bfloat16(), torch.tensor([4, 0, 2]),
                                        torch.randn(3, 3).bfloat16()))
GPU_CASES["scatter_add_bf16"] = lambda: (lambda a, i, b: (a + 1).scatter_add(0, i, b),
                                         (torch.randn(6, 5).bfloat16(), torch.randint(0, 6, (3, 5)),
                                          torch.randn(3, 5).bfloat16()))
for _r in ("sum", "mean", "amax", "amin"):
    for _self in (True, False):
        GPU_CASES[f"scatter_reduce_{_r}_{_self}"] = (
            lambda r=_r, inc=_self: (lambda a, i, b: torch.scatter_reduce(a + 1, 0, i, b, r, include_self=inc),
                                     (torch.randn(6, 5), torch.randint(0, 6, (9, 5)), torch.randn(9, 5))))


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GPU_CASES))
def test_on_gpu(name):
    fn, args = GPU_CASES[name]()
    check(fn, *[a.cuda() for a in args])


def test_a_data_dependent_size_is_left_to_dynamo():
    # narrow at a tensor's value: AOTAutograd's DataDependentOutputException goes back to dynamo,
    # which runs that code in eager, instead of our backend running the whole graph in ATen
    def fn(x, start):
        return torch.narrow(x * 2, 0, start, 2) + 1
    stats.reset()
    x, start = torch.randn(5, 3), torch.tensor(1)
    torch._dynamo.reset()
    out = torch.compile(fn, backend="tuner")(x, start)
    assert_close(out, fn(x, start))
    assert not any(g.graph_fallback for g in stats.graphs())


@pytest.mark.parametrize("case", ["gather", "embedding"])
def test_a_negative_index_raises_as_in_eager(case):
    # eager refuses a negative index here; it was counted from the end (a silent value)
    x = torch.randn(3, 4)
    fn = {"gather": lambda t, j: torch.gather(t, 1, j) * 2,
          "embedding": lambda t, j: torch.nn.functional.embedding(j, t) * 2}[case]
    idx = torch.tensor([[0, -1]]) if case == "gather" else torch.tensor([1, -1])
    with pytest.raises(Exception):
        fn(x, idx)
    torch._dynamo.reset()
    with pytest.raises(Exception, match="out of bounds"):
        torch.compile(fn, backend="tuner")(x, idx)
    ok = torch.tensor([[0, 3]]) if case == "gather" else torch.tensor([1, 2])
    check(fn, x, ok)


IPUT = "aten.index_put.default"


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_with_a_bool_mask_and_broadcast_values(accumulate):
    # x[mask] = v with v one row (or a number) for every selected element: a select, no
    # data-dependent count (OpInfo index_put's second sample ran as an ATen call)
    x, m = torch.randn(5, 5), torch.tensor([True, False, True, True, False])
    for s in (check(lambda t, k, v: torch.index_put(t, (k,), v, accumulate=accumulate), x, m, torch.randn(5),
                    generated=[IPUT]),
              check(lambda t, k, v: torch.index_put(t, (k,), v, accumulate=accumulate) * 2, x,
                    torch.rand(5, 5) > 0.5, torch.tensor(3.0), generated=[IPUT])):
        assert IPUT not in s.externs and s.kernels >= 1, dict(s.externs)


def test_index_put_with_a_bool_mask_and_a_value_per_selection_stays_in_aten():
    # one value per selected element: the count is the data's, eager's call computes it
    x, m = torch.randn(5, 3), torch.tensor([True, False, True, True, False])
    s = check(lambda t, k, v: torch.index_put(t, (k,), v), x, m, torch.randn(3, 3))
    assert s.externs.get(IPUT) == 1 or s.fallbacks.get(IPUT) == 1, (dict(s.externs), dict(s.fallbacks))
