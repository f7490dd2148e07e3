"""The compiler's pad_mm pass: mm/addmm/bmm lowered to externs on zero-padded operands (sliced
back) when the pad_mm point says "pad", the plain extern otherwise; results equal eager's."""
import copy

import pytest
import torch
import torch.nn.functional as F

import tuner.compiler.stats as stats
import tuner.engine as engine
from helpers import assert_close

DTYPES = [torch.float32, torch.bfloat16, torch.float16]


def _run(fn, *args, pad_mm=None, dtype=None):
    """Compile fn with the given pad_mm option, compare with eager; stats of every graph."""
    torch._dynamo.reset()
    stats.reset()
    options = {"pad_mm": pad_mm} if pad_mm else None
    out = torch.compile(fn, backend="tuner", options=options)(*args)
    assert_close(out, fn(*args), dtype)
    return stats.totals()


def _operands(*shapes, dtype=torch.float32):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(*s, generator=g).to(dtype) for s in shapes]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", ["mm", "addmm_1d", "addmm_2d", "bmm"])
def test_padded_matmul_matches_eager_and_is_counted(case, dtype):
    a, b, b3 = _operands((33, 19), (19, 37), (3, 19, 37), dtype=dtype)
    bias1, bias2 = _operands((37,), (33, 37), dtype=dtype)
    fn, args, ext = {
        "mm": (torch.mm, (a, b), "aten.mm.default"),
        "addmm_1d": (lambda c, x, y: torch.addmm(c, x, y, beta=0.5, alpha=2.0), (bias1, a, b),
                     "aten.addmm.default"),
        "addmm_2d": (torch.addmm, (bias2, a, b), "aten.addmm.default"),
        "bmm": (torch.bmm, (a.expand(3, 33, 19).contiguous(), b3), "aten.bmm.default"),
    }[case]
    never = _run(fn, *args, pad_mm="never", dtype=dtype)
    always = _run(fn, *args, pad_mm="always", dtype=dtype)
    assert never.pad_mm == {"orig": 1} and always.pad_mm == {"pad": 1}
    assert never.externs[ext] == always.externs[ext] == 1
    # pad copies of the operands (and bias) plus the copy of the slice into the output
    assert always.kernels > never.kernels


@pytest.mark.parametrize("bias_shape", [(1, 37), (33, 1), ()])
def test_addmm_broadcast_bias_is_not_padded_where_it_broadcasts(bias_shape):
    a, b = _operands((33, 19), (19, 37))
    bias = torch.randn(bias_shape)
    s = _run(torch.addmm, bias, a, b, pad_mm="always")
    assert s.pad_mm == {"pad": 1}


def test_padded_result_equals_unpadded_exactly():
    # the pad kernels copy exactly and the slice reads the product's own elements: the result
    # is bit for bit eager's product of the same padded operands
    a, b = _operands((33, 19), (19, 37))
    torch._dynamo.reset()
    out = torch.compile(torch.mm, backend="tuner", options={"pad_mm": "always"})(a, b)
    torch.testing.assert_close(out, F.pad(a, (0, 1, 0, 3)).mm(F.pad(b, (0, 3, 0, 1)))[:33, :37],
                               rtol=0, atol=0)


def test_linear_with_transposed_weight_pads_column_major():
    x, w, bias = _operands((33, 19), (37, 19), (37,))
    s = _run(F.linear, x, w, bias, pad_mm="always")
    assert s.pad_mm == {"pad": 1}
    # the weight's padded copy keeps its source's column-major order, as pad_mm measured it
    assert "empty_strided_fast((20, 40), (1, 20)" in stats.last().source
    s = _run(lambda x, w: x @ w.t(), x, w, pad_mm="always")
    assert s.pad_mm == {"pad": 1}


def test_pad_of_a_pointwise_producer_fuses_into_it():
    x, w = _operands((33, 19), (19, 37))
    plain = _run(torch.mm, x, w, pad_mm="always")
    fed = _run(lambda x, w: torch.mm((x * 2).relu(), w), x, w, pad_mm="always")
    # x's pad copy kernel and the producer's kernel are one and the same
    assert fed.kernels == plain.kernels
    plain_never = _run(torch.mm, x, w, pad_mm="never")
    fed_never = _run(lambda x, w: torch.mm((x * 2).relu(), w), x, w, pad_mm="never")
    assert fed_never.kernels == plain_never.kernels + 1


