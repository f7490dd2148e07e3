"""Memory-aware order (compiler/reorder.py): a residual block's shortcut convolution, read last
in the graph as timm's ResNet/RegNet blocks compute it, runs before the main path's first
convolution, so the block's input dies there; a reader after an in-place write, an assert and
a random draw stay where they are; a training step's gradients stay eager's."""
import re

import pytest
import torch
import torch.nn as nn
from torch.fx.experimental.proxy_tensor import make_fx

import tuner.compiler.stats as stats
from helpers import assert_close
from tuner.compiler.reorder import reorder_for_memory


class Block(nn.Module):
    """A stem, then a bottleneck with a grouped stride-2 convolution and a strided shortcut
    computed after the main path (timm's order)."""

    def __init__(self, c=8, o=8):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        self.c1 = nn.Conv2d(c, o, 1)
        self.c2 = nn.Conv2d(o, 2 * o, 3, stride=2, padding=1, groups=2)
        self.c3 = nn.Conv2d(2 * o, o, 1)
        self.ds = nn.Conv2d(c, o, 1, stride=2)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        shortcut = x
        x = torch.relu(self.c1(x))
        x = torch.relu(self.c2(x))
        x = self.c3(x)
        return torch.relu(x + self.ds(shortcut))


def _run(m, x, reorder, grad=False):
    torch._dynamo.reset()
    f = torch.compile(m, backend="tuner", options={"memory_reorder": reorder})
    if grad:
        first = stats.last().graph if stats.graphs() else 0
        out = f(x)
        out.square().sum().backward()
        mine = [s for s in stats.graphs() if s.graph > first]
        assert len(mine) == 2 and not any(s.graph_fallback for s in mine), [s.graph_fallback for s in mine]
        return out, [p.grad.clone() for p in m.parameters()], sum(s.reordered for s in mine)
    with torch.no_grad():
        out = f(x)
    s = stats.last()
    assert not s.graph_fallback, s.graph_fallback
    return out, s


def _conv_order(source):
    """The weight arguments of the graph's convolutions (its only externs), in the order they run."""
    return re.findall(r"= op\d+_op\(\w+, (\w+),", source)


def test_shortcut_convolution_runs_first_and_the_planned_peak_drops():
    torch.manual_seed(0)
    m, x = Block().eval(), torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        ref = m(x)
    out_off, off = _run(m, x, False)
    out_on, on = _run(m, x, True)
    assert_close(out_off, ref)
    assert_close(out_on, ref)
    assert on.planned_peak_bytes < off.planned_peak_bytes, (on.planned_peak_bytes, off.planned_peak_bytes)
    assert (off.reordered, on.reordered) == (0, 1)
    # the order changed: the shortcut's convolution (the fifth in the module) is now the second
    order_off, order_on = _conv_order(off.source), _conv_order(on.source)
    assert len(order_on) == len(order_off) == 5, on.source
    assert order_on == [order_off[0], order_off[4], *order_off[1:4]], (order_off, order_on)


def test_a_reader_after_an_in_place_write_stays_after_it():
    # L (x.add_(b)) writes x, which R (dist(b, x)) reads: R must not run before L, though moving
    # it would free b early. (A non-functional graph, R reading the input x itself, as a graph
    # not made by AOTAutograd may; AOTAutograd's read the write's result, which pins R anyway.)
    def f(x, y, z):
        b = y * 2
        x.add_(b)
        d = z.cos() * 3
        return torch.dist(b, x), d
    args = [torch.randn(64, 64) for _ in range(3)]
    gm = make_fx(f, tracing_mode="fake")(*args)
    nodes = {n.name: n for n in gm.graph.nodes}
    nodes["dist"].replace_input_with(nodes["add_"], nodes["x_1"])
    gm.recompile()
    ref = gm(*[a.clone() for a in args])
    assert reorder_for_memory(gm) == 0
    got = gm(*[a.clone() for a in args])
    assert_close(got[0], ref[0])


@pytest.mark.parametrize("last", ["multinomial", "assert"])
def test_random_draws_and_side_effects_stay_in_place(last):
    # a late last reader that draws random numbers (multinomial: fewer bytes out than in) or
    # asserts (aten._assert_async) is never moved up; a plain op there would be (see below)
    def f(y, z):
        if last == "multinomial":
            b = y.abs() + 1
            c = b.sum(0)
            e = (z.cos() * 3).sin()
            return c, e, torch.multinomial(b, 1)
        b = (y.abs() + 1).sum().reshape(1)
        c = b + 1
        e = (z.cos() * 3).sin()
        torch.ops.aten._assert_async.msg(b, "b")   # (b's last reader; it writes nothing)
        return c, e
    def plain(y, z):
        b = y.abs() + 1
        c = b.sum(0)
        e = (z.cos() * 3).sin()
        return c, e, b.amax(1)
    args = (torch.randn(64, 64), torch.randn(64, 64))
    assert reorder_for_memory(make_fx(plain, tracing_mode="fake")(*args)) == 1
    gm = make_fx(f, tracing_mode="fake")(*args)
    assert reorder_for_memory(gm) == 0


def test_training_step_gradients_match_eager_with_the_order_changed():
    # a transformer layer's forward and backward: the order changes and the gradients stay eager's
    torch.manual_seed(0)
    m = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
    x = torch.randn(2, 8, 32)
    out = m(x)
    out.square().sum().backward()
    ref = [p.grad.clone() for p in m.parameters()]
    m.zero_grad()
    got_out, got, moved = _run(m, x, True, grad=True)
    assert moved > 0
    assert_close(got_out, out)
    for g, r in zip(got, ref):
        assert_close(g, r)


def test_the_option_is_checked():
    with pytest.raises(Exception, match="option 'memory_reorder'='yes': expected True or False"):
        torch.compile(nn.Linear(2, 2), backend="tuner", options={"memory_reorder": "yes"})(torch.randn(1, 2))
