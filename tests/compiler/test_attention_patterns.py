"""Hand-written attention replaced with scaled_dot_product_attention before AOTAutograd
(compiler/attn_patterns.py): each variant becomes one SDPA call in the graph handed to
AOTAutograd and matches eager; chains that SDPA would not compute exactly are kept."""
import math

import pytest
import torch
import torch.nn.functional as F

import tuner.compiler.attn_patterns as attn_patterns
import tuner.compiler.stats as stats

from helpers import assert_close, hf_compiled_and_eager, spy

SDPA_TARGETS = {F.scaled_dot_product_attention, torch._C._nn.scaled_dot_product_attention}
SOFTMAX = {F.softmax, torch.softmax}


@pytest.fixture
def dynamo_graphs(monkeypatch):
    """The dynamo graphs the pass ran on (as handed on to AOTAutograd), in order."""
    seen = []
    spy(monkeypatch, attn_patterns, "replace_attention", seen.append)
    stats.reset()
    torch._dynamo.reset()
    return seen


def compiled_matches_eager(fn, *args):
    assert_close(torch.compile(fn, backend="tuner")(*args), fn(*args))


def count(graphs):
    """(SDPA calls, softmaxes) over `graphs`."""
    sdpa = soft = 0
    for gm in graphs:
        for n in gm.graph.nodes:
            sdpa += n.op == "call_function" and n.target in SDPA_TARGETS
            soft += (n.op == "call_function" and n.target in SOFTMAX) or \
                (n.op == "call_method" and n.target == "softmax")
    return sdpa, soft


def qkv(*shape, requires_grad=False, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*shape, generator=g, dtype=dtype).requires_grad_(requires_grad)
            for _ in range(3)]


def padding_bool(b, s):
    """True where a key is padding (the last keys of the second batch row)."""
    m = torch.zeros(b, s, dtype=torch.bool)
    m[1, s - 3:] = True
    return m


# --------------------------------------------------------------------------- variants

def scale_after(q, k, v):
    return F.softmax((q @ k.transpose(-2, -1)) * 0.125, dim=-1) @ v


def scale_first(q, k, v):
    return torch.matmul(torch.softmax(torch.matmul(q * 0.125, k.transpose(2, 3)), -1), v)


def divide_by_sqrt(q, k, v):
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.size(-1))
    return scores.softmax(dim=-1).matmul(v)


def scale_q_and_k(q, k, v):
    s = q.shape[-1] ** -0.25
    return F.softmax((q * s) @ (k * s).transpose(-2, -1), dim=-1) @ v


def permuted_key(q, k, v):
    return F.softmax(q @ k.permute(0, 1, 3, 2) * 0.25, dim=-1) @ v


def double_softmax_cast_back(q, k, v):
    scores = q @ k.transpose(-2, -1) * 0.25
    return F.softmax(scores.double(), dim=-1).to(q.dtype) @ v


def softmax_dtype(q, k, v):
    return F.softmax(q @ k.transpose(-2, -1) * 0.25, dim=-1, dtype=torch.float64).float() @ v


def eval_dropout(q, k, v):
    p = F.softmax(q @ k.transpose(-2, -1) * 0.25, dim=-1)
    return F.dropout(p, 0.1, training=False) @ v


def zero_dropout(q, k, v):
    p = F.softmax(q @ k.transpose(-2, -1) * 0.25, dim=-1)
    return F.dropout(p, p=0.0, training=True) @ v


def bmm_3d(q, k, v):
    q, k, v = (t.flatten(0, 1) for t in (q, k, v))
    return torch.bmm(F.softmax(torch.bmm(q, k.transpose(1, 2)) * 0.25, dim=-1), v)


def unscaled(q, k, v):   # T5
    return F.softmax(q @ k.transpose(-2, -1), dim=-1) @ v


def bias_added_in_place(q, k, v):   # T5: scores += position_bias; float softmax, type_as
    n = q.shape[-2]
    bias = torch.arange(n, dtype=q.dtype)[None, :] - torch.arange(n, dtype=q.dtype)[:, None]
    scores = torch.matmul(q, k.transpose(3, 2))
    scores += bias.abs().neg()
    w = F.softmax(scores.float(), dim=-1).type_as(scores)
    return torch.matmul(F.dropout(w, p=0.0, training=False), v)


