"""CUDA graph replay for reduce-overhead / max-autotune, handing out results without copies.

The first call runs eagerly (kernels tune and compile there); later calls replay a recorded
graph. A graph reads its inputs at the addresses it was recorded with, so:
- with address replay on (options["cudagraph_address_replay"], the default), a graph is
  recorded on the caller's own tensors and replayed, without any input copy, whenever the
  inputs are at those addresses again (parameters always are; a benchmark's or a loop's
  reused buffers too), for up to MAX_ADDRESS_GRAPHS address patterns; a graph that mutates
  its inputs (an optimizer step) updates the caller's tensors in place. Once the patterns
  have filled, a new one is recorded only when it misses on two calls in a row (a loop whose
  allocator settled after its first steps), in place of the least recently used pattern
  whose results are dead; rings unused for STALE_CALLS calls whose results are dead are
  dropped, with the memory their static outputs held;
- otherwise (past that, and from the start for a graph whose results are large and whose
  moving inputs are small: a training step's forward, _choose_copy_in) graphs recorded on
  static input buffers of our own replay after copying the new inputs in (and the mutated
  ones back out, once); they are recorded again
  when a shape/stride/dtype changes. Parameters, buffers, tensors marked static (a static
  KV cache) and other recordings' static outputs (STATIC_STORAGES: a backward reading what
  its forward's recording saved) are read where they are, never copied: up to COPY_RINGS
  recordings follow them to other addresses, and a graph whose producers keep moving copies
  their outputs in after all. (An optimizer step copied in and out this way moved every
  parameter and state twice: 24 ms instead of 1.5 ms for GPT-2's AdamW on the H100; GPT-2's
  backward copying its saved activations in took 0.94 ms of a 6.6 ms training step.)

Results. A replay rewrites its graph's static outputs in place, so a recording may replay
only when no result it handed out is still held by anyone (StaticOutputs.alive compares each
output storage's use count with the references this module holds). Each input pattern keeps
a ring of up to RING recordings: a call replays one whose results are all dead and hands out
fresh aliases of its static outputs (ZERO_COPY_REPLAYS); if every one is held and the ring is
not full it records another; otherwise (a caller keeping a list of results, activations saved
across several forwards) it replays a spare recording whose outputs are never handed out and
returns copies. The usual `out = f(x)` loop alternates between two recordings, copying
nothing. An output viewing an input is that view of the caller's input, as eager returns it
(the recording keeps only its place: kept, it would hold the input's memory, and a producing
recording could never replay without copies again); another output on memory the recording
does not own alone (a parameter) is copied. OUTPUT_COPIES counts every copied output.

Memory pools. Recordings sharing a pool share the memory of their intermediates, but a
recording captured later may put its outputs where an earlier one keeps intermediates, so
replaying the earlier one would overwrite them. Hence: slot i of every address pattern's ring
shares pool i, and a recording replays without copies only while nothing handed out by it or
by a recording captured after it in that pool is held (_Pool.replayable); the two slots of a
ring never share a pool (else the `out = f(x)` loop could never alternate). With
options["cudagraph_shared_pools"] the forward and backward graphs of one compiled function
share that list of pools (`pools`, from the backend): the backward's recording, captured after
the forward's, puts its intermediates and gradients on memory the forward's intermediates use,
instead of a pool of its own; the forward then replays without copies while the backward's
results are dead, else it records its next slot. Only address rings share them: a forward
that chose copy-in (above) records into private pools. (Off by default: before copy-in, GPT-2's
max-autotune training step reserved 556 MiB less, ResNet-50's 2.9 GiB more. A
`model.zero_grad()` inside the compiled function is applied by dynamo after the graph it was
traced into, the forward's, so the last step's gradients, the backward recording's outputs,
are alive at every forward call and the forward records a second slot: two sets of
activations.) Spares share one pool per graph (nothing in it is handed out); the copy-in rings'
slots get private pools, since a layout change or a full COPY_RINGS drops a ring while results
it handed out may still be held.

Dynamic sizes. A graph compiled with symbolic sizes (compiler/sizes.py) is called with many
shapes, and a recording serves one. Such a graph (`shape_key` given: the call's symbolic sizes)
records a shape only when it comes a second time, for up to `max_shapes` shapes (the setting
TUNER_CUDAGRAPH_SHAPES), each with its own copy-in ring (never on the caller's addresses: a
generate loop's cache tensors are new every step, so an address recording never replayed, and
the shape's copy-in ring recorded again on its next call); other shapes run the compiled graph
directly (DIRECT_CALLS). So a decode loop whose KV cache grows a row per step, each length
seen once, pays no recording per step, and a server's recurring shapes replay.
"""
from __future__ import annotations

