"""`mm + r` folded into one ATen call: addmm with the residual r as its C operand (beta = 1),
where r has the sum's shape and dtype; other adds stay a pointwise kernel. Results equal
eager's (CPU: ATen's own addmm)."""
import pytest
import torch
import torch.nn.functional as F

import tuner.compiler.stats as stats
from helpers import assert_close, check_forward_and_backward


def _run(fn, *args, dtype=None):
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(fn, backend="tuner")(*args)
    assert_close(out, fn(*args), dtype)
    return stats.totals()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("case", ["2d", "2d_residual_first", "3d_linear"])
def test_mm_plus_residual_is_one_addmm(case, dtype):
    g = torch.Generator().manual_seed(0)
    x2, x3 = torch.randn(33, 19, generator=g), torch.randn(3, 11, 19, generator=g)
    w, r2, r3 = torch.randn(37, 19, generator=g), torch.randn(33, 37, generator=g), torch.randn(3, 11, 37, generator=g)
    fn, args = {
        "2d": (lambda x, w, r: x @ w.t() + r, (x2, w, r2)),
        "2d_residual_first": (lambda x, w, r: r + x @ w.t(), (x2, w, r2)),
        "3d_linear": (lambda x, w, r: F.linear(x, w) + r, (x3, w, r3)),
    }[case]
    s = _run(fn, *[a.to(dtype) for a in args], dtype=dtype)
    assert s.residual_folds == 1 and dict(s.externs) == {"aten.addmm.default": 1} and s.kernels == 0


def test_the_sum_feeds_its_consumers():
    # the folded add's value is the addmm's: the ReLU after it reads it (one kernel)
    x, w, r = torch.randn(16, 24), torch.randn(24, 8), torch.randn(16, 8)
    s = _run(lambda x, w, r: torch.relu(x @ w + r) * 2, x, w, r)
    assert s.residual_folds == 1 and s.kernels == 1


@pytest.mark.parametrize("case", ["broadcast", "promotes", "alpha", "product_reused", "bias"])
def test_other_adds_are_not_folded(case):
    x, w = torch.randn(16, 24), torch.randn(24, 8)
    fn, args = {
        "broadcast": (lambda x, w, r: x @ w + r, (x, w, torch.randn(8))),
        "promotes": (lambda x, w, r: x.half().float() @ w + r.double(), (x, w, torch.randn(16, 8))),
        "alpha": (lambda x, w, r: torch.add(x @ w, r, alpha=2), (x, w, torch.randn(16, 8))),
        "product_reused": (lambda x, w, r: ((p := x @ w) + r, p * 3), (x, w, torch.randn(16, 8))),
        "bias": (lambda x, w, r: F.linear(x, w.t(), r[0]) + r, (x, w, torch.randn(16, 8))),
    }[case]
    s = _run(fn, *args)
    assert s.residual_folds == 0


def test_training_through_a_folded_residual_matches_eager():
    # the backward's own matmuls (and its gradient sums) take the same path
    lin = torch.nn.Linear(24, 24, bias=False)
    mlp = lambda x: lin(torch.relu(lin(x)) + x) + x   # noqa: E731
    check_forward_and_backward(mlp, torch.randn(2, 5, 24, requires_grad=True))
