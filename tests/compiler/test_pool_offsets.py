"""2-d max pooling keeps int8 window offsets for the backward (compiler/pool_offsets.py): the
op matches ATen's indices eagerly, and a compiled training step saves the offsets, not int64
indices, with eager's gradients."""
import copy

import pytest
import torch
import torch.nn as nn

import tuner.compiler.stats as stats
from tuner.compiler import pool_offsets

CONFIGS = [   # kernel, stride, padding, dilation, ceil_mode
    ([3, 3], [2, 2], [1, 1], [1, 1], False),
    ([2, 3], [1, 2], [0, 1], [1, 1], True),
    ([3, 2], [2, 1], [1, 0], [2, 1], True),
    ([2, 2], [2, 2], [0, 0], [1, 1], False),
]


@pytest.mark.parametrize("kernel,stride,padding,dilation,ceil_mode", CONFIGS)
def test_offsets_give_back_eagers_indices(kernel, stride, padding, dilation, ceil_mode):
    x = torch.randn(2, 3, 11, 9)
    x[0, 0, 2, :] = float("nan")
    x[1, 1] = 0.0   # ties: the first maximum wins, in eager and in the offsets
    values, indices = torch.ops.aten.max_pool2d_with_indices(x, kernel, stride, padding, dilation, ceil_mode)
    v, offsets = torch.ops.tuner.max_pool2d_offsets(x, kernel, stride, padding, dilation, ceil_mode)
    assert offsets.dtype == torch.int8 and offsets.shape == indices.shape
    assert 0 <= offsets.min() and offsets.max() < kernel[0] * kernel[1]
    torch.testing.assert_close(v, values, equal_nan=True)
    back = pool_offsets.offsets_to_indices(offsets, kernel, stride, padding, dilation, x.shape[-1])
    assert torch.equal(back, indices)


@pytest.mark.parametrize("channels_last", [False, True])
def test_training_step_saves_int8_offsets_and_matches_eager(channels_last):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.MaxPool2d(3, 2, 1), nn.Conv2d(8, 4, 3))
    x = torch.randn(2, 3, 16, 16)
    if channels_last:
        model, x = model.to(memory_format=torch.channels_last), x.to(memory_format=torch.channels_last)
    ref = copy.deepcopy(model)
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(model, backend="tuner")(x)
    expected = ref(x)
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-5)
    out.square().sum().backward()
    expected.square().sum().backward()
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-4, msg=name)
    fwd, bwd = stats.graphs()[-2:]
    src = fwd.source[fwd.source.index("def call"):]
    saved = [ln for ln in src.splitlines() if "empty_strided_fast" in ln and "torch.int" in ln]
    assert saved and all("torch.int8" in ln for ln in saved), saved
    for g in (fwd, bwd):   # pooling and its backward are generated kernels, not ATen calls
        assert not [e for e in g.externs if "pool" in e], g.externs


def test_offsets_run_in_aten_when_the_lowering_declines_and_are_counted(monkeypatch):
    # our own op run without its lowering is ATen's pooling inside: a fallback, named
    from tuner.compiler import lowering

    def decline(*args, **kwargs):
        raise NotImplementedError
    monkeypatch.setitem(lowering.LOWERINGS, torch.ops.tuner.max_pool2d_offsets.default, decline)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.MaxPool2d(2))
    x = torch.randn(1, 3, 10, 10, requires_grad=True)
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(model, backend="tuner")(x)
    torch.testing.assert_close(out, model(x), rtol=1e-4, atol=1e-5)
    assert any("max_pool2d_offsets" in name for g in stats.graphs() for name in g.fallbacks)


def test_a_window_over_127_taps_keeps_atens_indices():
    x = torch.randn(1, 2, 14, 14, requires_grad=True)
    ref = x.detach().clone().requires_grad_()
    torch._dynamo.reset()
    stats.reset()
    f = lambda t: nn.functional.max_pool2d(t, 12, 1).sum()   # noqa: E731 (144 taps)
    torch.compile(f, backend="tuner")(x).backward()
    f(ref).backward()
    torch.testing.assert_close(x.grad, ref.grad)
    assert not any("max_pool2d_offsets" in g.source for g in stats.graphs())