def bias_built_in_place_mid_chain(q, k, v):   # T5's decoder: buckets built with += after q @ k^T
    scores = q @ k.transpose(-2, -1)
    n = q.shape[-2]
    buckets = torch.zeros(n, n)
    buckets += torch.arange(n, dtype=q.dtype)[:, None] * 0.01
    return F.softmax(scores + buckets, dim=-1) @ v


def causal_masked_fill(q, k, v):
    n = q.shape[-2]
    keep = torch.ones(n, n, dtype=torch.bool).tril()
    s = (q @ k.transpose(-2, -1)) * 0.25
    return F.softmax(s.masked_fill(~keep, float("-inf")), dim=-1) @ v


def causal_where_min(q, k, v):   # GPT-2's older eager attention
    n = q.shape[-2]
    keep = torch.ones(n, n, dtype=torch.bool).tril()
    s = torch.where(keep, (q @ k.transpose(-2, -1)) * 0.25, torch.finfo(q.dtype).min)
    return F.softmax(s, dim=-1) @ v


VARIANTS = [scale_after, scale_first, divide_by_sqrt, scale_q_and_k, permuted_key,
            double_softmax_cast_back, softmax_dtype, eval_dropout, zero_dropout, bmm_3d,
            unscaled, bias_added_in_place, bias_built_in_place_mid_chain,
            causal_masked_fill, causal_where_min]


@pytest.mark.parametrize("fn", VARIANTS, ids=lambda f: f.__name__)
def test_variant_is_replaced(dynamo_graphs, fn):
    q, k, v = qkv(2, 4, 8, 16)
    compiled_matches_eager(fn, q, k, v)
    assert count(dynamo_graphs) == (1, 0)
    assert stats.attention_patterns == {"graphs": 1, "patterns": 1}


def test_constant_causal_mask_then_folds(dynamo_graphs):
    """The new SDPA call's constant causal mask becomes is_causal=True (compiler/fold.py)."""
    q, k, v = qkv(2, 4, 8, 16)
    out = torch.compile(causal_masked_fill, backend="tuner")(q, k, v)
    assert_close(out, causal_masked_fill(q, k, v))
    assert stats.mask_folds == {"causal": 1}


def padding_masked_fill(q, k, v, pad):
    s = q @ k.transpose(-2, -1) * 0.25
    s = s.masked_fill(pad[:, None, None, :], torch.finfo(s.dtype).min)
    return F.softmax(s, dim=-1) @ v


def padding_additive(q, k, v, pad):
    bias = torch.zeros(pad.shape, dtype=q.dtype).masked_fill(pad, float("-inf"))
    s = torch.matmul(q, k.transpose(-1, -2)) * 0.25 + bias[:, None, None, :]
    return F.softmax(s, dim=-1) @ v


def bias_and_padding(q, k, v, pad):   # a position bias added, then a padding fill
    n = q.shape[-2]
    bias = torch.arange(n, dtype=q.dtype)[None, :] - torch.arange(n, dtype=q.dtype)[:, None]
    s = bias.abs().neg() + q @ k.transpose(-2, -1)
    s = s.masked_fill(pad[:, None, None, :], float("-inf"))
    return F.softmax(s, dim=-1) @ v


@pytest.mark.parametrize("fn", [padding_masked_fill, padding_additive, bias_and_padding],
                         ids=lambda f: f.__name__)
def test_input_mask_is_replaced(dynamo_graphs, fn):
    q, k, v = qkv(2, 4, 8, 16)
    pad = padding_bool(2, 8)
    compiled_matches_eager(fn, q, k, v, pad)
    assert count(dynamo_graphs) == (1, 0)
    assert not stats.mask_folds   # a mask from an input is never folded


def test_half_precision_with_float_softmax():
    """bf16 scores, softmax in float32, cast back (HF's eager attention in mixed precision)."""
    def fn(q, k, v):
        s = q @ k.transpose(-2, -1) * 0.25
        return F.softmax(s, dim=-1, dtype=torch.float32).to(q.dtype) @ v
    stats.reset()
    q, k, v = qkv(2, 4, 8, 16, dtype=torch.bfloat16)
    compiled_matches_eager(fn, q, k, v)
    assert stats.attention_patterns["patterns"] == 1


