"""Breadth sweep (CPU, Triton's interpreter): tiny random models beyond tests/models/model_zoo.py
(of these, mamba, squeezebert, fnet and wavlm joined the zoo after this sweep found their bugs),
compiled with backend="tuner" and compared with eager at two shapes (and a training step for
some), each in its own subprocess with a timeout. Prints a table (status,
seconds, ATen fallbacks by op, whole-graph fallbacks) and writes OUT/results.json and a log per
model under OUT/logs. A model that finds a bug of ours goes into the zoo once it is fixed.

    python3 scripts/breadth_sweep.py                          # every model, 2 at a time
    python3 scripts/breadth_sweep.py -j 2 --timeout 300 --out /tmp/sweep mamba fnet
    python3 scripts/breadth_sweep.py --list
    python3 scripts/breadth_sweep.py --one NAME               # one model, prints a JSON line
"""
import os
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, f"{REPO}/tests/models")

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

V = 100
SEQ = [(2, 8), (3, 12)]
IMG = [(2, 32), (3, 48)]


def gen(i):
    import torch
    return torch.Generator().manual_seed(1234 + i)


def ids(i, shapes=SEQ, vocab=V):
    import torch
    b, s = shapes[i]
    return torch.randint(3, vocab, (b, s), generator=gen(i))


def images(i, shapes=IMG, key="pixel_values", ch=3):
    import torch
    b, r = shapes[i]
    return {key: torch.randn(b, ch, r, r, generator=gen(i))}


def hf(cls, cfg_cls, **cfg):
    def build():
        import torch
        import transformers
        torch.manual_seed(0)
        return getattr(transformers, cls)(getattr(transformers, cfg_cls)(**cfg))
    return build


def timm_build(name, **kw):
    def build():
        import torch
        import timm
        torch.manual_seed(0)
        return timm.create_model(name, pretrained=False, num_classes=10, **kw)
    return build


DEC = dict(vocab_size=V, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
           num_attention_heads=4, max_position_embeddings=64)
ENC = dict(vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
           intermediate_size=64, max_position_embeddings=64, hidden_dropout_prob=0.0,
           attention_probs_dropout_prob=0.0)


def causal(cls, cfg, train=True, **kw):
    return dict(build=hf(cls, cfg, **kw), inputs=lambda i: {"input_ids": ids(i)},
                train=(lambda i: {"input_ids": ids(i), "labels": ids(i)}) if train else None)


def enc(cls, cfg, train=False, **kw):
    return dict(build=hf(cls, cfg, **kw), inputs=lambda i: {"input_ids": ids(i)},
                train=(lambda i: {"input_ids": ids(i)}) if train else None)


def whisper_inputs(i):
    import torch
    b = [2, 3][i]
    return {"input_features": torch.randn(b, 8, 32, generator=gen(i)),
            "decoder_input_ids": ids(i, [(2, 5), (3, 7)])}


def clip_inputs(i):
    d = {"input_ids": ids(i)}
    d.update(images(i, [(2, 32), (3, 32)]))
    return d


