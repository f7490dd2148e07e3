"""Real models with random weights through `backend="tuner"` on CUDA (no downloads).

bf16 inference of GPT-2 small, BERT-base, ResNet-50 and ViT-B/16: a deep bf16 model differs
from its fp32 self whatever compiles it, so each output is compared with a strict-fp32 eager
reference and the tuner's error must stay within a small factor of eager-bf16's own error
(floors for when eager happens to be very close). A 2-layer GPT-2 AMP training step checks
the loss and every parameter's gradient the same way.
"""
import copy
import importlib.util

import pytest
import torch

pytestmark = pytest.mark.gpu

MAX_FACTOR, MAX_FLOOR = 4.0, 1e-2      # on max |out - ref| / max |ref|
NORM_FACTOR, NORM_FLOOR = 3.0, 5e-3    # on ||out - ref|| / ||ref||
GRAD_FACTOR, GRAD_FLOOR = 4.0, 3e-2    # per parameter, norm-relative


@pytest.fixture(autouse=True)
def _fresh_compiler():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
    torch.cuda.empty_cache()


class _strict_fp32:
    """No TF32 anywhere, so the reference is a real fp32 result."""

    def __enter__(self):
        self.saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    def __exit__(self, *exc):
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = self.saved


def _tensor(out):
    if isinstance(out, torch.Tensor):
        return out
    for attr in ("logits", "last_hidden_state"):
        if getattr(out, attr, None) is not None:
            return getattr(out, attr)
    return _tensor(out[0])


def _errors(out, ref):
    out, ref = _tensor(out).float(), _tensor(ref).float()
    assert out.shape == ref.shape, (out.shape, ref.shape)
    assert torch.isfinite(out).all(), "non-finite values in the output"
    diff = out - ref
    return (float(diff.abs().max() / ref.abs().max()), float(diff.norm() / ref.norm()))


def _check_inference(make_model, make_input, *, mode="default", channels_last=False, options=None):
    torch.manual_seed(0)
    ref_model = make_model().eval().cuda()
    model = copy.deepcopy(ref_model).to(torch.bfloat16)
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    ref_model, model = ref_model.to(memory_format=fmt), model.to(memory_format=fmt)

    def prep(x):
        if x.is_floating_point():
            return x.to(torch.bfloat16).contiguous(memory_format=fmt)
        return x

    # The compile sees seed-0 inputs; correctness is judged on seed-1 inputs it never saw.
    x_compile, x_check = make_input(0), make_input(1)
    with torch.no_grad():
        with _strict_fp32():
            ref = _tensor(ref_model(x_check.float() if x_check.is_floating_point() else x_check))
        eager = _tensor(model(prep(x_check)))
        how = {"options": options} if options else {"mode": mode}   # torch takes one of the two
        compiled = torch.compile(lambda x: _tensor(model(x)), backend="tuner", **how)
        compiled(prep(x_compile))
        out = compiled(prep(x_check)).clone()
    e_max, e_norm = _errors(eager, ref)
    t_max, t_norm = _errors(out, ref)
    report = (f"tuner ({mode}) error max {t_max:.3g} norm {t_norm:.3g}; "
              f"eager bf16 max {e_max:.3g} norm {e_norm:.3g}")
    assert t_max <= max(MAX_FACTOR * e_max, MAX_FLOOR), report
    assert t_norm <= max(NORM_FACTOR * e_norm, NORM_FLOOR), report


