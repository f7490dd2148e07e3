"""Launching generated kernels: the chosen config, the grid, and (max-autotune) tuning on the
first call with the real arguments. The config is the kernel-config autotuning point's
(tuner.points.triton_kernel): its default, or its decision through tuner.engine.decide (the
compiler never times anything itself). Tuned or not, a kernel then launches the same way:
through JITFunction.run once per pointer-alignment pattern, then directly."""
from __future__ import annotations

import dataclasses
import functools
import logging
import operator
import os
import sys
import time
from typing import Sequence

import torch
import triton

from tuner.points import kernel_kinds, triton_kernel as point
from tuner.points.triton_kernel import KernelMeta

from . import static_launch
from .direct_launch import _fast_launch_supported, _stream_getter, hooks_unset

log = logging.getLogger("tuner.compiler")


_FAST = None
# Launches through JITFunction.run (argument binding + specialization each time): once per
JIT_LAUNCHES = 0   # kernel and pointer-alignment pattern when the direct path works (tested)


_DATA_PTR = torch.Tensor.data_ptr


def pointers(args):
    """The arguments' data pointers and which of them are 16-byte aligned (Triton specializes
    on it: one compiled kernel per pattern), as (pointers, key); the key of the common case,
    all aligned, is True, found with C-level calls only (one launch of a model's hundreds pays
    this on every call in default mode), else a tuple of bools.

    The direct launch passes these integers, not the tensors: for an object that is not an
    int, Triton's launcher calls its data_ptr() and then cuPointerGetAttribute, a driver call
    per pointer argument per launch (RegNetY-1.6GF: ~900 per forward, in a model whose
    per-call host time, not its GPU time, is what it lost to stock by)."""
    ptrs = list(map(_DATA_PTR, args))
    if not functools.reduce(operator.or_, ptrs, 0) & 15:
        return ptrs, True
    return ptrs, tuple(p & 15 == 0 for p in ptrs)


@functools.lru_cache(maxsize=None)
def _scratch_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"   # (cpu: Triton's interpreter)


def _scratch(size, alignment, stream):
    """Triton's allocator: called on every launch of a kernel with device-side descriptors."""
    return torch.empty(size, dtype=torch.int8, device=_scratch_device())


try:   # Triton's allocator (a context variable) and its "none set" class, read once
    from triton.runtime._allocation import NullAllocator as _NULL_ALLOCATOR
    from triton.runtime._allocation import _allocator as _ALLOCATOR
except ImportError:   # another Triton's layout: tma_allocator sets ours every time
    _ALLOCATOR = _NULL_ALLOCATOR = None


def tma_allocator() -> None:
    """Give Triton an allocator for the global scratch a kernel with device-side TMA
    descriptors needs (Hopper's template variant), unless this thread has one (Triton keeps it
    in a context variable; one a user set stays). On every direct launch of such a kernel."""
    if _ALLOCATOR is None or isinstance(_ALLOCATOR.get(), _NULL_ALLOCATOR):
        triton.set_allocator(_scratch)


def alignment_key(args):   # the alignment key of `pointers`
    return pointers(args)[1]