import weakref

import torch

MAX_ADDRESS_GRAPHS = 4
STALE_CALLS = 16       # a ring unused for this many calls, its results dead, is dropped
REPLACEMENTS = 8       # address patterns a graph records after its first MAX_ADDRESS_GRAPHS
COPY_RINGS = 2         # copy-in rings of a graph of fixed sizes (kept inputs at other addresses)
RING = 2               # zero-copy recordings per input pattern
RECORDINGS = 0         # graphs captured in this process (tests read these counters)
OUTPUT_COPIES = 0      # outputs returned as copies
ZERO_COPY_REPLAYS = 0  # replays that handed out the static outputs themselves
INPUT_COPIES = 0       # inputs copied into a copy-in recording's static inputs
DIRECT_CALLS = 0       # calls of a dynamic-size graph run without a recording (see above)
COPY_IN_RESULT_BYTES = 256 << 20   # a graph of results this large and inputs that move
COPY_IN_RATIO = 16                 # 1/16 of that at most replays copy-in only (_choose_copy_in)
SIGHTINGS = 4096       # shapes of one dynamic-size graph remembered as seen once
STATIC_STORAGES: dict = {}     # data_ptr -> live recordings owning a storage there (outputs)
LIVE: weakref.WeakSet = weakref.WeakSet()   # every CUDAGraphed alive (census)


def storage_handle(t: torch.Tensor) -> int:
    """The identity of t's storage (its StorageImpl address), valid while the storage lives."""
    return t.untyped_storage()._cdata


def storage_use_count(handle: int) -> int:
    """References held on the storage whose UntypedStorage `_cdata` is `handle`: one per
    tensor, view base or Python storage object on it. The only private torch API here (in
    torch since 2.0; absent, every output counts as not ours and is copied)."""
    use_count = getattr(torch._C, "_storage_Use_Count", None)
    return use_count(handle) if use_count is not None else -1


class StaticOutputs:
    """A recording's static outputs: which of them the recording owns alone, whether a result
    handed out from them is still held, and the results to hand out."""

    def __init__(self, outs, inputs=()):
        self.outs = list(outs)
        # the graph never owns its inputs' memory (an output may be a view of one, with the
        # caller's tensor as its base)
        theirs = {storage_handle(a): i for i, a in enumerate(inputs) if isinstance(a, torch.Tensor)}
        # An output viewing an input is rebuilt from the replayed call's input, not kept: kept,
        # it would hold the input's memory for good, and when that input is another recording's
        # static output (the logits a loss graph reads), that recording could never replay
        # without copies again. output position -> (input position, size, stride, offset in
        # elements from the input's first element)
        self.views: dict[int, tuple] = {}
        for k, o in enumerate(self.outs):
            j = theirs.get(storage_handle(o)) if isinstance(o, torch.Tensor) else None
            if j is not None and o.dtype == inputs[j].dtype:
                rel, rem = divmod(o.data_ptr() - inputs[j].data_ptr(), o.element_size())
                if not rem and inputs[j].storage_offset() + rel >= 0:
                    self.views[k] = (j, tuple(o.shape), o.stride(), rel)
                    self.outs[k] = None
        ours: dict[int, set] = {}      # storage handle -> ids of our tensors on it
        self._storages: dict[int, object] = {}
        for o in self.outs:
            if isinstance(o, torch.Tensor):
                h = self._hold(o)
                # a static output that is a view keeps its base: another tensor on the storage
                ours.setdefault(h, set()).update(id(t) for t in (o, o._base) if t is not None)
        # We keep one Python storage object per storage, so the count is the same across torch
        # versions (with or without storage PyObject preservation): our tensors + that object.
        # More at recording time means somebody else (the caller) holds the memory: not ours.
        self._watch = [(h, len(ids) + 1) for h, ids in ours.items()
                       if h not in theirs and storage_use_count(h) == len(ids) + 1]
        owned = {h for h, _ in self._watch}
        self.owned = [isinstance(o, torch.Tensor) and storage_handle(o) in owned
                      for o in self.outs]
        ptrs = {o.untyped_storage().data_ptr() for o, own in zip(self.outs, self.owned) if own}
        for p in ptrs:
            STATIC_STORAGES[p] = STATIC_STORAGES.get(p, 0) + 1
        if ptrs:
            weakref.finalize(self, _forget, ptrs)

    def _hold(self, t) -> int:
        s = t.untyped_storage()
        return self._storages.setdefault(s._cdata, s)._cdata

    def alive(self) -> bool:
        """Whether a result handed out from an owned output is still held somewhere."""
        return any(storage_use_count(h) > n for h, n in self._watch)

    def hand_out(self, inputs=(), zero_copy: bool = True) -> list:
        """Owned outputs as fresh aliases (new tensors on the same memory, not autograd views,
        as AOTAutograd expects of a compiled graph's outputs), those viewing an input as that
        view of the caller's input (`inputs`: the call's own, as eager and a direct launch
        alias it), the others as copies; every owned output a copy with zero_copy False (a
        recording whose outputs are never handed out)."""
        global OUTPUT_COPIES
        res = []
        for o, own in zip(self.outs, self.owned):   # (a view's place holds None until below)
            if not isinstance(o, torch.Tensor):
                res.append(o)
            elif own and zero_copy:
                res.append(o.detach())
            else:
                OUTPUT_COPIES += 1
                res.append(o.clone())
        for k, (j, size, stride, rel) in self.views.items():   # views of the caller's inputs
            res[k] = inputs[j].as_strided(size, stride, inputs[j].storage_offset() + rel)
        return res

    def copies(self, inputs=()) -> list:
        return self.hand_out(inputs, zero_copy=False)