def test_training_gradients_match_eager(dynamo_graphs):
    q, k, v = qkv(2, 4, 8, 16, requires_grad=True)
    q2, k2, v2 = (t.detach().clone().requires_grad_() for t in (q, k, v))
    pad = padding_bool(2, 8)
    out = torch.compile(padding_additive, backend="tuner")(q, k, v, pad)
    ref = padding_additive(q2, k2, v2, pad)
    assert_close(out, ref)
    out.square().sum().backward()
    ref.square().sum().backward()
    for a, b in ((q, q2), (k, k2), (v, v2)):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-4)
    assert count(dynamo_graphs) == (1, 0)


def test_dynamic_sizes(dynamo_graphs):
    f = torch.compile(padding_masked_fill, backend="tuner", dynamic=True)
    for b, n in ((2, 8), (3, 12)):
        q, k, v = qkv(b, 4, n, 16)
        pad = padding_bool(b, n)
        assert_close(f(q, k, v, pad), padding_masked_fill(q, k, v, pad))
    assert count(dynamo_graphs) == (1, 0)


def scale_by_size_power(q, k, v):
    return F.softmax(q @ k.transpose(-2, -1) * q.size(-1) ** -0.5, dim=-1) @ v


@pytest.mark.parametrize("fn", [divide_by_sqrt, scale_by_size_power], ids=lambda f: f.__name__)
def test_symbolic_head_dim_scale(dynamo_graphs, fn):
    """With every size dynamic, 1 / sqrt(head dim) is a symbolic value: SDPA's default scale."""
    f = torch.compile(fn, backend="tuner", dynamic=True)
    for b, n, d in ((2, 8, 16), (3, 12, 8)):
        q, k, v = qkv(b, 4, n, d)
        assert_close(f(q, k, v), fn(q, k, v))
    assert count(dynamo_graphs) == (1, 0)
    sdpa = [n for n in dynamo_graphs[0].graph.nodes if n.target in SDPA_TARGETS]
    assert "scale" not in sdpa[0].kwargs


def scale_by_query_length(q, k, v):   # a size, but not the head dim
    return F.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-2)), dim=-1) @ v


def test_symbolic_scale_of_another_size_is_kept(dynamo_graphs):
    f = torch.compile(scale_by_query_length, backend="tuner", dynamic=True)
    q, k, v = qkv(2, 4, 8, 16)
    assert_close(f(q, k, v), scale_by_query_length(q, k, v))
    assert count(dynamo_graphs) == (0, 1)


# --------------------------------------------------------------------------- views, baddbmm

def bloom_baddbmm(q, k, v, pad):   # BLOOM: alibi.baddbmm on 3-D, viewed to 4-D and back
    b, h, n, d = q.shape
    alibi = (torch.arange(n, dtype=q.dtype) * 0.1).expand(b * h, 1, n)
    q3, k3, v3 = (t.reshape(b * h, n, d) for t in (q, k, v))
    s = alibi.baddbmm(batch1=q3, batch2=k3.transpose(-1, -2), beta=1.0, alpha=0.25)
    s = s.view(b, h, n, -1).masked_fill(pad[:, None, None, :], torch.finfo(q.dtype).min)
    p = F.softmax(s, dim=-1, dtype=torch.float32).to(q.dtype)
    return torch.bmm(F.dropout(p, 0.0, False).view(b * h, n, -1), v3)


def deberta_views(q, k, v, pad):   # DeBERTa-v2: 3-D bmm, k^T / sqrt(tensor(d)), 4-D fill
    b, h, n, d = q.shape
    q3, k3, v3 = (t.reshape(-1, n, d) for t in (q, k, v))
    scale = torch.sqrt(torch.tensor(d, dtype=torch.float) * 1)
    s = torch.bmm(q3, k3.transpose(-1, -2) / scale.to(dtype=q.dtype)).view(-1, h, n, n)
    p = F.softmax(s.masked_fill(pad[:, None, None, :], torch.finfo(q.dtype).min), dim=-1)
    return torch.bmm(p.view(-1, n, n), v3).view(-1, h, n, d)


