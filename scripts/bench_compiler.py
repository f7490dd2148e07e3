#!/usr/bin/env python3
"""Side-by-side benchmark of eager, stock torch.compile and `backend="tuner"`.

Per case (memory-bound kernels with a device copy as the bandwidth ceiling, matmul+epilogue
cases, whole models with random weights) and variant: correctness against an fp32 reference
on fresh inputs first (a variant that errors or mismatches is reported, not timed), then the
first call's seconds and the median time. Each (case, variant) runs in its own subprocess with
fresh compiler caches and a timeout; with --rounds N a case's variants share one process and
are timed interleaved, N rounds, median kept (the way to compare variants: the GPU drifts).
JSON goes to --out after every job, so a run cut short keeps what it measured; the table
printed last compares every variant with eager and with stock default.
"""
from __future__ import annotations

import argparse
import contextlib
import copy as _copy
import dataclasses
import datetime as _dt
import importlib
import importlib.util
import json
import math
import operator as _operator
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable

EPILOG = """examples:
  source scripts/device/env.sh && python3 scripts/bench_compiler.py --out $OUT
  python3 scripts/bench_compiler.py --cases convnextv2_nano,maxvit_tiny \\
      --variants eager,tuner,inductor --rounds 3 --kernel-times 20 --out DIR
  python3 scripts/bench_compiler.py --smoke --cases pointwise,layernorm     # CPU, tiny shapes
  python3 scripts/bench_compiler.py --cases gpt2_eager_s1024,gpt2_eager_s1024_train \\
      --variants eager,inductor,tuner,tuner@attn-off --rounds 3 --out DIR   # issue 52
  python3 scripts/bench_compiler.py --diff-kernels DIR/compiler_X.json tuner inductor"""

SCHEMA = 1
MODES = ("default", "max-autotune", "max-autotune-no-cudagraphs", "reduce-overhead")
DEFAULT_VARIANTS = "eager,inductor,inductor-max-autotune-no-cudagraphs,tuner,tuner-max-autotune"
SMOKE_VARIANTS = "eager,tuner"
STOCK_REFERENCE = "inductor"          # the variant the "vs stock" column compares with
COPY_CASE = "copy"


# Cases: build(smoke, device) runs in the worker and returns a Built (function, inputs, fp32
# reference, the traffic / work it implies).

@dataclasses.dataclass
class Built:
    fn: Callable[..., Any]
    make_inputs: Callable[[int], tuple]          # seed -> inputs; seed 0 compiles, 1 checks
    reference: Callable[[tuple], Any]            # fp32 (or better) result for those inputs
    bytes: int = 0                               # minimal bytes read + written per call
    flops: int = 0
    tol: float = 2e-2                            # error floor, relative to max |reference|
    eager_factor: float = 4.0                    # allowed multiple of eager-bf16's own error
    warmup_ms: int = 50
    rep_ms: int = 300
    note: str = ""


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    group: str                                   # reference | memory | matmul | model
    doc: str
    build: Callable[[bool, str], Built]
    needs: tuple[str, ...] = ()                  # importable packages; missing -> skipped
    eager_only: bool = False


def _torch():
    import torch
    return torch


