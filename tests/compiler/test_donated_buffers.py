"""Donated buffers (issue 50): a backward graph puts its buffers in the storage of the saved
activations AOTAutograd reports no one reads again, once they are dead (compiler/memory_plan.py);
never in one that is returned, written in place, read by an extern that may alias it, kept
by the caller (retain_graph=True) or shared with another input."""
import copy

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

import tuner.compiler.stats as stats
from helpers import assert_close
from tuner.compiler import memory_plan
from tuner.compiler.compile_graph import compile_graph
from tuner.compiler.context import CompileContext
from tuner.compiler.torch_compat import decomposition_table


class GPT2Block(torch.nn.Module):
    """Pre-norm attention (SDPA, causal) and a GELU MLP, each with its residual."""

    def __init__(self, d=64, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.up, self.down = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, -1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))


def _model(name):
    torch.manual_seed(0)
    if name == "mlp":
        model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.LayerNorm(256),
                                    torch.nn.Linear(256, 256), torch.nn.GELU(), torch.nn.Linear(256, 64))
        return model, torch.randn(32, 64)
    return GPT2Block(), torch.randn(2, 16, 64)


def _check_grads(model, ref):
    for (n, p), (_, q) in zip(model.named_parameters(), ref.named_parameters()):
        torch.testing.assert_close(p.grad, q.grad, atol=5e-4, rtol=1e-3, msg=n)


@pytest.mark.parametrize("name", ["mlp", "gpt2_block"])
def test_backward_reuses_donated_saved_activations(monkeypatch, wrappers, name):
    # the default partitioner saves activations the backward reads once: after their last use
    # a later buffer of the backward takes their storage; gradients stay eager's, two steps
    monkeypatch.setenv("TUNER_PARTITIONER", "default")
    stats.reset()
    model, x = _model(name)
    ref = copy.deepcopy(model)
    cm = torch.compile(model, backend="tuner")
    for _ in range(2):
        cm(x).square().mean().backward()
        ref(x).square().mean().backward()
        _check_grads(model, ref)
    graphs = stats.graphs()
    assert len(graphs) == 2 and not any(g.graph_fallback for g in graphs)
    fw, bw = graphs
    assert fw.donated_reused_bytes == 0
    assert bw.donated_reused_bytes > 0, bw.source
    assert "# reuse (donated arg" in bw.source
    plan = wrappers[-1].plan
    assert set(plan.on_donated.values()) <= {wrappers[-1].g.inputs[i].name for i in wrappers[-1].donated}
    assert plan.peak_bytes == plan.no_reuse_bytes   # (a donated storage counts as allocated)
    assert stats.totals().donated_reused_bytes == bw.donated_reused_bytes


def test_retain_graph_donates_nothing(monkeypatch):
    # retain_graph=True: AOTAutograd reports no donated input, and a second backward over the
    # same saved activations still gives eager's gradients
    monkeypatch.setenv("TUNER_PARTITIONER", "default")
    stats.reset()
    model, x = _model("mlp")
    ref = copy.deepcopy(model)
    loss = torch.compile(model, backend="tuner")(x).square().mean()
    loss.backward(retain_graph=True)
    loss.backward()
    r = ref(x).square().mean()
    r.backward(retain_graph=True)
    r.backward()
    _check_grads(model, ref)
    bw = stats.last()
    assert bw.donated_reused_bytes == 0 and "donated" not in bw.source


