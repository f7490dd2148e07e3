"""Shared helpers: compile with backend="tuner", compare with eager, read stats."""
import torch

import tuner.compiler.stats as stats

TOL = {torch.float32: (1e-4, 1e-5), torch.float16: (1e-2, 1e-2), torch.bfloat16: (5e-2, 5e-2),
       torch.float64: (1e-7, 1e-7)}


def assert_close(out, ref, dtype=None):
    if isinstance(ref, (list, tuple)):
        assert len(out) == len(ref)
        for o, r in zip(out, ref):
            assert_close(o, r, dtype)
        return
    if not isinstance(ref, torch.Tensor):
        assert out == ref
        return
    assert out.shape == ref.shape, (out.shape, ref.shape)
    assert out.dtype == ref.dtype, (out.dtype, ref.dtype)
    rtol, atol = TOL.get(dtype or ref.dtype, (0, 0))
    torch.testing.assert_close(out, ref, rtol=rtol, atol=atol, equal_nan=True)


def compile_and_check(fn, *args, options=None, mode=None, dtype=None):
    torch._dynamo.reset()
    cf = torch.compile(fn, backend="tuner", options=options, mode=mode)
    ref = fn(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
    out = cf(*args)
    assert_close(out, ref, dtype)
    return stats.last()


def check_generated(fn, *args, generated=(), min_kernels=0, **kw):
    """fn compiled against eager; no graph ran whole in ATen, and none of the ATen ops named in
    `generated` ("aten.digamma.default") ran in ATen or failed to lower."""
    stats.reset()
    s = compile_and_check(fn, *args, **kw)
    graphs = stats.graphs()
    assert graphs, "nothing was compiled"
    for g in graphs:
        assert not g.graph_fallback, g.graph_fallback
        for name in generated:
            assert name not in g.fallbacks and name not in g.lowering_errors, \
                (name, dict(g.fallbacks), g.lowering_errors)
    assert sum(g.kernels for g in graphs) >= min_kernels
    return s


def check_forward_and_backward(fn, x):
    """fn compiled against eager on a leaf x: the output, then x's gradient of out.square().sum()."""
    x2 = x.detach().clone().requires_grad_()
    torch._dynamo.reset()
    out, ref = torch.compile(fn, backend="tuner")(x), fn(x2)
    assert_close(out, ref)
    out.square().sum().backward()
    ref.square().sum().backward()
    assert_close(x.grad, x2.grad)


def hf_compiled_and_eager(model, padded=True):
    """A Hugging Face model compiled and in eager on two rows of 8 token ids (the second
    padded after 5 with an attention mask, unless padded=False): (compiled out, eager out)."""
    kwargs = {"input_ids": torch.randint(3, 100, (2, 8), generator=torch.Generator().manual_seed(1))}
    if padded:
        pad = torch.ones(2, 8, dtype=torch.long)
        pad[1, 5:] = 0
        kwargs["attention_mask"] = pad
    with torch.no_grad():
        return torch.compile(model, backend="tuner")(**kwargs), model(**kwargs)


def spy(monkeypatch, owner, name, record):
    """owner.name wrapped for the test: each call's arguments go to record(*args, **kwargs)
    first, then to the real function."""
    real = getattr(owner, name)

    def wrapper(*args, **kwargs):
        record(*args, **kwargs)
        return real(*args, **kwargs)
    monkeypatch.setattr(owner, name, wrapper)


# Source for a child process (python -c): counts compile_graph's lowerings in `lowered[0]`
COUNT_LOWERINGS = """
from tuner.compiler import compile_graph as cg
lowered = [0]
real = cg._lower
def spy(*a, **kw):
    lowered[0] += 1
    return real(*a, **kw)
cg._lower = spy
"""
