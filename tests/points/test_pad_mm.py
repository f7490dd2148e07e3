"""pad_mm: padding gives the unpadded matmul's result; alignment rules; nothing to pad => orig."""
import pytest
import torch

from tuner.heuristics.contexts import PadMMContext
from tuner.points.pad_mm import (context_from_tensors, decide_pad_mm, is_transposed, matmul,
                                 pad_to, padded_matmul, pad_mm_decision, runners, make_operands)

DTYPES = [torch.float16, torch.bfloat16, torch.float32]


def _ints(*shape, dtype, transposed=False, gen):
    # small integers: every product and sum is exact in fp16/bf16/fp32, so results compare bitwise
    if transposed:
        return torch.randint(-2, 3, (*shape[:-2], shape[-1], shape[-2]), generator=gen).to(dtype).transpose(-1, -2)
    return torch.randint(-2, 3, shape, generator=gen).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("t1,t2", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("op", ["mm", "bmm", "addmm"])
def test_padded_result_equals_unpadded_exactly(op, t1, t2, dtype):
    gen = torch.Generator().manual_seed(0)
    m, k, n = 13, 27, 9
    lead = (3,) if op == "bmm" else ()
    a = _ints(*lead, m, k, dtype=dtype, transposed=t1, gen=gen)
    b = _ints(*lead, k, n, dtype=dtype, transposed=t2, gen=gen)
    bias = _ints(n, dtype=dtype, gen=gen) if op == "addmm" else None
    assert is_transposed(a) == t1 and is_transposed(b) == t2
    want = matmul(op, a, b, bias)
    got = padded_matmul(op, a, b, bias)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert torch.equal(got, want)


@pytest.mark.parametrize("dtype,atol", [(torch.float32, 1e-4), (torch.float16, 2e-2), (torch.bfloat16, 1e-1)])
@pytest.mark.parametrize("bias_shape", [(9,), (1, 9), (13, 9), (13, 1), ()])
def test_addmm_random_data_and_bias_broadcasts(dtype, atol, bias_shape):
    gen = torch.Generator().manual_seed(1)
    a, b = torch.randn(13, 27, generator=gen, dtype=dtype), torch.randn(27, 9, generator=gen, dtype=dtype)
    bias = torch.randn(bias_shape, generator=gen, dtype=dtype)
    want = torch.addmm(bias.float(), a.float(), b.float(), beta=0.5, alpha=2.0)
    got = padded_matmul("addmm", a, b, bias, beta=0.5, alpha=2.0)
    torch.testing.assert_close(got.float(), want, atol=atol, rtol=atol)


def test_pad_to_keeps_layout_and_zero_fills():
    x = torch.arange(12.0).reshape(4, 3).t()          # 3x4, column-major
    p = pad_to(x, 4, 8)
    assert p.shape == (4, 8) and is_transposed(p)
    assert torch.equal(p[:3, :4], x) and p[3:].abs().sum() == 0 and p[:, 4:].abs().sum() == 0
    r = pad_to(torch.ones(3, 5), 4, 8)
    assert r.is_contiguous() and r.sum() == 15


def test_alignment_is_8_for_half_and_4_for_float():
    assert not PadMMContext("mm", 12, 20, 36, "float32").needs_padding()
    assert PadMMContext("mm", 12, 20, 36, "float16").needs_padding()
    assert PadMMContext("mm", 12, 20, 36, "bfloat16").padded_sizes() == (16, 24, 40)
    assert PadMMContext("mm", 13, 20, 36, "float32").padded_sizes() == (16, 20, 36)


def test_nothing_to_pad_answers_orig_without_measuring():
    aligned = context_from_tensors("mm", torch.empty(16, 32, dtype=torch.float16),
                                   torch.empty(32, 64, dtype=torch.float16))
    assert aligned is not None and not aligned.needs_padding()
    assert pad_mm_decision(aligned, device="cpu") is None
    assert decide_pad_mm(aligned, device="cpu") == "orig"
    # unsupported dtypes are never padded
    assert context_from_tensors("mm", torch.empty(3, 5, dtype=torch.float64),
                                torch.empty(5, 7, dtype=torch.float64)) is None
    assert decide_pad_mm(None) == "orig"


def test_context_from_tensors_reads_layout_and_flags():
    a = torch.empty(7, 3, 5).transpose(-1, -2)   # (7, 5, 3) batch of column-major 5x3
    b = torch.empty(7, 3, 9)
    ctx = context_from_tensors("bmm", a, b, mat2_prepadded=True, tf32=True)
    assert (ctx.m, ctx.k, ctx.n, ctx.batch, ctx.dtype) == (5, 3, 9, 7, "float32")
    assert ctx.mat1_transposed and not ctx.mat2_transposed and ctx.mat2_prepadded and ctx.tf32
    f = ctx.features()
    assert f["mat1_stride0"] == 1 and f["mat1_stride1"] == 5 and f["op_bmm"] == 1
    assert f["pad_frac_m"] == pytest.approx(3 / 5) and f["align_k"] == 1
    half = context_from_tensors("mm", torch.empty(5, 3, dtype=torch.half), torch.empty(3, 9, dtype=torch.half), tf32=True)
    assert not half.tf32      # TF32 only means something for fp32


@pytest.mark.parametrize("pre", [(False, False), (True, True)])
def test_runners_compute_the_same_product(pre):
    ctx = PadMMContext("addmm", 11, 19, 6, "float32", mat1_transposed=True,
                       mat1_prepadded=pre[0], mat2_prepadded=pre[1])
    fns = runners(ctx, *make_operands(ctx, "cpu", torch.Generator().manual_seed(0)))
    torch.testing.assert_close(fns["pad"](), fns["orig"](), atol=1e-4, rtol=1e-4)
