"""Decode attention over grouped KV heads read in place (compiler/gqa_decode.py): the
split-KV kernel against eager SDPA over the repeated heads (CPU, interpreter), and the
rewrite of Hugging Face's repeat_kv + SDPA chain in dynamo's graph where the decode-attention
point answers "gqa" (TUNER_GQA_DECODE forces it here)."""
import pytest
import torch
import torch.nn.functional as F

import tuner.compiler.stats as stats
from tuner.compiler import gqa_decode as gq


def _repeat(kv, n):
    b, h, s, d = kv.shape
    return kv[:, :, None, :, :].expand(b, h, n, s, d).reshape(b, h * n, s, d)


def _eager(q, k, v, mask, scale):
    n = q.shape[1] // k.shape[1]
    return F.scaled_dot_product_attention(q.float(), _repeat(k, n).float(), _repeat(v, n).float(),
                                          attn_mask=mask if mask is None or mask.dtype == torch.bool
                                          else mask.float(), scale=scale)


@pytest.mark.parametrize("b, hq, hkv, s, d, mask", [
    (2, 4, 2, 7, 16, "bool"),        # fewer rows than a block
    (1, 8, 2, 150, 32, "additive"),  # several blocks and splits, a ragged last block
    (3, 6, 3, 70, 24, None),         # a head size that is not a power of two, no mask
    (2, 4, 4, 33, 16, "per_head"),   # no grouping, a mask differing per head
    (1, 14, 2, 65, 128, "bool"),     # 7 query heads per KV head (Qwen2's 28 over 4), head size 128
])
def test_kernel_matches_sdpa_over_repeated_heads(b, hq, hkv, s, d, mask):
    torch.manual_seed(0)
    q = torch.randn(b, hq, 1, d, dtype=torch.bfloat16)
    k, v = (torch.randn(b, hkv, s, d, dtype=torch.bfloat16) for _ in range(2))
    m = None
    if mask == "bool":
        m = torch.rand(b, 1, 1, s) > 0.3
        m[..., 0] = True
    elif mask == "additive":
        m = torch.where(torch.rand(1, 1, 1, s) > 0.5, 0.0, float("-inf")).to(torch.bfloat16)
        m[..., -1] = 0.0
    elif mask == "per_head":
        m = (torch.randn(b, hq, 1, s) * 0.5).to(torch.bfloat16)
    out = torch.ops.tuner.gqa_decode(q, k, v, m, 0.3)
    assert out.shape == (b, hq, 1, d) and out.dtype == q.dtype and out.is_contiguous()
    torch.testing.assert_close(out.float(), _eager(q, k, v, m, 0.3), atol=2e-2, rtol=2e-2)


def test_split_partials_merge_exactly(monkeypatch):
    # a target far above the programs there are: one split per block, the merge of many
    # partial softmaxes
    monkeypatch.setattr(gq, "TARGET_PROGRAMS", 10 ** 6)
    q = torch.randn(1, 4, 1, 16, dtype=torch.float16)
    k, v = (torch.randn(1, 2, 200, 16, dtype=torch.float16) for _ in range(2))
    torch.testing.assert_close(torch.ops.tuner.gqa_decode(q, k, v, None, 0.25).float(), _eager(q, k, v, None, 0.25),
                 atol=1e-2, rtol=1e-2)


def test_a_long_cache_is_split_into_at_most_max_splits_slices(monkeypatch):
    # one KV head at batch 1 asks for 264 slices: the merge holds at most MAX_SPLITS at once
    seen = []
    real = gq._combine

    class _Spy:
        def __getitem__(self, grid):
            def run(*args, **kw):
                seen.append(kw["NSPP"])
                return real[grid](*args, **kw)
            return run
    monkeypatch.setattr(gq, "_combine", _Spy())
    q = torch.randn(1, 2, 1, 16, dtype=torch.float16)
    k, v = (torch.randn(1, 1, 64 * 70, 16, dtype=torch.float16) for _ in range(2))
    out = torch.ops.tuner.gqa_decode(q, k, v, None, 0.25)
    assert seen == [gq.MAX_SPLITS]
    torch.testing.assert_close(out.float(), _eager(q, k, v, None, 0.25), atol=1e-2, rtol=1e-2)


