"""The liveness bookkeeping of compiler/cudagraphs.py on real CPU tensors: which static outputs
a recording owns, whether a result handed out from them is still held anywhere (storage use
counts), and what the handed-out results are. The replay itself needs a GPU (the _gpu file)."""
import torch

import tuner.compiler.cudagraphs as cg
from tuner.compiler.cudagraphs import StaticOutputs, storage_handle, storage_use_count


def test_storage_use_count_counts_tensors_views_and_storage_objects():
    # The counts StaticOutputs relies on: one per tensor (a view and its base are two) and one
    # for a Python storage object that we hold.
    t = torch.empty(8)
    s = t.untyped_storage()
    h = storage_handle(t)
    assert h == s._cdata and storage_use_count(h) == 2
    v = t[2:]
    assert storage_use_count(h) == 3
    d = v.detach()
    assert storage_use_count(h) == 4
    del v, d
    assert storage_use_count(h) == 2


def test_held_result_keeps_the_recording_alive_and_a_dropped_one_does_not():
    outs = StaticOutputs([torch.randn(4, 4), torch.randn(3)])
    assert outs.owned == [True, True]
    assert not outs.alive()
    res = outs.hand_out()
    assert outs.alive()
    kept = res[1]
    del res
    assert outs.alive()          # one result is enough
    del kept
    assert not outs.alive()
    # handing out again after the results died works the same way
    again = outs.hand_out()
    assert outs.alive()
    del again
    assert not outs.alive()


def test_handed_out_result_is_a_fresh_alias_not_an_autograd_view():
    padded = torch.randn(8, 8)
    sliced = padded[:3, :5]      # like a padded matmul's [:m, :n] result
    del padded
    static = [torch.randn(6), sliced]
    outs = StaticOutputs(static)
    assert outs.owned == [True, True]
    res = outs.hand_out()
    for r, s in zip(res, static):
        assert r is not s
        assert r.data_ptr() == s.data_ptr()            # no copy
        assert r.shape == s.shape and r.stride() == s.stride()
        assert not r._is_view() and r._base is None
        assert not r.requires_grad
        assert torch.equal(r, s)


def test_views_of_results_and_outputs_sharing_a_storage_are_counted():
    buf = torch.randn(10)
    outs = StaticOutputs([buf, buf[:4], buf.view(2, 5), buf])   # one storage, repeated output
    del buf
    assert outs.owned == [True] * 4 and not outs.alive()
    res = outs.hand_out()
    view_of_result = res[1][1:]  # the caller keeps only a view of one result
    del res
    assert outs.alive()
    del view_of_result
    assert not outs.alive()


def test_views_of_an_input_alias_the_callers_input_other_memory_not_owned_is_copied():
    x = torch.randn(6)           # an input of the recording
    param = torch.randn(5)       # not an input here: somebody else's memory
    elsewhere = param[1:]        # somebody else holds a tensor on this memory
    own = torch.randn(3)
    outs = StaticOutputs([x.view(2, 3), x, param, own, 7], inputs=[x, 1.0])
    assert outs.owned == [False, False, False, True, False]
    before = cg.OUTPUT_COPIES
    y = torch.randn(6)           # the call's input (copy-in: the caller's tensor, not ours)
    res = outs.hand_out([y, 1.0])
    assert cg.OUTPUT_COPIES == before + 1
    assert res[4] == 7
    assert res[3].data_ptr() == own.data_ptr()
    # as eager and a direct launch return them: views of the caller's own input
    assert res[0].data_ptr() == y.data_ptr() and res[0].shape == (2, 3) and torch.equal(res[1], y)
    assert res[2].data_ptr() != param.data_ptr() and torch.equal(res[2], param)
    # copies and views of inputs (and the caller's own tensors) do not keep the recording alive
    copies = res[:3]
    assert outs.alive()
    del res
    assert not outs.alive() and len(copies) == 3 and elsewhere.numel() == 4


def test_an_output_viewing_an_input_does_not_hold_the_inputs_memory():
    # A loss graph returns a view of the logits it reads; the logits are the static output of
    # the forward's recording. Were the view kept, the forward's memory would stay held for
    # good and its recording would replay with copies from then on (GPT-2's training step,
    # 2 ms of copies a step under CUDA graphs).
    logits = torch.randn(4, 6)
    h = storage_handle(logits)
    held = storage_use_count(h)
    outs = StaticOutputs([logits.view(2, 12), logits[1:, 2:], torch.randn(3)], inputs=[logits])
    assert storage_use_count(h) == held
    assert outs.owned == [False, False, True]
    # handed out: the same views of the call's input, no copies
    copies = cg.OUTPUT_COPIES
    logits.mul_(2)
    res = outs.hand_out([logits])
    assert torch.equal(res[0], logits.view(2, 12)) and torch.equal(res[1], logits[1:, 2:])
    assert res[1].data_ptr() == logits[1:, 2:].data_ptr() and res[1].stride() == (6, 1)
    assert cg.OUTPUT_COPIES == copies
    # an input that is itself a view (a storage offset): the output's place relative to it
    base = torch.randn(20)
    x = base[4:16]
    outs = StaticOutputs([x[2:8]], inputs=[x])
    res = outs.copies([x])
    assert torch.equal(res[0], base[6:12])