def _forget(ptrs):
    """A recording's outputs are gone: their memory is nobody's static output any more."""
    for p in ptrs:
        n = STATIC_STORAGES.pop(p, 0) - 1
        if n > 0:
            STATIC_STORAGES[p] = n


def _storage_bytes(tensors, seen: set) -> int:
    """Bytes of the storages under `tensors` (non-tensors skipped) not in `seen` (storage data
    pointers), each once; `seen` takes theirs."""
    n = 0
    for t in tensors:
        s = t.untyped_storage() if isinstance(t, torch.Tensor) else None
        if s is not None and s.data_ptr() not in seen:
            seen.add(s.data_ptr())
            n += s.nbytes()
    return n


def census() -> dict:
    """What the live graphs' recordings hold: recordings by kind, and the MiB kept allocated
    between calls by their owned static outputs and by copy-in rings' static inputs (each
    storage once); memory a recording's intermediates reserve in its pool is not counted.
    With the process's counters so far (two censuses around a call give that call's)."""
    res = dict(graphs=0, address_recordings=0, copy_recordings=0, spares=0,
               output_mib=0.0, input_mib=0.0, recordings_made=RECORDINGS,
               output_copies=OUTPUT_COPIES, input_copies=INPUT_COPIES,
               zero_copy_replays=ZERO_COPY_REPLAYS)
    seen: set = set()

    def mib(tensors) -> float:
        return _storage_bytes(tensors, seen) / 2**20

    for g in list(LIVE):
        res["graphs"] += 1
        rings = [(a.ring, "address_recordings") for a in g.by_address.values()]
        rings += [(ring, "copy_recordings") for _, ring in g.copy_rings.values()]
        for ring, kind in rings:
            res[kind] += len(ring.slots)
            res["spares"] += ring.spare is not None
            for rec in ring.slots + [ring.spare] * (ring.spare is not None):
                res["output_mib"] += mib(o for o, own in zip(rec.outputs.outs, rec.outputs.owned)
                                         if own)
        for static, _ in g.copy_rings.values():
            res["input_mib"] += mib(static)
    return res


