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
    x2, x3 = torch.randn(65, 19, generator=g), torch.randn(3, 23, 19, generator=g)
    w, r2, r3 = torch.randn(37, 19, generator=g), torch.randn(65, 37, generator=g), torch.randn(3, 23, 37, generator=g)
    fn, args = {
        "2d": (lambda x, w, r: x @ w.t() + r, (x2, w, r2)),
        "2d_residual_first": (lambda x, w, r: r + x @ w.t(), (x2, w, r2)),
        "3d_linear": (lambda x, w, r: F.linear(x, w) + r, (x3, w, r3)),
    }[case]
    s = _run(fn, *[a.to(dtype) for a in args], dtype=dtype)
    assert s.residual_folds == 1 and dict(s.externs) == {"aten.addmm.default": 1} and s.kernels == 0


def test_the_sum_feeds_its_consumers():
    # the folded add's value is the addmm's: the ReLU after it reads it (one kernel)
    x, w, r = torch.randn(64, 24), torch.randn(24, 8), torch.randn(64, 8)
    s = _run(lambda x, w, r: torch.relu(x @ w + r) * 2, x, w, r)
    assert s.residual_folds == 1 and s.kernels == 1


def test_a_few_rows_keep_the_add_for_the_next_kernel():
    # a decode step's 8 rows: addmm would copy r and launch twice; the add fuses onward instead
    x, w, r = torch.randn(8, 24), torch.randn(24, 8), torch.randn(8, 8)
    s = _run(lambda x, w, r: torch.relu(x @ w + r) * 2, x, w, r)
    assert s.residual_folds == 0 and dict(s.externs) == {"aten.mm.default": 1} and s.kernels == 1


@pytest.mark.parametrize("case", ["broadcast", "promotes", "alpha", "product_reused", "bias",
                                  "product_broadcasts_rows", "product_broadcasts_cols",
                                  "viewed_product_broadcasts", "film"])
def test_other_adds_are_not_folded(case):
    # the sum must have r's and the product's shape: a product that broadcasts against a
    # larger r (FiLM-style conditioning) would make the addmm read only part of r
    x, w = torch.randn(16, 24), torch.randn(24, 8)
    fn, args = {
        "product_broadcasts_rows": (lambda x, w, r: x @ w + r,
                                    (torch.randn(1, 5), torch.randn(5, 4), torch.randn(6, 4))),
        "product_broadcasts_cols": (lambda x, w, r: x @ w + r,
                                    (torch.randn(6, 5), torch.randn(5, 1), torch.randn(6, 4))),
        "viewed_product_broadcasts": (lambda x, w, r: (x @ w).view(1, 6, 4) + r,
                                      (torch.randn(6, 5), torch.randn(5, 4), torch.randn(3, 6, 4))),
        "film": (lambda h, c, w: h + F.linear(c, w),
                 (torch.randn(2, 3, 4), torch.randn(2, 1, 5), torch.randn(4, 5))),
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


def test_a_column_major_sum_is_not_folded():
    # eager's add takes its first operand's layout (column-major here); the addmm writes
    # row-major, and a consumer of the memory itself (as_strided) would read other elements
    m, k, n = 6, 5, 4
    x, w, r = torch.randn(m, k), torch.randn(k, n), torch.randn(n, m)

    def f(x, w, r):
        return (r.t() + x @ w).as_strided((m * n,), (1,))
    s = _run(f, x, w, r)
    assert s.residual_folds == 0


def test_dynamic_shapes_fold_and_a_broadcasting_product_does_not():
    f = lambda x, w, r: x @ w + r   # noqa: E731
    torch._dynamo.reset()
    cf = torch.compile(f, backend="tuner", dynamic=True)
    stats.reset()
    for m in (66, 69):
        x, w, r = torch.randn(m, 5), torch.randn(5, 4), torch.randn(m, 4)
        assert_close(cf(x, w, r), f(x, w, r))
    # every graph compiled for these sizes (one symbolic graph serves both) folds the add
    compiled = [g for g in stats.graphs() if g.externs]
    assert compiled and stats.totals().residual_folds == len(compiled)
    x, w, r = torch.randn(1, 5), torch.randn(5, 4), torch.randn(6, 4)
    stats.reset()
    assert_close(cf(x, w, r), f(x, w, r))
    assert stats.totals().residual_folds == 0