def _nbytes(*tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


def _upcast(inputs: tuple) -> tuple:
    torch = _torch()
    return tuple(t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t
                 for t in inputs)


def _kernel(fn, shapes_full, shapes_smoke, *, dtype="bfloat16", out_bytes, extra_inputs=None,
            note=""):
    """A Built for a small function of random tensors; the reference runs it in float64."""
    def build(smoke: bool, device: str) -> Built:
        torch = _torch()
        dt = getattr(torch, dtype)
        shapes = shapes_smoke if smoke else shapes_full

        def make_inputs(seed: int) -> tuple:
            g = torch.Generator(device=device).manual_seed(seed)
            ts = tuple(torch.randn(s, generator=g, device=device, dtype=torch.float32).to(dt)
                       for s in shapes)
            return ts + (extra_inputs(ts) if extra_inputs else ())

        probe = make_inputs(0)
        return Built(fn=fn, make_inputs=make_inputs,
                     reference=lambda inputs: fn(*_upcast(inputs)),
                     bytes=_nbytes(*probe) + out_bytes(probe), note=note)
    return build


def _pointwise(x, y):
    torch = _torch()
    return torch.nn.functional.gelu(x) * torch.sigmoid(y) + y


def _layernorm(x, w, b):
    return _torch().nn.functional.layer_norm(x, (x.shape[-1],), w, b, 1e-5)


_softmax = lambda x: _torch().softmax(x.float(), dim=-1)  # noqa: E731 (fp32 from bf16 input)
_sum0, _sum1 = (lambda x: x.sum(dim=0)), (lambda x: x.sum(dim=1))  # noqa: E731
_sum_all = lambda x: x.float().sum()  # noqa: E731


def _copy_build(smoke: bool, device: str) -> Built:
    torch = _torch()
    n = 1 << 14 if smoke else 2 * 8192 * 8192
    src = torch.randn(n, device=device).to(torch.bfloat16)
    dst = torch.empty_like(src)

    def fn(s):
        return dst.copy_(s)
    return Built(fn=fn, make_inputs=lambda seed: (src,), reference=lambda inputs: inputs[0],
                 bytes=2 * _nbytes(src), tol=0.0, note="dst.copy_(src), bf16, the ceiling")


def _ln_params(ts):
    torch = _torch()
    n = ts[0].shape[-1]
    g = torch.Generator(device=ts[0].device).manual_seed(123)
    w = (1 + 0.1 * torch.randn(n, generator=g, device=ts[0].device)).to(ts[0].dtype)
    b = (0.1 * torch.randn(n, generator=g, device=ts[0].device)).to(ts[0].dtype)
    return (w, b)


def _mm_case(m, k, n, smoke_mkn=(64, 48, 40)):
    def fn(a, b, bias):
        return _torch().nn.functional.gelu(a @ b + bias)

    def build(smoke: bool, device: str) -> Built:
        torch = _torch()
        mm, kk, nn = smoke_mkn if smoke else (m, k, n)

        def make_inputs(seed: int) -> tuple:
            g = torch.Generator(device=device).manual_seed(seed)
            a = torch.randn(mm, kk, generator=g, device=device).to(torch.bfloat16)
            b = (torch.randn(kk, nn, generator=g, device=device) / math.sqrt(kk)).to(torch.bfloat16)
            bias = torch.randn(nn, generator=g, device=device).to(torch.bfloat16)
            return a, b, bias

        probe = make_inputs(0)
        return Built(fn=fn, make_inputs=make_inputs,
                     reference=lambda inputs: fn(*_upcast(inputs)),
                     bytes=_nbytes(*probe) + mm * nn * 2, flops=2 * mm * nn * kk,
                     note=f"gelu(a @ b + bias), a {mm}x{kk}, b {kk}x{nn}, bf16")
    return build


def _model_build(make_model, make_input, *, channels_last=False, warmup_ms=200, rep_ms=1000,
                 note=""):
    """Models: a seeded fp32 model is the reference; a bf16 copy is what gets compiled."""
    def build(smoke: bool, device: str) -> Built:
        torch = _torch()
        torch.manual_seed(0)
        ref_model = make_model(smoke).eval().to(device)
        model = _copy.deepcopy(ref_model).to(torch.bfloat16)
        if channels_last:
            ref_model = ref_model.to(memory_format=torch.channels_last)
            model = model.to(memory_format=torch.channels_last)

        def make_inputs(seed: int) -> tuple:
            x = make_input(smoke, device, seed)
            if x.is_floating_point():
                x = x.to(torch.bfloat16)
                if channels_last:
                    x = x.contiguous(memory_format=torch.channels_last)
            return (x,)

        def fn(x):
            return _first_tensor(model(x))

        def reference(inputs):
            (x,) = inputs
            if x.is_floating_point():
                x = x.float()
            # Strict fp32 so the reference is not itself a reduced-precision result.
            with _strict_fp32():
                return _first_tensor(ref_model(x)).float()

        params = sum(p.numel() for p in model.parameters())
        return Built(fn=fn, make_inputs=make_inputs, reference=reference, tol=2e-2,
                     eager_factor=4.0, warmup_ms=warmup_ms, rep_ms=rep_ms,
                     note=f"{note}, {params / 1e6:.1f}M params, bf16")
    return build


_lm_loss = lambda model, ids: model(input_ids=ids, labels=ids).loss  # noqa: E731


def _class_loss(model, images):
    """Cross-entropy against labels drawn from the images' own values (fixed per input)."""
    labels = (images.flatten(1)[:, 0] * 1e4).long().remainder(1000)
    return _torch().nn.functional.cross_entropy(model(images), labels)


def _train_build(make_model, make_input, grad_of, *, loss_of=_lm_loss, channels_last=False,
                 warmup_ms=200, rep_ms=1000, note=""):
    """A training step under bf16 autocast (fp32 weights); its result is `grad_of(model)`, the
    reference the same step in strict fp32 on a copy. `loss_of(model, input)` is the loss (a
    causal LM's own by default)."""
    def build(smoke: bool, device: str) -> Built:
        torch = _torch()
        torch.manual_seed(0)
        fmt = torch.channels_last if channels_last else torch.contiguous_format
        model = make_model(smoke).train().to(device, memory_format=fmt)
        ref_model = _copy.deepcopy(model)

        def make_inputs(seed: int) -> tuple:
            return (make_input(smoke, device, seed).contiguous(memory_format=fmt),)

        def fn(x):
            with torch.enable_grad():
                model.zero_grad(set_to_none=True)
                with torch.autocast(device, dtype=torch.bfloat16):
                    loss = loss_of(model, x)
                loss.backward()
            return grad_of(model)

        def reference(inputs):
            (x,) = inputs
            with _strict_fp32(), torch.enable_grad():
                ref_model.zero_grad(set_to_none=True)
                loss_of(ref_model, x).backward()
            return grad_of(ref_model).float()

        params = sum(p.numel() for p in model.parameters())
        return Built(fn=fn, make_inputs=make_inputs, reference=reference, tol=2e-2,
                     eager_factor=4.0, warmup_ms=warmup_ms, rep_ms=rep_ms,
                     note=f"{note}, {params / 1e6:.1f}M params, fp32 weights, bf16 autocast")
    return build


def _hf(config: str, model: str, smoke_kw: dict, full_kw: dict | None = None, wrap=None, **common):
    """A Hugging Face model of random weights: its config class's defaults or full_kw, tiny
    (smoke_kw) with --smoke; `wrap(model, smoke)` adapts its call (encoder-decoders)."""
    def make(smoke):
        import transformers
        cfg = getattr(transformers, config)(**(smoke_kw if smoke else full_kw or {}), **common)
        m = getattr(transformers, model)(cfg)
        return wrap(m, smoke) if wrap else m
    return make


_GPT2_TINY = dict(n_layer=2, n_embd=64, n_head=2, vocab_size=256, n_positions=64)
_NO_DROPOUT = dict(resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
# the training row: GPT-2 small's first 6 layers (use_cache off: no KV-cache objects in a graph)
_gpt2_6l_train = _hf("GPT2Config", "GPT2LMHeadModel", _GPT2_TINY, dict(n_layer=6), use_cache=False,
                     **_NO_DROPOUT)
# issue 52: the same models with hand-written attention (softmax(q @ k^T) @ v, no SDPA call)
_gpt2_eager = _hf("GPT2Config", "GPT2LMHeadModel", _GPT2_TINY, use_cache=False, attn_implementation="eager")
_gpt2_6l_eager_train = _hf("GPT2Config", "GPT2LMHeadModel", _GPT2_TINY, dict(n_layer=6), use_cache=False,
                           attn_implementation="eager", **_NO_DROPOUT)


_wte_grad, _embed_grad, _conv1_grad = (_operator.attrgetter(f"{m}.weight.grad")
                                       for m in ("transformer.wte", "model.embed_tokens", "conv1"))
_first_conv_grad = lambda m: next(p.grad for p in m.parameters() if p.dim() == 4)   # noqa: E731


@contextlib.contextmanager
def _strict_fp32():
    b = _torch().backends
    saved = (b.cuda.matmul.allow_tf32, b.cudnn.allow_tf32)
    b.cuda.matmul.allow_tf32 = b.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        b.cuda.matmul.allow_tf32, b.cudnn.allow_tf32 = saved


def _first_tensor(out):
    torch = _torch()
    if isinstance(out, torch.Tensor):
        return out
    for attr in ("logits", "last_hidden_state"):
        if getattr(out, attr, None) is not None:
            return getattr(out, attr)
    if isinstance(out, (tuple, list)):
        return _first_tensor(out[0])
    raise TypeError(f"cannot find the output tensor in {type(out).__name__}")


def _tokens(vocab, batch, seq, smoke_vocab, smoke_batch, smoke_seq):
    def make(smoke, device, seed):
        torch = _torch()
        v, b, s = (smoke_vocab, smoke_batch, smoke_seq) if smoke else (vocab, batch, seq)
        g = torch.Generator(device=device).manual_seed(seed)
        return torch.randint(0, v, (b, s), generator=g, device=device)
    return make


def _images(batch, size, smoke_batch, smoke_size):
    def make(smoke, device, seed):
        torch = _torch()
        b, s = (smoke_batch, smoke_size) if smoke else (batch, size)
        g = torch.Generator(device=device).manual_seed(seed)
        return torch.randn(b, 3, s, s, generator=g, device=device)
    return make


_gpt2 = _hf("GPT2Config", "GPT2LMHeadModel", _GPT2_TINY, use_cache=False)
_bert = _hf("BertConfig", "BertModel", dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=2,
                                            intermediate_size=128, vocab_size=256,
                                            max_position_embeddings=64))

# DistilBERT-base (the config's defaults): called with input_ids only, it builds its own
# all-ones mask in transformers 4 (issue 52)
_distilbert = _hf("DistilBertConfig", "DistilBertModel",
                  dict(n_layers=2, dim=64, n_heads=2, hidden_dim=128, vocab_size=256,
                       max_position_embeddings=64))


def _resnet50(smoke):
    import torchvision
    return torchvision.models.resnet50(weights=None)


def _vit(smoke):
    import torchvision
    if smoke:
        return torchvision.models.VisionTransformer(
            image_size=32, patch_size=16, num_layers=2, num_heads=2, hidden_dim=64, mlp_dim=128)
    return torchvision.models.vit_b_16(weights=None)


# GPT-2 small with its default settings (KV cache on: the legacy empty tensor in cat)
_gpt2_defaults = _hf("GPT2Config", "GPT2LMHeadModel", _GPT2_TINY)
_llama8 = _hf("LlamaConfig", "LlamaForCausalLM",
              dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                   num_key_value_heads=2, vocab_size=256),
              dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=8, num_attention_heads=16,
                   num_key_value_heads=16, vocab_size=32000, max_position_embeddings=2048))