MODELS = {
    "qwen2": causal("Qwen2ForCausalLM", "Qwen2Config", num_key_value_heads=2, attention_dropout=0.0, **DEC),
    "qwen3": causal("Qwen3ForCausalLM", "Qwen3Config", num_key_value_heads=2, head_dim=8, attention_dropout=0.0, **DEC),
    "phi3": causal("Phi3ForCausalLM", "Phi3Config", num_key_value_heads=2, resid_pdrop=0.0, embd_pdrop=0.0,
                   attention_dropout=0.0, pad_token_id=0, bos_token_id=1, eos_token_id=2, **DEC),
    "stablelm": causal("StableLmForCausalLM", "StableLmConfig", num_key_value_heads=2, hidden_dropout=0.0,
                       attention_dropout=0.0, train=False, **DEC),
    "starcoder2": causal("Starcoder2ForCausalLM", "Starcoder2Config", num_key_value_heads=2, residual_dropout=0.0,
                         embedding_dropout=0.0, attention_dropout=0.0, **DEC),
    "olmo": causal("OlmoForCausalLM", "OlmoConfig", num_key_value_heads=2, attention_dropout=0.0,
                   pad_token_id=0, bos_token_id=1, eos_token_id=2, train=False, **DEC),
    "falcon": causal("FalconForCausalLM", "FalconConfig", vocab_size=V, hidden_size=32, num_hidden_layers=2,
                     num_attention_heads=4, hidden_dropout=0.0, attention_dropout=0.0),
    "opt": causal("OPTForCausalLM", "OPTConfig", vocab_size=V, hidden_size=32, num_hidden_layers=2,
                  ffn_dim=64, num_attention_heads=4, max_position_embeddings=64, word_embed_proj_dim=32,
                  dropout=0.0, attention_dropout=0.0, pad_token_id=1, bos_token_id=2, eos_token_id=2),
    "bart": dict(build=hf("BartForConditionalGeneration", "BartConfig", vocab_size=V, d_model=32,
                          encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                          encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64, dropout=0.0,
                          attention_dropout=0.0, activation_dropout=0.0, pad_token_id=1, bos_token_id=0,
                          eos_token_id=2, decoder_start_token_id=2),
                 inputs=lambda i: {"input_ids": ids(i), "decoder_input_ids": ids(i, [(2, 5), (3, 7)])},
                 train=lambda i: {"input_ids": ids(i), "labels": ids(i, [(2, 5), (3, 7)])}),
    "distilbert": enc("DistilBertModel", "DistilBertConfig", train=True, vocab_size=V, dim=32, n_layers=2,
                      n_heads=4, hidden_dim=64, max_position_embeddings=64, dropout=0.0, attention_dropout=0.0),
    "albert": enc("AlbertModel", "AlbertConfig", embedding_size=16, **ENC),
    "electra": enc("ElectraModel", "ElectraConfig", embedding_size=16, **ENC),
    "mobilebert": enc("MobileBertModel", "MobileBertConfig", embedding_size=16, intra_bottleneck_size=16,
                      true_hidden_size=16, num_feedforward_networks=2, **ENC),
    "clip_text": enc("CLIPTextModel", "CLIPTextConfig", vocab_size=V, hidden_size=32, intermediate_size=64,
                     num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=64,
                     pad_token_id=1, bos_token_id=0, eos_token_id=2),
    "clip": dict(build=hf("CLIPModel", "CLIPConfig",
                          text_config=dict(vocab_size=V, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                           num_attention_heads=4, max_position_embeddings=64, eos_token_id=2),
                          vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                             num_attention_heads=4, image_size=32, patch_size=8),
                          projection_dim=16),
                 inputs=clip_inputs, train=None),
    "swin": dict(build=hf("SwinModel", "SwinConfig", image_size=32, patch_size=2, embed_dim=16, depths=[1, 1],
                          num_heads=[2, 4], window_size=4, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                          drop_path_rate=0.0),
                 inputs=lambda i: images(i, [(2, 32), (3, 48)]), train=lambda i: images(i, [(2, 32), (3, 48)])),
    "segformer": dict(build=hf("SegformerModel", "SegformerConfig", num_encoder_blocks=2, depths=[1, 1],
                               sr_ratios=[2, 1], hidden_sizes=[16, 32], patch_sizes=[7, 3], strides=[4, 2],
                               num_attention_heads=[1, 2], mlp_ratios=[2, 2], hidden_dropout_prob=0.0,
                               attention_probs_dropout_prob=0.0, drop_path_rate=0.0),
                      inputs=images, train=None),
    "mobilevit": dict(build=hf("MobileViTModel", "MobileViTConfig", image_size=32, hidden_sizes=[16, 24, 32],
                               neck_hidden_sizes=[8, 8, 16, 16, 24, 24, 32], num_attention_heads=2,
                               hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, classifier_dropout_prob=0.0),
                      inputs=lambda i: images(i, [(2, 32), (3, 64)]), train=None),
    "deit": dict(build=hf("DeiTModel", "DeiTConfig", image_size=32, patch_size=8, hidden_size=32,
                          num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                          hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
                 inputs=lambda i: images(i, [(2, 32), (3, 32)]), train=None),
    "whisper": dict(build=hf("WhisperModel", "WhisperConfig", vocab_size=V, num_mel_bins=8, encoder_layers=2,
                             decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4, d_model=32,
                             encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=16,
                             max_target_positions=32, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
                             pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=0),
                    inputs=whisper_inputs, train=None),
    "timm_mobilenetv3": dict(build=timm_build("mobilenetv3_small_050"), inputs=lambda i: images(i, key="x"),
                             train=lambda i: images(i, key="x")),
    "timm_convnext_atto": dict(build=timm_build("convnext_atto"), inputs=lambda i: images(i, key="x"), train=None),
    "timm_levit_128s": dict(build=timm_build("levit_128s", img_size=64),
                            inputs=lambda i: images(i, [(2, 64), (3, 64)], key="x"), train=None),
    "timm_resnet50_gn": dict(build=timm_build("resnet50_gn"), inputs=lambda i: images(i, key="x"), train=None),
    "timm_ghostnet_050": dict(build=timm_build("ghostnet_050"), inputs=lambda i: images(i, key="x"), train=None),
}

