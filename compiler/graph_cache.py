"""The compiled-graph cache (issue 53, part 1): a graph compiled before, here or on a machine
sharing the remote cache, is rebuilt from its stored wrapper and kernel sources and the
kernels' configs, without lowering, fusion, code generation or tuning.

    key(gm, example_inputs, ctx)  -> CacheKey, or None (off, a probe, or refused: UNCACHEABLE)
    load(key, ctx, start)         -> CompiledGraph from the cache, or None (a miss)
    Record(key)                   what compile_graph hands over while it compiles; `finish`
                                  stores the value after the graph's first successful call

The key hashes the ATen graph (each node's op, target, arguments and the metadata of its
value, placeholders included; no source locations), the example inputs' dtypes, sizes,
strides and devices, the tensor constants (metadata and a hash of their values; a constant
over CONSTANT_MAX_BYTES refuses the graph), whether kernels tune (of the mode: CUDA graphs
wrap the result either way), the options and settings that change code or configs, the
versions (tuner, torch, Triton, CUDA), a hash of the tuner's own sources (`code_hash`: an
edited checkout keeps its version string), the GPU (or "cpu" and Triton's interpreter flag) and
GRAPH_SCHEMA. Storage: tuner.cache.graphs, reached
through tuner/graph_store.py. The compiled Triton kernels a graph launches are stored beside it,
one entry per kernel (compiler/kernel_binaries.py), and written into Triton's cache before a
rebuilt graph's first launch, so a hit on a new machine compiles nothing; so are the host
modules Triton built for launching them (its C launchers), which it would otherwise build anew.

A graph with symbolic sizes (ctx.sizes) is keyed by its size symbols, not their values, and
its entry keeps the guards its lowering recorded, which a hit checks and hands on: one entry
serves every size those guards admit (compiler/graph_cache_sizes.py).

Refused (counted in UNCACHEABLE and named in the graph's stats.graph_cache): graphs with
data-dependent (unbacked) sizes (their symbols are read from buffers the graph makes and
decided without guards), graphs whose wrapper needs an object with no source form (an op
handed to a higher-order op, a GraphModule), an extern that is not an OpOverload, a get_attr
of anything but a small tensor. The value is stored only once the compiled graph's first call
returned (max-autotune's kernels have tuned then: their chosen configs are stored; a graph
that falls back to ATen stores nothing).
"""
from __future__ import annotations

import atexit
import base64
import collections
import dataclasses
import functools
import hashlib
import json
import logging
import os
import pathlib
import sys
import time

import torch

from . import graph_cache_sizes
from . import stats as stats_mod
from .context import CompiledGraph
from .graph_cache_sizes import Refused   # (defined there: that module cannot import this one)
from .torch_compat import outside_fake_mode

log = logging.getLogger("tuner.compiler")

GRAPH_SCHEMA = 1
CONSTANT_MAX_BYTES = 1 << 16     # a tensor constant above this refuses its graph
UNCACHEABLE: collections.Counter = collections.Counter()   # reason -> graphs refused
# settings read while lowering or tuning: a change must miss
CODE_SETTINGS = ("pad_mm", "mm", "mm_padded", "heuristics", "search", "shortlist_sweeps",
                 "shortlist_beyond", "tune_budget_s", "fallback_random", "freeze")
# options that change how a compiled graph is wrapped or built, not its code or configs
WRAP_OPTIONS = ("cudagraphs", "cudagraph_min_launches", "cudagraph_address_replay",
                "cudagraph_shared_pools", "cudagraph_copy_in", "precompile")
# what every wrapper namespace holds besides kernels, externs and constants (compile_graph)
BASE_NAMES = {"torch", "empty_strided", "reinterpret", "as_strided", "ensure_layout",
              "empty_strided_fast", "device_guard", "call", "__builtins__"}


def _canon(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=repr)


def _sha(obj) -> str:
    return hashlib.sha256(_canon(obj).encode()).hexdigest()


