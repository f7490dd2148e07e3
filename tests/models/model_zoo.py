"""Tiny random models (no downloads) and their inputs at two shapes, for tests/models.

Every entry builds a model with a fixed seed and gives the inputs for shape 0 and shape 1:
two batch sizes and, for sequence models, two sequence lengths (CNNs: two resolutions).
The second shape makes dynamo recompile once with dynamic sizes, the code path under test.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

VOCAB = 100
SEQ_SHAPES = [(2, 8), (3, 12)]          # (batch, sequence length)
IMG_SHAPES = [(2, 32), (3, 48)]         # (batch, height = width) for CNNs
IMG_BATCHES = [2, 3]                    # ViT / Mixer: fixed image size, two batch sizes
AUDIO_SHAPES = [(2, 160), (3, 240)]     # (batch, samples) for Wav2Vec2


@dataclass
class Case:
    build: Callable[[], nn.Module | Callable]   # seeded model (or plain function)
    inputs: Callable[[int], dict]               # shape index (0, 1) -> keyword arguments
    train_inputs: Callable[[int], dict] | None = None   # with labels: the model returns .loss
    context: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext
    grad_inputs: tuple = ()                     # plain functions: inputs whose gradients are checked
    notes: str = ""
    extra: dict = field(default_factory=dict)


def _gen(shape_idx):
    return torch.Generator().manual_seed(1234 + shape_idx)


def _ids(shape_idx, shapes=SEQ_SHAPES, vocab=VOCAB):
    b, s = shapes[shape_idx]
    return torch.randint(3, vocab, (b, s), generator=_gen(shape_idx))


# --------------------------------------------------------------------------- Hugging Face
# Two layers, hidden 32, 4 heads, vocab 100, intermediate 64; dropout 0 so that train mode
# is deterministic (eval mode ignores it). Everything else is the library's default
# (attention implementation "sdpa", use_cache=True, ...).

def _hf(cls_name, config_name, **cfg):
    def build():
        import transformers
        torch.manual_seed(0)
        config = getattr(transformers, config_name)(**cfg)
        return getattr(transformers, cls_name)(config)
    return build


def _causal_lm(cls_name, config_name, **cfg):
    return Case(build=_hf(cls_name, config_name, **cfg),
                inputs=lambda i: {"input_ids": _ids(i)},
                train_inputs=lambda i: {"input_ids": _ids(i), "labels": _ids(i)})


_DEC = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, max_position_embeddings=64)

HF_CASES = {
    "llama": _causal_lm("LlamaForCausalLM", "LlamaConfig", num_key_value_heads=2,
                        attention_dropout=0.0, **_DEC),
    "mistral": _causal_lm("MistralForCausalLM", "MistralConfig", num_key_value_heads=2,
                          attention_dropout=0.0, **_DEC),
    "gpt2": _causal_lm("GPT2LMHeadModel", "GPT2Config", vocab_size=VOCAB, n_positions=64,
                       n_embd=32, n_layer=2, n_head=4, n_inner=64, resid_pdrop=0.0,
                       embd_pdrop=0.0, attn_pdrop=0.0),
    "gpt_neox": _causal_lm("GPTNeoXForCausalLM", "GPTNeoXConfig", hidden_dropout=0.0,
                           attention_dropout=0.0, **_DEC),
    "phi": _causal_lm("PhiForCausalLM", "PhiConfig", resid_pdrop=0.0, embd_pdrop=0.0,
                      attention_dropout=0.0, **_DEC),
    # encoder and decoder: the decoder gets its own length (about half the encoder's)
    "t5": Case(build=_hf("T5ForConditionalGeneration", "T5Config", vocab_size=VOCAB, d_model=32,
                         d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
                         relative_attention_num_buckets=8, dropout_rate=0.0,
                         decoder_start_token_id=0, pad_token_id=0, eos_token_id=1),
               inputs=lambda i: {"input_ids": _ids(i),
                                 "decoder_input_ids": _ids(i, [(2, 5), (3, 7)])},
               train_inputs=lambda i: {"input_ids": _ids(i), "labels": _ids(i, [(2, 5), (3, 7)])}),
    # eager attention with tanh logit soft-capping and a sliding-window mask (window 6 < the
    # second shape's 12 tokens), final-logit soft-capping
    "gemma2": Case(build=_hf("Gemma2ForCausalLM", "Gemma2Config", num_key_value_heads=2, head_dim=8,
                             sliding_window=6, attention_dropout=0.0, **_DEC),
                   inputs=lambda i: {"input_ids": _ids(i)}),
    # ALiBi attention bias (baddbmm on a repeated bias, no sdpa): Tensor.repeat decomposed
    "bloom": _causal_lm("BloomForCausalLM", "BloomConfig", vocab_size=VOCAB, hidden_size=32,
                        n_layer=2, n_head=4, hidden_dropout=0.0, attention_dropout=0.0),
    # interleaved rotary embedding (rotate_every_two: x[..., ::2], x[..., 1::2]; its backward is
    # slice_scatter with a step), Tensor.repeat of the sin/cos tables, parallel attn + MLP
    "gptj": _causal_lm("GPTJForCausalLM", "GPTJConfig", vocab_size=VOCAB, n_embd=32, n_layer=2,
                       n_head=4, n_inner=64, rotary_dim=4, n_positions=64, resid_pdrop=0.0,
                       embd_pdrop=0.0, attn_pdrop=0.0),
    # disentangled relative attention (eager, no sdpa): gathers of position logits, clamps
    "deberta_v2": Case(build=_hf("DebertaV2Model", "DebertaV2Config", vocab_size=VOCAB,
                                 hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                 intermediate_size=64, max_position_embeddings=64,
                                 hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
                       inputs=lambda i: {"input_ids": _ids(i)}),
    "bert": Case(build=_hf("BertModel", "BertConfig", vocab_size=VOCAB, hidden_size=32,
                           num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                           max_position_embeddings=64, hidden_dropout_prob=0.0,
                           attention_probs_dropout_prob=0.0),
                 inputs=lambda i: {"input_ids": _ids(i)}),
    "roberta": Case(build=_hf("RobertaModel", "RobertaConfig", vocab_size=VOCAB, hidden_size=32,
                              num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                              max_position_embeddings=66, hidden_dropout_prob=0.0,
                              attention_probs_dropout_prob=0.0),
                    inputs=lambda i: {"input_ids": _ids(i)}),
    "vit": Case(build=_hf("ViTModel", "ViTConfig", image_size=32, patch_size=8, num_channels=3,
                          hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                          intermediate_size=64, hidden_dropout_prob=0.0,
                          attention_probs_dropout_prob=0.0),
                inputs=lambda i: {"pixel_values": torch.randn(IMG_BATCHES[i], 3, 32, 32,
                                                              generator=_gen(i))}),
    # feature extractor: 2 convs (stride 5 then 2): 160 samples -> 15 frames, 240 -> 23
    "wav2vec2": Case(build=_hf("Wav2Vec2Model", "Wav2Vec2Config", hidden_size=32,
                               num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                               conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
                               num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4,
                               hidden_dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
                               feat_proj_dropout=0.0, layerdrop=0.0),
                     inputs=lambda i: {"input_values": torch.randn(*AUDIO_SHAPES[i],
                                                                   generator=_gen(i))}),
    # gated relative position bias: permute, repeat, then a .view that needs repeat's
    # contiguous result (the breadth sweep's WavLM failed to trace before)
    "wavlm": Case(build=_hf("WavLMModel", "WavLMConfig", hidden_size=32, num_hidden_layers=2,
                            num_attention_heads=4, intermediate_size=64, conv_dim=(16, 16),
                            conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                            num_conv_pos_embedding_groups=4, num_buckets=16, max_bucket_distance=64,
                            hidden_dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
                            feat_proj_dropout=0.0, layerdrop=0.0),
                  inputs=lambda i: {"input_values": torch.randn(*AUDIO_SHAPES[i], generator=_gen(i))}),
    # causal depthwise conv1d (padding 3, then [..., :L]) whose sliced output SiLU saves for
    # backward: a forward output with gapped strides; the recurrent selective scan in torch ops
    # (one layer: the scan unrolls over the sequence, slow in the interpreter)
    "mamba": _causal_lm("MambaForCausalLM", "MambaConfig", vocab_size=VOCAB, hidden_size=32,
                        state_size=4, num_hidden_layers=1, expand=2, conv_kernel=4, time_step_rank=4),
    # grouped 1x1 conv1d layers; the all-ones attention mask folds to 0-d comparisons
    "squeezebert": Case(build=_hf("SqueezeBertModel", "SqueezeBertConfig", vocab_size=VOCAB,
                                  hidden_size=32, embedding_size=32, num_hidden_layers=2,
                                  num_attention_heads=4, intermediate_size=64, q_groups=2, k_groups=2,
                                  v_groups=2, post_attention_groups=2, intermediate_groups=2,
                                  output_groups=2, max_position_embeddings=64,
                                  hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
                        inputs=lambda i: {"input_ids": _ids(i)}),
    # Fourier mixing: a cast to complex64 and an FFT (complex ops run in ATen, one by one)
    "fnet": Case(build=_hf("FNetModel", "FNetConfig", vocab_size=VOCAB, hidden_size=32,
                           num_hidden_layers=2, intermediate_size=64, max_position_embeddings=64,
                           hidden_dropout_prob=0.0, use_tpu_fourier_optimizations=False),
                 inputs=lambda i: {"input_ids": _ids(i)}),
    # n-gram streams: stack of chunks of a reshaped transpose (an index offset once read garbage)
    "prophetnet": Case(build=_hf("ProphetNetForConditionalGeneration", "ProphetNetConfig",
                                 vocab_size=VOCAB, hidden_size=32, encoder_ffn_dim=64,
                                 decoder_ffn_dim=64, num_encoder_layers=2, num_decoder_layers=2,
                                 num_encoder_attention_heads=4, num_decoder_attention_heads=4,
                                 max_position_embeddings=64, ngram=2, num_buckets=8,
                                 relative_max_distance=16, dropout=0.0, attention_dropout=0.0,
                                 activation_dropout=0.0),
                       inputs=lambda i: {"input_ids": _ids(i),
                                         "decoder_input_ids": _ids(i, [(2, 5), (3, 7)])}),
    # chunked local attention and reversible layers (a zero-element buffer in its backward
    # once failed the graph); training needs the sequence to fill the axial positions (16)
    "reformer": Case(build=_hf("ReformerModelWithLMHead", "ReformerConfig", vocab_size=VOCAB,
                               hidden_size=32, attention_head_size=8, num_attention_heads=4,
                               feed_forward_size=64, attn_layers=["local", "local"],
                               axial_pos_shape=[4, 4], axial_pos_embds_dim=[16, 16],
                               local_attn_chunk_length=4, max_position_embeddings=16,
                               hidden_dropout_prob=0.0, local_attention_probs_dropout_prob=0.0,
                               is_decoder=True, pad_token_id=0, eos_token_id=2),
                     inputs=lambda i: {"input_ids": _ids(i)},
                     train_inputs=lambda i: {"input_ids": _ids(i, [(2, 16), (3, 16)]),
                                             "labels": _ids(i, [(2, 16), (3, 16)])}),
    "convnext": Case(build=_hf("ConvNextModel", "ConvNextConfig", num_channels=3, patch_size=4,
                               hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1],
                               image_size=32),
                     inputs=lambda i: {"pixel_values": torch.randn(IMG_SHAPES[i][0], 3,
                                                                   IMG_SHAPES[i][1], IMG_SHAPES[i][1],
                                                                   generator=_gen(i))}),
}


# --------------------------------------------------------------------------- timm
# The registered architectures at small resolutions, num_classes=10, random weights.

def _timm(name, **kwargs):
    def build():
        import timm
        torch.manual_seed(0)
        return timm.create_model(name, pretrained=False, num_classes=10, **kwargs)
    return build


def _images(shapes):
    return lambda i: {"x": torch.randn(shapes[i][0], 3, shapes[i][1], shapes[i][1], generator=_gen(i))}


TIMM_CASES = {
    "timm_resnet18": Case(build=_timm("resnet18"), inputs=_images(IMG_SHAPES)),
    "timm_efficientnet_b0": Case(build=_timm("efficientnet_b0"), inputs=_images(IMG_SHAPES)),
    "timm_regnetx_002": Case(build=_timm("regnetx_002"), inputs=_images(IMG_SHAPES)),
    # 32x32 images in 8x8 patches: 16 tokens (+ class token)
    "timm_vit_tiny": Case(build=_timm("vit_tiny_patch16_224", img_size=32, patch_size=8),
                          inputs=_images([(IMG_BATCHES[0], 32), (IMG_BATCHES[1], 32)])),
    # mixer_b16_224 fixes patch_size=16 (a kwarg cannot override it): 32x32 -> 4 tokens
    "timm_mixer_b16": Case(build=_timm("mixer_b16_224", img_size=32),
                           inputs=_images([(IMG_BATCHES[0], 32), (IMG_BATCHES[1], 32)])),
}


# --------------------------------------------------------------------------- plain PyTorch

def _sdpa_causal(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _qkv(i, requires_grad=False):
    b, s = SEQ_SHAPES[i]
    g = _gen(i)
    return {n: torch.randn(b, 4, s, 16, generator=g).requires_grad_(requires_grad) for n in "qkv"}


def _transformer_encoder():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0,
                                       batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=2)


def _lstm():
    torch.manual_seed(0)
    return nn.LSTM(input_size=16, hidden_size=32, num_layers=2, batch_first=True)


def _seq_features(dim):
    return lambda i: {"input": torch.randn(*SEQ_SHAPES[i], dim, generator=_gen(i))}


def _allow_rnn():
    return torch._dynamo.config.patch(allow_rnn=True)   # restored when the test ends


PLAIN_CASES = {
    "sdpa_causal": Case(build=lambda: _sdpa_causal, inputs=_qkv,
                        train_inputs=lambda i: _qkv(i, requires_grad=True), grad_inputs=("q", "k", "v")),
    "transformer_encoder": Case(build=_transformer_encoder, inputs=lambda i: {"src": _seq_features(32)(i)["input"]}),
    "lstm": Case(build=_lstm, inputs=_seq_features(16), context=_allow_rnn),
}

CASES = {**HF_CASES, **TIMM_CASES, **PLAIN_CASES}
INFERENCE = list(CASES)
TRAINING = [name for name, case in CASES.items() if case.train_inputs is not None]


# --------------------------------------------------------------------------- comparison

def flatten(out, prefix="out"):
    """Every tensor in a model output, by path: tensors, tuples, dicts / ModelOutputs, and
    Hugging Face caches (DynamicCache layers' keys and values, EncoderDecoderCache)."""
    if isinstance(out, torch.Tensor):
        return {prefix: out}
    items = {}
    if isinstance(out, dict):          # ModelOutput is an OrderedDict of its non-None fields
        for k, v in out.items():
            items.update(flatten(v, f"{prefix}.{k}"))
    elif isinstance(out, (list, tuple)):
        for j, v in enumerate(out):
            items.update(flatten(v, f"{prefix}[{j}]"))
    elif hasattr(out, "self_attention_cache"):
        items.update(flatten(out.self_attention_cache, f"{prefix}.self_attention_cache"))
        items.update(flatten(out.cross_attention_cache, f"{prefix}.cross_attention_cache"))
    elif hasattr(out, "layers"):
        for j, layer in enumerate(out.layers):
            for k in ("keys", "values"):
                v = getattr(layer, k, None)
                if isinstance(v, torch.Tensor):
                    items[f"{prefix}.layers[{j}].{k}"] = v
    return items


def assert_outputs_close(out, ref, rtol, atol, what=""):
    got, want = flatten(out), flatten(ref)
    assert list(got) == list(want), f"{what}: output structure differs: {list(got)} vs {list(want)}"
    assert want, f"{what}: no tensor in the output"
    for k in want:
        assert got[k].shape == want[k].shape, f"{what} {k}: shape {tuple(got[k].shape)} vs {tuple(want[k].shape)}"
        torch.testing.assert_close(got[k], want[k], rtol=rtol, atol=atol, equal_nan=True,
                                   msg=lambda m, k=k: f"{what} {k}: {m}")
