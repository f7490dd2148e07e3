"""Memory-aware order (compiler/reorder.py): a residual block's shortcut convolution, read last
in the graph as timm's ResNet/RegNet blocks compute it, runs before the main path's first
convolution, so the block's input dies there; orders that would not lower the peak are kept."""
import re

import pytest
import torch
import torch.nn as nn

import tuner.compiler.stats as stats
from helpers import assert_close


class Block(nn.Module):
    """A stem, then a bottleneck with a grouped stride-2 convolution and a strided shortcut
    computed after the main path (timm's order). `wide`: the shortcut writes more than it reads."""

    def __init__(self, c=8, o=8, wide=False):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        self.c1 = nn.Conv2d(c, o, 1)
        self.c2 = nn.Conv2d(o, 2 * o, 3, stride=2, padding=1, groups=2)
        self.c3 = nn.Conv2d(2 * o, 4 * o if wide else o, 1)
        self.ds = nn.Conv2d(c, 4 * o if wide else o, 1, stride=1 if wide else 2)
        self.wide = wide

    def forward(self, x):
        x = torch.relu(self.stem(x))
        shortcut = x
        x = torch.relu(self.c1(x))
        x = torch.relu(self.c2(x))
        x = self.c3(x)
        s = self.ds(shortcut)
        if self.wide:
            x = nn.functional.interpolate(x, scale_factor=2.0)
        return torch.relu(x + s)


def _run(m, x, reorder, grad=False):
    torch._dynamo.reset()
    f = torch.compile(m, backend="tuner", options={"memory_reorder": reorder})
    if grad:
        first = stats.last().graph if stats.graphs() else 0
        out = f(x)
        out.sum().backward()
        mine = [s for s in stats.graphs() if s.graph > first]
        assert len(mine) == 2 and not any(s.graph_fallback for s in mine), [s.graph_fallback for s in mine]
        return out, [p.grad.clone() for p in m.parameters()]
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
    # the order changed: the shortcut's convolution (the fifth in the module) is now the second
    order_off, order_on = _conv_order(off.source), _conv_order(on.source)
    assert len(order_on) == len(order_off) == 5, on.source
    assert order_on == [order_off[0], order_off[4], *order_off[1:4]], (order_off, order_on)


def test_a_shortcut_writing_more_than_it_frees_stays_where_it_is():
    torch.manual_seed(0)
    m, x = Block(wide=True).eval(), torch.randn(2, 3, 16, 16)
    with torch.no_grad():
        ref = m(x)
    out_off, off = _run(m, x, False)
    out_on, on = _run(m, x, True)
    assert_close(out_on, ref)
    assert _conv_order(on.source) == _conv_order(off.source)
    assert on.planned_peak_bytes == off.planned_peak_bytes


def test_training_step_gradients_match_eager_with_the_order_changed():
    torch.manual_seed(0)
    m, x = Block().train(), torch.randn(2, 3, 16, 16)
    out = m(x)
    out.sum().backward()
    ref = [p.grad.clone() for p in m.parameters()]
    m.zero_grad()
    got_out, got = _run(m, x, True, grad=True)
    assert_close(got_out, out)
    for g, r in zip(got, ref):
        assert_close(g, r)


def test_the_option_is_checked():
    with pytest.raises(Exception, match="option 'memory_reorder'='yes': expected True or False"):
        torch.compile(nn.Linear(2, 2), backend="tuner", options={"memory_reorder": "yes"})(torch.randn(1, 2))