def test_operand_read_by_two_matmuls_is_padded_once():
    x, w1, w2 = _operands((33, 19), (19, 37), (19, 5))
    s = _run(lambda x, a, b: (x @ a, x @ b), x, w1, w2, pad_mm="always")
    assert s.pad_mm == {"pad": 2}
    assert stats.last().source.count("empty_strided_fast((36, 20)") == 1


def test_operand_read_as_is_and_transposed_is_padded_once():
    """A tied LM head's backward reads the logits' gradient as K of one matmul and, transposed,
    as M of another: both pads are one copy (one padded logits-sized buffer, not two)."""
    g, w, h = _operands((16, 37), (37, 24), (16, 24))
    s = _run(lambda g, w, h: (g @ w, g.t() @ h), g, w, h, pad_mm="always")
    assert s.pad_mm == {"pad": 2}
    src = stats.last().source
    assert src.count("empty_strided_fast((16, 40)") + src.count("empty_strided_fast((40, 16)") == 1


@pytest.mark.parametrize("dtype,shapes", [(torch.float32, [(32, 16), (16, 40)]),
                                          (torch.bfloat16, [(32, 16), (16, 40)]),
                                          (torch.float64, [(33, 19), (19, 37)])])
def test_aligned_or_unsupported_problem_is_never_padded(dtype, shapes):
    a, b = _operands(*shapes, dtype=dtype)
    always = _run(torch.mm, a, b, pad_mm="always")
    never = _run(torch.mm, a, b, pad_mm="never")
    assert not always.pad_mm and not never.pad_mm
    assert always.kernels == never.kernels == 0


def test_mlp_training_with_unaligned_dims_matches_eager_gradients():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(19, 37), torch.nn.GELU(), torch.nn.Linear(37, 11))
    ref = copy.deepcopy(model)
    x = torch.randn(13, 19)
    torch._dynamo.reset()
    stats.reset()
    cm = torch.compile(model, backend="tuner", options={"pad_mm": "always"})
    out = cm(x)
    expected = ref(x)
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-5)
    out.square().mean().backward()
    expected.square().mean().backward()
    for (name, p), (_, q) in zip(model.named_parameters(), ref.named_parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5, msg=name)
    fwd, bwd = stats.graphs()[-2:]
    assert fwd.pad_mm["pad"] == 2
    assert bwd.pad_mm["pad"] >= 3    # grad of the input of layer 2, grads of both weights
    assert stats.totals().pad_mm["pad"] == fwd.pad_mm["pad"] + bwd.pad_mm["pad"]
    assert stats.totals().as_dict()["pad_mm"]["pad"] >= 5


def test_compile_option_wins_over_the_setting(monkeypatch):
    a, b = _operands((33, 19), (19, 37))
    monkeypatch.setenv("TUNER_PAD_MM", "always")
    assert _run(torch.mm, a, b).pad_mm == {"pad": 1}
    assert _run(torch.mm, a, b, pad_mm="never").pad_mm == {"orig": 1}
    monkeypatch.setenv("TUNER_PAD_MM", "never")
    assert _run(torch.mm, a, b).pad_mm == {"orig": 1}
    assert _run(torch.mm, a, b, pad_mm="always").pad_mm == {"pad": 1}


def test_unknown_pad_mm_option_or_setting_is_a_clear_error(monkeypatch):
    a, b = _operands((32, 16), (16, 32))    # aligned: the check does not wait for a matmul to pad
    torch._dynamo.reset()
    with pytest.raises(Exception, match=r"pad_mm.*expected one of auto, always, never"):
        torch.compile(torch.mm, backend="tuner", options={"pad_mm": "sometimes"})(a, b)
    monkeypatch.setenv("TUNER_PAD_MM", "sometimes")
    torch._dynamo.reset()
    with pytest.raises(Exception, match=r"TUNER_PAD_MM='sometimes': expected one of auto, always"):
        torch.compile(torch.mm, backend="tuner")(a, b)