def timm_img(name, shapes=IMG, train=False, **kw):
    return dict(build=timm_build(name, **kw), inputs=lambda i: images(i, shapes, key="x"),
                train=(lambda i: images(i, shapes, key="x")) if train else None)


def hf_img(cls, cfg, shapes=IMG, train=False, **kw):
    return dict(build=hf(cls, cfg, **kw), inputs=lambda i: images(i, shapes),
                train=(lambda i: images(i, shapes)) if train else None)


FIXED = [(2, 32), (3, 32)]
MODELS2 = {
    "mixtral": causal("MixtralForCausalLM", "MixtralConfig", num_key_value_heads=2, num_local_experts=4,
                      num_experts_per_tok=2, attention_dropout=0.0, **DEC),
    "qwen3_moe": causal("Qwen3MoeForCausalLM", "Qwen3MoeConfig", num_key_value_heads=2, head_dim=8, num_experts=4,
                        num_experts_per_tok=2, moe_intermediate_size=32, attention_dropout=0.0, train=False, **DEC),
    "gemma": causal("GemmaForCausalLM", "GemmaConfig", num_key_value_heads=2, head_dim=8, attention_dropout=0.0,
                    train=False, **DEC),
    "cohere": causal("CohereForCausalLM", "CohereConfig", num_key_value_heads=2, attention_dropout=0.0,
                     train=False, **DEC),
    "granite": causal("GraniteForCausalLM", "GraniteConfig", num_key_value_heads=2, attention_dropout=0.0,
                      train=False, **DEC),
    "gpt_bigcode": causal("GPTBigCodeForCausalLM", "GPTBigCodeConfig", vocab_size=V, n_embd=32, n_layer=2,
                          n_head=4, n_inner=64, n_positions=64, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0),
    "codegen": causal("CodeGenForCausalLM", "CodeGenConfig", vocab_size=V, n_embd=32, n_layer=2, n_head=4,
                      n_inner=64, rotary_dim=4, n_positions=64, n_ctx=64, resid_pdrop=0.0, embd_pdrop=0.0,
                      attn_pdrop=0.0, train=False),
    "mamba": causal("MambaForCausalLM", "MambaConfig", vocab_size=V, hidden_size=32, state_size=4,
                    num_hidden_layers=2, expand=2, conv_kernel=4, time_step_rank=4),
    "xlnet": enc("XLNetModel", "XLNetConfig", vocab_size=V, d_model=32, n_layer=2, n_head=4, d_inner=64,
                 dropout=0.0),
    "longt5": dict(build=hf("LongT5Model", "LongT5Config", vocab_size=V, d_model=32, d_kv=8, d_ff=64,
                            num_layers=2, num_decoder_layers=2, num_heads=4, local_radius=4,
                            relative_attention_num_buckets=8, dropout_rate=0.0, decoder_start_token_id=0,
                            pad_token_id=0, eos_token_id=1),
                   inputs=lambda i: {"input_ids": ids(i), "decoder_input_ids": ids(i, [(2, 5), (3, 7)])},
                   train=None),
    "funnel": enc("FunnelModel", "FunnelConfig", vocab_size=V, block_sizes=[1, 1], d_model=32, n_head=4,
                  d_head=8, d_inner=64, hidden_dropout=0.0, attention_dropout=0.0, activation_dropout=0.0),
    "convbert": enc("ConvBertModel", "ConvBertConfig", embedding_size=16, **ENC),
    "mpnet": enc("MPNetModel", "MPNetConfig", **ENC),
    "squeezebert": enc("SqueezeBertModel", "SqueezeBertConfig", embedding_size=32, q_groups=2, k_groups=2,
                       v_groups=2, post_attention_groups=2, intermediate_groups=2, output_groups=2, **ENC),
    "fnet": enc("FNetModel", "FNetConfig", vocab_size=V, hidden_size=32, num_hidden_layers=2, intermediate_size=64,
                max_position_embeddings=64, hidden_dropout_prob=0.0, use_tpu_fourier_optimizations=False),
    "pegasus": dict(build=hf("PegasusModel", "PegasusConfig", vocab_size=V, d_model=32, encoder_layers=2,
                             decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                             encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64, dropout=0.0,
                             attention_dropout=0.0, activation_dropout=0.0, pad_token_id=0, eos_token_id=1,
                             decoder_start_token_id=0),
                    inputs=lambda i: {"input_ids": ids(i), "decoder_input_ids": ids(i, [(2, 5), (3, 7)])},
                    train=None),
    "beit": hf_img("BeitModel", "BeitConfig", FIXED, vocab_size=V, image_size=32, patch_size=8, hidden_size=32,
                   num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, use_relative_position_bias=True,
                   hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, drop_path_rate=0.0),
    "dinov2": dict(build=hf("Dinov2Model", "Dinov2Config", image_size=32, patch_size=8, hidden_size=32,
                            num_hidden_layers=2, num_attention_heads=4, mlp_ratio=2, hidden_dropout_prob=0.0,
                            attention_probs_dropout_prob=0.0, drop_path_rate=0.0),
                   inputs=lambda i: images(i, [(2, 32), (3, 48)]), train=lambda i: images(i, [(2, 32), (3, 48)])),
    "poolformer": hf_img("PoolFormerModel", "PoolFormerConfig", num_encoder_blocks=2, depths=[1, 1],
                         hidden_sizes=[16, 32], patch_sizes=[7, 3], strides=[4, 2], padding=[2, 1],
                         drop_path_rate=0.0, train=True),
    "hf_regnet": hf_img("RegNetModel", "RegNetConfig", embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
                        groups_width=8),
    "hf_resnet": hf_img("ResNetModel", "ResNetConfig", embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
                        layer_type="bottleneck"),
    "hf_mobilenet_v2": hf_img("MobileNetV2Model", "MobileNetV2Config", depth_multiplier=0.35, image_size=32),
    "hf_convnextv2": hf_img("ConvNextV2Model", "ConvNextV2Config", hidden_sizes=[8, 16, 32, 64],
                            depths=[1, 1, 1, 1], image_size=32, train=True),
    "hf_levit": hf_img("LevitModel", "LevitConfig", [(2, 64), (3, 64)], image_size=64, hidden_sizes=[32, 48, 64],
                       num_attention_heads=[2, 2, 2], depths=[1, 1, 1], key_dim=[8, 8, 8]),
    "pvt": hf_img("PvtModel", "PvtConfig", FIXED, image_size=32, num_encoder_blocks=2, depths=[1, 1],
                  sequence_reduction_ratios=[2, 1], hidden_sizes=[16, 32], patch_sizes=[4, 2], strides=[4, 2],
                  num_attention_heads=[1, 2], mlp_ratios=[2, 2]),
    "yolos": hf_img("YolosModel", "YolosConfig", FIXED, image_size=[32, 32], patch_size=8, hidden_size=32,
                    num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, num_detection_tokens=5,
                    hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
    "timm_efficientvit_b0": timm_img("efficientvit_b0"),
    "timm_poolformer_s12": timm_img("poolformer_s12"),
    "timm_coat_lite_tiny": timm_img("coat_lite_tiny", FIXED, img_size=32),
    "timm_xcit_nano": timm_img("xcit_nano_12_p16_224", FIXED, img_size=32, patch_size=8, depth=2),
    "timm_fastvit_t8": timm_img("fastvit_t8"),
    "timm_edgenext_xxs": timm_img("edgenext_xx_small"),
    "timm_mixnet_s": timm_img("mixnet_s", train=True),
    "timm_resnest14d": timm_img("resnest14d"),
    "timm_skresnet18": timm_img("skresnet18"),
    "timm_nf_resnet26": timm_img("nf_resnet26", train=True),
    "timm_dla34": timm_img("dla34"),
    "timm_res2net50": timm_img("res2net50_14w_8s"),
    "timm_densenet121": timm_img("densenet121"),
    "timm_cspresnet50": timm_img("cspresnet50"),
    "timm_repvgg_a0": timm_img("repvgg_a0"),
    "timm_mobilevitv2_050": timm_img("mobilevitv2_050", [(2, 64), (3, 96)]),
    "timm_rexnet_100": timm_img("rexnet_100"),
    "timm_selecsls42b": timm_img("selecsls42b"),
    "timm_vovnet39a": timm_img("vovnet39a"),
    "timm_dpn48b": timm_img("dpn48b"),
    "timm_hrnet_w18_small": timm_img("hrnet_w18_small", [(2, 64), (3, 96)]),
    "timm_inception_v3": timm_img("inception_v3", [(2, 75), (3, 96)]),
    "timm_pit_ti": timm_img("pit_ti_224", FIXED, img_size=32),
    "timm_visformer_tiny": timm_img("visformer_tiny", [(2, 64), (3, 64)], img_size=64),
    "timm_gcresnet33ts": timm_img("gcresnet33ts"),
    "timm_lcnet_050": timm_img("lcnet_050"),
    "timm_halonet26t": timm_img("halonet26t", [(2, 64), (3, 64)], img_size=64),
    "timm_botnet26t": timm_img("botnet26t_256", [(2, 64), (3, 64)], img_size=64),
    "timm_crossvit_tiny": timm_img("crossvit_tiny_240", [(2, 48), (3, 48)], img_size=48),
    "timm_convmixer": timm_img("convmixer_768_32", [(2, 32), (3, 48)]),
}
MODELS.update(MODELS2)


# --------------------------------------------------------------------------- third batch (untuned)

def audio(i, shapes=((2, 320), (3, 480))):
    import torch
    return {"input_values": torch.randn(*shapes[i], generator=gen(i))}


def seq2seq(cls, cfg, **kw):
    return dict(build=hf(cls, cfg, **kw),
                inputs=lambda i: {"input_ids": ids(i), "decoder_input_ids": ids(i, [(2, 5), (3, 7)])}, train=None)


def s2t_inputs(i):
    import torch
    b, t = [(2, 16), (3, 24)][i]
    return {"input_features": torch.randn(b, t, 8, generator=gen(i)),
            "decoder_input_ids": ids(i, [(2, 5), (3, 7)])}


def vitmae_inputs(i):
    # ViTMAE masks by argsort of `noise` (torch.rand when absent): pass a fixed noise
    import torch
    b = [2, 3][i]
    d = images(i, [(2, 32), (3, 32)])
    d["noise"] = torch.rand(b, 16, generator=gen(10 + i))
    return d


def NoMaskEncoder(model):
    import torch

    class NoMask(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids):
            return self.m.encoder(self.m.embeddings(input_ids=input_ids), attention_mask=None)
    return NoMask(model)


S2S = dict(vocab_size=V, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
           decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
           dropout=0.0, attention_dropout=0.0, activation_dropout=0.0)
AUD = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, conv_dim=(16, 16),
           conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4,
           hidden_dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, feat_proj_dropout=0.0,
           layerdrop=0.0, mask_time_prob=0.0)
