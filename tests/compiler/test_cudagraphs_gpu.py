"""CUDA graph replay (compiler/cudagraphs.py) on the GPU: graphs recorded on the caller's
tensors replay without input copies when the inputs are where they were; other inputs go
through the copy-in graphs; mutated inputs are updated once; one-launch graphs run
directly; results are handed out without copies while every result a caller keeps stays
right (a ring of two recordings per input pattern, copies only past that)."""
import gc
import json
import weakref

import pytest
import torch

import tuner.compiler.cudagraphs as cg

pytestmark = pytest.mark.gpu

TOL = dict(rtol=1e-4, atol=1e-4)


def _graphed(fn, mutated=(), address_replay=True, **kw):
    from tuner.compiler.context import CompiledGraph
    return cg.CUDAGraphed(CompiledGraph(lambda args: fn(*args), None, tuple(mutated)),
                          address_replay=address_replay, **kw)


def _counters():
    return cg.RECORDINGS, cg.OUTPUT_COPIES, cg.ZERO_COPY_REPLAYS


def test_address_graphs_replay_new_values_in_place_then_fall_back_to_copy_in():
    g = _graphed(lambda x, w: [torch.softmax(x, -1) * w + 1])
    w = torch.randn(33, device="cuda")
    x = torch.randn(8, 33, device="cuda")
    ref = lambda x: torch.softmax(x, -1) * w + 1   # noqa: E731
    g([x, w])                                      # eager first call
    x1 = x.clone()
    out1 = g([x, w])[0]                            # recorded on x and w themselves
    x.copy_(torch.randn(8, 33, device="cuda"))     # same address, new values
    out2 = g([x, w])[0]                            # out1 is held: the ring's second recording
    torch.testing.assert_close(out2, ref(x))
    torch.testing.assert_close(out1, ref(x1))
    assert len(g.by_address) == 1 and not g.copy_rings
    assert out1.data_ptr() != out2.data_ptr()
    xs = [torch.randn(8, 33, device="cuda") for _ in range(cg.MAX_ADDRESS_GRAPHS + 2)]
    outs = [g([xi, w])[0] for xi in xs]
    for xi, o in zip(xs, outs):
        torch.testing.assert_close(o, ref(xi))
    assert len(g.by_address) == cg.MAX_ADDRESS_GRAPHS and len(g.copy_rings) == 1


def test_same_addresses_with_another_layout_never_replay_the_first_layouts_graph():
    g = _graphed(lambda x: [x * 2 + x[0].sum()])
    base = torch.randn(64, device="cuda")
    for _ in range(3):
        for view in (base.view(8, 8), base.view(4, 16), base.view(16, 4).t()):
            out = g([view])[0]
            torch.testing.assert_close(out, view * 2 + view[0].sum(), **TOL)
    # the first layout replays on the caller's address; the other two (same address, other
    # strides) each have a copy-in ring of their own (up to COPY_RINGS)
    assert len(g.by_address) == 1 and len(g.copy_rings) == min(2, cg.COPY_RINGS)


def test_mutated_inputs_update_in_place_once_per_call_at_any_address():
    # recorded on the caller's own tensors (no warm-up run: it would update them twice); past
    # MAX_ADDRESS_GRAPHS address patterns the copy graph updates its static copy and writes
    # the result back
    def f(x, y):
        x.add_(1)
        return [x * y]
    g = _graphed(f, mutated=[0])
    y = torch.randn(16, device="cuda")
    x = torch.zeros(16, device="cuda")
    for i in range(1, 6):
        out = g([x, y])[0]
        torch.testing.assert_close(x, torch.full_like(x, float(i)))
        torch.testing.assert_close(out, x * y)
    assert len(g.by_address) == 1 and not g.copy_rings
    xs = [torch.zeros(16, device="cuda") for _ in range(cg.MAX_ADDRESS_GRAPHS + 1)]
    for _ in range(3):
        for xi in xs:
            out = g([xi, y])[0]
            torch.testing.assert_close(out, xi * y)
    for xi in xs:
        torch.testing.assert_close(xi, torch.full_like(xi, 3.0))
    assert len(g.by_address) == cg.MAX_ADDRESS_GRAPHS and len(g.copy_rings) == 1