def _static_decode(make, batch, prompt, smoke_batch, smoke_prompt):
    """One decode step of a decoder LLM with Hugging Face's static KV cache (issue 48): the
    model reads one new token per row at position `prompt` of a cache prefilled with random
    keys and values, the step `generate(cache_implementation="static")` compiles. The cache
    moves with the model (.to). A step writes its keys and values at each layer's
    `cumulative_length` and advances it (transformers 5): the step moves it back after, so every
    call rewrites the same position (8 one-element updates, the same for every compiler)."""
    def make_model(smoke):
        import torch
        from torch import nn
        from transformers import StaticCache
        model = make(smoke)
        b, p = (smoke_batch, smoke_prompt) if smoke else (batch, prompt)

        class DecodeStep(nn.Module):
            def __init__(self):
                super().__init__()
                self.model = model
                self.cache = StaticCache(config=model.config, max_cache_len=2 * p)
                with torch.no_grad():   # a prefill creates the cache tensors
                    model(input_ids=torch.zeros(b, 1, dtype=torch.long), past_key_values=self.cache,
                          cache_position=torch.arange(1), use_cache=True)
                g = torch.Generator().manual_seed(1)
                for layer in self.cache.layers:
                    for t in (layer.keys, layer.values):
                        t.copy_(torch.randn(t.shape, generator=g))
                    if hasattr(layer, "cumulative_length"):
                        layer.cumulative_length.fill_(p)
                self.register_buffer("position", torch.tensor([p]))

            def _apply(self, fn, recurse=True):
                super()._apply(fn, recurse)
                for layer in self.cache.layers:
                    layer.keys, layer.values = fn(layer.keys), fn(layer.values)
                    layer.device = layer.keys.device   # (where the layer makes its positions)
                    if hasattr(layer, "cumulative_length"):   # (an int64 tensor: only moved)
                        layer.cumulative_length = layer.cumulative_length.to(layer.keys.device)
                return self

            def forward(self, ids):
                out = self.model(input_ids=ids, past_key_values=self.cache, cache_position=self.position,
                                 use_cache=True).logits
                for layer in self.cache.layers:
                    if hasattr(layer, "cumulative_length"):
                        layer.cumulative_length.sub_(ids.shape[1])
                return out
        return DecodeStep()
    return make_model

_LLAMA_1K = (dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, vocab_size=256),
             dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8, num_attention_heads=16,
                  num_key_value_heads=4, vocab_size=32000, max_position_embeddings=2048))
_llama_decode = _hf("LlamaConfig", "LlamaForCausalLM", *_LLAMA_1K)
# issue 50's LLaMA training row: the decode cases' shape, no KV cache
_llama8_1k_train = _hf("LlamaConfig", "LlamaForCausalLM", *_LLAMA_1K, use_cache=False)


def _with_decoder(model, dec_len, start_id):
    """An encoder-decoder model as a function of its encoder input: the decoder reads a fixed
    prompt of dec_len tokens (built inside the graph)."""
    torch = _torch()

    class EncDec(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, x):
            ids = torch.arange(dec_len, device=x.device).expand(x.shape[0], dec_len) + start_id
            kw = {"input_ids": x} if not x.is_floating_point() else {"input_features": x}
            return self.model(**kw, decoder_input_ids=ids).logits
    return EncDec()


def _decoder(dec_len, smoke_dec_len):
    return lambda model, smoke: _with_decoder(model, smoke_dec_len if smoke else dec_len, 5)


_t5_small = _hf("T5Config", "T5ForConditionalGeneration",
                dict(d_model=64, d_ff=128, num_layers=2, num_heads=2, d_kv=32, vocab_size=256),
                dict(d_model=512, d_ff=2048, num_layers=6, num_heads=8, d_kv=64, vocab_size=32128),
                wrap=_decoder(128, 8))
_whisper_small = _hf("WhisperConfig", "WhisperForConditionalGeneration",
                     dict(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                          decoder_attention_heads=2, encoder_ffn_dim=128, decoder_ffn_dim=128,
                          vocab_size=256, num_mel_bins=80, max_source_positions=32, pad_token_id=1,
                          bos_token_id=2, eos_token_id=3, decoder_start_token_id=2),
                     dict(d_model=768, encoder_layers=12, decoder_layers=12, encoder_attention_heads=12,
                          decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072),
                     wrap=_decoder(64, 8))


def _audio(batch, frames, smoke_batch, smoke_frames):
    def make(smoke, device, seed):
        torch = _torch()
        b, n = (smoke_batch, smoke_frames) if smoke else (batch, frames)
        g = torch.Generator(device=device).manual_seed(seed)
        return torch.randn(b, 80, n, generator=g, device=device)
    return make


def _timm(name, **kw):
    def build(smoke):
        import timm
        return timm.create_model(name, pretrained=False, **kw)
    return build


