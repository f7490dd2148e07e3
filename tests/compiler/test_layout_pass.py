"""The channels-last layout pass before AOTAutograd (compiler/channels_last.py) and the layout
point (tuner/points/layout.py): a conv net forced to channels-last matches eager forward and
backward, its convolutions get channels-last operands, its outputs eager's strides; graphs
without convolutions, channels-last inputs and the CPU default are left alone; max-autotune's
measurement of the graph both ways (on CPU tensors when a test allows it, never through the
backend on CPU), stored and read back without measuring (the point itself:
tests/points/test_layout_point.py)."""
import copy

import pytest
import torch
import torch.nn.functional as F

import tuner.compiler.channels_last as channels_last
import tuner.compiler.stats as stats
from helpers import assert_close, spy

CL = torch.channels_last
CONV = torch.ops.aten.convolution.default



@pytest.fixture
def results(monkeypatch):
    """What the pass did to each graph (LayoutResult), in order."""
    seen = []
    spy(monkeypatch, channels_last, "note_layout", seen.append)
    return seen


class SmallNet(torch.nn.Module):
    """conv-bn-relu-conv with a residual, pooling and a linear head; returns the logits and the
    pooled feature map."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.head = torch.nn.Linear(8, 5)

    def forward(self, x):
        y = self.conv1(x)
        h = self.conv2(torch.relu(self.bn(y))) + y
        h = F.max_pool2d(h, 2)
        return self.head(h.mean((2, 3))), h


def _net():
    torch.manual_seed(0)
    return SmallNet()


def _compiled(model, layout="channels_last"):
    return torch.compile(model, backend="tuner", options={"layout": layout})


def _conv_operands(graphs):
    """(input, weight) meta values of every forward convolution in `graphs`."""
    return [(n.args[0].meta["val"], n.args[1].meta["val"])
            for g in graphs for n in g.graph.nodes if n.op == "call_function" and n.target is CONV]


def _same_strides(out, ref):
    assert out.shape == ref.shape
    for n, a, b in zip(out.shape, out.stride(), ref.stride()):
        if n > 1:
            assert a == b, (out.stride(), ref.stride())


def test_forward_matches_eager_with_channels_last_convs(aten_graphs):
    model, x = _net().eval(), torch.randn(2, 3, 8, 8)
    ref = copy.deepcopy(model)(x)
    out = _compiled(model)(x)
    assert_close(out, ref)
    for o, r in zip(out, ref):   # the logits and the 4-D feature map: eager's strides
        _same_strides(o, r)
    assert out[1].is_contiguous()
    convs = _conv_operands(aten_graphs)
    assert len(convs) == 2
    assert all(i.is_contiguous(memory_format=CL) and w.is_contiguous(memory_format=CL)
               for i, w in convs)
    assert stats.layouts == {"channels_last": 1}


def test_training_step_gradients_match_eager(aten_graphs):
    model, x = _net(), torch.randn(2, 3, 8, 8)
    ref_model = copy.deepcopy(model)
    cm = _compiled(model)
    logits, feat = cm(x)
    (logits.square().sum() + feat.sum()).backward()
    ref_logits, ref_feat = ref_model(x)
    (ref_logits.square().sum() + ref_feat.sum()).backward()
    assert_close((logits, feat), (ref_logits, ref_feat))
    _same_strides(feat, ref_feat)
    for (name, p), (_, q) in zip(model.named_parameters(), ref_model.named_parameters()):
        assert_close(p.grad, q.grad)
        assert p.grad.stride() == q.grad.stride(), name   # parameters keep their layout
    for name, b in model.named_buffers():   # batch norm's running statistics too
        assert_close(b, dict(ref_model.named_buffers())[name])
    # forward and backward graphs both see channels-last convolutions
    assert len(aten_graphs) == 2
    convs = _conv_operands(aten_graphs[:1])
    assert convs and all(i.is_contiguous(memory_format=CL) for i, _ in convs)
    backward = [n for n in aten_graphs[1].graph.nodes if "convolution_backward" in str(n.target)]
    assert backward and all(n.args[0].meta["val"].is_contiguous(memory_format=CL) for n in backward)


def test_a_training_step_compiled_whole_under_no_grad_keeps_every_gradient(aten_graphs):
    # a benchmark's or a loop's step: `with torch.enable_grad()` inside the compiled function,
    # called under no_grad; dynamo records the grad mode as a node in the graph, and weights
    # converted before it (at the entry) lost their gradients (None)
    model, x = _net(), torch.randn(2, 3, 8, 8)
    ref_model = copy.deepcopy(model)

    def step(m, x):
        with torch.enable_grad():
            m.zero_grad(set_to_none=True)
            logits, feat = m(x)
            (logits.square().sum() + feat.sum()).backward()
        return [p.grad for p in m.parameters()]

    with torch.no_grad():
        grads = torch.compile(step, backend="tuner", options={"layout": "channels_last"})(model, x)
    ref = step(ref_model, x)
    assert all(g is not None for g in grads), [g is None for g in grads]
    assert_close(grads, ref)
    assert stats.layouts == {"channels_last": 1}


@pytest.mark.parametrize("caller_grad", [True, False], ids=["grad", "no_grad-caller"])
def test_a_weight_read_under_no_grad_and_under_grad_keeps_its_gradient(aten_graphs, caller_grad):
    # a teacher's read of the weight under no_grad before the student's: each grad mode gets
    # its own copy (one copy made under no_grad served both, and the gradient was lost)
    def step(x, w):
        with torch.no_grad():
            a = F.conv2d(x, w, padding=1)
        with torch.enable_grad():
            b = F.conv2d(torch.relu(x), w, padding=1)
            (b * a).sum().backward()
        return w.grad

    x = torch.randn(2, 8, 8, 8)
    w = torch.randn(8, 8, 3, 3, requires_grad=True)
    w2 = w.detach().clone().requires_grad_()
    ref = step(x, w)
    with torch.set_grad_enabled(caller_grad):
        got = torch.compile(step, backend="tuner", options={"layout": "channels_last"})(x, w2)
    assert got is not None
    assert_close(got, ref)
    assert stats.layouts.get("channels_last", 0) >= 1


def test_input_gradient_matches_eager(aten_graphs):
    model = _net().eval()
    x = torch.randn(2, 3, 8, 8, requires_grad=True)
    x2 = x.detach().clone().requires_grad_()
    out = _compiled(model)(x)
    ref = copy.deepcopy(model)(x2)
    out[1].sum().backward()
    ref[1].sum().backward()
    assert_close(x.grad, x2.grad)
    _same_strides(x.grad, x2.grad)


def test_graph_without_convolutions_is_left_alone(aten_graphs, results):
    def f(x):
        return torch.relu(x) * 2 + 1
    x = torch.randn(2, 3, 8, 8)
    out = torch.compile(f, backend="tuner", options={"layout": "channels_last"})(x)
    assert_close(out, f(x))
    assert out.is_contiguous()
    assert not stats.layouts and results == [None]


def test_channels_last_input_is_not_converted_again(aten_graphs, results):
    model, x = _net().eval(), torch.randn(2, 3, 8, 8).contiguous(memory_format=CL)
    ref = copy.deepcopy(model)(x)
    out = _compiled(model)(x)
    assert_close(out, ref)
    _same_strides(out[1], ref[1])
    assert out[1].is_contiguous(memory_format=CL)
    (result,) = results
    assert result.choice == "channels_last" and result.inputs == [] and len(result.weights) == 2
    # the first convolution reads the graph's input itself, no copy of it
    (fwd,) = aten_graphs
    first = next(n for n in fwd.graph.nodes if n.target is CONV)
    assert first.args[0].op == "placeholder"


def test_cpu_default_keeps_the_layout(aten_graphs, results):
    model, x = _net().eval(), torch.randn(2, 3, 8, 8)
    out = torch.compile(model, backend="tuner")(x)
    assert_close(out, copy.deepcopy(model)(x))
    assert stats.layouts == {"keep": 1}
    assert results[0].source == "rule"
    assert all(i.is_contiguous() and not i.is_contiguous(memory_format=CL)
               for i, _ in _conv_operands(aten_graphs))


def test_setting_forces_the_layout(aten_graphs, monkeypatch):
    monkeypatch.setenv("TUNER_LAYOUT", "channels_last")
    model, x = _net().eval(), torch.randn(2, 3, 8, 8)
    assert_close(torch.compile(model, backend="tuner")(x), copy.deepcopy(model)(x))
    assert stats.layouts == {"channels_last": 1}
    # the option wins over the setting
    torch._dynamo.reset()
    torch.compile(_net().eval(), backend="tuner", options={"layout": "keep"})(x)
    assert stats.layouts == {"channels_last": 1, "keep": 1}


def test_decision_is_logged_under_decisions(aten_graphs, monkeypatch, capsys):
    monkeypatch.setenv("TUNER_LOGS", "decisions")
    _compiled(_net().eval())(torch.randn(2, 3, 8, 8))
    err = capsys.readouterr().err
    assert "layout of a graph of 2 convolution(s): channels_last (forced)" in err
    assert "converted 1 input(s) and 2 weight(s)" in err


def test_output_aliasing_a_converted_input_declines(aten_graphs, results):
    conv = torch.nn.Conv2d(3, 4, 3)

    def f(x):
        return conv(x), x[:, :2]
    x = torch.randn(2, 3, 8, 8)
    out = torch.compile(f, backend="tuner", options={"layout": "channels_last"})(x)
    ref = f(x)
    assert_close(out, ref)
    _same_strides(out[1], ref[1])
    assert stats.layouts == {"declined": 1} and "shares memory" in results[0].reason


def test_input_written_in_place_is_not_converted(aten_graphs, results):
    conv = torch.nn.Conv2d(3, 4, 3)

    def f(x):
        x.mul_(2)
        return conv(x)
    x, x2 = torch.randn(2, 3, 8, 8), None
    x2 = x.clone()
    with torch.no_grad():
        out = torch.compile(f, backend="tuner", options={"layout": "channels_last"})(x)
        ref = f(x2)
    assert_close(out, ref)
    assert_close(x, x2)   # the caller sees the write
    assert results[0].inputs == [] and results[0].weights


def test_unknown_layout_is_rejected_with_the_valid_names():
    with pytest.raises(Exception, match="expected one of auto, channels_last, keep"):
        torch._dynamo.reset()
        _compiled(_net(), layout="nhwc")(torch.randn(1, 3, 8, 8))


def test_unknown_layout_setting_is_rejected(monkeypatch):
    from tuner.settings import settings
    monkeypatch.setenv("TUNER_LAYOUT", "nhwc")
    with pytest.raises(ValueError, match="TUNER_LAYOUT"):
        settings.layout


def test_graph_that_fails_once_converted_is_restored(aten_graphs, results):
    conv = torch.nn.Conv2d(3, 4, 3)

    def f(x):
        y = conv(x)
        return y.view(y.shape[0], -1)   # a view channels-last strides do not allow
    x = torch.randn(2, 3, 8, 8)
    out = torch.compile(f, backend="tuner", options={"layout": "channels_last"})(x)
    assert_close(out, f(x))
    assert stats.layouts == {"declined": 1} and results[0].reason
    assert all(i.is_contiguous() and w.is_contiguous() for i, w in _conv_operands(aten_graphs))


def test_view_before_a_head_becomes_a_reshape(aten_graphs, results):
    torch.manual_seed(0)
    conv, head = torch.nn.Conv2d(3, 4, 3), torch.nn.Linear(144, 2)

    def f(x):
        y = torch.relu(conv(x))
        return head(y.view(y.shape[0], -1))
    x = torch.randn(2, 3, 8, 8)
    out = torch.compile(f, backend="tuner", options={"layout": "channels_last"})(x)
    assert_close(out, f(x))
    assert stats.layouts == {"channels_last": 1} and results[0].reshaped == 1


# -- max-autotune: the layout measured on the whole graph (issue 49) --------------------------

def _dynamo_graph(model, x):
    """The FX graph and example inputs dynamo hands a backend for model(x)."""
    seen = []

    def capture(gm, example_inputs):
        seen.append((gm, list(example_inputs)))
        return gm.forward
    torch._dynamo.reset()
    torch.compile(model, backend=capture)(x)
    torch._dynamo.reset()
    (graph,) = seen
    return graph


def test_measured_layout_on_cpu_is_stored_and_read_back(monkeypatch):
    from tuner.bench import benchmark
    from tuner.engine import plan
    from tuner.points.layout import CANDIDATES, NAMESPACE
    timed = []
    monkeypatch.setattr(channels_last, "layout_timer", _counting(channels_last.layout_timer, timed))
    monkeypatch.setattr("tuner.bench.benchmark", _counting(benchmark, timed))
    model, x = _net(), torch.randn(2, 3, 8, 8)
    gm, inputs = _dynamo_graph(model, x)   # (its run updates the running statistics)
    running_mean, signature = model.bn.running_mean.clone(), _signature_of(gm, inputs)
    result = channels_last.convert_graph(gm, inputs, measure_on=("cpu",))
    assert result.source == "measured" and result.choice in CANDIDATES
    assert len(timed) == 3   # the timer made once, each choice benchmarked once
    assert torch.equal(model.bn.running_mean, running_mean)   # timed on fresh inputs
    stored = plan(NAMESPACE, signature, list(CANDIDATES)).decision
    assert stored is not None and stored.choice == result.choice
    # the same graph again (any mode): the stored answer, no timer, no measurement
    timed.clear()
    gm, inputs = _dynamo_graph(model, x)
    again = channels_last.convert_graph(gm, inputs, measure_on=("cpu",))
    assert (again.choice, again.source) == (result.choice, "cache") and timed == []
    gm, inputs = _dynamo_graph(model, x)
    assert channels_last.convert_graph(gm, inputs).source == "cache"
    # forced values still win, measuring nothing
    gm, inputs = _dynamo_graph(model, x)
    forced = "keep" if result.choice == "channels_last" else "channels_last"
    answer = channels_last.convert_graph(gm, inputs, forced, measure_on=("cpu",))
    assert answer.source == "forced" and timed == []


def test_measured_graph_matches_eager_either_way():
    # each choice's graph computes what the model does (the converted copy is what the pass
    # would compile); the measurement leaves the graph it was given unchanged
    model, x = _net().eval(), torch.randn(2, 3, 8, 8)
    gm, inputs = _dynamo_graph(model, x)
    code, rng = gm.code, torch.get_rng_state()
    measure = channels_last.layout_timer(gm, inputs, *_activations_and_weights(gm, inputs))
    assert measure("keep") > 0 and measure("channels_last") > 0
    assert torch.equal(torch.get_rng_state(), rng)   # the user's random stream is untouched
    assert gm.code == code and set(measure.graphs) == {"keep", "channels_last"}
    assert measure.graphs["keep"] is gm
    with torch.no_grad():
        ref = model(x)
        for run in measure.graphs.values():
            assert_close(run(*inputs), ref)
        assert measure.graphs["channels_last"](*inputs)[1].is_contiguous()   # eager's strides


def test_cpu_max_autotune_answers_by_the_rule_and_never_measures(aten_graphs, results, monkeypatch):
    from tuner.compiler import backend
    timed, asked = [], []
    monkeypatch.setattr(channels_last, "layout_timer", _counting(channels_last.layout_timer, timed))
    spy(monkeypatch, channels_last, "convert_graph", lambda *a, **kw: asked.append(kw))
    torch.manual_seed(0)
    conv1, conv2 = torch.nn.Conv2d(3, 4, 3), torch.nn.Conv2d(4, 4, 1, bias=False)

    def f(x):   # two convolutions: few kernels to tune in the interpreter
        return conv2(conv1(x))
    x = torch.randn(1, 3, 6, 6)
    with torch.no_grad():
        out = torch.compile(f, backend="tuner", mode="max-autotune-no-cudagraphs")(x)
        assert_close(out, f(x))
    # the backend asks for a measurement on CUDA only; the CPU graph gets the rule
    assert asked == [{"measure_on": ("cuda",)}]
    assert (results[0].choice, results[0].source) == ("keep", "rule") and timed == []
    assert stats.layout_sources == {"rule": 1}
    # the default mode asks for no measurement at all
    asked.clear()
    gm, inputs = _dynamo_graph(f, x)
    backend._channels_last(gm, inputs, "auto")
    assert asked == [{"measure_on": ()}] and timed == []


@pytest.mark.gpu
def test_gpu_max_autotune_measures_and_stores_the_layout(monkeypatch, capsys):
    from tuner.engine import plan
    from tuner.points.layout import CANDIDATES, NAMESPACE
    monkeypatch.setenv("TUNER_LOGS", "decisions")
    model = _net().cuda()
    x = torch.randn(8, 3, 32, 32, device="cuda")
    ref_model = copy.deepcopy(model)
    stats.reset()
    torch._dynamo.reset()
    out = torch.compile(model, backend="tuner", mode="max-autotune")(x)
    torch.testing.assert_close(out, ref_model(x), atol=1e-2, rtol=1e-2)   # cuDNN may use TF32
    assert stats.layout_sources == {"measured": 1}
    assert "(measured)" in capsys.readouterr().err
    stored = plan(NAMESPACE, _signature_of(*_dynamo_graph(_net().cuda(), x)),
                  list(CANDIDATES)).decision
    assert stored is not None and stored.source == "cache" and stored.choice in CANDIDATES
    # compiled again in the default mode: the stored answer, nothing measured
    stats.reset()
    torch._dynamo.reset()
    out = torch.compile(copy.deepcopy(ref_model), backend="tuner")(x)
    torch.testing.assert_close(out, ref_model(x), atol=1e-2, rtol=1e-2)   # cuDNN may use TF32
    assert stats.layout_sources == {"cache": 1}


def _counting(fn, calls):
    def wrapper(*args, **kwargs):
        calls.append(fn.__name__)
        return fn(*args, **kwargs)
    return wrapper


def _activations_and_weights(gm, inputs):
    convs = [a for n in gm.graph.nodes if (a := channels_last._conv_args(n)) is not None]
    return (channels_last._conv_inputs(gm, [a["input"] for a in convs]),
            [a["weight"] for a in convs if a["weight"].op in ("placeholder", "get_attr")])


def _signature_of(gm, inputs):
    """The layout problem's signature of a dynamo graph, as the pass describes it."""
    return channels_last.layout_problem(gm, inputs).signature()