def test_a_launch_that_fails_warns_and_runs_sdpa(monkeypatch):
    def fail(*args):
        raise RuntimeError("out of resources: shared memory")
    monkeypatch.setattr(gq, "_launch", fail)
    q = torch.randn(2, 4, 1, 16, dtype=torch.bfloat16)
    k, v = (torch.randn(2, 2, 9, 16, dtype=torch.bfloat16) for _ in range(2))
    with pytest.warns(RuntimeWarning, match="gqa_decode failed.*SDPA"):
        out = torch.ops.tuner.gqa_decode(q, k, v, None, 0.25)
    torch.testing.assert_close(out.float(), _eager(q, k, v, None, 0.25), atol=2e-2, rtol=2e-2)


class _Decode(torch.nn.Module):
    """An attention step as transformers writes it for a static cache: repeat_kv, then a
    masked SDPA call."""

    def forward(self, q, k_cache, v_cache, mask):
        n = q.shape[1] // k_cache.shape[1]
        return F.scaled_dot_product_attention(q, _repeat(k_cache, n), _repeat(v_cache, n),
                                              attn_mask=mask, dropout_p=0.0, scale=0.25, is_causal=False)


def _inputs(lq=1, b=2, s=40):
    q = torch.randn(b, 8, lq, 16, dtype=torch.bfloat16)
    k, v = (torch.randn(b, 2, s, 16, dtype=torch.bfloat16) for _ in range(2))
    mask = torch.arange(s)[None, None, None, :] < torch.tensor([30, s]).view(b, 1, 1, 1)
    return q, k, v, mask.expand(b, 1, lq, s)


def test_the_rewrite_runs_the_op_and_matches_eager(monkeypatch):
    monkeypatch.setenv("TUNER_GQA_DECODE", "gqa")
    m = _Decode()
    stats.reset()
    with torch.no_grad():
        args = _inputs()
        out = torch.compile(m, backend="tuner")(*args)
    torch.testing.assert_close(out.float(), m(*args).float(), atol=2e-2, rtol=2e-2)
    assert stats.attention_patterns["gqa_decode"] == 1
    g = stats.last()
    assert "tuner.gqa_decode.default" in str(dict(g.externs)) and not g.graph_fallback, dict(g.externs)
    # our own op runs our kernel: not an ATen fallback
    assert not any("gqa" in name for name in g.fallbacks), dict(g.fallbacks)
    # the repeat copies were generated kernels: none is left
    assert g.kernels == 0, g.kernels


def test_a_stored_gqa_answer_rewrites_in_default_mode(monkeypatch, capsys):
    # an answer stored for steps launched directly (no CUDA graph: "/direct"), a default-mode
    # compile reads; one measured under CUDA graphs is another problem's
    from tuner.engine import decide
    from tuner.points.decode_attention import CANDIDATES, NAMESPACE
    decide(NAMESPACE, "cpu/bfloat16/b2h8kv2s40d16/bool", list(CANDIDATES),
           lambda choice: 2.0 if choice == "gqa" else 1.0)
    decide(NAMESPACE, "cpu/bfloat16/b2h8kv2s40d16/bool/direct", list(CANDIDATES),
           lambda choice: 1.0 if choice == "gqa" else 2.0)
    monkeypatch.setenv("TUNER_LOGS", "decisions")
    m = _Decode()
    stats.reset()
    with torch.no_grad():
        args = _inputs()
        torch.testing.assert_close(torch.compile(m, backend="tuner")(*args).float(), m(*args).float(),
                                   atol=2e-2, rtol=2e-2)
    assert stats.attention_patterns["gqa_decode"] == 1
    assert "decode attention cpu/bfloat16/b2h8kv2s40d16/bool/direct: gqa (cache)" in capsys.readouterr().err


class _Variant(torch.nn.Module):
    """_Decode's call with one thing changed that the kernel does not do."""

    def __init__(self, why):
        super().__init__()
        self.why = why

    def forward(self, q, k_cache, v_cache, mask):
        n = 8 // k_cache.shape[1]
        k, v = _repeat(k_cache, n), _repeat(v_cache, n)
        if self.why == "causal":
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        if self.why == "dropout":
            return F.scaled_dot_product_attention(q, k, v, mask, 0.5)
        if self.why == "batch_broadcast":   # a cache of batch 1 under a query of batch 2
            return F.scaled_dot_product_attention(q, _repeat(k_cache[:1], n), _repeat(v_cache[:1], n), mask)
        return F.scaled_dot_product_attention(q, k, v, mask, 0.0, False, scale=0.25)   # positional