def test_one_launch_graphs_run_directly_longer_ones_replay(monkeypatch):
    # torch.compile refuses mode= together with options=: the option comes from the setting
    monkeypatch.setenv("TUNER_COMPILE_OPTIONS", json.dumps({"cudagraph_min_launches": 2}))
    torch._dynamo.reset()
    before = cg.RECORDINGS
    one = torch.compile(lambda x: torch.softmax(x, -1), backend="tuner", mode="reduce-overhead")
    x = torch.randn(8, 33, device="cuda")
    for _ in range(3):
        torch.testing.assert_close(one(x), torch.softmax(x, -1))
    assert cg.RECORDINGS == before
    torch._dynamo.reset()
    two = torch.compile(lambda x, w: torch.softmax(x @ w, -1), backend="tuner", mode="reduce-overhead")
    w = torch.randn(33, 17, device="cuda")
    for _ in range(3):
        torch.testing.assert_close(two(x, w), torch.softmax(x @ w, -1))
    assert cg.RECORDINGS == before + 1


def test_graphs_of_many_inputs_per_launch_run_directly():
    # an optimizer step: 2 launches; 5 inputs per parameter (parameter, gradient, two states,
    # step counter). 4 parameters replay a graph; 16 (80 inputs > 25 per launch) run directly
    from tuner.compiler.backend import CUDAGRAPH_INPUTS_PER_LAUNCH
    counts = []
    for n in (4, 16):
        assert (5 * n <= 2 * CUDAGRAPH_INPUTS_PER_LAUNCH) == (n == 4)
        torch._dynamo.reset()
        torch.manual_seed(0)
        ps = [torch.randn(3 + i, device="cuda", requires_grad=True) for i in range(n)]
        ref = [p.detach().clone().requires_grad_() for p in ps]
        kw = dict(lr=1e-2, foreach=True, capturable=True)
        opt, ropt = torch.optim.Adam(ps, **kw), torch.optim.Adam(ref, **kw)
        step = torch.compile(opt.step, backend="tuner", mode="reduce-overhead")
        before = cg.RECORDINGS
        for _ in range(4):
            for p, r in zip(ps, ref):
                p.grad = torch.randn(p.shape, device="cuda")
                r.grad = p.grad.clone()
            step()
            ropt.step()
        for p, r in zip(ps, ref):
            torch.testing.assert_close(p, r, rtol=1e-5, atol=1e-6)
        counts.append(cg.RECORDINGS - before)
    assert counts[0] >= 1 and counts[1] == 0, counts


@pytest.mark.parametrize("address_replay", [False, True])
def test_results_kept_in_a_list_all_stay_equal_to_eager(address_replay):
    g = _graphed(lambda x, w: [torch.tanh(x @ w), x.sum(-1)], address_replay=address_replay)
    w = torch.randn(32, 16, device="cuda")
    x = torch.randn(8, 32, device="cuda")      # one buffer, new values each call
    g([x, w])
    kept = []
    for _ in range(5):
        x.copy_(torch.randn_like(x))
        kept.append((x.clone(), g([x, w])))
    for xi, (a, b) in kept:
        torch.testing.assert_close(a, torch.tanh(xi @ w), **TOL)
        torch.testing.assert_close(b, xi.sum(-1), **TOL)
    ring = g.by_address[next(iter(g.by_address))].ring if address_replay else \
        next(iter(g.copy_rings.values()))[1]
    assert len(ring.slots) == cg.RING and ring.spare is not None   # 2 zero-copy, then copies