MODELS3 = {
    "gpt_neo": causal("GPTNeoForCausalLM", "GPTNeoConfig", vocab_size=V, hidden_size=32, num_layers=2,
                      attention_types=[[["global", "local"], 1]], num_heads=4, intermediate_size=64, window_size=4,
                      max_position_embeddings=64, embed_dropout=0.0, attention_dropout=0.0, resid_dropout=0.0),
    "mpt": causal("MptForCausalLM", "MptConfig", vocab_size=V, d_model=32, n_heads=4, n_layers=2,
                  expansion_ratio=2, max_seq_len=64, train=False),
    "persimmon": causal("PersimmonForCausalLM", "PersimmonConfig", partial_rotary_factor=0.5, qk_layernorm=True,
                        hidden_dropout=0.0, attention_dropout=0.0, train=False, **DEC),
    "biogpt": causal("BioGptForCausalLM", "BioGptConfig", vocab_size=V, hidden_size=32, num_hidden_layers=2,
                     num_attention_heads=4, intermediate_size=64, max_position_embeddings=64,
                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, layerdrop=0.0),
    "xglm": causal("XGLMForCausalLM", "XGLMConfig", vocab_size=V, d_model=32, ffn_dim=64, num_layers=2,
                   attention_heads=4, max_position_embeddings=64, dropout=0.0, attention_dropout=0.0,
                   activation_dropout=0.0, layerdrop=0.0, train=False),
    "marian": seq2seq("MarianMTModel", "MarianConfig", decoder_vocab_size=V, pad_token_id=0, eos_token_id=1,
                      decoder_start_token_id=0, **S2S),
    "mbart": seq2seq("MBartModel", "MBartConfig", pad_token_id=1, bos_token_id=0, eos_token_id=2, **S2S),
    "led": seq2seq("LEDModel", "LEDConfig", attention_window=[4, 4], max_encoder_position_embeddings=64,
                   max_decoder_position_embeddings=64, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                   decoder_start_token_id=2, **{k: v for k, v in S2S.items() if k != "max_position_embeddings"}),
    "roformer": enc("RoFormerModel", "RoFormerConfig", train=True, embedding_size=32, **ENC),
    # landmarks are segment means over a fixed segment_means_seq_len: one sequence length, two batches;
    # embeddings + encoder without the mask: traced, HF builds a (b, 1, s, s) mask that its landmark
    # scores (b, h, landmarks, s) cannot take (fails under backend="eager" too; eager passes None)
    "nystromformer": dict(build=lambda: NoMaskEncoder(hf("NystromformerModel", "NystromformerConfig", num_landmarks=4,
                                                        segment_means_seq_len=16, conv_kernel_size=3, **ENC)()),
                          inputs=lambda i: {"input_ids": ids(i, [(2, 16), (3, 16)])}, train=None),
    "wavlm": dict(build=hf("WavLMModel", "WavLMConfig", num_buckets=16, max_bucket_distance=64, **AUD),
                  inputs=audio, train=None),
    "sew": dict(build=hf("SEWModel", "SEWConfig", squeeze_factor=2, **AUD), inputs=audio, train=audio),
    "speech2text": dict(build=hf("Speech2TextModel", "Speech2TextConfig", num_conv_layers=2, conv_kernel_sizes=[5, 5],
                                 conv_channels=32, input_feat_per_channel=8, input_channels=1,
                                 max_source_positions=64, max_target_positions=64, pad_token_id=1, bos_token_id=0,
                                 eos_token_id=2, decoder_start_token_id=2, encoder_layerdrop=0.0,
                                 decoder_layerdrop=0.0, scale_embedding=True, **S2S),
                        inputs=s2t_inputs, train=None),
    "vitmae": dict(build=hf("ViTMAEModel", "ViTMAEConfig", image_size=32, patch_size=8, hidden_size=32,
                            num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, mask_ratio=0.5,
                            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
                   inputs=vitmae_inputs, train=None),
    "dpt": hf_img("DPTForDepthEstimation", "DPTConfig", FIXED, image_size=32, patch_size=8, hidden_size=32,
                  num_hidden_layers=4, num_attention_heads=4, intermediate_size=64, backbone_out_indices=[0, 1, 2, 3],
                  neck_hidden_sizes=[8, 16, 32, 64], fusion_hidden_size=16, head_hidden_size=8,
                  hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
    "glpn": hf_img("GLPNForDepthEstimation", "GLPNConfig", [(2, 64), (3, 64)], num_encoder_blocks=4,
                   depths=[1, 1, 1, 1], sr_ratios=[4, 2, 1, 1], hidden_sizes=[8, 16, 24, 32],
                   patch_sizes=[7, 3, 3, 3], strides=[4, 2, 2, 2], num_attention_heads=[1, 1, 2, 2],
                   mlp_ratios=[2, 2, 2, 2], decoder_hidden_size=16, hidden_dropout_prob=0.0,
                   attention_probs_dropout_prob=0.0, drop_path_rate=0.0),
    "pvt_v2": hf_img("PvtV2Model", "PvtV2Config", num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1],
                     hidden_sizes=[16, 32], patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2],
                     mlp_ratios=[2, 2], linear_attention=True, drop_path_rate=0.0, train=True),
    "focalnet": hf_img("FocalNetModel", "FocalNetConfig", image_size=32, patch_size=4, embed_dim=16,
                       depths=[1, 1], focal_levels=[2, 2], focal_windows=[3, 3], drop_path_rate=0.0),
    "cvt": hf_img("CvtModel", "CvtConfig", patch_sizes=[7, 3], patch_stride=[4, 2], patch_padding=[2, 1],
                  embed_dim=[16, 32], num_heads=[1, 2], depth=[1, 2], mlp_ratio=[2.0, 2.0],
                  attention_drop_rate=[0.0, 0.0], drop_rate=[0.0, 0.0], drop_path_rate=[0.0, 0.0],
                  qkv_bias=[True, True], cls_token=[False, True], qkv_projection_method=["dw_bn", "dw_bn"],
                  kernel_qkv=[3, 3], padding_kv=[1, 1], stride_kv=[2, 2], padding_q=[1, 1], stride_q=[1, 1]),
    "bit": hf_img("BitModel", "BitConfig", embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
                  layer_type="preactivation", global_padding="SAME", num_groups=4),
    "swinv2": hf_img("Swinv2Model", "Swinv2Config", image_size=32, patch_size=2, embed_dim=16, depths=[1, 1],
                     num_heads=[2, 4], window_size=4, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                     drop_path_rate=0.0),
    "timm_eva02_tiny": timm_img("eva02_tiny_patch14_224", [(2, 56), (3, 56)], img_size=56, depth=2),
    "timm_vit_reg4": timm_img("vit_betwixt_patch16_reg4_gap_256", FIXED, img_size=32, patch_size=8, depth=2,
                              embed_dim=64, num_heads=4),
    "timm_cait_xxs24": timm_img("cait_xxs24_224", FIXED, img_size=32, patch_size=8, depth=2),
    "timm_convit_tiny": timm_img("convit_tiny", FIXED, img_size=32, patch_size=8, depth=2, local_up_to_layer=1),
    "timm_resmlp_12": timm_img("resmlp_12_224", [(2, 64), (3, 64)], img_size=64, train=True),
    "timm_gmlp_ti16": timm_img("gmlp_ti16_224", [(2, 64), (3, 64)], img_size=64),
    "timm_sequencer2d_s": timm_img("sequencer2d_s", [(2, 56), (3, 56)], img_size=56, layers=[1, 1, 1, 1]),
    "timm_tnt_s": timm_img("tnt_s_patch16_224", FIXED, img_size=32, patch_size=8, depth=2),
    "timm_twins_pcpvt_small": timm_img("twins_pcpvt_small", FIXED, img_size=32, depths=(1, 1, 1, 1)),
    "timm_volo_d1": timm_img("volo_d1_224", [(2, 64), (3, 64)], img_size=64),
    "timm_coatnet_0": timm_img("coatnet_0_224", [(2, 64), (3, 64)], img_size=64),
    "timm_mobileone_s0": timm_img("mobileone_s0"),
    "timm_gernet_s": timm_img("gernet_s", train=True),
    "timm_seresnext26d": timm_img("seresnext26d_32x4d"),
    "timm_ecaresnet26t": timm_img("ecaresnet26t"),
    "timm_nfnet_l0": timm_img("nfnet_l0"),
    # efficientformer_l1 ignores img_size (its attention bias stays 7x7): v2 takes it
    "timm_efficientformerv2_s0": timm_img("efficientformerv2_s0", [(2, 64), (3, 64)], img_size=64),
    "timm_tresnet_m": timm_img("tresnet_m", [(2, 64), (3, 96)]),
}
MODELS.update(MODELS3)