def test_saved_tensor_returned_to_the_user_is_never_reused(monkeypatch):
    # h is saved for the backward and returned: AOTAutograd does not donate it, and the
    # backward leaves it as the forward returned it
    monkeypatch.setenv("TUNER_PARTITIONER", "default")
    stats.reset()
    torch.manual_seed(0)
    w1, w2 = torch.randn(64, 64, requires_grad=True), torch.randn(64, 64, requires_grad=True)
    x = torch.randn(32, 64)

    def f(x, w1, w2):
        h = torch.nn.functional.gelu(x @ w1)
        return h, torch.tanh(h @ w2) @ w2
    h, out = torch.compile(f, backend="tuner")(x, w1, w2)
    kept = h.detach().clone()
    out.square().mean().backward()
    ref = [t.detach().clone().requires_grad_() for t in (w1, w2)]
    h_ref, out_ref = f(x, *ref)
    out_ref.square().mean().backward()
    assert_close(h, kept)
    assert_close(h, h_ref)
    assert_close(w1.grad, ref[0].grad)
    assert_close(w2.grad, ref[1].grad)
    assert not any(g.graph_fallback for g in stats.graphs())


def _compile_donating(f, args, donated):
    gm = make_fx(f, decomposition_table=decomposition_table())(*args)
    return compile_graph(gm, list(args), ctx=CompileContext(donated=frozenset(donated)))


def test_plan_never_reuses_returned_or_aliased_inputs(wrappers):
    # every input donated: c is returned and d read by view.dtype (an extern whose result
    # aliases it), so neither is reused; a (dead after its softmax) or b (after the mm) is
    def f(a, b, c, d):
        e = (d.view(torch.int32) >> 23).float()
        s = torch.softmax(a, -1)
        # (a softmax after the mm: a pointwise op would write over the mm's result instead)
        return c, torch.softmax(s @ b + e, -1) @ s
    args = [torch.randn(32, 32) for _ in range(4)]
    ref = f(*[t.clone() for t in args])
    compiled = _compile_donating(f, args, range(4))
    out = compiled([t.clone() for t in args])
    assert_close(out, ref)
    plan = wrappers[-1].plan
    names = [b.name for b in wrappers[-1].g.inputs]
    used = set(plan.on_donated.values())
    assert used and used <= {names[0], names[1]}, plan.on_donated
    assert compiled.donated_inputs == tuple(i for i, n in enumerate(names) if n in used)
    assert plan.donated_reused_bytes == 32 * 32 * 4 * len(used)
    assert stats.last().donated_reused_bytes == plan.donated_reused_bytes


def test_donated_input_at_a_storage_offset(wrappers):
    # a donated input in the second half of a storage: the buffer put there starts at its
    # offset and the first half, another tensor's, is left alone
    def f(a, b):
        s = torch.softmax(a, -1)
        return torch.softmax(s @ b, -1) @ s   # (a reduction: not written over the mm's result)
    base, b = torch.randn(2, 32, 32), torch.randn(32, 32)
    ref = f(base[1].clone(), b)
    compiled = _compile_donating(f, [base[1], b], [0])
    first = base[0].clone()
    (out,) = compiled([base[1], b])
    assert_close(out, ref)
    assert_close(base[0], first)
    assert list(wrappers[-1].plan.on_donated.values()) == ["arg0"], wrappers[-1].plan.actions
    assert "= arg0  # reuse (donated arg0)" in stats.last().source


def test_strided_donated_input_is_not_reused(wrappers):
    # every other column of a storage: its span holds another tensor's elements
    def f(a, b):
        s = torch.softmax(a, -1)
        return torch.softmax(s @ b, -1) @ s   # (a reduction: not written over the mm's result)
    base, b = torch.randn(32, 64), torch.randn(32, 32)
    other = base[:, 1::2].clone()
    ref = f(base[:, ::2].clone(), b)
    compiled = _compile_donating(f, [base[:, ::2], b], [0])
    (out,) = compiled([base[:, ::2], b])
    assert_close(out, ref)
    assert_close(base[:, 1::2], other)
    assert not wrappers[-1].plan.on_donated
    assert memory_plan.dense_nbytes(wrappers[-1].g.inputs[0]) is None


