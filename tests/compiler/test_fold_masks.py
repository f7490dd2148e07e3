"""Constant attention masks folded away before AOTAutograd (compiler/fold.py): a mask built
from constants and sizes is dropped (all true / all zero) or becomes is_causal=True, results
match eager, and a mask that depends on an input's values is never folded."""
import pytest
import torch
import torch.nn.functional as F

import tuner.compiler.stats as stats

from helpers import assert_close, hf_compiled_and_eager



def sdpa_calls(graphs):
    """(attn_mask, is_causal) of every ATen attention call (forward ops) in `graphs`."""
    out = []
    for gm in graphs:
        for node in gm.graph.nodes:
            schema = getattr(node.target, "_schema", None)
            if node.op != "call_function" or schema is None or "backward" in schema.name \
                    or "scaled_dot_product" not in schema.name:
                continue
            names = [a.name for a in schema.arguments]
            args = dict(zip(names, node.args))
            args.update(node.kwargs)
            mask = args.get("attn_mask", args.get("attn_bias"))
            out.append((mask, bool(args.get("is_causal", False))))
    return out


class BertLike(torch.nn.Module):
    """DistilBERT's attention in transformers 4: the caller passes no mask, forward builds one
    of ones and turns it into an additive mask of the dtype's min where it is 0."""

    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.out = torch.nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        b, n, d = x.shape
        if mask is None:
            mask = torch.ones(b, n, device=x.device)
        m = mask[:, None, None, :].expand(b, 1, n, n).to(x.dtype)
        inverted = 1.0 - m
        m = inverted.masked_fill(inverted.to(torch.bool), torch.finfo(x.dtype).min)
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        for _ in range(2):   # two layers sharing one mask
            o = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
            q = o
        return self.out(o.transpose(1, 2).reshape(b, n, d))


def test_all_ones_mask_is_dropped(aten_graphs):
    torch.manual_seed(0)
    model, x = BertLike(), torch.randn(2, 8, 32)
    out = torch.compile(model, backend="tuner")(x)
    assert_close(out, model(x))
    assert stats.mask_folds == {"dropped": 2}
    calls = sdpa_calls(aten_graphs)
    assert calls and all(mask is None and not causal for mask, causal in calls)


def test_dropped_mask_backward_matches_eager(aten_graphs):
    torch.manual_seed(0)
    model = BertLike()
    x = torch.randn(2, 8, 32, requires_grad=True)
    x2 = x.detach().clone().requires_grad_()
    out = torch.compile(model, backend="tuner")(x)
    ref = model(x2)
    assert_close(out, ref)
    out.square().sum().backward()
    ref.square().sum().backward()
    assert_close(x.grad, x2.grad)
    assert stats.mask_folds["dropped"] == 2
    assert all(mask is None for mask, _ in sdpa_calls(aten_graphs))


def test_padding_mask_from_an_input_is_kept(aten_graphs):
    torch.manual_seed(0)
    model, x = BertLike(), torch.randn(2, 8, 32)
    pad = torch.ones(2, 8)
    pad[1, 5:] = 0
    out = torch.compile(model, backend="tuner")(x, pad)
    assert_close(out, model(x, pad))
    assert not stats.mask_folds
    calls = sdpa_calls(aten_graphs)
    assert calls and all(mask is not None for mask, _ in calls)


def test_all_ones_input_mask_is_kept(aten_graphs):
    """A mask passed in is never folded, whatever its values at compile time."""
    torch.manual_seed(0)
    model, x = BertLike(), torch.randn(2, 8, 32)
    f = torch.compile(model, backend="tuner")
    assert_close(f(x, torch.ones(2, 8)), model(x, torch.ones(2, 8)))
    pad = torch.ones(2, 8)
    pad[0, 6:] = 0
    assert_close(f(x, pad), model(x, pad))
    assert not stats.mask_folds


def causal_attention(x):
    n = x.shape[-2]
    mask = torch.ones(n, n, device=x.device).tril().bool()
    return F.scaled_dot_product_attention(x, x * 2, x + 1, mask)