N = 8192
CASES: tuple[Case, ...] = (
    Case(COPY_CASE, "reference", "device copy of 2 x 8192^2 bf16: the bandwidth ceiling",
         _copy_build, eager_only=True),
    Case("pointwise", "memory", "gelu(x) * sigmoid(y) + y, x and y 8192^2 bf16",
         _kernel(_pointwise, [(N, N), (N, N)], [(67, 129), (67, 129)],
                 out_bytes=lambda ts: _nbytes(ts[0]))),
    Case("layernorm", "memory", "LayerNorm over the last dim of 8192x8192 bf16",
         _kernel(_layernorm, [(N, N)], [(33, 96)], extra_inputs=_ln_params,
                 out_bytes=lambda ts: _nbytes(ts[0]))),
    Case("softmax", "memory", "softmax(x.float(), -1), x 8192x8192 bf16, fp32 out",
         _kernel(_softmax, [(N, N)], [(33, 96)], out_bytes=lambda ts: 2 * _nbytes(ts[0]))),
    Case("sum_dim0", "memory", "x.sum(0), x 8192x8192 bf16",
         _kernel(_sum0, [(N, N)], [(96, 33)], out_bytes=lambda ts: _nbytes(ts[0][0]))),
    Case("sum_dim1", "memory", "x.sum(1), x 8192x8192 bf16",
         _kernel(_sum1, [(N, N)], [(33, 96)], out_bytes=lambda ts: _nbytes(ts[0][:, 0]))),
    # x-major sums over many rows into a few channels: a BatchNorm's statistics or a bias
    # gradient at small widths (the looped x-major default runs a few programs for it)
    Case("sum0_65536x256", "memory", "x.sum(0), x 65536x256 bf16",
         _kernel(_sum0, [(65536, 256)], [(96, 33)], out_bytes=lambda ts: _nbytes(ts[0][0]))),
    Case("sum0_50176x512", "memory", "x.sum(0), x 50176x512 bf16",
         _kernel(_sum0, [(50176, 512)], [(96, 33)], out_bytes=lambda ts: _nbytes(ts[0][0]))),
    # lengths no power of two divides: split with a masked last chunk (unsplit before: one
    # program, or a few, looping over every row)
    Case("sum0_65535x64", "memory", "x.sum(0), x 65535x64 bf16 (odd rows)",
         _kernel(_sum0, [(65535, 64)], [(97, 33)], out_bytes=lambda ts: _nbytes(ts[0][0]))),
    Case("sum_all_odd", "memory", "x.float().sum(), x of 2^24 - 1 bf16 elements",
         _kernel(_sum_all, [((1 << 24) - 1,)], [(3001,)], out_bytes=lambda ts: 4)),
    Case("mm_bias_gelu_4096", "matmul", "gelu(a @ b + bias), M=K=N=4096",
         _mm_case(4096, 4096, 4096)),
    Case("mm_bias_gelu_unaligned", "matmul", "gelu(a @ b + bias), M=4095 K=4093 N=4097",
         _mm_case(4095, 4093, 4097, smoke_mkn=(63, 45, 41))),
    Case("mm_bias_gelu_8192x1024x1023", "matmul", "gelu(a @ b + bias), M=8192 K=1023 N=1024",
         _mm_case(8192, 1023, 1024, smoke_mkn=(64, 31, 32))),
    Case("gpt2", "model", "GPT-2 small (GPT2LMHeadModel), batch 8, seq 512, logits",
         _model_build(_gpt2, _tokens(50257, 8, 512, 256, 2, 16), note="GPT-2 small"),
         needs=("transformers",)),
    Case("bert", "model", "BERT-base (BertModel), batch 8, seq 512, last hidden state",
         _model_build(_bert, _tokens(30522, 8, 512, 256, 2, 16), note="BERT-base"),
         needs=("transformers",)),
    Case("distilbert_nomask", "model", "DistilBERT-base (DistilBertModel), batch 16, seq 512, input_ids "
         "only (no attention mask), last hidden state",
         _model_build(_distilbert, _tokens(30522, 16, 512, 256, 2, 16), note="DistilBERT-base"),
         needs=("transformers",)),
    Case("resnet50", "model", "ResNet-50, batch 64, 224x224, channels-last",
         _model_build(_resnet50, _images(64, 224, 1, 64), channels_last=True,
                      note="torchvision ResNet-50"),
         needs=("torchvision",)),
    Case("vit_b16", "model", "ViT-B/16, batch 32, 224x224",
         _model_build(_vit, _images(32, 224, 2, 32), note="ViT-B/16"),
         needs=("torchvision",)),
    # issue 15's training row (scripts/ma_compile_split.py times its compile)
    Case("gpt2_train", "model", "GPT-2 6 layers, AMP training step (forward + backward), batch 8, seq 512, "
         "the embedding's gradient",
         _train_build(_gpt2_6l_train, _tokens(50257, 8, 512, 256, 2, 16), _wte_grad, note="GPT-2 6L"),
         needs=("transformers",)),
    # issue 50's other two training rows
    Case("llama_train", "model", "LLaMA-style 8 layers (hidden 1024, GQA), AMP training step, batch 4, "
         "seq 512, the embedding's gradient",
         _train_build(_llama8_1k_train, _tokens(32000, 4, 512, 256, 2, 16), _embed_grad, note="LLaMA 8L"),
         needs=("transformers",)),
    Case("resnet50_train", "model", "ResNet-50, AMP training step, batch 64, 224x224, channels-last, "
         "the first convolution's gradient",
         _train_build(_resnet50, _images(64, 224, 2, 32), _conv1_grad, loss_of=_class_loss,
                      channels_last=True, note="torchvision ResNet-50"),
         needs=("torchvision",)),
    # issue 52: eager attention replaced by SDPA (compiler/attn_patterns.py); tuner@attn-off is
    # the tuner without that pass
    Case("gpt2_eager_s1024", "model", "GPT-2 small, attn_implementation=\"eager\", batch 4, seq 1024, logits",
         _model_build(_gpt2_eager, _tokens(50257, 4, 1024, 256, 2, 16), note="GPT-2 small, eager attention"),
         needs=("transformers",)),
    Case("gpt2_eager_s1024_train", "model", "GPT-2 6 layers, attn_implementation=\"eager\", AMP training "
         "step (forward + backward), batch 4, seq 1024, the embedding's gradient",
         _train_build(_gpt2_6l_eager_train, _tokens(50257, 4, 1024, 256, 2, 16), _wte_grad,
                      note="GPT-2 6L, eager attention"),
         needs=("transformers",)),
    # the model zoo at real sizes, default settings (issue 12)
    Case("gpt2_defaults", "zoo", "GPT-2 small, default settings (KV cache on), batch 8, seq 512",
         _model_build(_gpt2_defaults, _tokens(50257, 8, 512, 256, 2, 16), note="GPT-2 small"),
         needs=("transformers",)),
    Case("llama8", "zoo", "LLaMA-style, 8 layers, hidden 2048, batch 4, seq 512, logits",
         _model_build(_llama8, _tokens(32000, 4, 512, 256, 2, 16), note="LLaMA 8L"),
         needs=("transformers",)),
    # issue 48: one decode step with a static KV cache (LLaMA-style 8 layers, hidden 1024, GQA)
    *(Case(f"llama_decode_b{b}", "decode", f"LLaMA-style 8L h1024 GQA, one decode step, static cache, "
           f"batch {b}, position 128", _model_build(_static_decode(_llama_decode, b, 128, 2, 8),
                                                    _tokens(32000, b, 1, 256, 2, 1), note="LLaMA 8L decode"),
           needs=("transformers",)) for b in (1, 8, 32)),
    Case("t5_small", "zoo", "T5-small encoder (b8, s512) and decoder (128 tokens), logits",
         _model_build(_t5_small, _tokens(32128, 8, 512, 256, 2, 16), note="T5-small"),
         needs=("transformers",)),
    Case("whisper_small", "zoo", "Whisper-small, batch 4, 30 s of audio, decoder 64 tokens",
         _model_build(_whisper_small, _audio(4, 3000, 1, 64), note="Whisper-small"),
         needs=("transformers",)),
    Case("efficientnet_b0", "zoo", "EfficientNet-B0 (timm), batch 128, 224x224, channels-last",
         _model_build(_timm("efficientnet_b0"), _images(128, 224, 2, 64), channels_last=True,
                      note="EfficientNet-B0"),
         needs=("timm",)),
    # the vision models of issue 16 (bf16 inference, channels-last for the conv nets)
    Case("regnety_016", "vision", "RegNetY-1.6GF (timm), batch 64, 224x224, channels-last",
         _model_build(_timm("regnety_016"), _images(64, 224, 2, 64), channels_last=True,
                      note="RegNetY-1.6GF"),
         needs=("timm",)),
    Case("convnextv2_nano", "vision", "ConvNeXt-V2-nano (timm), batch 64, 224x224, channels-last",
         _model_build(_timm("convnextv2_nano"), _images(64, 224, 2, 64), channels_last=True,
                      note="ConvNeXt-V2-nano"),
         needs=("timm",)),
    Case("swinv2_tiny", "vision", "Swin-V2-tiny (timm swinv2_tiny_window8_256), batch 32, 256x256",
         _model_build(_timm("swinv2_tiny_window8_256"), _images(32, 256, 1, 256), note="Swin-V2-tiny"),
         needs=("timm",)),
    Case("maxvit_tiny", "vision", "MaxViT-tiny (timm maxvit_tiny_tf_224), batch 32, 224x224",
         _model_build(_timm("maxvit_tiny_tf_224"), _images(32, 224, 1, 224), note="MaxViT-tiny"),
         needs=("timm",)),
)
# issue 49: conv nets as users pass them (NCHW model and input), inference and training steps
_NCHW = (("resnext50_32x4d", 64, 224), ("efficientnetv2_rw_s", 64, 288), ("mobilenetv3_large_100", 128, 224),
         ("efficientnet_b0", 128, 224), ("regnety_016", 64, 224), ("convnextv2_nano", 64, 224),
         ("densenet121", 64, 224), ("nf_resnet50", 64, 224))
CASES += tuple(Case(f"nchw_{m}", "layout", f"{m} (timm), batch {b}, {r}x{r}, NCHW as users pass it",
                    _model_build(_timm(m), _images(b, r, 2, 64), note=m), needs=("timm",)) for m, b, r in _NCHW)
