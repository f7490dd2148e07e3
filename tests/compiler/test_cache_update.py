"""A static KV cache's update (`cache.index_copy_(2, pos, k)`, `cache[:, :, pos] = k`) compiles
to a scatter into the cache itself: no copy of the whole cache into a fresh buffer and back
(compiler/mutation.py reinplace_input_scatters), with eager's values and eager's cache after."""
import copy

import torch

import tuner.compiler.stats as stats
from helpers import assert_close

SHAPE = (2, 3, 12, 8)   # (batch, heads, max length, head dim): distinct from every other size


class Cache(torch.nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode
        self.register_buffer("keys", torch.randn(SHAPE))

    def forward(self, k, q, pos):
        if self.mode == "index_copy":
            self.keys.index_copy_(2, pos, k)
        else:
            self.keys[:, :, pos] = k
        scores = (q @ self.keys.transpose(-1, -2)).softmax(-1)
        if self.mode == "reads_old":
            return scores
        return scores @ self.keys


class ReadsOld(Cache):
    """The cache's old contents are read after the update's value is computed: declined."""

    def forward(self, k, q, pos):
        old = self.keys.sum(-1)
        self.keys.index_copy_(2, pos, k)
        return (q @ self.keys.transpose(-1, -2)).softmax(-1) + old[..., None, :]


def _run(model, steps):
    ref = copy.deepcopy(model)
    torch._dynamo.reset()
    stats.reset()
    cf = torch.compile(model, backend="tuner")
    for p in steps:
        k, q = torch.randn(2, 3, 1, 8), torch.randn(2, 3, 1, 8)
        pos = torch.tensor([p])
        assert_close(cf(k, q, pos), ref(k, q, pos))
        assert_close(model.keys, ref.keys)
    graphs = stats.graphs()
    assert graphs and not any(g.graph_fallback for g in graphs)
    return "\n".join(g.source.split("def call", 1)[-1] for g in graphs)


def test_index_copy_into_a_cache_writes_the_cache_in_place():
    wrapper = _run(Cache("index_copy"), [5, 6, 11])
    assert str(SHAPE) not in wrapper, "the cache was copied whole"


def test_indexed_assignment_into_a_cache_writes_the_cache_in_place():
    wrapper = _run(Cache("setitem"), [0, 7])
    assert str(SHAPE) not in wrapper, "the cache was copied whole"


def test_a_cache_whose_old_contents_are_read_is_copied_and_correct():
    _run(ReadsOld("index_copy"), [3, 4])