def versions() -> dict:
    """What generated code and its configs depend on beyond the graph: versions and device."""
    import triton

    from tuner.graph_store import environment
    info = environment()
    info.update(torch=torch.__version__, triton=triton.__version__,
                interpret=os.environ.get("TRITON_INTERPRET", "0"), schema=GRAPH_SCHEMA,
                code=code_hash())
    return info


@functools.lru_cache(maxsize=None)
def code_hash() -> str:
    """A hash of the compiler's and the tuner's own source files: an entry written by other
    code (a checkout edited since, where the version string stays the same) is never a hit."""
    import tuner
    from tuner import compiler
    h = hashlib.sha256()
    for root in sorted({os.path.dirname(tuner.__file__), os.path.dirname(compiler.__file__)}):
        for path in sorted(pathlib.Path(root).rglob("*.py")):
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _sizes(seq, sym=None) -> list:
    out = []
    for n in seq:
        if not isinstance(n, int):   # a SymInt: written by `sym` (a symbolic compile), else refused
            if sym is None or not isinstance(n, torch.SymInt):
                raise Refused("symbolic sizes")
            n = sym(n)
        out.append(n)
    return out


def _value(v, sym=None):
    """An example input's or a node value's metadata, as JSON; sym: a SymInt -> its JSON (a
    graph compiled with symbolic sizes), None where a SymInt refuses the graph."""
    if isinstance(v, torch.Tensor):
        return ["T", str(v.dtype), _sizes(v.shape, sym), _sizes(v.stride(), sym), str(v.device),
                _sizes([v.storage_offset()], sym)[0]]
    if isinstance(v, (list, tuple)):
        return [type(v).__name__, [_value(x, sym) for x in v]]
    if isinstance(v, torch.SymInt):
        if sym is None:
            raise Refused("symbolic sizes")
        return sym(v)
    if isinstance(v, (torch.SymFloat, torch.SymBool)):
        raise Refused("symbolic sizes")
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return repr(v)
    return type(v).__name__


def _arg(a):
    """A node argument as JSON: nodes by name, values spelled out; anything else refuses."""
    if isinstance(a, torch.fx.Node):
        return "%" + a.name
    if isinstance(a, (list, tuple)):
        return [type(a).__name__, [_arg(x) for x in a]]
    if isinstance(a, dict):
        return {"dict": {str(k): _arg(v) for k, v in a.items()}}
    if isinstance(a, (torch.dtype, torch.device, torch.memory_format, torch.layout)):
        return ["torch", str(a)]
    if isinstance(a, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        raise Refused("symbolic sizes")
    if a is None or isinstance(a, (bool, int, str)):
        return a
    if isinstance(a, (float, complex, slice, type(Ellipsis))):
        return ["v", repr(a)]
    if isinstance(a, torch._ops.OpOverload):
        return ["op", str(a)]
    raise Refused(f"a graph argument of type {type(a).__name__}")


def _target(t) -> str:
    if isinstance(t, str):
        return t
    if isinstance(t, torch._ops.OpOverload):
        return str(t)
    module, name = getattr(t, "__module__", None) or "", getattr(t, "__name__", None)
    qualname = getattr(t, "__qualname__", name if name is not None else t)
    if "<" in str(qualname) and name and getattr(sys.modules.get(module), name, None) is t:
        # a function made by another and kept under its own name in its module (F.max_pool2d
        # is boolean_dispatch.<locals>.fn): that name is stable
        return f"{module}.{name}"
    return f"{module}.{qualname}"


def _constant(gm, target: str):
    """A get_attr tensor's metadata and a hash of its values; refuses anything else."""
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, torch.Tensor):
        raise Refused(f"a get_attr of a {type(obj).__name__}")
    if obj.numel() * obj.element_size() > CONSTANT_MAX_BYTES:
        raise Refused(f"a tensor constant over {CONSTANT_MAX_BYTES} bytes")
    with outside_fake_mode():
        data = _raw(obj)
    return [_value(obj), hashlib.sha256(data).hexdigest()]