def test_tril_mask_becomes_is_causal(aten_graphs):
    x = torch.randn(2, 3, 8, 16)
    out = torch.compile(causal_attention, backend="tuner")(x)
    assert_close(out, causal_attention(x))
    assert stats.mask_folds == {"causal": 1}
    assert sdpa_calls(aten_graphs) == [(None, True)]


def test_additive_causal_mask_becomes_is_causal(aten_graphs):
    def fn(q, k, v):
        n = q.shape[-2]
        mask = torch.full((n, n), float("-inf")).triu(1)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    q, k, v = torch.randn(3, 2, 4, 8, 16).unbind(0)
    assert_close(torch.compile(fn, backend="tuner")(q, k, v), fn(q, k, v))
    assert stats.mask_folds == {"causal": 1}


def test_causal_mask_with_unequal_lengths_is_kept(aten_graphs):
    def fn(q, kv):
        mask = torch.ones(q.shape[-2], kv.shape[-2]).tril().bool()
        return F.scaled_dot_product_attention(q, kv, kv, mask)
    q, kv = torch.randn(2, 2, 6, 16), torch.randn(2, 2, 8, 16)
    assert_close(torch.compile(fn, backend="tuner")(q, kv), fn(q, kv))
    assert not stats.mask_folds


def test_other_constant_masks_are_kept(aten_graphs):
    def fn(x):
        n = x.shape[-2]
        band = torch.ones(n, n).tril().triu(-2).bool()   # a sliding window, not causal
        return F.scaled_dot_product_attention(x, x, x, band)
    x = torch.randn(2, 2, 8, 16)
    assert_close(torch.compile(fn, backend="tuner")(x), fn(x))
    assert not stats.mask_folds
    assert all(mask is not None for mask, _ in sdpa_calls(aten_graphs))


def test_mask_written_in_place_is_kept(aten_graphs):
    def fn(x):
        n = x.shape[-2]
        mask = torch.ones(n, n, dtype=torch.bool)
        mask[:, 0] = False   # (a write outside the mask's own subgraph)
        return F.scaled_dot_product_attention(x, x, x, mask)
    x = torch.randn(2, 2, 8, 16)
    assert_close(torch.compile(fn, backend="tuner")(x), fn(x))
    assert not stats.mask_folds


def test_random_mask_is_kept(aten_graphs):
    def fn(x):
        n = x.shape[-2]
        return F.scaled_dot_product_attention(x, x, x, torch.rand(n, n) < 2)
    x = torch.randn(2, 2, 8, 16)
    assert_close(torch.compile(fn, backend="tuner")(x), fn(x))
    assert not stats.mask_folds


def test_setting_zero_turns_folding_off(aten_graphs, monkeypatch):
    monkeypatch.setenv("TUNER_FOLD_MAX_ELEMENTS", "0")
    x = torch.randn(2, 3, 8, 16)
    assert_close(torch.compile(causal_attention, backend="tuner")(x), causal_attention(x))
    assert not stats.mask_folds
    assert sdpa_calls(aten_graphs)[0][0] is not None


def test_mask_over_the_bound_is_kept(aten_graphs, monkeypatch):
    monkeypatch.setenv("TUNER_FOLD_MAX_ELEMENTS", "63")   # the mask has 64
    x = torch.randn(2, 3, 8, 16)
    assert_close(torch.compile(causal_attention, backend="tuner")(x), causal_attention(x))
    assert not stats.mask_folds


def test_symbolic_sizes_fold_where_both_assignments_agree(aten_graphs):
    torch.manual_seed(0)
    model = BertLike()
    f = torch.compile(model, backend="tuner", dynamic=True)
    for b, n in [(2, 8), (3, 5)]:
        x = torch.randn(b, n, 32)
        assert_close(f(x), model(x))
    assert stats.mask_folds == {"dropped": 2}
    # a positional mask is kept with symbolic sizes: two sampled sizes cannot prove it
    # causal at every size (see the sliding window below)
    g = torch.compile(causal_attention, backend="tuner", dynamic=True)
    for n in (8, 11):
        x = torch.randn(2, 3, n, 16)
        assert_close(g(x), causal_attention(x))
    assert "causal" not in stats.mask_folds