class Launcher:
    """One generated kernel: `meta` (tuner.points.triton_kernel.KernelMeta) is what codegen says
    about it. Default mode launches the point's default config (or `config`); with `autotune`
    the first call asks the point for a decision with its arguments. `stats` is the graph's
    GraphStats: tuning decisions and seconds are counted there, and TUNER_TUNE_BUDGET_S bounds
    the graph's tuning time."""
    on_new_bucket = None   # called when a sized kernel enters a bucket (graph_cache re-stores)

    def __init__(self, fn, meta: KernelMeta, out_args, autotune=False, *, config=None, stats=None,
                 budget_s=None, extents=None, size_hints=None):
        self.fn = fn
        # a sized kernel's size arguments at the compiling call's sizes (stand-ins to build it
        # ahead of its first call: Triton does not specialize on them), or None
        self._size_hints = None if size_hints is None else tuple(int(h) for h in size_hints)
        # a kernel of a symbolic graph: its last `nsizes` arguments are size symbols, and its
        # launch extents are computed from them per call (`extents`: names, x/y/r numel)
        self.nsizes, self._extents = 0, None
        if extents is not None:
            from ..sizes import expr_source
            self.nsizes = len(names := extents[0])
            body = "(" + ", ".join("None" if e is None else expr_source(e) for e in extents[1:]) + ")"
            self._extents = eval(f"lambda {', '.join(names)}: {body}")   # noqa: S307 (our source)
        self.meta = meta
        self.kind = meta.kind
        self.source = meta.source
        self.xnumel = meta.xnumel
        self.default = dict(config) if config is not None else point.default_config(meta)
        self.autotune = autotune and meta.kind in kernel_kinds.TUNABLE_KINDS
        self.config = None if self.autotune else dict(self.default)
        # default mode: a shipped module's confident config replaces the hand default
        self.learned = None if self.autotune or config is not None else point.learned_config(meta)
        if self.learned is not None:
            self.config = dict(self.learned)
            if stats is not None:
                stats.learned_configs += 1
        self.out_args = out_args     # positions of arguments the kernel writes
        self.stats = stats
        self.budget_s = budget_s     # the graph's tuning seconds (None: TUNER_TUNE_BUDGET_S)
        self.decision = None
        self._compiled = {}          # pointer-alignment key -> compiled kernel (fast path)
        self._grid = None
        self._consts = ()
        self._stream_of = None
        self._tma = False   # the fast path's config runs Hopper's template variant (TMA)
        # a sized kernel keeps a config per size bucket (each extent's power of two)
        self._buckets: dict = {}
        self._bucket = _bucket_of(meta.xnumel, meta.ynumel, meta.rnumel) if self.nsizes else None
        # (sizes, grid) of the last direct sized launch: a call at the same sizes (most of a
        # decode step's kernels: their sizes do not move with the cache length) reuses its
        # bucket and grid without computing extents (about 0.8 us a launch from Python)
        self._last = None

    def _to_bucket(self, args):
        """Switch to the config of this call's size bucket; returns its (x, y, r) extents."""
        ext = self._extents(*args[-self.nsizes:])
        xn, yn, rn = ext
        b = _bucket_of(xn, yn, rn)
        if b == self._bucket:
            return ext
        self._last = None
        self._buckets[self._bucket] = (self.meta, self.default, self.config, self._compiled,
                                       self._grid, self._consts, self.decision)
        self._bucket = b
        saved = self._buckets.get(b)
        if saved is not None:
            (self.meta, self.default, self.config, self._compiled, self._grid, self._consts,
             self.decision) = saved
            return ext
        # a new bucket: the point's default (or learned) config for this call's extents
        self.meta = dataclasses.replace(self.meta, xnumel=xn, ynumel=yn,
                                        rnumel=self.meta.rnumel if rn is None else rn)
        self.default = point.default_config(self.meta)
        self.learned = None if self.autotune else point.learned_config(self.meta)
        self.config = None if self.autotune else dict(self.learned or self.default)
        self._compiled, self._grid, self._consts, self.decision = {}, None, (), None
        if self.on_new_bucket is not None:
            self.on_new_bucket()
        return ext

    def __call__(self, *args):
        ext = None
        if self.nsizes:
            last = self._last
            if last is not None and args[-self.nsizes:] == last[0]:
                ptrs, key = pointers(args[:-self.nsizes])
                k = self._compiled.get(key)
                if k is not None:
                    k.run(last[1], 1, 1, self._stream_of(self._device), k.function,
                          k.packed_metadata, None, None, None, *ptrs, *last[0], *self._consts)
                    return
            ext = self._to_bucket(args)
        if self.config is None:
            self.config = self._tune(args)
        if self._grid is not None and self.nsizes:
            return self._launch_sized(args, ext)
        if self._grid is not None:
            # Triton specializes pointers on 16-byte alignment: one compiled kernel per pattern
            ptrs, key = pointers(args)
            k = self._compiled.get(key)
            if k is not None:
                if self._tma:   # (the allocator is per thread: a model called from another)
                    tma_allocator()
                k.run(self._grid[0], 1, 1, self._stream_of(self._device), k.function, k.packed_metadata,
                      None, None, None, *ptrs, *self._consts)
                return
        global _FAST, JIT_LAUNCHES
        JIT_LAUNCHES += 1
        self._last = None
        start = time.perf_counter()
        try:
            k = self._launch(self.config, args)
        except Exception as e:
            d = self.decision
            if self.learned is not None and self.config == self.learned:
                # a learned config that does not launch: the hand default from now on
                log.warning("learned config %s of a %s kernel failed to launch (%s: %s); using "
                            "the default", self.learned, self.kind, type(e).__name__, e)
                self._forget_learned()
                self._launch(self.config, args)
                return
            if d is None or d.source not in ("cache", "heuristic") or self.config == self.default:
                raise
            # an answer from a cache or a heuristic that does not launch: dropped (never used
            # again, its local entry deleted), this call runs the default, the kernel re-tunes
            from tuner.engine import discard
            discard(d, f"{type(e).__name__}: {e}")
            self.config = dict(self.default)
            k = self._launch(self.config, args)
            self.config = self._retune(args)
            return
        if self.stats is not None:
            self.stats.jit_seconds += time.perf_counter() - start
        if _FAST is None:
            _FAST = _fast_launch_supported()
        if _FAST and k is not None and hasattr(k, "packed_metadata") and hooks_unset():
            self._grid = self.grid(self.config)
            self._tma = bool(self.config.get("TMA"))
            self._consts = tuple(self._const(n) for n in self.fn.arg_names[len(args):])
            self._device = args[0].device.index if args else 0
            self._stream_of = _stream_getter()
            k._init_handles()   # (then, from its cubin, through torch's static launcher)
            key = alignment_key(args[:-self.nsizes or None])
            self._compiled[key] = static_launch.fresh(k, len(args), self._device)

    def _launch_sized(self, args, ext):
        """The direct launch of a kernel with size arguments, its grid from extents `ext`."""
        sizes = args[-self.nsizes:]
        ptrs, key = pointers(args[:-self.nsizes])
        k = self._compiled.get(key)
        if k is None:
            self._grid = None   # (a new alignment pattern: launched, and kept, by the JIT path)
            return self(*args)
        grid = self.grid(self.config, extents=ext)[0]
        k.run(grid, 1, 1, self._stream_of(self._device), k.function,
              k.packed_metadata, None, None, None, *ptrs, *sizes, *self._consts)
        self._last = (sizes, grid)

    def _forget_learned(self):   # a learned config failed: the hand default (not counted)
        self.learned, self.config = None, dict(self.default)
        if self.stats is not None:
            self.stats.learned_configs -= 1

    def placeholder_args(self, device):
        """Stand-in arguments for compiling ahead of the first call (`precompile`): one small
        aligned tensor per pointer argument, of its dtype, then a sized kernel's size hints;
        None where a dtype or a size hint is unknown."""
        if not self.meta.dtypes or not all(self.meta.dtypes) or \
                (self.nsizes and (self._size_hints is None or len(self._size_hints) != self.nsizes)):
            return None
        try:
            ptrs = [torch.empty(16, dtype=getattr(torch, d), device=device) for d in self.meta.dtypes]
        except (AttributeError, TypeError):
            return None
        return ptrs + list(self._size_hints or ())

    def _retune(self, args):
        """Tune again after a cached or heuristic config failed to launch."""
        return self._tune(args)

    def _const(self, name, config=None):
        """A constexpr's value under `config` (default: the chosen one); a template's TMA: 0 if unset."""
        c = self.config if config is None else config
        return c.get(name, 0) if name == "TMA" else c[name]

    def grid(self, cfg, args=None, extents=None):
        """The launch grid for cfg (a sized kernel: at `extents`, or those of `args`, else at
        the compiled sizes). Integer ceilings: triton.cdiv costs microseconds from Python."""
        m = self.meta
        if m.mm is not None:
            return (kernel_kinds.template_grid(m.mm, cfg),)
        if m.parts is not None:
            return (sum(-(-p // cfg["XBLOCK"]) for p in m.parts),)
        xn, yn = m.xnumel, m.ynumel
        if extents is not None:
            xn, yn, _ = extents
        elif self.nsizes and args is not None and len(args) >= self.nsizes:
            xn, yn, _ = self._extents(*args[-self.nsizes:])
        n = -(-int(xn) // cfg["XBLOCK"])
        if yn is not None:
            n *= -(-int(yn) // cfg["YBLOCK"])
        return (n,)

    def _launch(self, cfg, args):
        if cfg.get("TMA"):
            tma_allocator()
        return self.fn[self.grid(cfg, args)](*args, **cfg)

    def _warmup_call(self, cfg, args):
        """(fn, args, kwargs) of the warmup call that compiles this kernel for cfg."""
        return self.fn, list(args), dict(grid=self.grid(cfg, args), **cfg)

    def _warmup(self, cfg, args):
        if BUILDING:   # (the key only when something is being built in the background)
            _wait_prebuilt(self._prebuilt_key(cfg, args))
        fn, a, kw = self._warmup_call(cfg, args)
        return fn.warmup(*a, **kw)

    def _describe(self, cfg, args):
        """The warmup as a job for a compile worker process (None: compile here, as a config
        built ahead is: a load from Triton's cache)."""
        key = self._prebuilt_key(cfg, args)
        _wait_prebuilt(key)
        if key in PREBUILT:
            return None
        return self._job(cfg, args)

    def _job(self, cfg, args):
        """The warmup as a compile worker's job (None: it cannot be described)."""
        from tuner.compile_workers import describe
        return describe(*self._warmup_call(cfg, args))

    def _prebuilt_key(self, cfg, args):
        """The kernel (its source, for these argument dtypes and pointer alignments) with this
        config, as `prebuild` remembers it built."""
        return (self.source, point.key_dtypes(self.meta, args), point.to_config(cfg),
                alignment_key(args[:len(args) - self.nsizes]))

    def problem(self, args=()):
        """The tuning cache's problem key for these arguments (the point's `problem_key`)."""
        return point.problem_key(self.meta, point.key_dtypes(self.meta, args))

    def _tune(self, args):
        """The point's decision for this kernel (its config dict); counted in the graph's
        stats, within what is left of the graph's tuning budget."""
        stats = self.stats
        spent = stats.tuning_seconds if stats is not None else 0.0
        left = self.budget_s - spent if self.budget_s is not None else \
            (point.budget_left(spent) if stats is not None else None)
        start = time.perf_counter()
        try:
            d = point.decide_config(self.meta, args, self._launch, out_args=self.out_args,
                                    warmup=self._warmup, describe=self._describe,
                                    max_seconds=left)
        except ImportError as e:   # engine not importable: keep the default config
            log.debug("autotune unavailable (%s): default config", e)
            return dict(self.default)
        self.decision = d
        if stats is not None and stats.count_decision(d, time.perf_counter() - start):
            from tuner.settings import settings
            if "autotune" in settings.logs:
                print(stats.tuning_report(settings.tune_budget_s), file=sys.stderr, flush=True)
        return point.config_dict(d.choice)


def _pow2_at_least(n) -> int:
    return 1 << max(0, int(n) - 1).bit_length()


def _bucket_of(xn, yn=None, rn=None):
    """The power of two at or above each extent (None stays None): on every sized launch."""
    return (_pow2_at_least(xn), None if yn is None else _pow2_at_least(yn),
            None if rn is None else _pow2_at_least(rn))


def reinterpret(t, size, stride, offset):
    """A view of t's storage at t's storage offset + offset (the wrapper's views of inputs)."""
    return torch.as_strided(t, size, stride, t.storage_offset() + offset)


def fast_reinterpret():
    """torch's C++ form of `reinterpret` (an alias with new sizes and strides, storage offset
    moved by `offset`; several times cheaper per call than torch.as_strided from Python), or
    None on a torch without it."""
    guards = getattr(getattr(torch._C, "_dynamo", None), "guards", None)
    return getattr(guards, "_reinterpret_tensor", None)


def ensure_layout(t, size, stride):
    """An extern's output in the layout its meta function promised (copy when it differs)."""
    if t is None:   # an optional output the op did not produce (e.g. SDPA's logsumexp)
        return t
    if tuple(t.stride()) == tuple(stride) or t.numel() <= 1:
        return t
    out = torch.empty_strided(size, stride, dtype=t.dtype, device=t.device)
    out.copy_(t)
    return out


class ForeachLauncher(Launcher):
    """A foreach table kernel (codegen/combo.py ForeachKernel): called with every part's
    tensors, part-major, it launches the kernel once over a table of their addresses
    (`slots`: each argument's place in it). The address table is cached per set of addresses
    (an optimizer step passes the same tensors every call: no copy to the device after the
    first); the per-program tables (which part, which block of it) depend only on the extents
    and XBLOCK."""

    def __init__(self, fn, meta: KernelMeta, slots: Sequence[int], table_size: int,
                 body_of: Sequence[int], written: Sequence[int], autotune=False, *, stats=None,
                 budget_s=None):
        super().__init__(fn, meta, (), autotune, stats=stats, budget_s=budget_s)
        self.slots = list(slots)
        self.table_size = table_size
        self.written = set(written)     # arguments the kernel writes
        self._body_of = list(body_of)
        self._ptrs: dict = {}
        self._blocks: dict = {}
        self._consts_t = None
        self._spares: list = []      # (pinned, device) table pairs for CUDA graph captures
        self._captured: list = []    # the pairs captured graphs read on every replay
        self._tensors = None

    def __call__(self, *tensors):
        key = tuple(map(_DATA_PTR, tensors))
        entry = self._ptrs.get(key)
        if entry is None:
            entry = self._ptr_table(key, tensors[0].device)
        ptrs, misaligned = entry
        if self.config is None:
            self.config = self._tune_foreach(tensors)
        part_of, block_of = self._tables(self.config["XBLOCK"], ptrs.device)
        numels, body_of = self._consts_t
        if misaligned:   # a part's tensor off 16 bytes (a view): the unvectorized variant
            self._launch(self.config, (ptrs,), misaligned=True)
            return
        self._tensors = tensors   # for a re-tune after a cached config fails (_retune)
        try:
            super().__call__(ptrs, part_of, block_of, numels, body_of)
        finally:
            self._tensors = None

    def _retune(self, args):
        return self._tune_foreach(self._tensors)

    def _const(self, name, config=None):
        return False if name == "MISALIGNED" else (self.config if config is None else config)[name]

    def placeholder_args(self, device):
        return [torch.zeros(self.table_size, dtype=torch.int64, device=device)]

    def _pair(self, device):
        """A pinned host buffer and a device buffer for one address table."""
        host = torch.empty(self.table_size, dtype=torch.int64, pin_memory=True)
        return host, torch.empty(self.table_size, dtype=torch.int64, device=device)

    def _ptr_table(self, key, device):
        table = [0] * self.table_size
        for slot, p in zip(self.slots, key):
            table[slot] = p
        misaligned = any(p & 15 for p in key)
        if device.type != "cuda":
            entry = (torch.tensor(table, dtype=torch.int64), misaligned)
        else:
            # A graph being captured copies the table on every replay from the pinned buffer
            # it was captured with: each capture takes a pair of its own (allocated before the
            # capture, see below), kept for the launcher's life and never cached for eager calls
            # (its device side is filled only when the graph replays).
            capturing = torch.cuda.is_current_stream_capturing()
            host, dev = (self._spares.pop() if capturing and self._spares else self._pair(device))
            host.copy_(torch.tensor(table, dtype=torch.int64))
            dev.copy_(host, non_blocking=True)
            if capturing:
                self._captured.append((host, dev))
                return dev, misaligned
            entry = (dev, misaligned)
            # pairs for captures to come, allocated outside them (pinned memory allocated
            # during a capture is not safe on every torch)
            while len(self._spares) < 4:
                self._spares.append(self._pair(device))
        # kept while the launcher lives; past 64 address sets (tensors that move every call)
        # each call builds its own
        if len(self._ptrs) < 64:
            self._ptrs[key] = entry
        return entry

    def _tables(self, xblock, device):
        got = self._blocks.get(xblock)
        if got is None:
            parts = self.meta.parts
            counts = torch.tensor([-(-n // xblock) for n in parts], dtype=torch.int64)
            part_of = torch.repeat_interleave(torch.arange(len(parts), dtype=torch.int32), counts)
            starts = torch.cumsum(counts, 0) - counts
            block_of = (torch.arange(len(part_of), dtype=torch.int64)
                        - torch.repeat_interleave(starts, counts)).to(torch.int32)
            got = (part_of.to(device), block_of.to(device))
            self._blocks[xblock] = got
            if self._consts_t is None:
                self._consts_t = (torch.tensor(parts, dtype=torch.int32).to(device),
                                  torch.tensor(self._body_of, dtype=torch.int32).to(device))
        return got

    def _launch(self, cfg, args, misaligned=False):
        ptrs = args[0]
        part_of, block_of = self._tables(cfg["XBLOCK"], ptrs.device)   # the candidate's own
        numels, body_of = self._consts_t
        return self.fn[self.grid(cfg)](ptrs, part_of, block_of, numels, body_of, **cfg,
                                       MISALIGNED=misaligned)

    def _warmup_call(self, cfg, args):
        ptrs = args[0]
        part_of, block_of = self._tables(cfg["XBLOCK"], ptrs.device)
        numels, body_of = self._consts_t
        return self.fn, [ptrs, part_of, block_of, numels, body_of], \
            dict(grid=self.grid(cfg), **cfg, MISALIGNED=False)

    def _tune_foreach(self, tensors):
        """Tunes on copies of the tensors the kernel writes (their addresses in a scratch
        table), so measuring leaves the real ones as they are. Where the copies would not fit
        (an optimizer step's parameters and states of a large model: they are all copied at
        once) the default config is kept, untuned."""
        written = {id(t): t for i, t in enumerate(tensors) if i in self.written}
        need = sum((1 + sum((n - 1) * st for n, st in zip(t.shape, t.stride()))) * t.element_size()
                   for t in written.values() if t.numel())
        device = tensors[0].device
        if device.type == "cuda" and need > torch.cuda.mem_get_info(device)[0] // 2:
            log.info("foreach kernel: %d MB of written tensors to copy for tuning; kept the default",
                     need >> 20)
            return dict(self.default)
        copies = {k: point.clone_strided(t) for k, t in written.items()}
        scratch = [copies.get(id(t), t) if i in self.written else t for i, t in enumerate(tensors)]
        key = tuple(map(_DATA_PTR, scratch))
        table, misaligned = self._ptr_table(key, device)
        self._ptrs.pop(key, None)
        if misaligned:   # only the vectorized variant tunes; misaligned calls are rare
            return dict(self.default)
        part_of, block_of = self._tables(self.default["XBLOCK"], table.device)
        numels, body_of = self._consts_t
        return self._tune((table, part_of, block_of, numels, body_of))


# (kernel source, argument dtypes, config, pointer alignment) built ahead on the compile
# workers (prebuild):
# a launcher of the same kernel loads it from Triton's cache instead of sending a job (the mm
# point's probes build their graphs again after `mm_probes.prebuild` planned them)
PREBUILT: set = set()
# configs being built in the background (TUNER_PREBUILD_BACKGROUND): key -> (Batch, job index)
BUILDING: dict = {}


def _wait_prebuilt(key) -> None:
    """A config still being built ahead in the background: wait for its job (not the batch),
    then count it built, or leave it to its caller to compile when the job failed."""
    pending = BUILDING.pop(key, None)
    if pending is not None and pending[0].result(pending[1]) is None:
        PREBUILT.add(key)


def prebuild(launchers, device) -> int:
    """Max-autotune: build what each tuning launcher's first call would build first (a
    heuristic's or the cache's answer, else its search's first batch: tuner.points.triton_kernel
    .planned_configs), for all of the graph's kernels at once on the compile worker
    processes, instead of one kernel's batch at a time as the first call tunes them (each
    batch waiting for its slowest compile). The first call then loads them from Triton's
    cache. A kernel repeated in the graph (the same tuning problem: a model's layers) is
    planned and built once: its copies answer from the cache once the first has tuned (planned
    for each copy, GPT-2's prebuild sent 156 jobs where its tuning builds ~45). Launchers without
    stand-in arguments, templates (their config is the mm probe's), foreach kernels, and a
    kernel whose plan is one config (a cached or heuristic answer: a warm cache waits for no
    worker) are left to their first call; so is everything under a tuning budget
    (TUNER_TUNE_BUDGET_S: the first call may keep the default). Returns how many configs were
    built (with TUNER_PREBUILD_BACKGROUND, how many were sent to be built); never raises."""
    try:
        return _prebuild(launchers, device)
    except Exception as e:   # noqa: BLE001 - the first call builds what it needs, as before
        log.debug("prebuild failed: %s: %s", type(e).__name__, e)
        return 0


def prebuild_possible() -> bool:
    """Whether building ahead can happen at all: compile worker processes to build on, real
    kernels (not Triton's interpreter), and no tuning budget (under TUNER_TUNE_BUDGET_S the
    first call may keep the default)."""
    from tuner.bench import compile_processes
    from tuner.settings import settings
    return os.environ.get("TRITON_INTERPRET", "0") != "1" and compile_processes() > 1 \
        and settings.tune_budget_s <= 0


def _prebuild(launchers, device, templates=False) -> int:
    from tuner import compile_workers
    from tuner.bench import compile_processes, real_tensors
    device = torch.device(device)
    if device.type != "cuda" or not prebuild_possible():
        return 0
    if compile_workers.background_busy():
        # an earlier graph's batch still holds the workers (it was not waited for: a graph
        # that fell back to ATen, graphs compiled from several threads): a batch now would
        # start workers of its own; the first call builds its candidates as they come
        return 0
    if device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    jobs, owners, planned, sent = [], [], set(), set()   # owners: each job's key, in order
    with real_tensors(), torch.cuda.device(device):
        for launcher in launchers:
            if type(launcher) is not Launcher or (launcher.kind == "template" and not templates):
                continue
            try:
                args = launcher.placeholder_args(device)
                if args is None:
                    continue
                # the tuning cache's key: a repeated kernel's copies answer from it
                problem = (launcher.kind, launcher.problem(args))
                if problem in planned:
                    continue
                planned.add(problem)
                if launcher.config is not None:   # not tuned: its one config, on its first call
                    configs = [launcher.config] if templates else []
                else:
                    configs = point.planned_configs(launcher.meta, args, out_args=launcher.out_args,
                                                    template=templates)
                    if len(configs) < 2 and not templates:
                        continue
                for cfg in configs:
                    key = launcher._prebuilt_key(cfg, args)
                    if key in PREBUILT or key in BUILDING or key in sent:
                        continue     # built, or being built: never waited for here
                    job = launcher._job(cfg, args)
                    if job is not None:
                        jobs.append(job)
                        owners.append(key)
                        sent.add(key)
            except Exception as e:   # noqa: BLE001 - its first call plans (and reports) it again
                log.debug("prebuild: no plan for a %s kernel: %s: %s", launcher.kind, type(e).__name__, e)
    if not jobs:
        return 0
    from tuner.settings import settings
    try:
        if settings.prebuild_background and not templates:
            # the first call tunes each kernel once its own jobs are done (they run in the
            # order the first call tunes the kernels), while the workers build the rest
            for key in [k for k, (b, i) in BUILDING.items() if b.finished(i)]:
                _wait_prebuilt(key)   # an earlier graph's, never asked for: no longer waiting
            batch = compile_workers.run_jobs_async(jobs, compile_processes())
            for i, key in enumerate(owners):
                BUILDING[key] = (batch, i)
            return len(jobs)
        results = compile_workers.run_jobs(jobs, compile_processes())
    except Exception as e:   # noqa: BLE001 - no workers: the first call builds everything
        log.debug("prebuild: compile workers unavailable: %s: %s", type(e).__name__, e)
        return 0
    built = 0
    for key, why in zip(owners, results):
        if why is None:
            PREBUILT.add(key)
            built += 1
    return built


def precompile(launchers, device, strict=False) -> int:
    """Compile every launcher's kernel for its config now, in a thread pool (Triton compiles
    mostly outside the GIL), instead of one after another on the graph's first call; the first
    call then finds each in Triton's cache. Launchers that tune on their first call, or whose
    argument dtypes are unknown, are left to it. Returns how many kernels were built; a
    kernel that fails here is simply compiled (and reports its error) on the first call."""
    device = torch.device(device)
    if os.environ.get("TRITON_INTERPRET", "0") == "1" or device.type != "cuda":
        return 0
    if device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    from tuner.bench import compile_all, real_tensors
    jobs = {}
    with real_tensors():   # a compiler tracing under a FakeTensorMode would get fake stand-ins
        for launcher in launchers:
            if launcher.config is None or launcher._compiled:   # (tunes, or loaded: static_launch)
                continue
            key = (id(launcher.fn), tuple(sorted(launcher.config.items())))
            if key not in jobs:
                args = launcher.placeholder_args(device)
                if args is not None:
                    jobs[key] = (launcher, args)

    def build(key):
        launcher, args = jobs[key]
        with torch.cuda.device(device):   # the current device is per thread
            launcher._warmup(launcher.config, args)
    errors = compile_all(build, list(jobs))
    for key, e in list(errors.items()):
        launcher, args = jobs[key]
        learned = getattr(launcher, "learned", None)
        if e is not None and learned is not None and launcher.config == learned:
            # a learned config that does not build: the hand default, built now
            log.warning("learned config %s of a %s kernel failed to build (%s: %s); using the "
                        "default", launcher.learned, launcher.kind, type(e).__name__, e)
            launcher._forget_learned()
            errors[key] = compile_all(build, [key]).get(key)
    if strict:   # the caller wants a kernel that cannot build to fail the compile, not the call
        for e in errors.values():
            if e is not None:
                raise e
    return sum(1 for e in errors.values() if e is None)