def _raw(t: torch.Tensor) -> bytes:
    return t.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def key(gm, example_inputs, ctx):
    """The cache key of compiling gm for example_inputs under ctx; None when the graph cache
    is off, for a probe, or for a graph it refuses (counted in UNCACHEABLE)."""
    return _key(gm, example_inputs, ctx)[0]


def _key(gm, example_inputs, ctx):
    """(the key, "") or (None, why there is none: "" when the cache is off or for a probe)."""
    from tuner.settings import settings
    if ctx.probe or not settings.graph_cache or not settings.cache:
        return None, ""
    from tuner.graph_store import make_key
    try:
        sym, sizes = None, []
        if ctx.sizes is not None:   # sizes by symbol and the symbols' bounds, no hint
            sym, sizes = graph_cache_sizes.namer(ctx.sizes), [graph_cache_sizes.bounds(ctx.sizes)]
        nodes = []
        for n in gm.graph.nodes:
            val = n.meta.get("val")
            item = [n.op, n.name, _target(n.target), _arg(n.args), _arg(n.kwargs),
                    _value(val, sym) if val is not None else None]
            if n.op == "get_attr":
                item.append(_constant(gm, n.target))
            nodes.append(item)
        # (a concrete graph's problem stays as it was: its key is unchanged)
        problem = _sha([nodes, [_value(x, sym) for x in example_inputs], *sizes])
    except Refused as e:
        return None, refused(str(e))
    except Exception as e:   # noqa: BLE001 - a graph we cannot describe is compiled, not cached
        return None, refused(f"undescribable graph ({type(e).__name__})")
    # the mode only as whether kernels tune: CUDA graphs wrap the result, here as after a compile
    options = {k: v for k, v in ctx.options.items() if k not in WRAP_OPTIONS}
    context = {"autotune": ctx.autotune, "options": options, "inference": ctx.inference,
               "dynamic": ctx.dynamic, "budget": ctx.tune_budget_s,
               # (only when some are: the keys of other graphs stay as they were)
               **({"donated": sorted(ctx.donated)} if ctx.donated else {}),
               "settings": {name: getattr(settings, name) for name in CODE_SETTINGS}}
    return make_key(problem, _sha(context), versions()), ""


def refused(why: str) -> str:
    """Count a graph the cache does not hold; returns why."""
    UNCACHEABLE[why] += 1
    log.debug("graph cache: not cached: %s", why)
    return why


# -- the hit path --------------------------------------------------------------------------


def load(key, ctx, start: float, load_kernel, public_ops: dict):
    """The graph stored under `key` rebuilt (its kernels' modules loaded from their sources by
    load_kernel(src, name), launchers given their stored configs, externs resolved and mapped
    through public_ops as compile_graph maps them, the wrapper executed), or None on a miss.
    A stored value that cannot be rebuilt is a miss, with one warning."""
    from tuner import graph_store as graphs
    value, layer = graphs.lookup(key)
    if value is None:
        graphs.record(misses=1)
        return None
    guards = None
    if ctx.sizes is not None:   # a symbolic entry serves only sizes its guards admit
        guards = graph_cache_sizes.adopt(value, ctx.sizes) if "sizes" in value else None
        if guards is None:
            graphs.record(misses=1)
            return None
    rebuilt: dict = {}   # ns name -> the rebuilt launcher
    try:
        compiled = _rebuild(value, ctx, start, load_kernel, public_ops, rebuilt)
    except Exception as e:   # noqa: BLE001 - a bad entry costs a compile, which overwrites it
        stats_mod.warn_once(("graph-cache", type(e).__name__),
                            f"tuner: a cached compiled graph could not be loaded "
                            f"({type(e).__name__}: {str(e)[:200]}); it is compiled again")
        graphs.record(misses=1, rejected=1)
        return None
    if guards is not None:   # as the lowering would have recorded them
        graph_cache_sizes.install(guards, ctx.sizes)
    compiled.stats.graph_cache = f"hit ({layer})"
    graphs.record(**{f"hits_{layer}": 1, "saved_s": float(value.get("seconds", 0.0))})
    call = compiled.fn

    def first(args):
        """The first call; if it fails (a stored config that does not launch, say), the local
        entry goes, so the next compile of the graph is a fresh one."""
        try:
            out = call(args)
        except BaseException:
            graphs.discard(key)
            compiled.stats.graph_cache = f"hit ({layer}), failed: local entry deleted"
            raise
        compiled.fn = call
        if ctx.sizes is not None:   # a bucket this process enters first is stored too
            _store_again_on_new_buckets(compiled, call, key, value, rebuilt, compiled.stats)
        return out
    compiled.fn = first
    return compiled