CASES += tuple(Case(f"nchw_train_{m}", "layout", f"{m} (timm), AMP training step, batch {b // 2}, {r}x{r}, "
                    "NCHW, the first convolution's gradient",
                    _train_build(_timm(m), _images(b // 2, r, 2, 64), _first_conv_grad, loss_of=_class_loss,
                                 note=m), needs=("timm",)) for m, b, r in _NCHW)
CASE_BY_NAME = {c.name: c for c in CASES}
GROUPS = ("memory", "matmul", "model", "zoo", "vision", "decode", "layout")


def _missing(needs: tuple[str, ...]) -> list[str]:
    return [n for n in needs if importlib.util.find_spec(n) is None]


# -- Variants.

# variant suffixes, an environment while it compiles and takes its first calls:
# "tuner@no-heuristics" (no learned module answers), "@mm-extern" (every matmul on ATen),
# "@keep-layout" / "@channels-last" (the layout point forced: issue 49's comparison), "@save-all"
# (training graphs split saving every value the backward reads: issue 50's comparison), "@freeze"
# (frozen parameters: eval-mode batch norms folded into their convolutions, issue 49),
# "@attn-off" (hand-written attention kept as written, not SDPA: issue 52's "ours today"),
# "@gqa" / "@sdpa" (decode attention forced: issue 48), "@triton-launch" (no static launcher)
SUFFIXES = {"no-heuristics": {"TUNER_HEURISTICS": "off"}, "mm-extern": {"TUNER_MM": "extern"},
            "keep-layout": {"TUNER_LAYOUT": "keep"}, "channels-last": {"TUNER_LAYOUT": "channels_last"},
            "save-all": {"TUNER_PARTITIONER": "default"}, "freeze": {"TUNER_FREEZE": "1"},
            "attn-off": {"TUNER_ATTENTION_PATTERNS": "0"}, "gqa": {"TUNER_GQA_DECODE": "gqa"},
            "triton-launch": {"TUNER_STATIC_LAUNCH": "0"}, "sdpa": {"TUNER_GQA_DECODE": "sdpa"}}


@dataclasses.dataclass(frozen=True)
class Variant:
    name: str
    backend: str            # "eager" or a dynamo backend name
    mode: str               # one of MODES
    env: tuple = ()         # (variable, value) set while it compiles and takes its first calls

    @staticmethod
    def parse(name: str) -> "Variant":
        base, _, suffix = name.strip().partition("@")
        backend, _, mode = base.partition("-")
        mode = mode or "default"
        if suffix and suffix not in SUFFIXES:
            raise ValueError(f"variant {name!r}: unknown suffix @{suffix}; valid: "
                             + ", ".join(f"@{k}" for k in SUFFIXES))
        if not backend:
            raise ValueError(f"empty variant name in {name!r}")
        if mode not in MODES:
            raise ValueError(f"variant {name!r}: mode {mode!r} is not one of {', '.join(MODES)}")
        if backend == "eager" and mode != "default":
            raise ValueError(f"variant {name!r}: eager has no modes")
        return Variant(name.strip(), backend, mode, tuple(SUFFIXES.get(suffix, {}).items()))


def _compile(fn, variant: Variant):
    torch = _torch()
    if variant.backend == "eager":
        return fn
    mode = None if variant.mode == "default" else variant.mode    # None: torch.compile's default
    if variant.env and variant.backend == "tuner":
        # a backend object of its own, or dynamo reuses the code of the variant without the suffix
        from tuner.compiler.backend import tuner_backend

        def backend(gm, example_inputs):
            return tuner_backend(gm, example_inputs, mode=mode)
        return torch.compile(fn, backend=backend)
    return torch.compile(fn, backend=variant.backend, mode=mode)


def _unknown_backends(variants: list[str]) -> list[str]:
    import torch._dynamo
    known = set(torch._dynamo.list_backends(exclude_tags=())) | {"eager", "inductor", "tuner"}
    return sorted({Variant.parse(v).backend for v in variants} - known)


def _stats():
    """The compiler's stats module (kernels generated, externs, ...), or None without it."""
    try:
        return importlib.import_module("tuner.compiler.stats")
    except ImportError:
        return None


def _read_stats(stats) -> Any:
    """Stats summed over the graphs compiled since the last reset, as plain JSON."""
    try:
        d = stats.totals().as_dict()
        d["graphs"] = len(stats.graphs())
        d["attention_patterns"] = dict(stats.attention_patterns)   # (SDPA calls made: issue 52)
        return json.loads(json.dumps(d, default=str))
    except Exception as e:   # stats are a bonus; never fail a measurement over them
        return {"error": f"{type(e).__name__}: {e}"}


# -- Worker: variants of one case in this process.

def _sync(device: str) -> None:
    if device == "cuda":
        _torch().cuda.synchronize()


def _peak_mib(fn) -> tuple:
    """MiB a warm call allocates at its peak above what was allocated before it (no weights, no
    CUDA graph pools), all allocated then (those too: one variant's alone with --rounds 1), and
    all reserved then (CUDA graph pools whole: stock cudagraph trees count little of theirs as
    allocated), in a loop's steady state: cached blocks emptied, then 20 calls (the first meet
    inputs at new addresses; CUDA graphs record those and drop the patterns left unused)."""
    torch = _torch()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    for _ in range(20):
        fn()   # (its result dropped at once)
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    fn()   # (the peak is the maximum: a result dropped at once changes nothing)
    torch.cuda.synchronize()
    peak, reserved = torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved()
    return (peak - base) / 2**20, peak / 2**20, reserved / 2**20


def _median_ms(fn, device: str, warmup_ms: int, rep_ms: int, smoke: bool) -> float:
    if device == "cuda":
        from triton.testing import do_bench
        return float(do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="median"))
    fn()
    times = []
    for _ in range(3 if smoke else 10):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def kernel_times(fn, calls: int = 10, top: int = 60, labels: dict | None = None) -> list:
    """[name, GPU us per call, launches per call, the tuner's label or ""] of each kernel `fn`
    launches, the `top` largest first, from torch.profiler over `calls` calls."""
    torch = _torch()
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    totals: dict[str, list] = {}
    for ev in prof.events():
        if ev.device_type != torch.autograd.DeviceType.CUDA:
            continue
        t = totals.setdefault(ev.name, [0.0, 0])
        t[0] += ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total
        t[1] += 1
    labels = labels or {}
    rows = sorted(([n, round(us / calls, 2), round(k / calls, 2), labels.get(n, "")]
                   for n, (us, k) in totals.items()), key=lambda r: -r[1])
    return rows[:top]


def diff_kernel_times(a: list, b: list, top: int = 20) -> list:
    """[name, us a, us b, b - a] for the kernels whose per-call time differs most between two
    rows' kernel_us lists (a kernel one side does not launch counts 0 there)."""
    ta, tb = {r[0]: r[1] for r in a}, {r[0]: r[1] for r in b}
    rows = [[n, ta.get(n, 0.0), tb.get(n, 0.0), round(tb.get(n, 0.0) - ta.get(n, 0.0), 2)]
            for n in set(ta) | set(tb)]
    return sorted(rows, key=lambda r: -abs(r[3]))[:top]


def _print_kernel_diff(path: str, a: str, b: str) -> int:
    rows = json.loads(Path(path).read_text()).get("results", [])
    found = 0
    for case in dict.fromkeys(r.get("case") for r in rows):
        by = {r.get("variant"): r for r in rows if r.get("case") == case}
        if a in by and b in by and "kernel_us" in by[a] and "kernel_us" in by[b]:
            found += 1
            ka, kb = by[a]["kernel_us"], by[b]["kernel_us"]
            print(f"{case}: {a} {sum(r[1] for r in ka):.1f} us, {b} {sum(r[1] for r in kb):.1f} us "
                  "per call (kernels listed)")
            label = {r[0]: r[3] for r in ka + kb if len(r) > 3 and r[3]}
            for name, ua, ub, d in diff_kernel_times(ka, kb):
                what = f"  ({label[name][:100]})" if name in label else ""
                print(f"  {d:+9.2f}  {ua:9.2f} {ub:9.2f}  {name[:100]}{what}")
    if not found:
        print(f"no case in {path} has kernel_us for both {a} and {b}", file=sys.stderr)
        return 2
    return 0


def _errors(out, ref) -> tuple[float, float]:
    """(max abs error, max abs error / max |reference|); inf when out has NaN/inf ref lacks."""
    torch = _torch()
    out = _first_tensor(out).float()
    ref = _first_tensor(ref).float()
    if out.shape != ref.shape:
        raise AssertionError(f"output shape {tuple(out.shape)} != reference {tuple(ref.shape)}")
    diff = (out - ref).abs()
    max_abs = float(diff.max()) if diff.numel() else 0.0
    if not math.isfinite(max_abs) or (diff.numel() and bool(torch.isnan(diff).any())):
        max_abs = math.inf
    scale = float(ref.abs().max()) if ref.numel() else 0.0
    return max_abs, (max_abs / scale if scale > 0 else max_abs)