# --------------------------------------------------------------------------- one model

def first_line(e):
    s = str(e).strip().splitlines()
    return s[0][:200] if s else ""


def run_one(name):
    import torch
    from torch import nn
    from zoo_run import use_torchvision_stand_in
    use_torchvision_stand_in()
    import tuner.compiler.stats as stats
    from model_zoo import flatten
    from zoo_run import ATOL, RTOL, clone_inputs

    spec = MODELS[name]
    res = {"model": name, "status": "ok", "phase": "", "error": "", "worst": ""}
    torch._dynamo.config.automatic_dynamic_local_pgo = False
    phase = "build"

    def compare(out, ref, what):
        got, want = flatten(out), flatten(ref)
        if list(got) != list(want):
            return f"{what}: structure {list(got)[:3]} vs {list(want)[:3]}"
        for k in want:
            if got[k].shape != want[k].shape:
                return f"{what} {k}: shape {tuple(got[k].shape)} vs {tuple(want[k].shape)}"
            try:
                torch.testing.assert_close(got[k], want[k], rtol=RTOL, atol=ATOL, equal_nan=True)
            except AssertionError as e:
                return f"{what} {k}: " + " ".join(str(e).split("\n")[1:4])
        return ""

    try:
        model = spec["build"]()
        model.eval()
        compiled = torch.compile(model, backend="tuner")
        for i in (0, 1):
            kw = spec["inputs"](i)
            phase = f"eager s{i}"
            with torch.no_grad():
                ref = model(**clone_inputs(kw))
                phase = f"compiled s{i}"
                out = compiled(**kw)
            phase = f"compare s{i}"
            bad = compare(out, ref, f"inference s{i}")
            if bad:
                res["status"] = "mismatch"
                res["phase"] = phase
                res["error"] = bad
                break
        if spec.get("train") and res["status"] == "ok":
            torch._dynamo.reset()
            model.train()
            compiled = torch.compile(model, backend="tuner")

            def step(fn, kw):
                model.zero_grad(set_to_none=True)
                out = fn(**kw)
                loss = getattr(out, "loss", None)
                if loss is None:
                    t = next(iter(flatten(out).values()))
                    ct = torch.randn(t.shape, generator=torch.Generator().manual_seed(7))
                    loss = (t * ct).sum()
                loss.backward()
                return loss.detach(), {n: p.grad.clone() for n, p in model.named_parameters()
                                       if p.grad is not None}

            for i in (0, 1):
                kw = spec["train"](i)
                phase = f"train eager s{i}"
                rl, rg = step(model, clone_inputs(kw))
                phase = f"train compiled s{i}"
                cl, cg = step(compiled, clone_inputs(kw))
                phase = f"train compare s{i}"
                bad = compare(cl, rl, f"loss s{i}")
                if not bad:
                    if sorted(cg) != sorted(rg):
                        bad = f"grad set differs: {set(cg) ^ set(rg)}"
                    for n in rg:
                        if bad:
                            break
                        b = compare(cg[n], rg[n], f"grad {n} s{i}")
                        if b:
                            rel = ((cg[n] - rg[n]).norm() / rg[n].norm().clamp_min(1e-30)).item()
                            bad = f"{b} (rel {rel:.3g})"
                if bad:
                    res["status"] = "mismatch"
                    res["phase"] = phase
                    res["error"] = bad
                    break
    except Exception as e:  # noqa: BLE001
        res["status"] = "error"
        res["phase"] = phase
        res["error"] = f"{type(e).__name__}: {first_line(e)}"
        import traceback
        traceback.print_exc()
    t = stats.totals()
    res["fallbacks"] = dict(t.fallbacks)
    res["lowering_errors"] = dict(getattr(t, "lowering_errors", {}) or {})
    res["graph_fallbacks"] = [g.graph_fallback[:150] for g in stats.graphs() if getattr(g, "graph_fallback", "")]
    res["graphs"] = len(stats.graphs())
    res["kernels"] = t.kernels
    return res