@pytest.mark.parametrize("address_replay", [False, True])
def test_out_equals_f_x_loop_alternates_two_recordings_without_copies(address_replay):
    g = _graphed(lambda x, w: [torch.relu(x * w) + 1], address_replay=address_replay)
    w = torch.randn(64, device="cuda")
    x = torch.randn(128, 64, device="cuda")
    g([x, w])
    rec, copies, zero = _counters()
    out = None
    for i in range(6):
        x.copy_(torch.randn_like(x))
        out = g([x, w])[0]
        torch.testing.assert_close(out, torch.relu(x * w) + 1)
        if i == 1:
            assert cg.RECORDINGS == rec + 2      # the previous out was held: a second recording
    assert cg.RECORDINGS == rec + 2
    assert cg.OUTPUT_COPIES == copies
    assert cg.ZERO_COPY_REPLAYS == zero + 6


def test_two_address_patterns_in_turn_never_overwrite_a_held_result():
    # Slot i of both patterns' rings shares memory pool i, where a later recording may put its
    # outputs on an earlier one's intermediates: P's first recording must not replay while Q's
    # (captured after it) has a result held, so P gets its second slot in the other pool.
    def f(x, w):
        return [torch.softmax(torch.relu(x @ w), -1) @ w]   # intermediates in the pool
    g = _graphed(f)
    w = torch.randn(64, 64, device="cuda")
    xs = [torch.randn(32, 64, device="cuda") for _ in range(2)]
    g([xs[0], w])
    rec, copies, _ = _counters()
    prev = None
    for i in range(8):
        x = xs[i % 2]
        x.copy_(torch.randn_like(x))
        xi = x.clone()
        out = g([x, w])[0]
        torch.testing.assert_close(out, f(xi, w)[0], **TOL)
        if prev is not None:
            torch.testing.assert_close(prev[1], f(prev[0], w)[0], **TOL)
        prev = (xi, out)
    assert len(g.by_address) == 2
    assert (cg.RECORDINGS - rec, cg.OUTPUT_COPIES - copies) == (3, 0)


@pytest.mark.parametrize("address_replay", [False, True])
def test_output_aliasing_an_input_is_that_view_of_the_callers_input(address_replay):
    g = _graphed(lambda x: [x.view(4, 8), x * 2], address_replay=address_replay)
    xs = [torch.randn(32, device="cuda") for _ in range(cg.MAX_ADDRESS_GRAPHS + 3)]
    g([xs[0]])
    prev = None
    for x in xs[1:] + xs[1:]:                    # past the address patterns: copy-in too
        copies = cg.OUTPUT_COPIES
        x.copy_(torch.randn_like(x))
        xi = x.clone()
        a, b = g([x])
        assert cg.OUTPUT_COPIES == copies        # as eager: x's own memory; x * 2 handed out
        assert a.data_ptr() == x.data_ptr() and a.shape == (4, 8)
        torch.testing.assert_close(a, xi.view(4, 8))
        torch.testing.assert_close(b, xi * 2)
        if prev is not None:                     # the previous call's result did not change
            torch.testing.assert_close(prev[1], prev[0] * 2)
        prev = (xi, b)


def test_a_graph_viewing_another_graphs_output_leaves_it_replayable(monkeypatch):
    # GPT-2's training step: the loss graph returns a view of the logits it reads, which are
    # the forward's static output. Kept by the loss graph's recording, that view held the
    # forward's memory for good: the forward recorded its second slot, then replayed its spare
    # with copies of every output each step (2 ms of copies a step).
    spares = []
    capture = cg.CUDAGraphed._capture

    def counted(self, inputs, pool, spare=False, warm=True):
        if spare:
            spares.append(self)
        return capture(self, inputs, pool, spare, warm)

    monkeypatch.setattr(cg.CUDAGraphed, "_capture", counted)
    fwd = _graphed(lambda x: [torch.tanh(x) * 3, x.sum()])
    loss = _graphed(lambda y: [y.view(-1), (y * y).sum()])
    x = torch.randn(16, 32, device="cuda")
    for step in range(8):
        x.copy_(torch.randn_like(x))
        y, s = fwd([x])
        flat, total = loss([y])
        torch.testing.assert_close(flat, (torch.tanh(x) * 3).view(-1), **TOL)
        torch.testing.assert_close(total, ((torch.tanh(x) * 3) ** 2).sum(), **TOL)
        torch.testing.assert_close(s, x.sum(), **TOL)
        del y, s, flat, total
    assert not spares
    assert len(fwd.by_address) == 1 and len(fwd.by_address[next(iter(fwd.by_address))].ring.slots) == 1