def test_graph_cache_hit_keeps_the_donated_reuse(monkeypatch, wrappers):
    # a hit rebuilds the wrapper that writes the donated input, says which input it writes
    # (FirstCallGuard snapshots it) and keeps the stats; the key tells donated from not
    from tuner.cache import reset_cache
    monkeypatch.setenv("TUNER_GRAPH_CACHE", "1")
    reset_cache()

    def f(a, b):
        s = torch.softmax(a, -1)
        return torch.softmax(s @ b, -1) @ s   # (a reduction: not written over the mm's result)
    try:
        args = [torch.randn(32, 32), torch.randn(32, 32)]
        ref = f(*[t.clone() for t in args])
        first = _compile_donating(f, args, [0])
        first([t.clone() for t in args])
        second = _compile_donating(f, args, [0])
        (out,) = second([t.clone() for t in args])
        assert second.stats.graph_cache == "hit (local)", second.stats.graph_cache
        assert_close(out, ref)
        assert second.donated_inputs == first.donated_inputs == (0,)
        assert second.stats.donated_reused_bytes == first.stats.donated_reused_bytes == 32 * 32 * 4
        assert second.stats.source == first.stats.source
        plain = _compile_donating(f, args, [])
        assert plain.stats.graph_cache == "miss" and plain.donated_inputs == ()
    finally:
        reset_cache()


def test_first_call_failure_restores_donated_inputs(monkeypatch):
    # a first call that wrote a donated input and then failed: ATen reruns the graph on the
    # input as it was; where no snapshot fits, the error propagates instead
    from tuner.compiler import backend
    gm = make_fx(lambda a, b: (a * 2 + b,))(torch.randn(4), torch.randn(4))

    def failing(args):
        args[0].fill_(7.0)   # (a buffer put in the donated input's storage)
        raise RuntimeError("a kernel failed to launch")
    a, b = torch.randn(4), torch.randn(4)
    ref = a * 2 + b
    guard = backend.FirstCallGuard(failing, gm, stats.new(keep=False), (), (0,))
    (out,) = guard([a, b])
    assert_close(out, ref)
    monkeypatch.setattr(backend, "_snapshot", lambda args, indices: {})
    guard = backend.FirstCallGuard(failing, gm, stats.new(keep=False), (), (0,))
    with pytest.raises(RuntimeError, match="failed to launch"):
        guard([a, b])


def test_a_graph_with_effect_tokens_donates_nothing():
    # linalg.inv runs its error check under with_effects: AOTAutograd's donation report then
    # names the saved inverse, which is the user's output, and the backward overwrote it (the
    # OpInfo gradient sweep caught it)
    a = torch.randn(5, 5) + 3 * torch.eye(5)
    x = a.clone().requires_grad_()
    out = torch.compile(torch.linalg.inv, backend="tuner")(x)
    before = out.detach().clone()
    out.sum().backward()
    torch.testing.assert_close(out.detach(), before, rtol=0, atol=0)
    xe = a.clone().requires_grad_()
    torch.linalg.inv(xe).sum().backward()
    torch.testing.assert_close(x.grad, xe.grad)


@pytest.mark.parametrize("cols", [32, 24])
def test_a_returned_buffer_takes_a_storage_only_of_its_own_bytes(wrappers, cols):
    # the result (32 x cols f32) is returned: it outlives the call (a gradient, until the next
    # step), so it may take a dead 32 x 32 storage (the donated input's or the softmax's) only
    # where it fills it; in a larger one the room beyond it would stay allocated as long as the
    # result lives
    def f(a, b):
        return torch.relu(torch.softmax(a, -1) @ b) * 2
    a, b = torch.randn(32, 32), torch.randn(32, cols)
    compiled = _compile_donating(f, [a.clone(), b], [0])
    (out,) = compiled([a.clone(), b])
    assert_close(out, f(a, b))
    assert out.untyped_storage().nbytes() == 32 * cols * 4
    w_ = wrappers[-1]
    (name,) = [o.buffer.name for o in w_.g.outputs]
    if cols == 32:   # an exact fit is still taken
        assert w_.plan.actions[name][0] == "same", w_.plan.actions