def prophetnet_views(q, k, v, pad):   # 3-D scores, a 4-D additive mask, 3-D bmm
    b, h, n, d = q.shape
    q3, k3, v3 = (t.reshape(-1, n, d) for t in (q, k, v))
    bias = torch.zeros(pad.shape, dtype=q.dtype).masked_fill(pad, float("-inf"))
    s = torch.bmm(q3 * 0.25, k3.transpose(1, 2)).view(b, h, n, n) + bias[:, None, None, :]
    return torch.bmm(F.softmax(s.view(b * h, n, n), dim=-1), v3)


def merged_probs(q, k, v, pad):   # 4-D scores merged to 3-D for a bmm with 3-D v
    s = (q @ k.transpose(-2, -1) * 0.25).masked_fill(pad[:, None, None, :], -1e9)
    return torch.bmm(F.softmax(s, dim=-1).reshape(-1, *s.shape[-2:]), v.flatten(0, 1))


def baddbmm_3d_bias(q, k, v, pad):   # a (batch * heads) 3-D bias added to 3-D scores
    q3, k3, v3 = (t.flatten(0, 1) for t in (q, k, v))
    bias = (torch.arange(q3.shape[0] * k3.shape[1], dtype=q.dtype) % 7 * 0.3).view(-1, 1, 8)
    s = torch.baddbmm(bias, q3, k3.transpose(1, 2), alpha=0.25).view(*q.shape[:2], -1, k.shape[2])
    s = s.masked_fill(pad[:, None, None, :], float("-inf"))
    return torch.bmm(F.softmax(s, dim=-1).flatten(0, 1), v3).unflatten(0, q.shape[:2])


def view_heads_first(q, k, v, pad):   # split (heads, batch): SDPA follows the chain's view
    b, h, n, d = q.shape
    q3, k3, v3 = (t.reshape(b * h, n, d) for t in (q, k, v))
    s = torch.bmm(q3, k3.transpose(1, 2)).view(h, b, n, n)
    s = s.masked_fill(pad[:, None, None, :].transpose(0, 1), -1e9)
    return torch.bmm(F.softmax(s.view(b * h, n, n), dim=-1), v3).view(b, h, n, d)


@pytest.mark.parametrize("fn", [bloom_baddbmm, deberta_views, prophetnet_views, merged_probs,
                                baddbmm_3d_bias, view_heads_first], ids=lambda f: f.__name__)
def test_views_and_baddbmm_are_replaced(dynamo_graphs, fn):
    q, k, v = qkv(2, 4, 8, 16)
    pad = padding_bool(2, 8)
    compiled_matches_eager(fn, q, k, v, pad)
    assert count(dynamo_graphs) == (1, 0)
    assert stats.attention_patterns == {"graphs": 1, "patterns": 1}
    names = {n.name for n in dynamo_graphs[0].graph.nodes}
    assert not {"tensor", "scale"} & names   # (DeBERTa's constant scale went with the chain)


@pytest.mark.parametrize("fn", [bloom_baddbmm, deberta_views], ids=lambda f: f.__name__)
def test_views_with_dynamic_batch(dynamo_graphs, fn):
    """A symbolic batch size is fine; the heads count that splits (batch * heads) is static."""
    f = torch.compile(fn, backend="tuner")
    for b in (2, 3):
        q, k, v = qkv(b, 4, 8, 16)
        pad = padding_bool(b, 8)
        for t in (q, k, v, pad):
            torch._dynamo.mark_dynamic(t, 0)
        assert_close(f(q, k, v, pad), fn(q, k, v, pad))
    assert count(dynamo_graphs) == (1, 0)