def test_copy_in_recordings_read_other_recordings_outputs_in_place():
    # A training loop with a fresh batch each step: the forward goes past its address patterns
    # to copy-in, and the backward, reading the activations the forward's recording saved,
    # followed it: it copied every saved activation in each step (138 copies, 0.94 ms a step
    # for GPT-2). Those are read where the forward's recording keeps them now.
    fwd = _graphed(lambda x: [torch.tanh(x) * 3, x.sum()])
    bwd = _graphed(lambda y, g: [(1 - (y / 3) ** 2) * 3 * g])
    held = []                                    # fresh batches at fresh addresses
    for step in range(14):
        x, g = torch.randn(16, 32, device="cuda"), torch.randn(16, 32, device="cuda")
        held.append((x, g))
        if step == 10:
            rec, copies = cg.RECORDINGS, cg.OUTPUT_COPIES
        y, s = fwd([x])
        (dx,) = bwd([y, g])
        torch.testing.assert_close(dx, (1 - torch.tanh(x) ** 2) * 3 * g, **TOL)
        torch.testing.assert_close(s, x.sum(), **TOL)
        del y, s, dx
    assert fwd.copy_rings and bwd.copy_rings and 0 in bwd.kept and 1 not in bwd.kept
    assert len(bwd.copy_rings) <= cg.COPY_RINGS
    assert (cg.RECORDINGS - rec, cg.OUTPUT_COPIES - copies) == (0, 0)   # steady: no copies


def test_once_full_a_pattern_seen_twice_in_a_row_replaces_the_oldest_dead_one():
    # A training loop's first steps hand its backward a new gradient address each; once the
    # allocator settles the address repeats. That pattern takes the place of the least
    # recently used one (results dead) and replays without copies; a pattern that moves every
    # call stays on copy-in, never recorded.
    g = _graphed(lambda x: [torch.tanh(x) * 2])
    xs = [torch.randn(64, device="cuda") for _ in range(cg.MAX_ADDRESS_GRAPHS + 1)]
    for x in xs:                                  # (the first runs eagerly)
        g([x])
    assert len(g.by_address) == cg.MAX_ADDRESS_GRAPHS and not g.copy_rings
    moving = [torch.randn(64, device="cuda") for _ in range(3)]
    for x in moving:                              # each once: copy-in
        g([x])
    assert len(g.copy_rings) == 1 and all((x.data_ptr(),) not in g.by_address for x in moving)
    steady = torch.randn(64, device="cuda")
    oldest = (xs[1].data_ptr(),)                  # the least recently used pattern
    g([steady])                                   # missed once: copy-in
    rec = cg.RECORDINGS
    out = g([steady])[0]                          # missed twice in a row: recorded in its place
    assert cg.RECORDINGS == rec + 1 and (steady.data_ptr(),) in g.by_address
    assert oldest not in g.by_address and len(g.by_address) == cg.MAX_ADDRESS_GRAPHS
    torch.testing.assert_close(out, torch.tanh(steady) * 2, **TOL)
    del out
    copies, replays = cg.INPUT_COPIES, cg.ZERO_COPY_REPLAYS
    steady.copy_(torch.randn(64, device="cuda"))
    torch.testing.assert_close(g([steady])[0], torch.tanh(steady) * 2, **TOL)
    assert (cg.INPUT_COPIES, cg.ZERO_COPY_REPLAYS) == (copies, replays + 1)