@pytest.mark.parametrize("why", ["auto", "sdpa", "prefill", "grad", "causal", "dropout", "batch_broadcast"])
def test_the_rewrite_is_skipped(monkeypatch, why):
    # auto on CPU, without a stored answer: the point's rule keeps SDPA
    if why == "sdpa":
        monkeypatch.setenv("TUNER_GQA_DECODE", "sdpa")
    elif why != "auto":
        monkeypatch.setenv("TUNER_GQA_DECODE", "gqa")
    m = _Variant(why) if why in ("causal", "dropout", "batch_broadcast") else _Decode()
    args = _inputs(lq=4 if why == "prefill" else 1)
    if why == "grad":
        args = (args[0].requires_grad_(),) + args[1:]
    stats.reset()
    torch.manual_seed(0)
    out = torch.compile(m, backend="tuner")(*args)
    if why != "dropout":
        torch.testing.assert_close(out.float(), m(*args).float(), atol=2e-2, rtol=2e-2)
    assert stats.attention_patterns["gqa_decode"] == 0


def test_positional_arguments_and_a_fully_masked_row(monkeypatch):
    # SDPA's mask, dropout, is_causal and scale given by position; a row whose mask is all
    # False gives 0, as eager's SDPA does (not 0 / 0)
    monkeypatch.setenv("TUNER_GQA_DECODE", "gqa")
    m = _Variant("positional")
    q, k, v, mask = _inputs()
    mask = mask.clone()
    mask[1] = False
    stats.reset()
    with torch.no_grad():
        out = torch.compile(m, backend="tuner")(q, k, v, mask)
        ref = m(q, k, v, mask)
    assert stats.attention_patterns["gqa_decode"] == 1
    assert torch.equal(ref[1], torch.zeros_like(ref[1])) and torch.equal(out[1], torch.zeros_like(out[1]))
    torch.testing.assert_close(out.float(), ref.float(), atol=2e-2, rtol=2e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("b, s, hq, hkv, d", [
    (1, 300, 16, 4, 64), (8, 256, 16, 4, 64), (32, 1000, 16, 4, 64),   # the benchmark's decoder
    (4, 4096, 32, 8, 128),   # LLaMA-3-8B's heads over a long cache
    (2, 777, 28, 4, 128),    # Qwen2-7B's 7 query heads per KV head
    (2, 513, 8, 4, 256),     # Gemma's head size 256
    (3, 100, 32, 8, 96),     # Phi-3's head size 96 (not a power of two)
])
def test_kernel_matches_sdpa_on_gpu(b, s, hq, hkv, d):
    # the rule runs the kernel on CUDA by default: head sizes and groupings of real decoders,
    # bf16 dots
    q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    m = torch.arange(s, device="cuda")[None, None, None, :] < s - 17
    # the launch itself (the op would run SDPA instead if the kernel failed on this GPU)
    out = torch.empty_like(q)
    gq._launch(q, k, v, m, d ** -0.5, out)
    torch.testing.assert_close(out.float(), _eager(q, k, v, m, d ** -0.5), atol=2e-2, rtol=2e-2)


@pytest.mark.gpu
def test_launches_after_the_first_per_specialization_skip_the_jit_and_stay_right():
    # default mode replays no CUDA graph: two JITFunction.run calls per layer (binding and
    # specializing 26 arguments each) cost more host time than the step's GPU work, so a
    # compiled kernel is kept per key of what Triton specializes on and launched directly.
    # Cache lengths around the keys' edges (1, multiples of 16, others) and a view at an
    # offset off 16 bytes each get the kernel their key compiled, never another's
    torch.manual_seed(1)
    before = gq.DIRECT_LAUNCHES
    for s in (1, 16, 17, 32, 33, 48, 17, 1, 64, 16):
        for off in (0, 1):
            q = torch.randn(2, 16, 1, 64 + off, device="cuda", dtype=torch.bfloat16)[..., off:]
            k, v = (torch.randn(2, 4, s, 64, device="cuda", dtype=torch.bfloat16) for _ in range(2))
            m = torch.arange(s, device="cuda")[None, None, None, :] <= s // 2
            out = torch.ops.tuner.gqa_decode(q, k, v, m, 0.125)
            torch.testing.assert_close(out.float(), _eager(q, k, v, m, 0.125), atol=2e-2, rtol=2e-2)
    assert gq.DIRECT_LAUNCHES - before >= 2 * 6, gq.DIRECT_LAUNCHES - before