def test_auto_asks_the_pad_mm_decision_then_the_cache(monkeypatch):
    # a real decision: no heuristic, an empty cache (conftest), so both choices are benchmarked
    # on the CPU; the second compile of the same problem is answered by the cache
    monkeypatch.setenv("TUNER_HEURISTICS", "off")
    monkeypatch.setenv("TUNER_PAD_MM", "auto")
    monkeypatch.setenv("TUNER_BENCH_REPS", "3")
    monkeypatch.setenv("TUNER_BENCH_WARMUP", "1")
    from tuner.cache import reset_cache
    reset_cache()
    a, b = _operands((33, 19), (19, 37))
    engine.HISTORY.clear()
    s = _run(torch.mm, a, b)
    first = [d for d in engine.HISTORY if d.namespace == "pad_mm"]
    assert len(first) == 1 and first[0].source in ("exhaustive", "coordinate_descent", "budgeted")
    assert first[0].problem.startswith("mm:b1:m33:k19:n37:float32")
    assert {c for c, _ in first[0].timings} == {"orig", "pad"}
    assert s.pad_mm == {first[0].choice: 1}
    s = _run(torch.mm, a, b)
    second = [d for d in engine.HISTORY if d.namespace == "pad_mm"][1:]
    assert len(second) == 1 and second[0].source == "cache" and second[0].choice == first[0].choice
    assert s.pad_mm == {first[0].choice: 1}
    reset_cache()


def test_auto_measures_real_operands_while_dynamo_traces(monkeypatch):
    # the pass decides during lowering, under the tracer's FakeTensorMode: operands made there
    # would be fake and the timings meaningless (GPT-2's lm head flipped between choices)
    monkeypatch.setenv("TUNER_HEURISTICS", "off")
    monkeypatch.setenv("TUNER_PAD_MM", "auto")
    monkeypatch.setenv("TUNER_CACHE", "0")
    monkeypatch.setenv("TUNER_BENCH_REPS", "2")
    monkeypatch.setenv("TUNER_BENCH_WARMUP", "0")
    import tuner.points.pad_mm as pm
    from torch._subclasses.fake_tensor import FakeTensor
    made = []
    real_make = pm.make_operands

    def spy(*args, **kw):
        ops = real_make(*args, **kw)
        made.extend(t for t in ops if t is not None)
        return ops
    monkeypatch.setattr(pm, "make_operands", spy)
    a, b = _operands((33, 19), (19, 37))
    _run(torch.mm, a, b)
    assert made and not any(isinstance(t, FakeTensor) for t in made)


@pytest.mark.gpu
def test_gpt2_lm_head_padded_on_gpu_matches_eager():
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(4096, 768, device="cuda", dtype=torch.bfloat16, generator=g)
    w = torch.randn(50257, 768, device="cuda", dtype=torch.bfloat16, generator=g) * 0.02
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(lambda x, w: x @ w.t(), backend="tuner", options={"pad_mm": "always"})(x, w)
    torch.testing.assert_close(out, x @ w.t(), rtol=2e-2, atol=2e-2)
    assert stats.totals().pad_mm == {"pad": 1}


@pytest.mark.gpu
def test_gpt2_lm_head_auto_decides_on_gpu_and_matches_eager(monkeypatch):
    # which choice wins is the GPU's business; the decision must be real and the result right
    monkeypatch.setenv("TUNER_HEURISTICS", "off")
    from tuner.cache import reset_cache
    reset_cache()
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(4096, 768, device="cuda", dtype=torch.bfloat16, generator=g)
    w = torch.randn(50257, 768, device="cuda", dtype=torch.bfloat16, generator=g) * 0.02
    torch._dynamo.reset()
    stats.reset()
    engine.HISTORY.clear()
    out = torch.compile(lambda x, w: x @ w.t(), backend="tuner", options={"pad_mm": "auto"})(x, w)
    torch.testing.assert_close(out, x @ w.t(), rtol=2e-2, atol=2e-2)
    decisions = [d for d in engine.HISTORY if d.namespace == "pad_mm"]
    assert len(decisions) == 1 and decisions[0].source != "cache"
    assert stats.totals().pad_mm == {decisions[0].choice: 1}
    print("lm head pad_mm:", decisions[0].choice, decisions[0].timings)
    # 316 GFLOP: no H100 runs it in under 0.2 ms (timings of fake operands were ~0.01 ms)
    assert all(t > 0.2 for _, t in decisions[0].timings)
    reset_cache()


@pytest.mark.gpu
def test_gpt2_lm_head_padded_in_a_symbolic_graph_on_gpu_matches_eager():
    # the tied LM head of a graph with symbolic rows (a server's batches and lengths): its
    # 50257 columns padded as in a static graph, at every row count
    g = torch.Generator(device="cuda").manual_seed(0)
    head = _Weights(lambda x, w: x @ w.t(), (50257, 768)).cuda().to(torch.bfloat16)
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(head, backend="tuner", dynamic=True, options={"pad_mm": "always"})
    with torch.no_grad():
        for rows in (1000, 4099, 317):
            x = torch.randn(rows, 768, device="cuda", dtype=torch.bfloat16, generator=g) * 0.05
            torch.testing.assert_close(compiled(x), head(x), rtol=2e-2, atol=2e-2)
    assert stats.totals().pad_mm == {"pad": 1} and not stats.symbolic_fallbacks