def view_changes_last_dims(q, k, v, pad):   # softmax over pairs of keys: not attention
    b, h, n, _ = q.shape
    s = (q @ k.transpose(-1, -2) * 0.25).reshape(b, h * n, n // 2, 2)
    return F.softmax(s, dim=-1).reshape(b, h, n, n) @ v


def baddbmm_beta(q, k, v, pad):   # beta != 1 scales the bias: not a mask SDPA adds
    q3, k3, v3 = (t.flatten(0, 1) for t in (q, k, v))
    s = torch.baddbmm(torch.ones(8, 8, 8), q3, k3.transpose(1, 2), beta=0.5, alpha=0.25)
    return torch.bmm(F.softmax(s, dim=-1), v3)


@pytest.mark.parametrize("fn", [view_changes_last_dims, baddbmm_beta],
                         ids=lambda f: f.__name__)
def test_views_and_baddbmm_not_replaced(dynamo_graphs, fn):
    q, k, v = qkv(2, 4, 8, 16)
    pad = padding_bool(2, 8)
    compiled_matches_eager(fn, q, k, v, pad)
    assert count(dynamo_graphs) == (0, 1)
    assert not stats.attention_patterns


# --------------------------------------------------------------------------- Swin's windows

class WindowAttention(torch.nn.Module):
    """Window attention shaped like timm's Swin block with fused attention off: q scaled, a
    learned relative-position bias (1, heads, n, n), and the shifted windows' mask (windows,
    n, n) added to the scores viewed as (batch, windows, heads, n, n), then viewed back."""

    def __init__(self, dim=16, heads=2, side=2, windows=4):
        super().__init__()
        n = side * side
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.qkv, self.proj = torch.nn.Linear(dim, 3 * dim), torch.nn.Linear(dim, dim)
        self.table = torch.nn.Parameter(torch.randn((2 * side - 1) ** 2, heads) * 0.5)
        yx = torch.stack(torch.meshgrid(torch.arange(side), torch.arange(side), indexing="ij"))
        d = yx.flatten(1)[:, :, None] - yx.flatten(1)[:, None, :] + side - 1
        self.register_buffer("index", d[0] * (2 * side - 1) + d[1], persistent=False)
        region = torch.randint(0, 3, (windows, n), generator=torch.Generator().manual_seed(3))
        mask = (region[:, None, :] != region[:, :, None]).float() * -100.0
        self.register_buffer("mask", mask, persistent=False)
        self.softmax, self.drop = torch.nn.Softmax(dim=-1), torch.nn.Dropout(0.0)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4).unbind(0)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.table[self.index.view(-1)].view(n, n, -1).permute(2, 0, 1).contiguous()
        attn = attn + bias.unsqueeze(0)
        windows = self.mask.shape[0]
        attn = attn.view(-1, windows, self.heads, n, n) + self.mask.unsqueeze(1).unsqueeze(0)
        attn = self.drop(self.softmax(attn.view(-1, self.heads, n, n)))
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, -1))


def test_swin_window_mask_is_replaced(dynamo_graphs):
    """The 5-D view's mask becomes SDPA's, expanded over (batch, windows) and merged; forward
    and gradients (the bias table's too) match eager."""
    torch.manual_seed(0)
    model = WindowAttention()
    ref = WindowAttention()
    ref.load_state_dict(model.state_dict())
    x = torch.randn(2 * 4, 4, 16, generator=torch.Generator().manual_seed(1))
    x1, x2 = x.clone().requires_grad_(), x.clone().requires_grad_()
    out, expected = torch.compile(model, backend="tuner")(x1), ref(x2)
    assert_close(out, expected)
    out.square().sum().backward()
    expected.square().sum().backward()
    torch.testing.assert_close(x1.grad, x2.grad, rtol=1e-4, atol=1e-4)
    for (name, p), r in zip(model.named_parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, r.grad, rtol=1e-4, atol=1e-4, msg=name)
    assert count(dynamo_graphs) == (1, 0)
    assert stats.attention_patterns == {"graphs": 1, "patterns": 1}


def test_swin_window_mask_with_dynamic_batch_is_kept(dynamo_graphs):
    """A symbolic batch: the 5-D view's (batch // windows) * windows is not provably the
    batch, and the mask would be expanded to a symbolic size: kept as written."""
    model = WindowAttention().eval()
    x = torch.randn(3 * 4, 4, 16)
    torch._dynamo.mark_dynamic(x, 0)
    with torch.no_grad():
        assert_close(torch.compile(model, backend="tuner")(x), model(x))
    assert count(dynamo_graphs) == (0, 1)