# --------------------------------------------------------------------------- driver

def launch(name, timeout, out):
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True,
                           timeout=timeout, cwd=out)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("SWEEP_RESULT ")]
        with open(os.path.join(out, "logs", f"{name}.log"), "w") as f:
            f.write(p.stdout + "\n--- stderr ---\n" + p.stderr)
        if lines:
            res = json.loads(lines[-1][len("SWEEP_RESULT "):])
        else:
            tail = (p.stderr.strip().splitlines() or ["?"])[-1]
            res = {"model": name, "status": "error", "phase": "process", "error": f"rc={p.returncode}: {tail[:200]}"}
    except subprocess.TimeoutExpired:
        res = {"model": name, "status": "timeout", "phase": "", "error": f">{timeout}s"}
    res["seconds"] = time.time() - t0
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[6:]))
    ap.add_argument("--one", metavar="NAME", help="run one model here, print its result as a JSON line")
    ap.add_argument("-j", type=int, default=2, help="models at a time (default 2)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per model (default 300)")
    ap.add_argument("--out", default=None, help="folder for results.json and logs/ (default: a new temporary folder)")
    ap.add_argument("--list", action="store_true", help="list the models and exit")
    ap.add_argument("names", nargs="*", help="models to run (default: all)")
    a = ap.parse_args()
    if a.list:
        print("\n".join(MODELS))
        return
    unknown = [n for n in a.names if n not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {', '.join(unknown)}; valid: {', '.join(MODELS)}")
    if a.one:
        t0 = time.time()
        res = run_one(a.one)
        res["seconds"] = time.time() - t0
        print("SWEEP_RESULT " + json.dumps(res), flush=True)
        return
    out = a.out or tempfile.mkdtemp(prefix="breadth_sweep_")
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    names = a.names or list(MODELS)
    with ThreadPoolExecutor(a.j) as ex:
        results = list(ex.map(lambda n: launch(n, a.timeout, out), names))
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(f"results: {os.path.join(out, 'results.json')}", file=sys.stderr)
    print(f"{'model':<20} {'status':<9} {'sec':>6} {'fb':>3}  detail")
    for r in results:
        fb = r.get("fallbacks", {})
        detail = (f"[{r['phase']}] {r['error']}" if r["status"] != "ok" else "")
        if fb:
            detail += "  fallbacks: " + ", ".join(f"{k}x{v}" for k, v in fb.items())
        if r.get("lowering_errors"):
            detail += "  lowering errors: " + "; ".join(f"{k}: {v}" for k, v in r["lowering_errors"].items())
        if r.get("graph_fallbacks"):
            detail += f"  GRAPH FALLBACKS: {r['graph_fallbacks']}"
        print(f"{r['model']:<20} {r['status']:<9} {r['seconds']:>6.1f} {sum(fb.values()):>3}  {detail}")


if __name__ == "__main__":
    main()