def test_inference_output_keeps_the_padded_layout_training_output_is_copied():
    # An lm-head-like output: inference returns the [:m, :n] view of the padded result (no
    # logits-sized copy kernel); a training forward's output keeps eager's strides, since the
    # backward graph was traced with them.
    a, w = _operands((6, 16), (37, 16))
    fn = lambda x, w: x @ w.t()   # noqa: E731
    torch._dynamo.reset()
    stats.reset()
    with torch.no_grad():
        out = torch.compile(fn, backend="tuner", options={"pad_mm": "always"})(a, w)
    assert_close(out, fn(a, w), torch.float32)
    assert out.shape == (6, 37) and out.stride() == (40, 1)
    inference_kernels = stats.totals().kernels

    torch._dynamo.reset()
    stats.reset()
    wg = w.clone().requires_grad_()
    out = torch.compile(fn, backend="tuner", options={"pad_mm": "always"})(a, wg)
    assert_close(out, fn(a, wg), torch.float32)
    assert out.stride() == (37, 1)
    assert stats.graphs()[0].kernels == inference_kernels + 1   # the slice copied out
    out.sum().backward()
    assert_close(wg.grad, torch.ones(6, 37).t() @ a, torch.float32)


@pytest.mark.parametrize("winner", ["extern", "template"])
def test_max_autotune_weighs_the_template_against_the_padded_extern(monkeypatch, winner):
    # where the pad_mm point pads, the mm point still poses the matmul (marked padded: its
    # extern probe pads as the graph would) and the template, which masks any size, may win
    import time

    import tuner.compiler.compile_graph as cg
    from tuner.compiler import mm_probes
    monkeypatch.setenv("TUNER_MM", "auto")
    monkeypatch.setenv("TUNER_PAD_MM", "always")
    monkeypatch.setenv("TUNER_MM_PADDED", "measure")
    problems = []

    def runners(problem, device):
        problems.append(problem)
        slow = "template" if winner == "extern" else "extern"
        return {winner: lambda: None, slow: lambda: time.sleep(0.002)}
    monkeypatch.setattr(cg, "mm_runners", runners)
    a, b = _operands((33, 19), (19, 37))
    f = lambda a, b: torch.relu(a @ b)   # noqa: E731
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(f, backend="tuner", mode="max-autotune-no-cudagraphs")(a, b)
    assert_close(out, f(a, b))
    s = stats.totals()
    assert [p.signature() for p in problems] == ["mm:b1:m33:n37:k19:float32:t00:padded"]
    assert s.pad_mm == {"pad" if winner == "extern" else "template": 1}
    assert dict(s.mm_backend) == {winner: 1}
    if winner == "template":   # one kernel, unpadded, the ReLU fused
        assert s.kernel_kinds == ["template"] and not s.externs
    else:                      # the padded ATen call, as before
        assert s.externs["aten.mm.default"] == 1 and "template" not in s.kernel_kinds
    # the extern probe of a padded problem compiles with its operands padded
    assert mm_probes.probe_context("extern", True).options["pad_mm"] == "always"
    assert mm_probes.probe_context("template", True).options["pad_mm"] == "never"


def test_default_mode_keeps_the_padded_extern_without_measuring(monkeypatch):
    import tuner.compiler.compile_graph as cg
    monkeypatch.setenv("TUNER_MM", "auto")
    monkeypatch.setenv("TUNER_MM_PADDED", "measure")
    monkeypatch.setattr(cg, "mm_runners", lambda *a: pytest.fail("measured in default mode"))
    a, b = _operands((33, 19), (19, 37))
    s = _run(lambda a, b: torch.relu(a @ b), a, b, pad_mm="always")
    assert s.pad_mm == {"pad": 1} and dict(s.mm_backend) == {"extern": 1}
    assert s.externs["aten.mm.default"] == 1