# --------------------------------------------------------------------------- kept as written

def returns_probabilities(q, k, v):
    p = F.softmax(q @ k.transpose(-2, -1) * 0.25, dim=-1)
    return p @ v, p


def softmax_other_dim(q, k, v):
    return F.softmax(q @ k.transpose(-2, -1) * 0.25, dim=-2) @ v


def scores_used_twice(q, k, v):
    s = q @ k.transpose(-2, -1) * 0.25
    return F.softmax(s, dim=-1) @ v + s.sum()


def scale_after_mask(q, k, v, pad):   # (s + m) * c is not SDPA's s * c + m
    s = (q @ k.transpose(-2, -1) + pad[:, None, None, :].float()) * 0.25
    return F.softmax(s, dim=-1) @ v


def fill_with_zero(q, k, v, pad):   # a fill that is not a mask
    s = (q @ k.transpose(-2, -1) * 0.25).masked_fill(pad[:, None, None, :], 0.0)
    return F.softmax(s, dim=-1) @ v


def query_written_in_place(q, k, v):   # SDPA would read q after the write
    q = q * 1.0
    scores = q @ k.transpose(-2, -1)
    q.mul_(0.25)
    return F.softmax(scores, dim=-1) @ v + q


def scaled_query_written_in_place(q, k, v):   # SDPA would take q without the write
    q = q * 1.0
    alias = q
    q.mul_(0.25)
    return F.softmax(alias @ k.transpose(-2, -1), dim=-1) @ v + q


def mask_written_through_a_view(q, k, v, pad):   # SDPA would read the mask after the write
    bias = torch.zeros(pad.shape, dtype=q.dtype).masked_fill(pad, -1e9)
    scores = q @ k.transpose(-2, -1) + bias[:, None, None, :]
    bias.view(-1).mul_(2.0)
    return F.softmax(scores, dim=-1) @ v + bias.sum()


def mask_widens_scores(q, k, v):   # SDPA's output would have q's batch size, 1
    q, k, v = q[:1], k[:1], v[:1]
    s = q @ k.transpose(-2, -1) * 0.25 + torch.zeros(2, 1, 1, 8)
    return F.softmax(s, dim=-1) @ v


@pytest.mark.parametrize("fn", [returns_probabilities, softmax_other_dim, scores_used_twice,
                                scale_after_mask, fill_with_zero, query_written_in_place,
                                scaled_query_written_in_place, mask_written_through_a_view,
                                mask_widens_scores],
                         ids=lambda f: f.__name__)
def test_not_replaced(dynamo_graphs, fn):
    q, k, v = qkv(2, 4, 8, 16)
    masked = (scale_after_mask, fill_with_zero, mask_written_through_a_view)
    args = (q, k, v, padding_bool(2, 8)) if fn in masked else (q, k, v)
    compiled_matches_eager(fn, *args)
    assert count(dynamo_graphs) == (0, 1)
    assert not stats.attention_patterns


class Attention(torch.nn.Module):
    def __init__(self, p=0.5, learned_scale=False):
        super().__init__()
        self.drop = torch.nn.Dropout(p)
        self.scale = torch.nn.Parameter(torch.tensor(0.25)) if learned_scale else 0.25

    def forward(self, q, k, v):
        return self.drop(F.softmax(q @ k.transpose(-2, -1) * self.scale, dim=-1)) @ v


def test_dropout_in_training_is_kept(dynamo_graphs):
    torch.compile(Attention(0.5).train(), backend="tuner")(*qkv(2, 4, 8, 16))
    assert count(dynamo_graphs) == (0, 1)


def test_dropout_in_eval_is_replaced(dynamo_graphs):
    model = Attention(0.5).eval()
    q, k, v = qkv(2, 4, 8, 16)
    assert_close(torch.compile(model, backend="tuner")(q, k, v), model(q, k, v))
    assert count(dynamo_graphs) == (1, 0)