def _variant_record(case: Case, variant: Variant) -> dict:
    """A row's identity; its status is already set when the variant cannot run here."""
    rec: dict[str, Any] = {"case": case.name, "group": case.group, "variant": variant.name,
                           "backend": variant.backend, "mode": variant.mode}
    missing = _missing(case.needs)
    if missing:
        return {**rec, "status": "skipped",
                "note": "missing package: " + ", ".join(missing)}
    if variant.backend == "tuner" and importlib.util.find_spec("tuner.compiler.backend") is None:
        return {**rec, "status": "skipped", "note": "tuner.compiler.backend does not exist yet"}
    if variant.backend == "tuner":
        import tuner      # which copy of the code is measured: a checkout layout or a wheel
        rec["tuner_path"] = str(Path(tuner.__file__).parent)
    return rec


def _variant_env(variant: Variant):
    """The variant's suffix environment (tuner.settings.environ) while it compiles and takes
    its first calls; nothing for a plain variant."""
    if not variant.env:
        return contextlib.nullcontext()
    from tuner.settings import environ
    return environ(dict(variant.env))


def _compile_and_check(rec: dict, built: Built, variant: Variant, inputs0: tuple, inputs1: tuple,
                       eager_rel: float, device: str):
    """Compiles one variant (its first call is compile_s) and checks it on inputs1: (compiled
    function, the tuner's kernel labels), or None with rec's status set to mismatch."""
    stats = _stats() if variant.backend == "tuner" else None
    if stats is not None:
        stats.reset()
    with _variant_env(variant):
        compiled = _compile(built.fn, variant)
        _sync(device)
        t0 = time.perf_counter()
        compiled(*inputs0)
        _sync(device)
        rec["compile_s"] = time.perf_counter() - t0
        out = compiled(*inputs1)
        _sync(device)
    labels = {}
    if stats is not None:
        rec["tuner_stats"] = _read_stats(stats)
        labels = dict(stats.totals().kernel_labels)

    ref = built.reference(inputs1)
    max_abs, rel = _errors(out, ref)
    del ref, out
    tol = max(built.tol, built.eager_factor * eager_rel)
    rec.update(max_abs_err=max_abs, rel_err=rel, tol=tol)
    if not rel <= tol:
        rec.update(status="mismatch", note=f"error {rel:.3g} of output scale > tolerance {tol:.3g}")
        return None
    return compiled, labels


def run_case(case_name: str, variant_names: list[str], smoke: bool, device: str,
             rounds: int = 1, progress=None, kernel_calls: int = 0) -> list[dict]:
    """Variants of one case in this process, a row each: built once, every variant compiled and
    checked, then timed in `rounds` interleaved rounds (ms: the median). progress(recs) runs
    after each compile and round, so a worker that dies later keeps the rows so far. No
    dynamo reset between variants: it would drop the code compiled for the earlier ones."""
    case = CASE_BY_NAME[case_name]
    variants = [Variant.parse(v) for v in variant_names]
    recs = [_variant_record(case, v) for v in variants]
    todo = [(rec, v) for rec, v in zip(recs, variants) if "status" not in rec]
    if not todo:
        return recs
    torch = _torch()
    torch.manual_seed(0)
    # Each compiled variant adds its entries to the same code objects; each keeps dynamo's
    # usual recompile allowance (past it dynamo would quietly run that variant eagerly).
    n_compiled = sum(v.backend != "eager" for _, v in todo)
    limit = torch._dynamo.config.recompile_limit * max(1, n_compiled)
    with torch.no_grad(), torch._dynamo.config.patch(recompile_limit=limit):
        built = case.build(smoke, device)
        inputs0, inputs1 = built.make_inputs(0), built.make_inputs(1)

        # Correctness on inputs the compile never saw: eager-bf16's own error is the yardstick.
        ref = built.reference(inputs1)
        eager_abs, eager_rel = _errors(built.fn(*inputs1), ref)
        del ref

        ready = []
        for rec, variant in todo:
            rec.update(bytes=built.bytes, flops=built.flops, note=built.note,
                       eager_max_abs_err=eager_abs, eager_rel_err=eager_rel)
            if len(todo) > 1 and variant.backend != "eager":
                folder = _fresh_caches(variant.name)
                if folder is not None:
                    rec["cache_dir"] = folder
            try:
                checked = _compile_and_check(rec, built, variant, inputs0, inputs1, eager_rel,
                                             device)
            except Exception as e:
                traceback.print_exc()
                rec.update(status="error", note=_short_error(e))
                continue
            if checked is not None:
                ready.append((rec, *checked))
            if progress is not None:
                progress(recs)

        for _ in range(rounds):
            for rec, compiled, _ in ready:
                if "status" in rec:      # failed while timing in an earlier round
                    continue
                try:
                    ms = _median_ms(lambda: compiled(*inputs0), device, built.warmup_ms,
                                    built.rep_ms, smoke)
                except Exception as e:
                    traceback.print_exc()
                    rec.pop("ms_rounds", None)
                    rec.update(status="error", note="while timing: " + _short_error(e))
                    continue
                rec.setdefault("ms_rounds", []).append(ms)
            if progress is not None:
                progress(recs)

        if device == "cuda":   # the call's own peak: above what was allocated before it, and all
            census = lambda: importlib.import_module("tuner.compiler.cudagraphs").census()  # noqa: E731
            for rec, compiled, _ in ready:
                if "status" not in rec:   # (census: every live graph's; one variant: --rounds 1)
                    before = census() if rec["backend"] == "tuner" else None
                    rec["peak_mib"], rec["peak_total_mib"], rec["peak_reserved_mib"] = \
                        _peak_mib(lambda: compiled(*inputs0))
                    rec["cudagraphs"] = before and [before, census()]   # around one call
            if progress is not None:
                progress(recs)

        if kernel_calls > 0 and device == "cuda":
            for rec, compiled, labels in ready:
                if "status" not in rec:
                    try:
                        rec["kernel_us"] = kernel_times(lambda: compiled(*inputs0), kernel_calls,
                                                        labels=labels)
                    except Exception as e:   # a profile that fails leaves the timing standing
                        rec["kernel_us_error"] = _short_error(e)
            if progress is not None:
                progress(recs)

    for rec, _, _ in ready:
        if "status" not in rec:
            ms_rounds = rec.pop("ms_rounds")
            rec["ms"] = statistics.median(ms_rounds)
            if rounds > 1:
                rec["ms_rounds"] = ms_rounds
            rec["status"] = "ok"
    return recs


def _short_error(e: BaseException, limit: int = 300) -> str:
    text = f"{type(e).__name__}: {e}".strip().replace("\n", " | ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- Parent: runs the workers, derives the comparisons, writes JSON, prints the table.

def _env_info(device: str, smoke: bool) -> dict:
    import torch
    cuda = device == "cuda"
    info: dict[str, Any] = {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                            "host": platform.node(), "python": platform.python_version(),
                            "device": device, "smoke": smoke, "torch": torch.__version__,
                            "cuda": torch.version.cuda, "gpu": torch.cuda.get_device_name() if cuda else None}
    if cuda:
        info["capability"] = ".".join(map(str, torch.cuda.get_device_capability()))
    for mod in ("triton", "tuner", "transformers", "torchvision", "timm"):
        try:
            info[mod] = importlib.import_module(mod).__version__
        except Exception:
            info[mod] = None
    return info


ROOT = Path(__file__).resolve().parent.parent


def lay_out_checkout(dest: Path) -> Path:
    """Makes the checkout importable as one `tuner` package under dest, entry point included
    (setup.py's folder mapping, pyproject.toml's entry points): workers measure this code."""
    import ast
    folders = {"tuner": "tuner"}
    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "FOLDERS" for t in node.targets):
            folders = ast.literal_eval(node.value)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package, folder in sorted(folders.items()):     # "tuner" before "tuner.cache"
        shutil.copytree(ROOT / folder, dest.joinpath(*package.split(".")), ignore=ignore,
                        dirs_exist_ok=True)
    version, entry_points = "0+checkout", {
        "torch_dynamo_backends": {"tuner": "tuner.compiler.backend:tuner_backend"}}
    try:
        import tomllib
        project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
        version = project["version"] + "+checkout"
        entry_points = project.get("entry-points", entry_points)
    except Exception:
        pass
    info = dest / f"tuner-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: tuner\nVersion: {version}\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n"
        for group, eps in entry_points.items()))
    return dest