def test_padded_matmuls_stay_padded_externs_by_default_in_max_autotune(monkeypatch):
    # TUNER_MM_PADDED=extern (the default until measured on GPU models): no probe, as before
    import tuner.compiler.compile_graph as cg
    monkeypatch.setenv("TUNER_MM", "auto")
    monkeypatch.setenv("TUNER_PAD_MM", "always")
    monkeypatch.setattr(cg, "mm_runners", lambda *a: pytest.fail("a padded matmul was probed"))
    a, b = _operands((33, 19), (19, 37))
    torch._dynamo.reset()
    stats.reset()
    f = lambda a, b: torch.relu(a @ b)   # noqa: E731
    out = torch.compile(f, backend="tuner", mode="max-autotune-no-cudagraphs")(a, b)
    assert_close(out, f(a, b))
    s = stats.totals()
    assert s.pad_mm == {"pad": 1} and not s.mm_backend and s.externs["aten.mm.default"] == 1


def test_a_padded_matmul_with_a_residual_is_posed_with_the_add_as_its_epilogue(monkeypatch):
    # the padded ATen call never folds `mm + r` into addmm: the add is a kernel of its own, so
    # the problem has an epilogue (a folded residual would have been posed bare)
    import tuner.compiler.compile_graph as cg
    monkeypatch.setenv("TUNER_MM", "auto")
    monkeypatch.setenv("TUNER_PAD_MM", "always")
    monkeypatch.setenv("TUNER_MM_PADDED", "measure")
    problems = []
    monkeypatch.setattr(cg, "mm_runners", lambda problem, device: problems.append(problem) or {})
    a, b, r = _operands((33, 19), (19, 37), (33, 37))
    f = lambda a, b, r: a @ b + r   # noqa: E731
    torch._dynamo.reset()
    out = torch.compile(f, backend="tuner", mode="max-autotune-no-cudagraphs")(a, b, r)
    assert_close(out, f(a, b, r))
    assert [p.signature() for p in problems] == ["mm:b1:m33:n37:k19:float32:t00:padded"]


def test_the_padded_problems_extern_probe_pads_and_both_probes_run(monkeypatch):
    # the real probes of a padded problem: the extern variant's compile pads its operands
    import tuner.compiler.compile_graph as cg
    import tuner.compiler.lowerings.matmul as mm_lowering
    from tuner.points.mm import MMProblem
    pads = []
    real = mm_lowering._padded
    monkeypatch.setattr(mm_lowering, "_padded", lambda *a, **k: pads.append(1) or real(*a, **k))
    fns = cg.mm_runners(MMProblem("mm", 1, 33, 37, 19, "float32", padded=True), "cpu")
    assert sorted(fns) == ["extern", "template"] and pads == [1]
    for fn in fns.values():
        fn()


class _Weights(torch.nn.Module):
    """fn(x, *parameters): parameters keep static sizes under dynamic=True (dynamo's
    force_parameter_static_shapes), as a model's weights do; only the input's are symbolic."""

    def __init__(self, fn, *shapes):
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.fn, self.n = fn, len(shapes)
        # plain attributes: torch 2.11's dynamo cannot unpack a ParameterList into arguments
        for i, sh in enumerate(shapes):
            setattr(self, f"p{i}", torch.nn.Parameter(torch.randn(*sh, generator=g)))

    def forward(self, *xs):
        return self.fn(*xs, *[getattr(self, f"p{i}") for i in range(self.n)])


def _dynamic_run(model, shapes, make, pad_mm="always", dynamic=True):
    """model compiled with dynamic=True (None: dynamo's automatic dynamic, a size symbolic once
    it changed) and the pad_mm option, called at each shape (fresh operands from make(shape)),
    each result against eager; stats of every graph."""
    torch._dynamo.reset()
    stats.reset()
    compiled = torch.compile(model, backend="tuner", dynamic=dynamic, options={"pad_mm": pad_mm})
    with torch.no_grad():
        for shape in shapes:
            args = make(shape)
            assert_close(compiled(*args), model(*args), torch.float32)
    t = stats.totals()
    assert not t.graph_fallback and not stats.symbolic_fallbacks, (t.graph_fallback, stats.symbolic_fallbacks)
    return t


