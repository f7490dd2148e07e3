"""Freezing (compiler/freeze.py, issue 49): with TUNER_FREEZE / options={"freeze": True}, an
inference graph's eval-mode batch norms fold into the convolutions before them and the result
matches eager; without freeze, with a training-mode batch norm, a convolution output read
twice or a graph that wants gradients, nothing folds; the setting is part of the graph cache
key."""
import copy

import pytest
import torch
import torch.nn.functional as F
from torch.fx.experimental.proxy_tensor import make_fx

import tuner.compiler.stats as stats
from helpers import assert_close
from tuner.compiler import graph_cache
from tuner.compiler.context import CompileContext


class ConvBnNet(torch.nn.Module):
    """conv-bn-relu twice: a convolution without bias, then a grouped one with bias."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.bn2 = torch.nn.BatchNorm2d(8, eps=1e-3)

    def forward(self, x):
        return torch.relu(self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x))))))


class SecondUserNet(ConvBnNet):
    """conv1's output is read by its batch norm and by the residual add."""

    def forward(self, x):
        y = self.conv1(x)
        return torch.relu(self.bn1(y)) + y


def _net(cls=ConvBnNet):
    """The net in eval mode with random running stats and affine parameters."""
    torch.manual_seed(0)
    model = cls()
    with torch.no_grad():
        for bn in (model.bn1, model.bn2):
            bn.running_mean.normal_()
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.normal_()
            bn.bias.normal_()
    return model.eval()


def _run(model, options=None, grad=False):
    """(compiled output, eager output) of model on one input, under no_grad unless `grad`."""
    x = torch.randn(2, 3, 8, 8)
    ref_model = copy.deepcopy(model)
    compiled = torch.compile(model, backend="tuner", options=options)
    with torch.set_grad_enabled(grad):
        return compiled(x), ref_model(x)


def _ops(graphs) -> set:
    """The ATen ops of the graphs that reached the compiler (batch norm arrives decomposed:
    sub, mul, sqrt, reciprocal, add)."""
    return {str(n.target) for g in graphs for n in g.graph.nodes if n.op == "call_function"}


def test_conv_bn_folds_and_matches_eager(aten_graphs):
    out, ref = _run(_net(), {"freeze": True})
    assert_close(out, ref)
    assert stats.bn_folded == 2
    assert stats.last().graph_fallback == ""
    assert _ops(aten_graphs) == {"aten.convolution.default", "aten.relu.default"}


def test_setting_turns_freeze_on(aten_graphs, monkeypatch):
    monkeypatch.setenv("TUNER_FREEZE", "1")
    out, ref = _run(_net())
    assert_close(out, ref)
    assert stats.bn_folded == 2 and stats.last().graph_fallback == ""


def test_option_wins_over_the_setting(aten_graphs, monkeypatch):
    monkeypatch.setenv("TUNER_FREEZE", "1")
    out, ref = _run(_net(), {"freeze": False})
    assert_close(out, ref)
    assert stats.bn_folded == 0


def test_nothing_folds_with_freeze_off(aten_graphs):
    out, ref = _run(_net())
    assert_close(out, ref)
    assert stats.bn_folded == 0
    assert "aten.sqrt.default" in _ops(aten_graphs)


def test_training_mode_batch_norm_is_not_folded(aten_graphs):
    model = _net().train()
    ref_model = copy.deepcopy(model)
    x = torch.randn(2, 3, 8, 8)
    with torch.no_grad():
        out = torch.compile(model, backend="tuner", options={"freeze": True})(x)
        ref = ref_model(x)
    assert_close(out, ref)
    assert stats.bn_folded == 0
    assert_close(model.bn1.running_mean, ref_model.bn1.running_mean)


def test_conv_output_with_a_second_user_is_not_folded(aten_graphs):
    out, ref = _run(_net(SecondUserNet), {"freeze": True})
    assert_close(out, ref)
    assert stats.bn_folded == 0


def test_graph_that_wants_gradients_is_not_folded(aten_graphs):
    out, ref = _run(_net(), {"freeze": True}, grad=True)
    assert_close(out, ref)
    assert stats.bn_folded == 0


def test_a_step_that_turns_grad_on_inside_is_not_folded(aten_graphs):
    # called under no_grad, but the graph itself enables grad (a fine-tuning step with frozen,
    # eval-mode batch norms): folding would make the weights constants, their gradients None
    model = _net()
    ref_model = copy.deepcopy(model)
    x = torch.randn(2, 3, 8, 8)

    def step(m, x):
        with torch.enable_grad():
            m.zero_grad(set_to_none=True)
            m(x).square().sum().backward()
        return [p.grad for p in m.parameters()]

    with torch.no_grad():
        grads = torch.compile(step, backend="tuner", options={"freeze": True})(model, x)
    assert all(g is not None for g in grads)
    assert_close(grads, step(ref_model, x))
    assert stats.bn_folded == 0