def test_symbolic_sliding_window_wider_than_the_samples_is_kept(aten_graphs):
    # causal at every length up to the window (both sampled sizes), not past it: a fold to
    # is_causal would attend beyond the window at longer lengths
    def fn(x):
        n = x.shape[-2]
        mask = torch.ones(n, n).tril().triu(-12).bool()
        return F.scaled_dot_product_attention(x, x, x, mask)
    f = torch.compile(fn, backend="tuner", dynamic=True)
    for n in (8, 9, 20):
        x = torch.randn(2, 2, n, 16)
        assert_close(f(x), fn(x))
    assert not stats.mask_folds


def test_symbolic_mask_causal_at_one_size_only_is_kept(aten_graphs):
    def fn(x):
        n = x.shape[-2]
        # causal at n == 8 (the hint), one more diagonal at 9
        mask = torch.ones(n, n).tril(n - 8).bool()
        return F.scaled_dot_product_attention(x, x, x, mask)
    x = torch.randn(2, 2, 8, 16)
    assert_close(torch.compile(fn, backend="tuner", dynamic=True)(x), fn(x))
    assert not stats.mask_folds


def test_folds_are_logged_under_decisions(aten_graphs, monkeypatch, capsys):
    monkeypatch.setenv("TUNER_LOGS", "decisions")
    x = torch.randn(2, 3, 8, 16)
    torch.compile(causal_attention, backend="tuner")(x)
    assert "is_causal=True" in capsys.readouterr().err


def _transformers_major():
    import transformers
    return int(transformers.__version__.split(".")[0])


def _tiny_distilbert():
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    cfg = transformers.DistilBertConfig(vocab_size=100, dim=32, n_layers=2, n_heads=4,
                                        hidden_dim=64, max_position_embeddings=64,
                                        dropout=0.0, attention_dropout=0.0)
    return transformers.DistilBertModel(cfg).eval()


def test_distilbert_without_mask_has_no_mask(aten_graphs):
    """Called with input_ids only: no attention mask reaches ATen (transformers 4 builds an
    all-ones one, which is folded; transformers 5 leaves it out itself) and matches eager."""
    model = _tiny_distilbert()
    ids = torch.randint(3, 100, (2, 8), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        out = torch.compile(model, backend="tuner")(input_ids=ids).last_hidden_state
        ref = model(input_ids=ids).last_hidden_state
    assert_close(out, ref)
    calls = sdpa_calls(aten_graphs)
    assert calls and all(mask is None for mask, _ in calls)
    if _transformers_major() < 5:   # one mask, folded out of both layers' calls
        assert stats.mask_folds == {"dropped": 2}


def test_distilbert_with_padding_mask_is_not_folded(aten_graphs):
    out, ref = hf_compiled_and_eager(_tiny_distilbert())
    assert_close(out.last_hidden_state, ref.last_hidden_state)
    assert not stats.mask_folds
    assert all(mask is not None for mask, _ in sdpa_calls(aten_graphs))


def test_symbolic_mask_using_a_size_as_a_value_is_kept(aten_graphs):
    # all zero at both sampled lengths (8 and 9), not at 12: the size is a value of the mask
    def fn(x):
        n = x.shape[-2]
        mask = torch.zeros(n, n) + torch.clamp(torch.ones(n, n) * n - 11, min=0)
        return F.scaled_dot_product_attention(x, x, x, mask)
    f = torch.compile(fn, backend="tuner", dynamic=True)
    for n in (8, 9, 12):
        x = torch.randn(2, 2, n, 16)
        assert_close(f(x), fn(x))
    assert not stats.mask_folds
