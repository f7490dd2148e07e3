"""Batch norm's newer ATen entry point (`_batch_norm_with_update`, which F.batch_norm reaches in
torch >= 2.5 when called through torch.ops) and `unbind_copy` decompose into ops that lower:
generated kernels, values, gradients and running statistics equal eager's (CPU, interpreter)."""
import torch

import tuner.compiler.stats as stats
from helpers import assert_close


def test_batch_norm_with_update_trains_as_eager_without_aten():
    def run(compiled):
        g = torch.Generator().manual_seed(0)
        y = torch.randn(2, 8, 5, 5, generator=g).requires_grad_()
        w, b = torch.randn(8, generator=g).requires_grad_(), torch.randn(8, generator=g).requires_grad_()
        rm, rv = torch.zeros(8), torch.ones(8)
        fn = lambda y, w, b: torch.ops.aten._batch_norm_with_update(y, w, b, rm, rv, 0.1, 1e-5)[0].sin()  # noqa: E731
        if compiled:
            torch._dynamo.reset()
            fn = torch.compile(fn, backend="tuner")
        out = fn(y, w, b)
        out.square().sum().backward()
        return out, y.grad, w.grad, b.grad, rm, rv
    stats.reset()
    got = run(True)
    assert_close(list(got), list(run(False)))
    t = stats.totals()
    assert not dict(t.fallbacks) and not t.lowering_errors and t.kernels >= 2, (dict(t.fallbacks), t.lowering_errors)


def test_unbind_copy_is_generated():
    x = torch.randn(3, 4, 5)
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(lambda x: [t * 2 for t in torch.unbind_copy(x, 1)], backend="tuner")(x)
    assert_close(out, [t * 2 for t in torch.unbind_copy(x, 1)])
    assert not dict(stats.totals().fallbacks)