def _tokens(vocab, batch, seq):
    def make(seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        return torch.randint(0, vocab, (batch, seq), generator=g, device="cuda")
    return make


def _images(batch, size=224):
    def make(seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        return torch.randn(batch, 3, size, size, generator=g, device="cuda")
    return make


@pytest.mark.parametrize("mode", ["default", "max-autotune"])
def test_gpt2_small_bf16_logits_match_eager(mode):
    transformers = pytest.importorskip("transformers")

    def make():
        cfg = transformers.GPT2Config()
        cfg.use_cache = False
        return transformers.GPT2LMHeadModel(cfg)
    _check_inference(make, _tokens(50257, 2, 256), mode=mode)


def test_bert_base_bf16_hidden_states_match_eager():
    transformers = pytest.importorskip("transformers")
    _check_inference(lambda: transformers.BertModel(transformers.BertConfig()),
                     _tokens(30522, 2, 256))


def test_resnet50_bf16_channels_last_logits_match_eager():
    torchvision = pytest.importorskip("torchvision")
    _check_inference(lambda: torchvision.models.resnet50(weights=None), _images(8),
                     channels_last=True)


def test_resnet50_bf16_nchw_with_frozen_batch_norms_matches_eager():
    # freeze folds each eval-mode batch norm into its convolution (compiler/freeze.py), weights
    # computed in float32 from the real values; the layout pass may also go channels-last
    torchvision = pytest.importorskip("torchvision")
    import tuner.compiler.stats as stats
    stats.reset()
    _check_inference(lambda: torchvision.models.resnet50(weights=None), _images(8),
                     options={"freeze": True})
    assert stats.bn_folded == 53, stats.bn_folded


def test_vit_b16_bf16_logits_match_eager():
    if importlib.util.find_spec("torchvision") is not None:
        import torchvision
        def make():
            m = torchvision.models.vit_b_16(weights=None)
            # torchvision zero-initializes the head: all-zero logits would compare as 0/0
            torch.nn.init.normal_(m.heads.head.weight, std=0.02)
            return m
    else:
        timm = pytest.importorskip("timm", reason="neither torchvision nor timm is installed")
        make = lambda: timm.create_model("vit_base_patch16_224", pretrained=False)  # noqa: E731
    _check_inference(make, _images(4))


def test_gpt2_two_layer_amp_training_step_gradients_match_eager():
    transformers = pytest.importorskip("transformers")
    # No dropout: eager and compiled must see the same function, not two random masks.
    cfg = transformers.GPT2Config(n_layer=2, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    cfg.use_cache = False
    torch.manual_seed(0)
    base = transformers.GPT2LMHeadModel(cfg).cuda().train()
    ids = _tokens(cfg.vocab_size, 4, 128)(1)

    def step(model, *, amp, compile_it=False):
        def loss_of(x):
            return model(x, labels=x).loss
        fn = torch.compile(loss_of, backend="tuner") if compile_it else loss_of
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
            loss = fn(ids)
        loss.backward()
        grads = {n: p.grad.detach().float().clone() for n, p in model.named_parameters()
                 if p.grad is not None}
        return float(loss.detach()), grads

    with _strict_fp32():
        ref_loss, ref_grads = step(copy.deepcopy(base), amp=False)
    eager_loss, eager_grads = step(copy.deepcopy(base), amp=True)
    tuner_loss, tuner_grads = step(copy.deepcopy(base), amp=True, compile_it=True)

    assert abs(tuner_loss - ref_loss) <= max(4 * abs(eager_loss - ref_loss), 1e-2 * abs(ref_loss)), \
        (tuner_loss, eager_loss, ref_loss)
    assert tuner_grads.keys() == ref_grads.keys()
    bad = []
    for name, ref in ref_grads.items():
        scale = float(ref.norm()) or 1.0
        e = float((eager_grads[name] - ref).norm()) / scale
        t = float((tuner_grads[name] - ref).norm()) / scale
        if not t <= max(GRAD_FACTOR * e, GRAD_FLOOR):
            bad.append(f"{name}: tuner {t:.3g} eager {e:.3g}")
    assert not bad, "gradients off: " + "; ".join(bad)


def test_sdpa_with_a_computed_49x49_bias_runs_compiled():
    # MaxViT's window attention: a relative-position bias of 49 x 49 per head, computed in the
    # graph, passed to the efficient-attention kernel, which refuses a bias whose strides are
    # not multiples of 8 elements (49 * 49 * 2 = 4802). The graph ran in ATen after its first call.
    import torch.nn.functional as F
    import tuner.compiler.stats as stats
    torch.manual_seed(0)
    q, k, v = (torch.randn(8, 4, 49, 32, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    table = torch.randn(4, 169, device="cuda", dtype=torch.bfloat16)
    idx = torch.randint(0, 169, (49 * 49,), device="cuda")

    def attn(q, k, v, table, idx):
        bias = table[:, idx].view(1, 4, 49, 49) * 0.5
        return F.scaled_dot_product_attention(q, k, v, attn_mask=bias.expand(8, 4, 49, 49))
    stats.reset()
    out = torch.compile(attn, backend="tuner")(q, k, v, table, idx)
    ref = attn(*(t.float() if t.is_floating_point() else t for t in (q, k, v, table, idx)))
    assert not any(g.graph_fallback for g in stats.graphs()), [g.graph_fallback for g in stats.graphs()]
    torch.testing.assert_close(out.float(), ref, atol=2e-2, rtol=2e-2)


def test_sdpa_with_a_computed_mask_stays_symbolic_over_sequence_lengths():
    # GPT-2's padded causal mask at a dynamic length: the efficient-attention kernel's aligned
    # bias was laid out with int() sizes, which sent every new length to a per-shape compile
    import torch.nn.functional as F
    import tuner.compiler.stats as stats
    torch.manual_seed(0)

    def attn(q, k, v, keep):
        n = q.shape[2]
        causal = torch.ones(n, n, device=q.device, dtype=torch.bool).tril()
        mask = torch.where(causal & keep[:, None, None, :], 0.0, -1e4).to(q.dtype)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    cf = torch.compile(attn, backend="tuner")
    stats.reset()
    for n in (37, 50, 61, 70):
        q, k, v = (torch.randn(2, 4, n, 32, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        keep = torch.rand(2, n, device="cuda") > 0.2
        keep[:, 0] = True
        out = cf(q, k, v, keep)
        ref = attn(q.float(), k.float(), v.float(), keep)
        torch.testing.assert_close(out.float(), ref, atol=2e-2, rtol=2e-2)
    graphs = stats.graphs()
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    assert graphs[-1].symbolic and not any(g.graph_fallback for g in graphs)