def test_is_inference_reads_grad_mode_set_in_the_graph_and_attribute_parameters():
    from tuner.compiler.freeze import is_inference

    class Scale(torch.nn.Module):   # its weight a get_attr node of the traced graph
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(3))

        def forward(self, x):
            return x * self.w
    gm, x = torch.fx.symbolic_trace(Scale()), torch.randn(3)
    assert not is_inference([x], gm) and is_inference([x])   # the parameter wants a gradient
    with torch.no_grad():
        assert is_inference([x], gm)

    def step(x):
        with torch.enable_grad():
            return x * 2
    g2 = torch.fx.symbolic_trace(step)
    with g2.graph.inserting_after(next(iter(g2.graph.nodes))):   # (as dynamo records it)
        g2.graph.call_function(torch._C._set_grad_enabled, (True,))
    xg = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        assert not is_inference([xg], g2) and is_inference([xg])


def test_batch_norm_called_on_caller_tensors_is_not_folded(aten_graphs):
    """Running stats the caller passes are inputs, not module state: they may change."""
    def fn(x, w, mean, var):
        return F.batch_norm(F.conv2d(x, w), mean, var, training=False)
    args = (torch.randn(2, 3, 8, 8), torch.randn(4, 3, 3, 3), torch.randn(4), torch.rand(4) + 0.5)
    with torch.no_grad():
        out = torch.compile(fn, backend="tuner", options={"freeze": True})(*args)
    assert_close(out, fn(*args))
    assert stats.bn_folded == 0


def test_folded_weights_take_the_channels_last_layout(aten_graphs):
    out, ref = _run(_net(), {"freeze": True, "layout": "channels_last"})
    assert_close(out, ref)
    assert stats.bn_folded == 2 and stats.layouts["channels_last"] == 1
    assert stats.last().graph_fallback == ""


def test_fold_is_logged_under_decisions(aten_graphs, monkeypatch, capsys):
    monkeypatch.setenv("TUNER_LOGS", "decisions")
    _run(_net(), {"freeze": True})
    err = capsys.readouterr().err
    assert err.count("tuner: freeze: batch norm") == 2


def test_bad_freeze_option_is_rejected():
    with pytest.raises(Exception, match="option 'freeze'='yes': expected True or False"):
        torch.compile(_net(), backend="tuner", options={"freeze": "yes"})(torch.randn(1, 3, 8, 8))


def test_graph_cache_key_covers_freeze(monkeypatch):
    monkeypatch.setenv("TUNER_GRAPH_CACHE", "1")   # (tests/conftest.py turns it off)
    args = [torch.randn(4, 8)]
    gm = make_fx(torch.relu)(*args)
    ctx = CompileContext("default", {})
    base = graph_cache.key(gm, args, ctx)
    assert base is not None
    monkeypatch.setenv("TUNER_FREEZE", "1")
    frozen = graph_cache.key(gm, args, ctx)
    monkeypatch.delenv("TUNER_FREEZE")
    option = graph_cache.key(gm, args, CompileContext("default", {"freeze": True}))
    assert len({base.digest(), frozen.digest(), option.digest()}) == 3


def test_compiled_graph_keeps_the_values_it_saw(aten_graphs):
    """The promise freeze asks for: a later change of a buffer is not seen by the graph."""
    model = _net()
    x = torch.randn(2, 3, 8, 8)
    compiled = torch.compile(model, backend="tuner", options={"freeze": True})
    with torch.no_grad():
        before = compiled(x)
        model.bn1.running_mean.add_(1.0)
        assert_close(compiled(x), before)
    assert stats.bn_folded == 2


def test_bfloat16_weights_fold_in_float32_and_cast_back(aten_graphs):
    model = _net().to(torch.bfloat16)
    x = torch.randn(2, 3, 8, 8, dtype=torch.bfloat16)
    ref_model = copy.deepcopy(model)
    with torch.no_grad():
        out = torch.compile(model, backend="tuner", options={"freeze": True})(x)
        ref = ref_model(x)
    assert_close(out, ref, dtype=torch.bfloat16)
    assert stats.bn_folded == 2 and stats.last().graph_fallback == ""