class _Pool:
    """A CUDA graph memory pool and the outputs of the zero-copy recordings captured into it,
    in capture order. torch releases a pool once the last graph captured into it is gone
    (while memory in it is still held, it stays known with no user, and a capture into that
    id fails an internal assert): a shared pool whose recordings all died takes a new id."""

    def __init__(self, shared: bool):
        self.handle = torch.cuda.graph_pool_handle() if shared else None   # None: private
        self.outputs: list[StaticOutputs] = []
        self.recordings: weakref.WeakSet = weakref.WeakSet()   # captured into it, alive

    def handle_for_capture(self):
        if self.handle is not None and not self.recordings:
            self.handle = torch.cuda.graph_pool_handle()
        return self.handle

    def replayable(self, outputs: StaticOutputs) -> bool:
        # A replay writes the recording's outputs and intermediates; recordings captured after
        # it may have put their outputs on its intermediates' memory (never on its outputs: we
        # hold those), so their results must be dead too.
        i = next(k for k, o in enumerate(self.outputs) if o is outputs)
        return not any(o.alive() for o in self.outputs[i:])


class _Recording:
    __slots__ = ("graph", "outputs", "pool", "__weakref__")

    def __init__(self, graph, outputs: StaticOutputs, pool: _Pool):
        self.graph, self.outputs, self.pool = graph, outputs, pool


class _Address:
    """An address pattern's layouts, the tensor objects last seen there (weakly), its ring."""
    __slots__ = ("layouts", "refs", "ring")

    def __init__(self, layouts, refs):
        self.layouts, self.refs, self.ring = layouts, refs, _Ring()


def _refs(args):
    return tuple(weakref.ref(a) if isinstance(a, torch.Tensor) else None for a in args)


class _Ring:
    """The recordings of one input pattern: zero-copy slots and the spare; `used`: the
    graph's call count when it last served."""

    def __init__(self):
        self.slots: list[_Recording] = []
        self.spare: _Recording | None = None
        self.used = 0

    def dead(self) -> bool:
        """Whether no result it handed out is held (a spare's never are)."""
        return not any(rec.outputs.alive() for rec in self.slots)

    def drop(self) -> None:
        """Leaves its pools (its recordings, and their static outputs, go with the ring)."""
        for rec in self.slots:
            rec.pool.outputs[:] = [o for o in rec.pool.outputs if o is not rec.outputs]


def _addresses(args, scalars: bool = True) -> tuple:
    """Each argument's data pointer (a non-tensor: its layout, the value): a call's address
    pattern. Without `scalars` (all tensors: a graph of fixed sizes) one C-level map, half the
    time of the general form over a decode step's hundred parameters."""
    if not scalars:
        try:
            return tuple(map(_DATA_PTR, args))
        except TypeError:   # (a scalar after all)
            pass
    return tuple(a.data_ptr() if isinstance(a, torch.Tensor) else _layout(a) for a in args)


_DATA_PTR = torch.Tensor.data_ptr


def _layout(a):
    return ((tuple(a.shape), tuple(a.stride()), a.dtype, a.device) if isinstance(a, torch.Tensor)
            else ("const", a))


def _static_input(a: torch.Tensor, outputs: bool) -> bool:
    """Whether a copy-in recording reads `a` where it is (CUDAGraphed._kept_inputs)."""
    return (isinstance(a, torch.nn.Parameter) or hasattr(a, "_dynamo_static_input_type")
            or (outputs and a.untyped_storage().data_ptr() in STATIC_STORAGES))


