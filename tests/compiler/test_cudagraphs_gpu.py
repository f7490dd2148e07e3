"""CUDA graph replay (compiler/cudagraphs.py) on the GPU: graphs recorded on the caller's
tensors replay without copies when the inputs are where they were; other inputs go through
the copy-in graph; mutated inputs are written back once; one-launch graphs run directly.
Both behaviours are options (off by default) until these tests have passed on the GPU."""
import pytest
import torch

import tuner.compiler.cudagraphs as cg

pytestmark = pytest.mark.gpu


def _graphed(fn, mutated=()):
    def call(args):
        return fn(*args)
    call._mutated_inputs = list(mutated)
    return cg.CUDAGraphed(call, address_replay=True)


def test_address_graphs_replay_new_values_in_place_then_fall_back_to_copies():
    g = _graphed(lambda x, w: [torch.softmax(x, -1) * w + 1])
    w = torch.randn(33, device="cuda")
    x = torch.randn(8, 33, device="cuda")
    ref = lambda x: torch.softmax(x, -1) * w + 1   # noqa: E731
    g([x, w])                                      # eager first call
    out1 = g([x, w])[0]                            # recorded on x and w themselves
    x.copy_(torch.randn(8, 33, device="cuda"))     # same address, new values
    out2 = g([x, w])[0]
    torch.testing.assert_close(out2, ref(x))
    assert len(g.by_address) == 1 and g.graph is None and g.static_inputs is None
    assert out1.data_ptr() != out2.data_ptr()      # results are copies
    xs = [torch.randn(8, 33, device="cuda") for _ in range(cg.MAX_ADDRESS_GRAPHS + 2)]
    outs = [g([xi, w])[0] for xi in xs]
    for xi, o in zip(xs, outs):
        torch.testing.assert_close(o, ref(xi))
    assert len(g.by_address) == cg.MAX_ADDRESS_GRAPHS and g.graph is not None


def test_mutated_inputs_use_the_copy_graph_and_are_written_back_once():
    def f(x, y):
        x.add_(1)
        return [x * y]
    g = _graphed(f, mutated=[0])
    y = torch.randn(16, device="cuda")
    x = torch.zeros(16, device="cuda")
    for i in range(1, 5):
        out = g([x, y])[0]
        torch.testing.assert_close(x, torch.full_like(x, float(i)))
        torch.testing.assert_close(out, x * y)
    assert not g.by_address and g.graph is not None


def test_one_launch_graphs_run_directly_longer_ones_replay():
    torch._dynamo.reset()
    before = cg.RECORDINGS
    opts = {"cudagraph_min_launches": 2}
    one = torch.compile(lambda x: torch.softmax(x, -1), backend="tuner", mode="reduce-overhead",
                        options=opts)
    x = torch.randn(8, 33, device="cuda")
    for _ in range(3):
        torch.testing.assert_close(one(x), torch.softmax(x, -1))
    assert cg.RECORDINGS == before
    torch._dynamo.reset()
    two = torch.compile(lambda x, w: torch.softmax(x @ w, -1), backend="tuner", mode="reduce-overhead",
                        options=opts)
    w = torch.randn(33, 17, device="cuda")
    for _ in range(3):
        torch.testing.assert_close(two(x, w), torch.softmax(x @ w, -1))
    assert cg.RECORDINGS == before + 1