def test_rings_unused_for_a_while_with_dead_results_are_dropped():
    # the patterns of a loop's first steps are never seen again, and each recording held a
    # full set of the graph's outputs (GPT-2's backward: every gradient); a held result keeps
    # its ring
    g = _graphed(lambda x: [x * 3 + 1])
    xs = [torch.randn(1024, 256, device="cuda") for _ in range(cg.MAX_ADDRESS_GRAPHS + 1)]
    kept = None
    for i, x in enumerate(xs):
        out = g([x])[0]
        if i == 2:
            kept = out                            # held by the caller: its ring stays
    del out
    g([torch.randn(1024, 256, device="cuda")])    # once: copy-in
    before = cg.census()["output_mib"]
    steady = xs[-1]
    for _ in range(cg.STALE_CALLS + 4):
        torch.testing.assert_close(g([steady])[0], steady * 3 + 1, **TOL)
    assert set(g.by_address) == {(steady.data_ptr(),), (xs[2].data_ptr(),)} and not g.copy_rings
    assert cg.census()["output_mib"] <= before - 2.0  # two 1 MiB outputs and the copy ring's
    torch.testing.assert_close(kept, xs[2] * 3 + 1, **TOL)


def test_census_counts_a_recordings_static_outputs_while_the_graph_lives():
    before = cg.census()
    g = _graphed(lambda x: [x * 2, x.sum()])
    x = torch.randn(1024, 256, device="cuda")             # x * 2: 1 MiB
    g([x])
    out = g([x])                                          # recorded on x's address
    c = cg.census()
    assert c["graphs"] - before["graphs"] == 1
    assert c["address_recordings"] - before["address_recordings"] == 1
    assert c["output_mib"] - before["output_mib"] >= 1.0
    torch.testing.assert_close(out[0], x * 2)
    del g, out
    assert cg.census()["graphs"] == before["graphs"]


def _mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(64, 128), torch.nn.LayerNorm(128), torch.nn.GELU(),
        torch.nn.Linear(128, 64)).cuda()


@pytest.mark.parametrize("address_replay", [False, True])
def test_reduce_overhead_inference_hands_out_outputs_without_copies(monkeypatch, address_replay):
    # without address replay every call's fresh x goes through the copy-in ring; with it, x is
    # one buffer refilled in place (a loop over fresh tensors would hit allocator-dependent
    # address patterns, each with its own ring)
    monkeypatch.setenv("TUNER_COMPILE_OPTIONS", json.dumps({"cudagraph_address_replay": address_replay}))
    torch._dynamo.reset()
    model = _mlp().eval()

    def fn(x):
        h = model(x)
        return torch.softmax(h, -1), h.sum()
    cf = torch.compile(fn, backend="tuner", mode="reduce-overhead")
    rec, copies, zero = _counters()
    with torch.no_grad():
        first_x = torch.randn(16, 64, device="cuda")
        first = cf(first_x)                      # eager first call
        ref_first = fn(first_x)[0]
        x = torch.randn(16, 64, device="cuda")
        out = None
        for _ in range(5):                       # `out = f(x)`: the previous out is alive
            if address_replay:
                x.copy_(torch.randn(16, 64, device="cuda"))
            else:
                x = torch.randn(16, 64, device="cuda")
            out = cf(x)
            ref = fn(x)
            torch.testing.assert_close(out[0], ref[0], **TOL)
            torch.testing.assert_close(out[1], ref[1], **TOL)
        torch.testing.assert_close(first[0], ref_first, **TOL)
    assert cg.RECORDINGS - rec == 2
    assert (cg.ZERO_COPY_REPLAYS - zero, cg.OUTPUT_COPIES - copies) == (5, 0)
    assert not out[0]._is_view() and out[0]._base is None


def test_reduce_overhead_training_steps_match_eager_gradients():
    model = _mlp().train()
    ref_model = _mlp().train()
    cm = torch.compile(model, backend="tuner", mode="reduce-overhead")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(ref_model.parameters(), lr=0.1)
    zero = cg.ZERO_COPY_REPLAYS
    for step in range(5):
        x = torch.randn(16, 64, device="cuda")
        opt.zero_grad()
        ref_opt.zero_grad()
        loss = cm(x).square().mean()
        loss.backward()
        ref_loss = ref_model(x).square().mean()
        ref_loss.backward()
        torch.testing.assert_close(loss, ref_loss, **TOL)
        for (name, p), q in zip(model.named_parameters(), ref_model.parameters()):
            torch.testing.assert_close(p.grad, q.grad, **TOL, msg=lambda m: f"step {step} {name}: {m}")
        opt.step()
        ref_opt.step()
    # the forward (activations saved until backward) and backward graphs replayed zero-copy
    assert cg.ZERO_COPY_REPLAYS - zero >= 8


