"""The README's "Compiling `generate`" recipe runs as written on a tiny random Llama (CPU,
Triton's interpreter): its ids equal eager's, and no graph we compiled ran whole in ATen.

The blocks are read from README.md and executed with `model`, `input_ids` and
`attention_mask` defined; two things differ from a GPU run: fewer new tokens (speed), and
`CompileConfig._compile_all_devices` (transformers' own switch for compiling off CUDA, which
its tests use) so that `generate` compiles on the CPU at all.
"""
import re
from pathlib import Path

import pytest
import torch

import tuner.compiler.stats as stats

transformers = pytest.importorskip("transformers")

README = Path(__file__).resolve().parents[2] / "README.md"
NEW_TOKENS = 5


def recipe_blocks():
    text = README.read_text()
    section = text.split("## Compiling `generate`", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```python\n(.*?)^```", section, re.MULTILINE | re.DOTALL)


def tiny_llama():
    torch.manual_seed(0)
    # a wide initializer so that greedy decoding does not repeat one token: a wrong logit shows
    cfg = transformers.LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=176,
                                   num_attention_heads=4, num_key_value_heads=2, vocab_size=100,
                                   max_position_embeddings=64, initializer_range=0.2)
    model = transformers.LlamaForCausalLM(cfg).eval()
    model.generation_config.eos_token_id = None   # every call makes all its new tokens
    model.generation_config.pad_token_id = 0
    return model


def test_the_readme_has_both_recipe_blocks():
    blocks = recipe_blocks()
    assert len(blocks) == 2
    assert 'cache_implementation="static"' in blocks[0] and 'CompileConfig(backend="tuner")' in blocks[0]
    assert 'torch.compile(model.forward, backend="tuner")' in blocks[1]
    assert all("max_new_tokens=64" in b for b in blocks)


@pytest.mark.parametrize("index", [0, 1], ids=["static-cache", "dynamic-cache"])
def test_readme_generate_recipe_matches_eager(index, monkeypatch):
    code = recipe_blocks()[index].replace("max_new_tokens=64", f"max_new_tokens={NEW_TOKENS}")
    monkeypatch.setattr(transformers.CompileConfig, "_compile_all_devices", True)
    model = tiny_llama()
    g = torch.Generator().manual_seed(1)
    input_ids = torch.randint(0, 100, (2, 7), generator=g)
    attention_mask = torch.ones_like(input_ids)
    with torch.no_grad():
        ref = model.generate(input_ids, attention_mask=attention_mask, max_new_tokens=NEW_TOKENS,
                             do_sample=False)
    assert len(set(ref[:, 7:].flatten().tolist())) > 2, "the tiny model repeats one token"
    stats.reset()
    scope = {"torch": torch, "model": model, "input_ids": input_ids, "attention_mask": attention_mask}
    with torch.no_grad():
        exec(compile(code, f"README.md block {index}", "exec"), scope)
    graphs = stats.graphs()
    assert graphs, "generate compiled nothing with the tuner backend"
    assert not [s.graph_fallback for s in graphs if s.graph_fallback]
    assert sum(s.kernels for s in graphs) > 0
    assert scope["out"].shape == (2, 7 + NEW_TOKENS)
    assert torch.equal(scope["out"], ref)