def _git_commit() -> str | None:
    """HEAD's short hash, "-dirty" when the tracked files differ from it."""
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=7"], cwd=ROOT,
                             text=True, capture_output=True, timeout=10)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _worker_env(args, tmp: Path) -> dict:
    env = dict(os.environ)
    if args.code_dir:
        env["PYTHONPATH"] = str(args.code_dir) + (
            os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONUNBUFFERED"] = "1"
    if args.device == "cpu":       # Triton kernels on CPU tensors run in the interpreter
        env["TRITON_INTERPRET"] = "1"
    if args.caches == "cold":
        # Compile times are cold-start numbers: nothing reused from earlier variants or runs
        # (a worker timing several variants gives each its own folders: _fresh_caches)
        for var, sub in _CACHE_VARS:
            env[var] = str(tmp / sub)
        env["BENCH_COMPILER_COLD_ROOT"] = str(tmp)
    return env


_CACHE_VARS = (("TORCHINDUCTOR_CACHE_DIR", "inductor"), ("TRITON_CACHE_DIR", "triton"),
               ("TUNER_CACHE_DIR", "tuner"))


def _fresh_caches(variant: str) -> str | None:
    """With cold caches, new cache folders (and no in-process template memory) for this variant
    of a case, so it reuses no kernel or decision of an earlier one; the folder, or None."""
    root = os.environ.get("BENCH_COMPILER_COLD_ROOT")
    if not root:
        return None
    folder = Path(root) / variant
    for var, sub in _CACHE_VARS:
        os.environ[var] = str(folder / sub)
    try:
        from tuner.cache import reset_cache
        from tuner.points.triton_kernel import forget_templates
        reset_cache()
        forget_templates()
    except ImportError:
        pass
    return str(folder)


def _run_job(args, case: Case, variants: list[str], timeout_s: float, log) -> list[dict]:
    """Variants of one case (one variant, or all with --rounds > 1) in one worker process, or in
    this one with --isolation inprocess; a row per variant."""
    def failed(status: str, note: str, **extra) -> list[dict]:
        return [{"case": case.name, "group": case.group, "variant": v, "status": status,
                 "note": note, **extra} for v in variants]

    if args.isolation == "inprocess":
        try:
            import torch
            torch._dynamo.reset()
            return run_case(case.name, variants, args.smoke, args.device, args.rounds,
                            kernel_calls=args.kernel_times)
        except Exception as e:
            traceback.print_exc()
            return failed("error", _short_error(e))
    with tempfile.TemporaryDirectory(prefix="bench_compiler_") as tmp:
        result_path = Path(tmp) / "result.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--_worker", case.name,
               ",".join(variants), "--rounds", str(args.rounds), "--_result", str(result_path),
               "--device", args.device, "--kernel-times", str(args.kernel_times)]
        if args.smoke:
            cmd.append("--smoke")
        t0 = time.perf_counter()
        # Its own process group, so a timeout also ends the compile workers it started.
        proc = subprocess.Popen(cmd, env=_worker_env(args, Path(tmp)), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
            out, _ = proc.communicate()
        _kill_group(proc.pid)          # stragglers of a worker that exited on its own
        log.write(out or "")
        wall = time.perf_counter() - t0
        tail = " | ".join((out or "").strip().splitlines()[-3:])
        status, note = (("timeout", f"no result within {timeout_s:.0f} s") if timed_out else
                        ("crashed", f"worker exited with {proc.returncode}: {tail[-300:]}"))
        if not result_path.exists():
            return failed(status, note, wall_s=wall)
        recs = json.loads(result_path.read_text())
        if timed_out or proc.returncode != 0:
            recs = [_finish_partial(rec, status, note) for rec in recs]
        return [{**rec, "wall_s": wall} for rec in recs]


def _finish_partial(rec: dict, status: str, note: str) -> dict:
    """A row saved before the worker was cut off: timed rounds keep their median, else the
    worker's fate."""
    if "status" in rec:
        return rec
    done = rec.pop("ms_rounds", None)
    if done:
        return {**rec, "status": "ok", "ms": statistics.median(done), "ms_rounds": done,
                "note": f"{len(done)} round(s) timed before the worker's {status}: {note}"}
    return {**rec, "status": status, "note": note}


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def derive(results: list[dict]) -> None:
    """Fills speedup, bandwidth, % of copy and the gap to stock default from raw timings."""
    ok = {(r["case"], r["variant"]): r for r in results if r.get("status") == "ok"}
    copy = ok.get((COPY_CASE, "eager"))
    copy_gbps = copy["bytes"] / copy["ms"] / 1e6 if copy else None
    for r in results:
        if r.get("status") != "ok":
            continue
        ms = r["ms"]
        eager = ok.get((r["case"], "eager"))
        stock = ok.get((r["case"], STOCK_REFERENCE))
        r["speedup"] = eager["ms"] / ms if eager else None
        r["vs_stock"] = ms / stock["ms"] - 1 if stock and r["variant"] != STOCK_REFERENCE else None
        if r.get("bytes") and r["group"] in ("memory", "reference"):
            r["gbps"] = r["bytes"] / ms / 1e6
            r["frac_copy"] = r["gbps"] / copy_gbps if copy_gbps else None
        if r.get("flops"):
            r["tflops"] = r["flops"] / ms / 1e9


def _kernels_externs(st) -> str:
    """Triton kernels generated / extern calls, from the tuner compiler's stats."""
    if not isinstance(st, dict) or "kernels" not in st:
        return "-"
    ext = st.get("externs")
    n_ext = sum(ext.values()) if isinstance(ext, dict) else ext
    return f"{st['kernels']}/{n_ext if n_ext is not None else '?'}"


def _fmt(v, spec, missing="-"):
    return missing if v is None else format(v, spec)


def table(results: list[dict]) -> str:
    rounds = any(r.get("ms_rounds") for r in results)    # --rounds > 1: their range too
    head = ["case", "variant", "status", "ms", *(["min-max"] if rounds else []), "speedup",
            "GB/s|TF/s", "%copy", "peak MiB", "compile s", "rel err", "vs stock", "kern/ext"]
    rows = []
    for r in results:
        ok = r.get("status") == "ok"
        thru = (_fmt(r.get("gbps"), ".0f") if r.get("gbps") else
                _fmt(r.get("tflops"), ".1f") if r.get("tflops") else "-")
        spread = (f"{min(r['ms_rounds']):.3f}-{max(r['ms_rounds']):.3f}"
                  if ok and r.get("ms_rounds") else "-")
        rows.append([
            r["case"], r["variant"], r.get("status", "?"),
            _fmt(r.get("ms"), ".3f") if ok else "-",
            *([spread] if rounds else []),
            _fmt(r.get("speedup"), ".2f") if ok else "-",
            thru if ok else "-",
            _fmt(r.get("frac_copy") and 100 * r["frac_copy"], ".0f") if ok else "-",
            _fmt(r.get("peak_mib"), ".0f") if ok else "-",
            _fmt(r.get("compile_s"), ".1f"),
            _fmt(r.get("rel_err"), ".1e"),
            (f"{100 * r['vs_stock']:+.0f}%" if ok and r.get("vs_stock") is not None else "-"),
            _kernels_externs(r.get("tuner_stats")),
        ])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)) for row in [head, *rows]]
    notes = [f"  {r['case']}/{r['variant']}: {r['status']}: {r.get('note', '')}"
             for r in results if r.get("status") != "ok"]
    legend = (("ms: median of the interleaved rounds, min-max: their range; " if rounds else "")
              + "speedup: eager ms / ms; vs stock: ms / stock default (inductor) ms - 1, "
              "negative is faster; rel err: max |out - fp32 ref| / max |ref| on fresh inputs; "
              "peak MiB: a warm call's peak allocation above what was allocated before it; "
              "kern/ext: tuner Triton kernels / extern calls")
    return "\n".join(lines + ([legend] if rows else []) + (["notes:"] + notes if notes else []))