def test_owned_outputs_are_known_as_static_outputs_while_their_recording_lives():
    # copy-in recordings read other recordings' static outputs in place (a backward reading
    # the activations its forward's recording saved); the registry forgets a dead recording
    own, x = torch.randn(4), torch.randn(3)
    ptr = own.untyped_storage().data_ptr()
    outs = StaticOutputs([own, x[1:]], inputs=[x])
    assert cg.STATIC_STORAGES.get(ptr) == 1 and x.untyped_storage().data_ptr() not in cg.STATIC_STORAGES
    del outs
    assert ptr not in cg.STATIC_STORAGES


def test_copies_copy_every_tensor_and_count_them():
    outs = StaticOutputs([torch.randn(3), None, torch.randn(2)])
    before = cg.OUTPUT_COPIES
    res = outs.copies()
    assert cg.OUTPUT_COPIES == before + 2 and res[1] is None
    assert res[0].data_ptr() != outs.outs[0].data_ptr()
    assert not outs.alive()


def test_cpu_inputs_run_directly_without_recording():
    before = cg.RECORDINGS
    from tuner.compiler.context import CompiledGraph
    g = cg.CUDAGraphed(CompiledGraph(lambda args: [args[0] * 2], None), address_replay=True)
    x = torch.randn(4)
    for _ in range(3):
        torch.testing.assert_close(g([x])[0], x * 2)
    assert cg.RECORDINGS == before and not g.by_address and not g.copy_rings


def test_dynamic_sizes_admit_a_shape_on_its_second_call_up_to_the_limit():
    # the bookkeeping behind reduce-overhead with dynamic sizes (the replay is in the _gpu file)
    from tuner.compiler.context import CompiledGraph
    g = cg.CUDAGraphed(CompiledGraph(lambda args: [args[0]], None), shape_key=lambda a: (a[0],),
                       max_shapes=2)
    direct = cg.DIRECT_CALLS
    seq = [1, 2, 3, 1, 2, 3, 1, 4, 4]
    recorded = [not g._direct([n]) for n in seq]
    assert recorded == [False, False, False, True, True, False, True, False, False]
    assert g.admitted == {(1,), (2,)} and cg.DIRECT_CALLS - direct == 6
    fixed = cg.CUDAGraphed(CompiledGraph(lambda args: [args[0]], None))
    assert not fixed._direct([1]) and not fixed._direct([2])    # fixed sizes: always recorded
    # a dynamic-size graph records copy-in rings only (a generate's cache moves every step:
    # recordings on its addresses never replayed, and each shape recorded again copy-in)
    dyn = cg.CUDAGraphed(CompiledGraph(lambda args: [args[0]], None), address_replay=True,
                         shape_key=lambda a: (a[0],))
    assert not dyn.address_replay
    assert cg.CUDAGraphed(CompiledGraph(lambda args: [args[0]], None), address_replay=True).address_replay


def test_census_counts_recordings_and_the_memory_their_static_tensors_keep():
    # The recordings' bookkeeping on CPU tensors (no graphs: census reads only what a recording
    # holds): an address ring of two slots and a spare, a copy ring of one slot with its static
    # inputs; a storage two outputs share counts once, an output the recording does not own
    # (the caller holds it) not at all, and a dead graph drops out.
    from tuner.compiler.context import CompiledGraph
    g = cg.CUDAGraphed(CompiledGraph(lambda args: args, None))
    mib = 2**20 // 4                                   # float32 elements in one MiB

    def rec(*outs):
        return cg._Recording(None, StaticOutputs(list(outs)), None)

    shared = torch.empty(2 * mib)
    held = torch.empty(mib)
    alias = held.detach()                              # the caller's: not the recording's alone
    addr = g.by_address[(1,)] = cg._Address((), ())
    addr.ring.slots = [rec(shared[:mib], shared[mib:]), rec(torch.empty(mib), held)]
    addr.ring.spare = rec(torch.empty(3 * mib))
    ring = cg._Ring()
    ring.slots = [rec(torch.empty(mib))]
    g.copy_rings[("layout",)] = ([torch.empty(4 * mib), None, 3], ring)
    before = cg.census()
    others = {k: before[k] - v for k, v in dict(graphs=1, address_recordings=2, copy_recordings=1,
                                                 spares=1, output_mib=7.0, input_mib=4.0).items()}
    del g, addr, ring, alias
    after = {k: v for k, v in cg.census().items() if k in others}
    assert others == after       # what this graph held, exactly: the rest is other live graphs'