@pytest.mark.parametrize("address_replay", [False, True])
def test_dynamic_sizes_record_a_shape_when_it_recurs_up_to_the_limit(address_replay):
    # a growing KV cache: every length comes once, so nothing records; recurring lengths record
    # (in copy-in rings: address replay is off for dynamic sizes, either way), up to max_shapes
    # of them; the rest run directly
    g = _graphed(lambda q, k: [torch.softmax(q @ k.t(), -1) @ k], address_replay=address_replay,
                 shape_key=lambda args: (args[1].shape[0],), max_shapes=2)
    assert not g.address_replay
    q = torch.randn(4, 16, device="cuda")
    rec, direct = cg.RECORDINGS, cg.DIRECT_CALLS

    def run(n):
        k = torch.randn(n, 16, device="cuda")
        out = g([q, k])[0]
        torch.testing.assert_close(out, torch.softmax(q @ k.t(), -1) @ k, **TOL)
        return out
    g([q, torch.randn(3, 16, device="cuda")])   # the eager first call
    for n in range(4, 20):
        run(n)
    assert cg.RECORDINGS == rec and cg.DIRECT_CALLS - direct == 16
    for _ in range(3):
        for n in (5, 6, 7):
            run(n)
    assert g.admitted == {(5,), (6,)}
    assert 2 <= cg.RECORDINGS - rec <= (cg.MAX_ADDRESS_GRAPHS + 2) * cg.RING
    assert cg.DIRECT_CALLS - direct == 16 + 3     # length 7 stays direct past the limit


def test_reduce_overhead_decode_with_a_growing_cache_records_nothing_per_step():
    torch._dynamo.reset()
    w = torch.randn(32, 32, device="cuda")

    def step(x, cache):
        cache = torch.cat([cache, x @ w], 0)
        att = torch.softmax(x @ cache.t() / 4.0, -1)
        return att @ cache, cache
    cf = torch.compile(step, backend="tuner", mode="reduce-overhead", dynamic=True)
    rec = cg.RECORDINGS
    for _ in range(2):
        cache = torch.randn(2, 32, device="cuda")
        for _ in range(12):
            x = torch.randn(1, 32, device="cuda")
            out, new = cf(x, cache)
            ref, ref_cache = step(x, cache)
            torch.testing.assert_close(out, ref, **TOL)
            torch.testing.assert_close(new, ref_cache, **TOL)
            cache = new
    # the first pass over the lengths records nothing; the second records at most the limit
    from tuner.settings import settings
    assert cg.RECORDINGS - rec <= settings.cudagraph_shapes * cg.RING


def test_copy_in_recordings_read_parameters_and_static_buffers_in_place():
    # past MAX_ADDRESS_GRAPHS input addresses (a generate loop's fresh token tensors), the
    # copy-in ring copies only the inputs that move: weights and a static KV cache (marked
    # with mark_static_address, updated in place by the graph) stay where they are
    w = torch.nn.Parameter(torch.randn(16, 16, device="cuda"), requires_grad=False)
    cache = torch.zeros(8, 16, device="cuda")
    torch._dynamo.mark_static_address(cache)

    def step(x, pos, w, cache):
        cache.index_copy_(0, pos, x @ w)
        return [cache.sum(0) * 2]
    g = _graphed(step, mutated=(3,))
    xs = [torch.randn(1, 16, device="cuda") for _ in range(cg.MAX_ADDRESS_GRAPHS + 4)]
    ref_cache = cache.clone()
    for i, x in enumerate(xs):
        pos = torch.tensor([i % 8], device="cuda")
        out = g([x, pos, w, cache])[0]
        ref_cache.index_copy_(0, pos, x @ w)
        torch.testing.assert_close(cache, ref_cache, **TOL)   # updated once per call, in place
        torch.testing.assert_close(out, ref_cache.sum(0) * 2, **TOL)
    (inputs, _ring), = g.copy_rings.values()
    assert g.kept == (2, 3) and inputs[2] is None and inputs[3] is None   # read where they are
    assert inputs[0] is not xs[-1]
    with torch.no_grad():
        w.mul_(0.5)                    # a weight changed in place is read at its address
    x, pos = torch.randn(1, 16, device="cuda"), torch.tensor([3], device="cuda")
    out = g([x, pos, w, cache])[0]
    ref_cache.index_copy_(0, pos, x @ w)
    torch.testing.assert_close(out, ref_cache.sum(0) * 2, **TOL)