def _op(name: str):
    """torch.ops.<ns>.<op>.<overload> named by str(OpOverload), checked to name it back."""
    ns, op, overload = name.split(".")
    found = getattr(getattr(getattr(torch.ops, ns), op), overload)
    if str(found) != name:
        raise ValueError(f"op {name!r} resolves to {found}")
    return found


def _tensor(spec) -> torch.Tensor:
    dtype = getattr(torch, spec["dtype"].removeprefix("torch."))
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"not a dtype: {spec['dtype']!r}")
    raw = bytearray(base64.b64decode(spec["data"], validate=True))
    flat = torch.frombuffer(raw, dtype=torch.uint8) if raw else torch.empty(0, dtype=torch.uint8)
    t = flat.view(dtype).reshape(spec["shape"])
    return t.to(spec["device"])


def _rebuild(value: dict, ctx, start: float, load_kernel, public_ops, launchers) -> CompiledGraph:
    stats = stats_mod.new(keep=not ctx.probe)
    try:
        return _rebuild_into(stats, value, ctx, start, load_kernel, public_ops, launchers)
    except Exception:
        stats_mod.discard(stats)   # the fresh compile that follows keeps its own
        raise


def binary_key(h: str):
    """The cache key of a compiled Triton kernel carried with graphs (compile hash h)."""
    from tuner import graph_store as graphs
    return graphs.make_key(f"triton-binary:{h}", "", versions())


def host_key(folder: str):
    """The cache key of a carried host module (Triton's cache folder `folder`): a binary for
    this Python, OS and machine only."""
    import platform
    import sysconfig

    from tuner import graph_store as graphs
    where = {"ext": sysconfig.get_config_var("EXT_SUFFIX"), "machine": platform.machine(),
             "system": platform.system()}
    return graphs.make_key(f"triton-host:{folder}", "", {**versions(), **where})


def _restore_carried(names, present, key_of, restore) -> int:
    """The carried kernels (compile hashes) or host modules (cache folders) `names` that this
    machine's Triton cache lacks (`present`), each read from the cache under key_of(name) and
    written by `restore` before anything launches (so Triton loads instead of building); how
    many."""
    from tuner import graph_store as graphs
    n = 0
    for name in names:
        if present(name):
            continue
        stored, _ = graphs.lookup(key_of(name))
        if stored is not None and restore(name, stored.get("files")):
            n += 1
    return n


def _kernel_meta(stored: dict, src: str, cls):
    """A KernelMeta from its stored dict (the kernel's own source where it was left out)."""
    meta = dict(stored, source=stored.get("source", src))
    for f in ("parts", "mm", "dtypes"):
        if meta.get(f) is not None:
            meta[f] = tuple(meta[f])
    return cls(**meta)