def test_copy_in_rings_key_on_sizes_moving_layouts_and_kept_addresses_alone(monkeypatch):
    # A decode step passes ~100 parameters: a dynamic-size graph's copy-in ring is found by
    # the call's symbolic sizes, the moving inputs' layouts and the kept inputs' addresses,
    # without reading every parameter's layout per call (dynamo's guards checked them).
    from tuner.compiler.context import CompiledGraph
    g = cg.CUDAGraphed(CompiledGraph(lambda args: [args[1]], None),
                       shape_key=lambda a: (a[1].shape[0],))
    w, w2 = torch.nn.Parameter(torch.randn(4, 4)), torch.nn.Parameter(torch.randn(4, 4))
    x = torch.randn(3, 4)
    _, ring = g._copy_ring([w, x])
    read = []
    layout = cg._layout
    monkeypatch.setattr(cg, "_layout", lambda a: read.append(a) or layout(a))
    assert g._copy_ring([w, torch.randn(3, 4)])[1] is ring            # same sizes, same ring
    assert all(a is not w for a in read)                               # the parameter's not read
    assert g._copy_ring([w, torch.randn(5, 4)])[1] is not ring        # another size
    assert g._copy_ring([w, torch.randn(3, 4).t().contiguous().t()])[1] is not ring   # layout
    assert g._copy_ring([w2, torch.randn(3, 4)])[1] is not ring       # another parameter
    assert cg._addresses([w, x], scalars=False) == (w.data_ptr(), x.data_ptr())
    assert cg._addresses([w, 3]) == cg._addresses([w, 3], scalars=False) == (w.data_ptr(), ("const", 3))


def _graph(fn, mutated=(), **kw):
    from tuner.compiler.context import CompiledGraph
    return cg.CUDAGraphed(CompiledGraph(lambda args: fn(*args), None, tuple(mutated)), address_replay=True, **kw)


def test_large_results_from_small_moving_inputs_choose_copy_in_after_the_first_call(monkeypatch):
    # a training step's forward: parameters (read in place) and a small batch in, every saved
    # activation out -> one copy-in recording for any batch address (decided on the first call)
    monkeypatch.setattr(cg, "COPY_IN_RESULT_BYTES", 4096)
    w = torch.nn.Parameter(torch.randn(64, 64))
    x = torch.randn(4, 64)
    forward = _graph(lambda w, x: [x @ w, (x @ w).repeat(16, 1), torch.randn(64, 64)])
    forward([w, x])                          # (CPU: runs directly; the choice is made all the same)
    assert not forward.address_replay
    # moving inputs more than 1/16 of the results: address replay stays (a backward reading
    # its incoming gradient and the activations)
    backward = _graph(lambda g, x: [g.sum(0), x * 2])
    backward([torch.randn(256, 64), torch.randn(256, 64)])
    assert backward.address_replay
    # results below the size: stays (a decode step's logits)
    small = _graph(lambda w, x: [x @ w])
    small([w, x])
    assert small.address_replay
    # an output viewing an input is not a result of its own
    view = _graph(lambda w, x: [w.view(-1), x + 1])
    view([w, x])
    assert view.address_replay
    # a graph that mutates an input it would copy in keeps address replay
    mutating = _graph(lambda w, x: [x @ w, (x @ w).repeat(16, 1)], mutated=(1,))
    mutating([w, x])
    assert mutating.address_replay
    # one that mutates only inputs read in place (batch-norm statistics: buffers) copies in
    stats = torch.zeros(64)
    stats._dynamo_static_input_type = "unguarded"
    bn = _graph(lambda w, s, x: [x @ w, (x @ w).repeat(16, 1)], mutated=(1,))
    bn([w, stats, x])
    assert not bn.address_replay
    # another recording's static outputs count as moving (a backward called after two
    # forwards: which of them a copy-in recording reads in place is settled later)
    saved = StaticOutputs([torch.randn(256, 64)])
    backward = _graph(lambda w, a, x: [(x @ w).repeat(16, 1), a * 2])
    backward([w, saved.outs[0], x])
    assert backward.address_replay
    # options={"cudagraph_copy_in": False}
    off = _graph(lambda w, x: [x @ w, (x @ w).repeat(16, 1)], copy_in=False)
    off([w, x])
    assert off.address_replay
    # so does a second call's choice: it is made once
    later = _graph(lambda w, x: [x @ w])
    later([w, x])
    later.call = type(later.call)(lambda args: [torch.randn(512, 64)], None, ())
    later([w, x])
    assert later.address_replay
