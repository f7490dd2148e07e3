"""pad_mm on a CUDA GPU: exact padded results, and a decision measured with CUDA events."""
import pytest
import torch

from tuner.heuristics.contexts import PadMMContext
from tuner.points.pad_mm import matmul, pad_mm_decision, padded_matmul

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("op", ["mm", "bmm", "addmm"])
def test_padded_equals_unpadded_on_gpu(op, dtype):
    gen = torch.Generator(device="cuda").manual_seed(0)
    lead = (2,) if op == "bmm" else ()
    a = torch.randint(-2, 3, (*lead, 517, 61), device="cuda", generator=gen).to(dtype)
    b = torch.randint(-2, 3, (*lead, 129, 61), device="cuda", generator=gen).to(dtype).transpose(-1, -2)
    bias = torch.randint(-2, 3, (129,), device="cuda", generator=gen).to(dtype) if op == "addmm" else None
    # small integers, k=61: every sum stays below 256, exact even in bf16 partial sums
    assert torch.equal(padded_matmul(op, a, b, bias), matmul(op, a, b, bias))


def test_decision_is_measured_then_cached(monkeypatch):
    from tuner.cache import reset_cache
    reset_cache()
    monkeypatch.setenv("TUNER_HEURISTICS", "off")
    ctx = PadMMContext("mm", 4095, 4097, 4093, "bfloat16")
    d = pad_mm_decision(ctx, device="cuda")
    assert d.source == "exhaustive" and {c for c, _ in d.timings} == {"pad", "orig"}
    assert pad_mm_decision(ctx, device="cuda").source == "cache"
    reset_cache()