def _rebuild_into(stats, value: dict, ctx, start: float, load_kernel, public_ops,
                  launchers: dict) -> CompiledGraph:
    from tuner.points.triton_kernel import KernelMeta

    from .codegen.wrapper import alloc_namespace, base_namespace, source_text
    from .runtime.launch import ForeachLauncher, Launcher, precompile
    from .runtime import static_launch
    from . import kernel_binaries as kb
    _restore_carried(value.get("binaries", ()), kb.present, binary_key, kb.restore)
    _restore_carried(value.get("hosts", ()), kb.host_present, host_key, kb.restore_host)
    dev = torch.device(value["device"]) if value["device"] is not None else None
    ns = base_namespace()
    kernel_sources = []
    for k in value["kernels"]:
        src = k["source"]
        fn = load_kernel(src, k["name"])
        meta = _kernel_meta(k["meta"], src, KernelMeta)
        config = k["config"]
        # (a sized kernel keeps tuning the size buckets it has no stored config for)
        tune = bool(k["tune"]) and (config is None or "extents" in k)
        if "foreach" in k:
            fe = k["foreach"]
            launcher = ForeachLauncher(fn, meta, fe["slots"], fe["table_size"], fe["body_of"],
                                       fe["written"], tune, stats=stats, budget_s=ctx.tune_budget_s)
            if config is not None:
                launcher.config, launcher.default, launcher.learned = dict(config), dict(config), None
        elif "extents" in k:   # a kernel taking size arguments: its buckets' configs
            extents = graph_cache_sizes.extents_of(k["extents"])
            launcher = Launcher(fn, meta, list(k["outs"]), tune, config=config, stats=stats,
                                budget_s=ctx.tune_budget_s, extents=extents)
            graph_cache_sizes.restore_buckets(
                launcher, k.get("buckets", ()), lambda m, src=src: _kernel_meta(m, src, KernelMeta))
        else:
            launcher = Launcher(fn, meta, list(k["outs"]), tune, config=config, stats=stats,
                                budget_s=ctx.tune_budget_s)
        static_launch.adopt(launcher, k.get("static"), dev)   # (its cubins, without Triton's JIT)
        ns[k["ns"]] = launchers[k["ns"]] = launcher
        kernel_sources.append(f"# {k['ns']}: {k['label']}\n" + src)
    for name, op in value["externs"].items():
        op = _op(op)
        ns[name] = public_ops.get(op, op)
    for name, spec in value["constants"].items():
        ns[name] = _tensor(spec)
    ns.update(alloc_namespace(dev))
    _restore_stats(stats, value["stats"])
    launchers = [v for v in ns.values() if isinstance(v, Launcher)]
    stats.tune_pending = sum(1 for v in launchers if v.config is None)
    mutated = tuple(value["mutated"])
    if (ctx.options.get("precompile") or mutated) and dev is not None:
        precompile(launchers, dev, strict=bool(mutated))   # as a fresh compile does
    wrapper = value["wrapper"]
    stats.source = source_text(kernel_sources, wrapper)
    exec(compile(wrapper, f"<tuner wrapper {len(stats_mod.graphs())} (cached)>", "exec"), ns)
    stats.compile_seconds = time.perf_counter() - start
    return CompiledGraph(ns["call"], stats, mutated, tuple(value.get("donated", ())))


# GraphStats fields lowering and code generation set, stored with the graph
STAT_FIELDS = ("kernels", "fused_nodes", "nodes", "recomputed", "window_stored", "residual_folds",
               "externs", "fallbacks", "lowered", "pad_mm", "mm_backend", "kernel_names",
               "kernel_kinds", "kernel_labels", "lowering_errors", "learned_configs",
               "planned_peak_bytes", "unplanned_bytes", "donated_reused_bytes", "reordered")
LATER_STAT_FIELDS = ("donated_reused_bytes", "reordered")   # entries stored before them lack them


def _snapshot_stats(stats) -> dict:
    out = {}
    for f in STAT_FIELDS:
        v = getattr(stats, f)
        out[f] = dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v
    return out


def _restore_stats(stats, stored: dict) -> None:
    for f in STAT_FIELDS:
        cur = getattr(stats, f)
        if f not in stored and f in LATER_STAT_FIELDS:
            continue   # an entry stored before the field: its default
        v = stored[f]
        if isinstance(cur, dict):   # (Counters too)
            cur.update(v)
        elif isinstance(cur, list):
            cur.extend(v)
        else:
            setattr(stats, f, v)