def test_a_shared_pool_whose_recordings_all_died_records_again():
    # torch keeps a pool whose last graph is gone known while memory in it is held (here a
    # result a caller keeps), and a capture into that pool id fails its internal assert
    # (`use_count > 0`): seen when Hugging Face generates of another length recorded after the
    # rings of the first had been dropped. Such a pool takes a new id.
    g = _graphed(lambda x: [x * 2 + 1, (x * 3).sin()])
    x = torch.randn(256, device="cuda")
    pool = cg._Pool(shared=True)
    rec = g._capture([x], pool)
    held = rec.outputs.hand_out([x])   # in the pool's memory, kept
    del rec                            # its ring dropped: the graph is gone
    rec = g._capture([x], pool)
    rec.graph.replay()
    out = rec.outputs.hand_out([x])
    torch.testing.assert_close(out[0], x * 2 + 1, **TOL)
    torch.testing.assert_close(out[1], (x * 3).sin(), **TOL)
    assert held[0].data_ptr() != out[0].data_ptr()


def _wide_mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.GELU(),
                               torch.nn.Linear(2048, 2048), torch.nn.GELU(),
                               torch.nn.Linear(2048, 512)).cuda()


def _new_graphs(before) -> list:
    return [g for g in cg.LIVE if g not in before]


def _assert_grads_close(got, want, step):
    # scaled by each reference's largest entry: a zero, stale or overwritten gradient is off by
    # O(1), while TF32 matmuls stay well inside 1e-2
    for k, (g, r) in enumerate(zip(got, want)):
        scale = r.abs().max().clamp_min(1e-30)
        torch.testing.assert_close(g / scale, r / scale, rtol=0, atol=1e-2,
                                   msg=lambda m: f"step {step}, tensor {k}: {m}")


def _train_steps(monkeypatch, options, steps=4, set_to_none=True):
    """A wide MLP's training steps under reduce-overhead (forward and backward graphs
    recorded on the second step), fresh inputs every step: (gradients per step, the graphs
    made, reserved MiB grown, the eager gradients of the same steps)."""
    monkeypatch.setenv("TUNER_COMPILE_OPTIONS", json.dumps(options))
    torch._dynamo.reset()
    gc.collect()
    model, ref = _wide_mlp(), _wide_mlp()
    cm = torch.compile(model, backend="tuner", mode="reduce-overhead")
    before = weakref.WeakSet(cg.LIVE)
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    reserved = torch.cuda.memory_reserved()
    grads, ref_grads = [], []
    for step in range(steps):
        torch.manual_seed(100 + step)
        x = torch.randn(4096, 512, device="cuda")
        model.zero_grad(set_to_none=set_to_none)
        cm(x).square().sum().backward()
        grads.append([p.grad.clone() for p in model.parameters()])
        ref.zero_grad(set_to_none=set_to_none)
        ref(x).square().sum().backward()
        ref_grads.append([p.grad.clone() for p in ref.parameters()])
    torch.cuda.synchronize()
    grown = (torch.cuda.memory_reserved() - reserved) / 2**20
    del ref
    return grads, _new_graphs(before), grown, ref_grads