def test_tensor_scale_is_kept(dynamo_graphs):
    model = Attention(0.0, learned_scale=True).eval()
    q, k, v = qkv(2, 4, 8, 16)
    with torch.no_grad():
        assert_close(torch.compile(model, backend="tuner")(q, k, v), model(q, k, v))
    assert count(dynamo_graphs) == (0, 1)


def test_setting_off(dynamo_graphs, monkeypatch):
    monkeypatch.setenv("TUNER_ATTENTION_PATTERNS", "0")
    q, k, v = qkv(2, 4, 8, 16)
    assert_close(torch.compile(scale_after, backend="tuner")(q, k, v), scale_after(q, k, v))
    assert not dynamo_graphs and not stats.attention_patterns


def test_replacements_are_logged_under_decisions(monkeypatch, capsys):
    monkeypatch.setenv("TUNER_LOGS", "decisions")
    torch.compile(scale_after, backend="tuner")(*qkv(2, 4, 8, 16))
    assert "scaled_dot_product_attention" in capsys.readouterr().err


# --------------------------------------------------------------------------- transformers

def _tiny(kind):
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    if kind == "gpt2":
        cfg = transformers.GPT2Config(vocab_size=100, n_positions=64, n_embd=32, n_layer=2,
                                      n_head=4, n_inner=64, resid_pdrop=0.0, embd_pdrop=0.0,
                                      attn_pdrop=0.0, attn_implementation="eager")
        model = transformers.GPT2LMHeadModel(cfg)
    elif kind == "bloom":
        cfg = transformers.BloomConfig(vocab_size=100, hidden_size=32, n_layer=2, n_head=4,
                                       hidden_dropout=0.0, attention_dropout=0.0,
                                       attn_implementation="eager")
        model = transformers.BloomModel(cfg)
    elif kind == "deberta-v2":
        cfg = transformers.DebertaV2Config(vocab_size=100, hidden_size=32, num_hidden_layers=2,
                                           num_attention_heads=4, intermediate_size=64,
                                           max_position_embeddings=64, hidden_dropout_prob=0.0,
                                           attention_probs_dropout_prob=0.0,
                                           attn_implementation="eager")
        model = transformers.DebertaV2Model(cfg)
    else:
        cfg = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2,
                                      num_attention_heads=4, intermediate_size=64,
                                      max_position_embeddings=64, hidden_dropout_prob=0.0,
                                      attention_probs_dropout_prob=0.0,
                                      attn_implementation="eager")
        model = transformers.BertModel(cfg)
    assert model.config._attn_implementation == "eager"
    return model.eval()


@pytest.mark.parametrize("kind", ["gpt2", "bert"])
def test_transformers_eager_attention(dynamo_graphs, kind):
    out, ref = hf_compiled_and_eager(_tiny(kind), padded=kind == "bert")
    key = "logits" if kind == "gpt2" else "last_hidden_state"
    assert_close(out[key], ref[key])
    assert count(dynamo_graphs) == (2, 0)   # both layers
    assert stats.attention_patterns == {"graphs": 1, "patterns": 2}
    if kind == "gpt2":   # the causal mask transformers builds is constant: is_causal=True
        assert stats.mask_folds == {"causal": 2}


@pytest.mark.parametrize("kind", ["bloom", "deberta-v2"])
def test_transformers_eager_attention_with_views(dynamo_graphs, kind):
    """BLOOM (alibi.baddbmm on 3-D scores, viewed to 4-D and back) and DeBERTa-v2 (3-D bmm,
    k^T / sqrt(tensor(d)), 4-D fill) with a padding mask: one SDPA call per layer."""
    out, ref = hf_compiled_and_eager(_tiny(kind))
    assert_close(out.last_hidden_state, ref.last_hidden_state)
    assert count(dynamo_graphs) == (2, 0)   # both layers
    assert stats.attention_patterns == {"graphs": 1, "patterns": 2}


def test_transformers_output_attentions_is_kept(dynamo_graphs):
    model = _tiny("bert")
    ids = torch.randint(3, 100, (2, 8), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        out = torch.compile(model, backend="tuner")(input_ids=ids, output_attentions=True)
        ref = model(input_ids=ids, output_attentions=True)
    assert_close(out.attentions, ref.attentions)
    assert count(dynamo_graphs)[0] == 0