# -- the miss path -------------------------------------------------------------------------


class Record:
    """What a compile hands over to be stored: its kernels (name in the wrapper, function
    name, source, label) and externs; `refuse` marks it uncacheable."""

    def __init__(self, key, why: str = ""):
        self.key = key
        self.kernels: list[tuple[str, str, str, str]] = []
        self.externs: dict[str, str] = {}
        self.refused = ""
        self.why_none = why   # why there is no key ("": the cache is off, or a probe)
        self.sizes = None     # a symbolic compile's SizeVars: its guards are stored

    @classmethod
    def of(cls, gm, example_inputs, ctx) -> "Record":
        """The record of compiling gm for example_inputs under ctx, with its key (or none)."""
        record = cls(*_key(gm, example_inputs, ctx))
        record.sizes = ctx.sizes
        return record

    def refuse(self, why: str) -> None:
        self.refused = self.refused or why

    def kernel(self, ns_name: str, name: str, src: str, label: str, extents=None) -> None:
        """A kernel of the graph; extents: a sized kernel's (names, x, y, r numel)."""
        if self.key is not None:
            self.kernels.append((ns_name, name, src, label, extents))

    def extern(self, ns_name: str, op) -> None:
        if self.key is None:
            return
        if isinstance(op, torch._ops.OpOverload) and str(op).count(".") == 2:
            self.externs[ns_name] = str(op)
        else:
            self.refuse(f"an extern {type(op).__name__} with no name to load it by")

    def finish(self, compiled: CompiledGraph, g, ns: dict, wrapper: str, objects: dict,
               dev) -> CompiledGraph:
        """compiled, set to store its value after its first successful call (when the graph
        is cacheable); compiled.stats.graph_cache says what happened."""
        st = compiled.stats
        if self.key is None:
            st.graph_cache = f"uncacheable: {self.why_none}" if self.why_none else ""
            return compiled
        try:
            value = self._value(g, ns, wrapper, objects, dev, compiled)
        except Refused as e:
            self.refuse(str(e))
        if self.refused:
            refused(self.refused)
            st.graph_cache = f"uncacheable: {self.refused}"
            return compiled
        launchers = {k[0]: ns[k[0]] for k in self.kernels}
        st.graph_cache = "miss"
        call, key = compiled.fn, self.key

        def first(args):
            out = call(args)
            compiled.fn = call   # from now on the graph alone
            _store(key, value, launchers, st)
            _store_again_on_new_buckets(compiled, call, key, value, launchers, st)
            return out
        compiled.fn = first
        return compiled

    def _value(self, g, ns, wrapper, objects, dev, compiled) -> dict:
        if objects:
            raise Refused("an extern argument with no source form (an op or a module)")
        constants = {}
        for name, t in g.constants.items():
            if t.numel() * t.element_size() > CONSTANT_MAX_BYTES:
                raise Refused(f"a tensor constant over {CONSTANT_MAX_BYTES} bytes")
            with outside_fake_mode():
                constants[name] = {"dtype": str(t.dtype), "shape": list(t.shape),
                                   "device": str(t.device),
                                   "data": base64.b64encode(_raw(t)).decode("ascii")}
        known = BASE_NAMES | {k[0] for k in self.kernels} | set(self.externs) | set(constants)
        extra = sorted(set(ns) - known)
        if extra:
            raise Refused(f"wrapper objects with no stored form ({', '.join(extra[:3])})")
        kernels = [{"ns": n, "name": name, "source": src, "label": label}
                   for n, name, src, label, _ in self.kernels]
        value = {"wrapper": wrapper, "externs": self.externs, "constants": constants,
                 "device": None if dev is None else str(dev),
                 "mutated": list(compiled.mutated_inputs), "donated": list(compiled.donated_inputs),
                 "stats": _snapshot_stats(compiled.stats), "kernels": kernels}
        if self.sizes is not None:   # the guards a hit needs, each sized kernel's extents
            value["sizes"] = {"guards": graph_cache_sizes.stored_guards(self.sizes)}
            for k, (*_, extents) in zip(kernels, self.kernels):
                if extents is not None:
                    k["extents"] = graph_cache_sizes.stored_extents(extents)
        return value