@pytest.mark.parametrize("case", ["linear_bias", "lm_head_tied", "bmm", "unaligned_k"])
def test_symbolic_rows_matmul_pads_its_fixed_dims_and_matches_eager(case):
    # a graph of symbolic sizes pads k and n when only the rows are symbolic: GPT-2's LM head
    # (a tied 50257-wide weight, read transposed) ran unpadded in every such graph before
    g = torch.Generator().manual_seed(2)
    model, make = {
        "linear_bias": (_Weights(F.linear, (50, 24), (50,)), lambda r: (torch.randn(r, 24, generator=g),)),
        "lm_head_tied": (_Weights(lambda x, w: x @ w.t(), (50, 24)),
                         lambda r: (torch.randn(2, r, 24, generator=g),)),
        "bmm": (_Weights(lambda x, w: torch.bmm(x, w.expand(x.shape[0], 24, 50)), (24, 50)),
                lambda r: (torch.randn(r, r + 1, 24, generator=g),)),
        "unaligned_k": (_Weights(lambda x, w: x @ w, (21, 50)), lambda r: (torch.randn(r, 21, generator=g),)),
    }[case]
    t = _dynamic_run(model, (5, 9, 14), make)
    assert t.pad_mm == {"pad": 1}, t.pad_mm


def test_symbolic_rows_matmul_is_left_alone_where_padding_would_touch_its_rows():
    # mat1 column-major (its leading dim is the symbolic rows) or a 2-D bias over the rows:
    # the plain ATen call, as before
    g = torch.Generator().manual_seed(3)
    t = _dynamic_run(_Weights(lambda x, w: x.t() @ w, (24, 50)), (5, 9, 14),
                     lambda r: (torch.randn(24, r, generator=g),))
    assert t.pad_mm == {}, t.pad_mm
    t = _dynamic_run(_Weights(lambda c, x, w: torch.addmm(c, x, w), (24, 50)), (5, 9, 14),
                     lambda r: (torch.randn(r, 50, generator=g), torch.randn(r, 24, generator=g)))
    assert t.pad_mm == {}, t.pad_mm


def _asked_pad_mm(monkeypatch) -> list:
    """The pad_mm problems the lowering asks about from now on (each answered "orig")."""
    import tuner.compiler.lowerings.matmul as mm
    asked = []

    def decide(ctx, device):
        asked.append(ctx)
        return "orig"
    monkeypatch.setattr(mm, "decide_pad_mm", decide)
    return asked

def test_symbolic_rows_pad_decision_is_posed_at_many_rows(monkeypatch):
    # one answer serves every size a dynamic graph meets: it is asked for at least
    # SYMBOLIC_PAD_ROWS rows (here the first symbolic call has 9), k and n as they are
    asked = _asked_pad_mm(monkeypatch)
    g = torch.Generator().manual_seed(4)
    t = _dynamic_run(_Weights(F.linear, (50, 24)), (9, 14), lambda r: (torch.randn(r, 24, generator=g),),
                     pad_mm="auto")
    from tuner.compiler.lowerings.matmul import SYMBOLIC_PAD_ROWS
    assert [(c.m, c.k, c.n) for c in asked] == [(SYMBOLIC_PAD_ROWS, 24, 50)]
    assert t.pad_mm == {"orig": 1}, t.pad_mm


def test_symbolic_rows_bias_row_is_never_compared_so_no_guard():
    # a (1, n) bias over symbolic rows: padded along n only, and no decision on the rows (a
    # guard there would tie the variant to some sizes)
    g = torch.Generator().manual_seed(5)
    t = _dynamic_run(_Weights(lambda x, b, w: torch.addmm(b, x[1:], w), (1, 50), (24, 50)), (5, 9, 14),
                     lambda r: (torch.randn(r, 24, generator=g),))
    assert t.pad_mm == {"pad": 1}, t.pad_mm
    assert [s.guards for s in stats.graphs()] == [0], [s.guards for s in stats.graphs()]


def test_fixed_rows_in_a_symbolic_graph_are_posed_as_they_are(monkeypatch):
    # a bmm whose batch alone is symbolic (automatic dynamic: the batch changed, the rows did
    # not): its 77 rows are the problem's, rounded up to fp32's alignment, not SYMBOLIC_PAD_ROWS
    asked = _asked_pad_mm(monkeypatch)
    g = torch.Generator().manual_seed(6)
    _dynamic_run(_Weights(lambda q, w: torch.bmm(q, w.expand(q.shape[0], 64, 77)), (64, 77)), (5, 7),
                 lambda b: (torch.randn(b, 77, 64, generator=g),), pad_mm="auto", dynamic=None)
    assert [(c.m, c.k, c.n) for c in asked] == [(77, 64, 77), (80, 64, 77)]   # (static, symbolic)