class CUDAGraphed:
    def __init__(self, call, address_replay: bool = False, shape_key=None, max_shapes: int = 8,
                 pools: list | None = None, copy_in: bool = True):
        self.call = call   # a CompiledGraph
        # dynamic sizes: args -> the call's symbolic sizes (None: a graph of fixed sizes)
        self.shape_key = shape_key
        self.max_shapes = max_shapes
        # a graph of fixed sizes may choose copy-in after its first call (_choose_copy_in)
        self.choose_copy_in = copy_in and shape_key is None
        self.sightings: dict = {}    # shape -> calls so far, for shapes not yet recorded
        self.admitted: set = set()   # shapes that record (at most max_shapes)
        self.copy_rings: dict = {}   # layout key -> (static inputs, _Ring)
        self.kept = None             # positions of inputs never copied in (_kept_inputs)
        self.moving = ()             # the other positions
        self.kept_mutated = False
        # other recordings' static outputs are kept inputs (fixed sizes: a dynamic-size graph's
        # producers, a decode step's, move with every size)
        self.keep_outputs = shape_key is None
        self.copy_recordings = 0     # copy-in rings made (a graph of fixed sizes)
        self.address_replay = address_replay and shape_key is None   # (see "Dynamic sizes")
        self.mutated_inputs = tuple(call.mutated_inputs)
        self.mutates = bool(self.mutated_inputs)
        self.by_address: dict = {}    # data_ptr (a non-tensor: its value) per input -> _Address
        self.scalars = None          # whether any input is not a tensor (read on a first call)
        # pool i holds slot i of every address ring (of every graph sharing the list)
        self.address_pools: list[_Pool] = pools if pools is not None else []
        self.spare_pool: _Pool | None = None
        self.calls = 0               # calls run directly (the first, CPU ones, new shapes)
        self.tick = 0                # every call
        self.last_miss = None        # the last address pattern missed once the patterns filled
        self.was_full = False        # MAX_ADDRESS_GRAPHS patterns were recorded at some point
        self.replaced = 0            # patterns recorded since
        LIVE.add(self)

    def _key(self, args):
        return tuple(_layout(a) for a in args)

    def _direct(self, args) -> bool:
        """Whether this call of a dynamic-size graph runs without a recording: its shape is
        new (seen once so far) or the recorded shapes reached max_shapes."""
        global DIRECT_CALLS
        if self.shape_key is None:
            return False
        shape = self.shape_key(args)
        if shape in self.admitted:
            return False
        seen = self.sightings.get(shape, 0) + 1
        if seen < 2 or len(self.admitted) >= self.max_shapes:
            if shape in self.sightings or len(self.sightings) < SIGHTINGS:
                self.sightings[shape] = seen
            DIRECT_CALLS += 1
            return True
        self.sightings.pop(shape, None)
        self.admitted.add(shape)
        return False

    def _choose_copy_in(self, args, outs) -> None:
        """After the first call: a graph whose results are large and whose moving inputs are
        small (a training step's forward: a batch of token ids in, every saved activation out)
        replays copy-in only, one recording for any input address, instead of a recording per
        address pattern, each holding a full set of results: a loop's fresh batches (and a
        benchmark's fresh inputs) come at several addresses. GPT-2's max-autotune training step
        reserved 5,802 MiB this way instead of 6,504; copying its batch of ids in costs a few
        microseconds. A graph that mutates an input keeps address replay unless every input it
        mutates is a parameter or buffer (a forward updating batch-norm statistics), which a
        copy-in recording updates in place. Other recordings' static outputs count as moving
        here (which of them a copy-in recording reads in place is settled on its first call,
        _kept_inputs: a backward called after two forwards may not keep the first one's), so
        what a call copies in stays within 1/16 of the results. On any error: address replay."""
        try:
            if any(not (isinstance(args[i], torch.Tensor) and _static_input(args[i], False))
                   for i in self.mutated_inputs):
                return
            # (an output on an input's storage is no result of its own)
            inputs = {a.untyped_storage().data_ptr() for a in args if isinstance(a, torch.Tensor)}
            out_bytes = _storage_bytes(outs if isinstance(outs, (list, tuple)) else (), inputs)
            moving = sum(a.untyped_storage().nbytes() for a in args
                         if isinstance(a, torch.Tensor) and not _static_input(a, False))
        except Exception:   # noqa: BLE001 - (a tensor without storage) the choice is an optimization
            return
        if out_bytes >= COPY_IN_RESULT_BYTES and moving * COPY_IN_RATIO <= out_bytes:
            self.address_replay = False

    def _kept_inputs(self, args) -> tuple:
        """Positions of the inputs a copy-in recording reads where they are, never copied:
        parameters, buffers and tensors marked static (torch._dynamo.mark_static_address, as
        Hugging Face's static KV cache is), and other recordings' static outputs (a backward
        reading the activations its forward's recording saved). Copying them in and out per
        call moved every weight and the whole cache each decode step, and every saved
        activation each training step."""
        if self.kept is None:
            self.kept = tuple(i for i, a in enumerate(args) if isinstance(a, torch.Tensor)
                              and _static_input(a, self.keep_outputs))
            # a copy-in recording reading a mutated kept input in place skips its warm-up
            self.kept_mutated = bool(set(self.kept) & set(self.mutated_inputs))
            self.moving = tuple(i for i in range(len(args)) if i not in set(self.kept))
        return self.kept

    def _copy_ring(self, args):
        """(static inputs, ring) recorded on our own copies of inputs of args' layout (the kept
        inputs themselves, at their addresses: None in the list): for a graph of fixed sizes,
        up to COPY_RINGS addresses of its kept inputs, one per recorded shape otherwise."""
        kept = self._kept_inputs(args)
        # A graph is called only with the sizes and strides dynamo's guards checked, but for
        # its symbolic ones: the kept inputs (parameters) are keyed by address, not layout,
        # and a dynamic-size graph's by the call's symbolic sizes too (reading a hundred
        # parameters' layouts cost 60 us per call of a decode step's host time).
        layouts = tuple(_layout(args[i]) for i in self.moving)
        if self.shape_key is not None:
            layouts = (self.shape_key(args), layouts)
        key = (layouts, tuple(args[i].data_ptr() for i in kept))
        entry = self.copy_rings.get(key)
        if entry is None and self.shape_key is None:
            self.copy_recordings += 1
            if self.keep_outputs and self.copy_recordings > 4 * COPY_RINGS and \
                    any(not isinstance(args[i], torch.nn.Parameter) for i in kept):
                # the recordings it reads from move more than its rings follow: copy them in
                self.keep_outputs, self.kept = False, None
                self.copy_rings.clear()
                return self._copy_ring(args)
            while len(self.copy_rings) >= COPY_RINGS:
                del self.copy_rings[next(iter(self.copy_rings))]
        if entry is None:
            # kept inputs are not held here (the call passes them): held, another recording's
            # static output would stay alive for good and that recording never replay again
            static = [None if i in kept else torch.empty_strided(
                a.shape, a.stride(), dtype=a.dtype, device=a.device).copy_(a)
                if isinstance(a, torch.Tensor) else a for i, a in enumerate(args)]
            entry = self.copy_rings[key] = (static, _Ring())
        return entry

    def __call__(self, args):
        global ZERO_COPY_REPLAYS, INPUT_COPIES
        args = list(args)
        if self.calls == 0 or not all(not isinstance(a, torch.Tensor) or a.is_cuda for a in args) \
                or self._direct(args):
            self.calls += 1
            out = self.call(list(args))
            if self.calls == 1 and self.address_replay and self.choose_copy_in:
                self._choose_copy_in(args, out)
            return out
        self.tick += 1
        if self.tick % 4 == 0 and self.shape_key is None:
            self._drop_stale()
        ring = inputs = None
        copy_in = False
        if self.address_replay:
            ring = self._address_ring(args)
            inputs = args
        if ring is None:
            inputs, ring = self._copy_ring(args)
            inputs = list(inputs)
            for i in self.kept:
                inputs[i] = args[i]
            copy_in = True
        ring.used = self.tick
        # Pick (or record) before copying inputs in: recording runs a warm-up on `inputs`,
        # which for a mutating graph changes the static inputs.
        rec, zero_copy = self._pick(ring, inputs, address=not copy_in,
                                    in_place=not copy_in or self.kept_mutated)
        if copy_in:
            for i in self.moving:
                a, s = args[i], inputs[i]
                if isinstance(a, torch.Tensor) and s.data_ptr() != a.data_ptr():
                    INPUT_COPIES += 1
                    s.copy_(a)
        rec.graph.replay()
        if copy_in:
            for i in self.mutated_inputs:
                if args[i].data_ptr() != inputs[i].data_ptr():
                    args[i].copy_(inputs[i])
        if zero_copy:
            ZERO_COPY_REPLAYS += 1
            return rec.outputs.hand_out(args)
        return rec.outputs.copies(args)

    def _address_ring(self, args):
        """The ring recorded on these inputs' addresses (made if there is room; once the
        patterns have filled, in a graph of fixed sizes, for a pattern missed on two calls in a
        row), or None: past MAX_ADDRESS_GRAPHS patterns, or the same addresses with other
        layouts. Layouts are compared only when the tensor objects are not the ones of the last
        call at these addresses: an optimizer step passes ~600 tensors, and reading every
        one's sizes and strides cost more host time than its whole GPU step (the same objects
        at the same addresses keep their layouts: dynamo's guards check sizes and strides
        before a compiled graph is called)."""
        if self.scalars is None:   # (positions hold the same kinds on every call)
            self.scalars = not all(isinstance(a, torch.Tensor) for a in args)
        ptrs = _addresses(args, self.scalars)
        entry = self.by_address.get(ptrs)
        if entry is not None:
            # weak references: an id alone may be reused by a new view at the same address;
            # only the tensors that are new objects have their layouts read (a decode step's
            # few fresh inputs, not its hundred parameters)
            new = [i for i, (r, a) in enumerate(zip(entry.refs, args)) if r is not None and r() is not a]
            if new:
                if any(_layout(args[i]) != entry.layouts[i] for i in new):
                    return None
                refs = list(entry.refs)
                for i in new:
                    refs[i] = weakref.ref(args[i])
                entry.refs = tuple(refs)
            return entry.ring
        self.was_full = self.was_full or len(self.by_address) >= MAX_ADDRESS_GRAPHS
        if self.was_full:
            # Once full, only a pattern missed on two calls in a row is recorded (inputs that
            # move every call go to copy-in, never re-recorded), in place of the least recently
            # used one whose results are dead: the first steps of a training loop give its
            # backward a new gradient address each (the allocator settles later), which filled
            # the patterns and sent every later step to copy-in, copying the logits' gradient
            # in (16 copies, 0.22 ms of GPT-2's 6.4 ms step).
            steady, self.last_miss = ptrs == self.last_miss, ptrs
            if not steady or self.replaced >= REPLACEMENTS:   # (addresses recurring in pairs)
                return None
            if len(self.by_address) >= MAX_ADDRESS_GRAPHS:
                dead = [(e.ring.used, p) for p, e in self.by_address.items() if e.ring.dead()]
                if not dead:
                    return None
                self.by_address.pop(min(dead, key=lambda d: d[0])[1]).ring.drop()
            self.replaced += 1
        entry = self.by_address[ptrs] = _Address(self._key(args), _refs(args))
        return entry.ring

    def _drop_stale(self) -> None:
        """Drops the rings unused for STALE_CALLS calls whose results are dead, so their static
        outputs (and copy-in inputs) stop holding memory: address patterns of a loop's first
        steps are never seen again, and each held a full set of the graph's outputs (GPT-2's
        backward: every gradient). (A graph of fixed sizes only: a dynamic-size graph's rings
        are its recorded shapes, which a later generate call uses again.)"""
        old = self.tick - STALE_CALLS
        for p in [p for p, e in self.by_address.items() if e.ring.used <= old and e.ring.dead()]:
            self.by_address.pop(p).ring.drop()
        for k in [k for k, (_, r) in self.copy_rings.items() if r.used <= old and r.dead()]:
            self.copy_rings.pop(k)[1].drop()

    def _pick(self, ring: _Ring, inputs, address: bool, in_place: bool):
        """(recording to replay, whether its outputs may be handed out). in_place: the
        recording reads some caller's tensor that it mutates (no warm-up run: see _capture)."""
        warm = not (in_place and self.mutates)
        for rec in ring.slots:
            if rec.pool.replayable(rec.outputs):
                return rec, True
        if len(ring.slots) < RING:
            i = len(ring.slots)
            if not address:
                pool = _Pool(shared=False)
            else:
                while len(self.address_pools) <= i:
                    self.address_pools.append(_Pool(shared=True))
                pool = self.address_pools[i]
            ring.slots.append(self._capture(inputs, pool, warm=warm))
            return ring.slots[-1], True
        if ring.spare is None:
            if self.spare_pool is None:
                self.spare_pool = _Pool(shared=True)
            ring.spare = self._capture(inputs, self.spare_pool, spare=True, warm=warm)
        return ring.spare, False

    def _capture(self, inputs, pool: _Pool, spare: bool = False, warm: bool = True) -> _Recording:
        """A graph recorded reading `inputs` where they are now, into `pool`. The warm-up run
        executes (a captured graph records, it does not), so a graph that mutates its inputs
        and is recorded on the caller's own tensors skips it (warm=False): the eager first call
        warmed everything up, and the call's one update is the replay that follows."""
        global RECORDINGS
        RECORDINGS += 1
        if warm:
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                self.call(list(inputs))     # warm-up on the side stream
            torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=pool.handle_for_capture()):
            outs = self.call(list(inputs))
        rec = _Recording(graph, StaticOutputs(outs, inputs), pool)
        pool.recordings.add(rec)
        if not spare:    # a spare's outputs are never handed out: nothing to check for them
            pool.outputs.append(rec.outputs)
        return rec