def _describe(launcher, src: str) -> dict:
    from .runtime import static_launch
    from .runtime.launch import ForeachLauncher
    meta = dataclasses.asdict(launcher.meta)
    if meta["source"] == src:
        del meta["source"]   # the kernel's own source: stored once
    d = {"meta": meta, "outs": list(launcher.out_args), "tune": bool(launcher.autotune),
         "config": None if launcher.config is None else dict(launcher.config)}
    if launcher.nsizes:   # a sized kernel: the configs of every size bucket it launched in
        d["buckets"] = graph_cache_sizes.buckets(launcher, src)
    static = static_launch.describe_launcher(launcher)
    if static:   # what launching its kernels without Triton's JIT needs (runtime/static_launch)
        d["static"] = static
    if isinstance(launcher, ForeachLauncher):
        d["foreach"] = {"slots": list(launcher.slots), "table_size": launcher.table_size,
                        "body_of": list(launcher._body_of), "written": sorted(launcher.written)}
    return d


STORED_BINARIES: set = set()   # kernel hashes this process stored (each once)


PENDING: dict = {}   # id(compiled) -> a store owed since a sized kernel entered a new bucket


def _store_again_on_new_buckets(compiled, call, key, value, launchers, stats) -> None:
    """A sized kernel that enters a size bucket after the store compiles kernels (and picks
    configs) the entry lacks: the graph's next call stores the entry again, or the process's
    exit does, so a new machine launches those sizes (a generate's growing cache) from the
    entry's cubins too, compiling nothing. No cost on a call that stays in known buckets."""
    def store():
        PENDING.pop(id(compiled), None)
        compiled.fn = call
        _store(key, value, launchers, stats)

    def again(args):
        out = call(args)
        store()
        return out

    def grew():
        if id(compiled) not in PENDING:
            PENDING[id(compiled)] = store
            compiled.fn = again
    for launcher in launchers.values():
        if launcher.nsizes:
            launcher.on_new_bucket = grew


@atexit.register
def _store_pending() -> None:
    for store in list(PENDING.values()):
        store()


def _store(key, value, launchers, stats) -> None:
    """The value with each kernel's launch config (tuned by now), stored, and the compiled
    kernels it launches, each its own entry (shared by every graph that launches it: an
    entry holds at most MAX_ENTRY_BYTES); never raises."""
    from tuner import graph_store as graphs

    from . import kernel_binaries
    try:
        for k in value["kernels"]:
            k.update(_describe(launchers[k["ns"]], k["source"]))
        # (a hit storing again keeps the first compile's seconds, which a hit saves)
        value["seconds"] = max(value.get("seconds", 0.0), stats.compile_seconds + stats.tuning_seconds)
        binaries = kernel_binaries.collect(launchers.values())
        hosts = kernel_binaries.host_modules(launchers.values())
        value["binaries"], value["hosts"] = sorted(binaries), sorted(hosts)
        why = graphs.store(key, value)
        for h, files in binaries.items():
            if not why and h not in STORED_BINARIES:
                STORED_BINARIES.add(h)
                graphs.store(binary_key(h), {"files": files})
        for folder, files in hosts.items():
            if not why and folder not in STORED_BINARIES:
                STORED_BINARIES.add(folder)
                graphs.store(host_key(folder), {"files": files})
    except Exception as e:   # noqa: BLE001 - a value we cannot store is compiled next time
        why = f"store failed ({type(e).__name__}: {e})"
    if why:
        refused(why[:120])
    if stats.graph_cache.startswith("hit"):
        return   # (a hit that stored a new bucket stays a hit in the stats)
    stats.graph_cache = f"not stored: {why[:200]}" if why else "stored"