@pytest.mark.parametrize("set_to_none", [True, False])
def test_forward_and_backward_recordings_share_pools_and_match_eager(monkeypatch, set_to_none):
    # the backward's recording goes into the forward's pool (a list each by default); with
    # gradients kept between steps (zero_grad(set_to_none=False): accumulated in place) the
    # recordings stay right. What sharing saves is measured by the benchmark (GPT-2's
    # max-autotune step reserved 7,060 MiB private, 6,504 shared), not asserted here: on this
    # MLP it is within the allocator's segment rounding (1,126 shared vs 1,108 private in one
    # run, less in another)
    shared = {"cudagraph_shared_pools": True}
    grads, graphs, _, ref = _train_steps(monkeypatch, shared, set_to_none=set_to_none)
    for step, (got, want) in enumerate(zip(grads, ref)):
        _assert_grads_close(got, want, step)
    assert len(graphs) == 2 and graphs[0].address_pools is graphs[1].address_pools
    del grads, graphs, ref
    if set_to_none:
        _, graphs, _, _ = _train_steps(monkeypatch, {})   # (the default: a list each)
        assert graphs[0].address_pools is not graphs[1].address_pools


def test_a_graph_of_large_results_and_small_moving_inputs_records_once_copy_in(monkeypatch):
    # a training step's forward takes a fresh batch at a new address each step: it replays
    # copy-in (the batch copied into the recording's own buffer), one recording for all of
    # them, instead of a recording per address pattern each holding every saved activation
    monkeypatch.setattr(cg, "COPY_IN_RESULT_BYTES", 1 << 20)
    monkeypatch.setattr(cg, "COPY_IN_RATIO", 2)
    copies = cg.INPUT_COPIES
    grads, graphs, _, ref = _train_steps(monkeypatch, {}, steps=6)
    for step, (got, want) in enumerate(zip(grads, ref)):
        _assert_grads_close(got, want, step)
    forward = [g for g in graphs if not g.address_replay]
    assert len(forward) == 1, [(g.address_replay, len(g.by_address)) for g in graphs]
    assert not forward[0].by_address and len(forward[0].copy_rings) == 1
    assert sum(len(r.slots) for _, r in forward[0].copy_rings.values()) == 1
    assert cg.INPUT_COPIES - copies >= 5     # the batch, every replayed step


def test_a_forward_updating_batch_norm_statistics_copies_in_and_matches_eager(monkeypatch):
    # the forward mutates only buffers it reads in place (running statistics): it too replays
    # copy-in, one recording for every batch address, and the statistics advance once a step
    monkeypatch.setattr(cg, "COPY_IN_RESULT_BYTES", 1 << 20)
    monkeypatch.setattr(cg, "COPY_IN_RATIO", 2)
    torch._dynamo.reset()

    def net():
        torch.manual_seed(0)
        # (no bias before the batch norm: its gradient is zero up to rounding, nothing to compare)
        return torch.nn.Sequential(torch.nn.Conv2d(8, 32, 3, padding=1, bias=False), torch.nn.BatchNorm2d(32),
                                   torch.nn.ReLU(), torch.nn.Conv2d(32, 8, 3, padding=1)).cuda()
    model, ref = net(), net()
    cm = torch.compile(model, backend="tuner", mode="reduce-overhead")
    before = weakref.WeakSet(cg.LIVE)
    for step in range(6):
        torch.manual_seed(100 + step)
        x = torch.randn(16, 8, 32, 32, device="cuda")
        for m, f in ((model, cm), (ref, ref)):
            m.zero_grad(set_to_none=True)
            f(x).square().sum().backward()
        _assert_grads_close([p.grad for p in model.parameters()], [q.grad for q in ref.parameters()], step)
        torch.testing.assert_close(model[1].running_mean, ref[1].running_mean, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(model[1].running_var, ref[1].running_var, rtol=1e-4, atol=1e-5)
    assert model[1].num_batches_tracked.item() == ref[1].num_batches_tracked.item() == 6
    forward = [g for g in _new_graphs(before) if not g.address_replay]
    assert len(forward) == 1 and forward[0].mutates and not forward[0].by_address