def _write_json(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1, default=str))
    os.replace(tmp, path)       # a reader never sees a half-written file


def _select(spec: str) -> list[Case]:
    names: list[str] = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        if part == "all":
            names += [c.name for c in CASES if c.group != "reference"]
        elif part in GROUPS:
            names += [c.name for c in CASES if c.group == part]
        elif part in CASE_BY_NAME:
            names.append(part)
        else:
            raise ValueError(f"unknown case {part!r}; known: {', '.join(CASE_BY_NAME)}, "
                             f"groups: all, {', '.join(GROUPS)}")
    if any(CASE_BY_NAME[n].group == "memory" for n in names) and COPY_CASE not in names:
        names.insert(0, COPY_CASE)     # the bandwidth ceiling belongs to the same run
    return [CASE_BY_NAME[n] for n in dict.fromkeys(names)]


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    arg = ap.add_argument
    arg("--cases", default="all", help="comma list of case names (--list) or groups: all, "
        + ", ".join(GROUPS) + "; a memory case brings the copy reference (default all)")
    arg("--variants", help=f"comma list: eager, or BACKEND[-MODE][@SUFFIX], MODE one of {', '.join(MODES)}, "
        f"SUFFIX one of {', '.join(SUFFIXES)} (default {DEFAULT_VARIANTS}; --smoke: {SMOKE_VARIANTS})")
    arg("--out", default="bench/results", help="folder for the JSON results (default bench/results)")
    arg("--budget-s", type=float, help="start no job after this many seconds")
    arg("--timeout-s", type=float, default=420.0, help="per (case, variant); a worker past it is "
        "killed and reported (default 420)")
    arg("--rounds", type=int, default=1, help="N > 1: a case's variants in one process, compiled "
        "and checked first, then timed in N interleaved rounds (median; ms_rounds the list)")
    arg("--kernel-times", type=int, default=0, metavar="CALLS", help="after timing, profile CALLS "
        "calls (CUDA) and keep each kernel's GPU us per call (row key kernel_us)")
    arg("--diff-kernels", nargs=3, metavar=("JSON", "VARIANT_A", "VARIANT_B"), help="print the "
        "kernels whose time per call differs most between two variants of a saved run, and exit")
    arg("--smoke", action="store_true", help="tiny shapes, on CPU unless --device cuda")
    arg("--device", choices=("cuda", "cpu"), help="default cuda, or cpu with --smoke (generated "
        "kernels in the Triton interpreter)")
    arg("--caches", choices=("cold", "keep"), default="cold", help="cold: fresh inductor/Triton/"
        "tuner cache folders per worker (default); keep: the environment's")
    arg("--isolation", choices=("subprocess", "inprocess"), default="subprocess", help="inprocess: "
        "torch._dynamo.reset() between jobs instead of a process each (no timeouts)")
    arg("--json", action="store_true", help="print the result JSON on stdout, the table on stderr")
    arg("--list", action="store_true", help="list the cases and exit")
    arg("--_worker", nargs=2, help=argparse.SUPPRESS)
    arg("--_result", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.device = args.device or ("cpu" if args.smoke else "cuda")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    if args.kernel_times < 0:
        ap.error("--kernel-times must be 0 (off) or a number of calls")
    if args.diff_kernels:
        return _print_kernel_diff(*args.diff_kernels)

    if args._worker:
        if args.device == "cpu":
            os.environ.setdefault("TRITON_INTERPRET", "1")
        case_name, variant_names = args._worker
        def save(recs):   # atomically: the parent may read it after killing this process
            tmp = Path(args._result + ".tmp")
            tmp.write_text(json.dumps(recs, default=str))
            os.replace(tmp, args._result)
        save(run_case(case_name, variant_names.split(","), args.smoke, args.device, args.rounds,
                      progress=save if args.rounds > 1 else None, kernel_calls=args.kernel_times))
        return 0

    if args.list:
        for c in CASES:
            print(f"{c.name:30s} {c.group:9s} {c.doc}")
        return 0

    try:
        cases = _select(args.cases)
        variants = [Variant.parse(v).name for v in
                    (args.variants or (SMOKE_VARIANTS if args.smoke else DEFAULT_VARIANTS)).split(",")
                    if v.strip()]
    except ValueError as e:
        ap.error(str(e))
    if not variants:
        ap.error("--variants is empty")
    unknown = _unknown_backends(variants)
    if unknown:
        ap.error(f"unknown backend(s) {', '.join(unknown)} in --variants; "
                 "see torch._dynamo.list_backends()")
    if args.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"      # before torch/triton load, for inprocess
    if args.device == "cuda":
        import torch
        if not torch.cuda.is_available():
            ap.error("no CUDA GPU is visible; run with --smoke for the CPU check")

    out_dir = Path(args.out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        ap.error(f"--out {out_dir}: {e}")
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = out_dir / f"compiler_{'smoke_' if args.smoke else ''}{stamp}.json"
    log_path = out_dir / f"compiler_{'smoke_' if args.smoke else ''}{stamp}.log"
    code_tmp = None
    args.code_dir = None
    if args.isolation == "subprocess":     # workers import this checkout, not an installed copy
        code_tmp = tempfile.TemporaryDirectory(prefix="bench_compiler_code_")
        args.code_dir = lay_out_checkout(Path(code_tmp.name))
    doc = {"schema": SCHEMA, "script": "bench_compiler", **_env_info(args.device, args.smoke),
           "git_commit": _git_commit(),
           "args": {k: v for k, v in vars(args).items()
                    if not k.startswith("_") and k != "code_dir"},
           "variants": variants, "cases": [c.name for c in cases], "results": []}
    results: list[dict] = doc["results"]

    start = time.perf_counter()
    per_case = [(c, ["eager"] if c.eager_only else variants) for c in cases]
    if args.rounds == 1:     # each (case, variant) on its own
        jobs = [(c, [v]) for c, vs in per_case for v in vs]
    else:                    # a case's variants together, timed in interleaved rounds
        jobs = per_case
    with open(log_path, "w") as log:
        try:
            for case, names in jobs:
                label = f"{case.name} / {','.join(names)}"
                left = None if args.budget_s is None else args.budget_s - (time.perf_counter() - start)
                if left is not None and left < 15:
                    recs = [{"case": case.name, "group": case.group, "variant": v,
                             "status": "skipped", "note": "budget spent"} for v in names]
                else:
                    timeout = args.timeout_s * len(names)
                    timeout = timeout if left is None else min(timeout, left)
                    _say(f"{label} ...")
                    log.write(f"==== {label}\n")
                    log.flush()
                    recs = _run_job(args, case, names, timeout, log)
                    log.flush()
                results += recs
                derive(results)
                _write_json(path, doc)
                for rec in recs:
                    _say(f"{case.name} / {rec['variant']}: {rec['status']}"
                         + (f" {rec['ms']:.3f} ms" if rec.get("ms") is not None else ""))
        finally:
            if code_tmp is not None:
                code_tmp.cleanup()
    doc["wall_s"] = time.perf_counter() - start
    _write_json(path, doc)

    # With --json stdout is the document alone (for scripts); the table goes to stderr.
    shown = sys.stderr if args.json else sys.stdout
    if args.json:
        print(json.dumps(doc, indent=1, default=str))
    print(f"\n{doc.get('gpu') or doc['device']}  torch {doc.get('torch')}  triton {doc.get('triton')}"
          f"  results: {path}", file=shown)
    print(table(results), file=shown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
