"""Training graphs are split by AOTAutograd's min-cut partitioner (TUNER_PARTITIONER): the
forward saves fewer bytes for the backward than with every needed value saved, and the
gradients are eager's either way."""
import copy

import pytest
import torch

import tuner.compiler.compile_graph as cg
from helpers import assert_close, spy


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(32)
        self.up, self.down = torch.nn.Linear(32, 128), torch.nn.Linear(128, 32)

    def forward(self, x):
        h = self.norm(x)
        att = (h @ h.transpose(-1, -2) * 0.2).softmax(-1) @ h   # (softmax and its input: cheap to recompute)
        return x + self.down(torch.nn.functional.gelu(self.up(att)) * 0.5)


_VIEWS = {"view", "_unsafe_view", "reshape", "permute", "t", "transpose", "expand", "unsqueeze",
          "squeeze", "slice", "select", "alias", "as_strided"}


def _activation_bytes(gm) -> int:
    """Bytes of a graph's results that are not its inputs or views of them (a forward's: its
    output and the activations it saves; weights it hands on cost nothing more)."""
    total = 0
    for a in next(n for n in gm.graph.nodes if n.op == "output").args[0]:
        root = a
        while isinstance(root, torch.fx.Node) and root.op == "call_function" \
                and getattr(root.target, "__name__", "").split(".")[0] in _VIEWS:
            root = root.args[0]
        v = a.meta.get("val") if isinstance(a, torch.fx.Node) else None
        if isinstance(v, torch.Tensor) and root.op != "placeholder":
            total += v.numel() * v.element_size()
    return total


@pytest.fixture
def saved_bytes(monkeypatch):
    """Activation bytes of each compiled graph's results."""
    seen = []
    spy(monkeypatch, cg, "_compile_graph", lambda gm, *_: seen.append(_activation_bytes(gm)))
    return seen


def _train_step(partitioner, monkeypatch, saved_bytes):
    monkeypatch.setenv("TUNER_PARTITIONER", partitioner)
    torch.manual_seed(0)
    model = torch.nn.Sequential(Block(), Block())
    ref = copy.deepcopy(model)
    x = torch.randn(4, 16, 32)
    torch._dynamo.reset()
    saved_bytes.clear()
    torch.compile(model, backend="tuner")(x).square().sum().backward()
    ref(x).square().sum().backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        assert_close(p.grad, q.grad)
    return saved_bytes[0]   # the forward graph's


def test_min_cut_saves_less_than_saving_everything(monkeypatch, saved_bytes):
    everything = _train_step("default", monkeypatch, saved_bytes)
    min_cut = _train_step("min_cut", monkeypatch, saved_bytes)
    assert min_cut < everything, (min_cut, everything)
