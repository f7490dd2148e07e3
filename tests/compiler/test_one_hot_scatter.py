"""A scatter that writes one element per row (nll_loss's backward, a one-hot) is a pointwise:
no copy of its input stored first, recomputed in each consumer. Cross-entropy's backward then
holds no float32 buffer of the logits' size (GPT-2's 8 x 512 x 50257: 823 MB)."""
import pytest
import torch

import tuner.compiler.stats as stats
from helpers import assert_close, check_generated

SHAPE = (96, 1000)


@pytest.mark.parametrize("case", ["value", "src", "dim0"])
def test_one_per_row_scatter_matches_eager(case):
    x, t = torch.randn(SHAPE), torch.randint(0, SHAPE[1], (SHAPE[0],))
    if case == "value":
        check_generated(lambda x, t: torch.zeros_like(x).scatter_(1, t[:, None], -1.0) * x.exp(), x, t)
    elif case == "src":
        check_generated(lambda x, t, s: x.scatter(1, t[:, None], s) + 1, x, t, torch.randn(SHAPE[0], 1))
    else:
        r = torch.randint(0, SHAPE[0], (1, SHAPE[1]))
        check_generated(lambda x, r: x.scatter(0, r, 2.5) * 2, x, r)


def test_cross_entropy_backward_stores_no_logits_sized_float_buffer():
    logits = torch.randn(SHAPE, requires_grad=True)
    target = torch.randint(0, SHAPE[1], (SHAPE[0],))
    ref = logits.detach().clone().requires_grad_()
    torch._dynamo.reset()
    stats.reset()
    loss = torch.compile(torch.nn.functional.cross_entropy, backend="tuner")(logits, target)
    loss.backward()
    torch.nn.functional.cross_entropy(ref, target).backward()
    assert_close(logits.grad, ref.grad)
    graphs = stats.graphs()
    assert len(graphs) == 2 and not any(g.graph_fallback for g in graphs)
    backward = graphs[-1].source.split("def call", 1)[1]
    allocs = [line for line in backward.splitlines() if "empty_strided" in line and str(SHAPE) in line]
    assert len(allocs) == 1, allocs   # the gradient itself, nothing before it


def test_a_zero_dim_scatter_is_one_element_of_one():
    # median's gradient of a 0-d input under dynamic=True scattered into a 0-d tensor
    # (an IndexError sent it to ATen)
    x = torch.tensor(2.0)
    check_generated(lambda a, i, s: a.scatter(0, i, s) * 2, x, torch.tensor(0), torch.tensor(5.0),
                    generated=("aten.scatter.src",), min_kernels=1)
    check_generated(lambda a, i: a.scatter(-1, i, 7.0) * 2, x, torch.tensor([0]),
                    generated=("aten.scatter.value",), min_kernels=1)
