"""Launching a cached graph's kernels without Triton's JIT (issue 53): a graph served from the
compiled-graph cache loads each kernel's cubin (carried with the graph, compiler/
kernel_binaries.py) through torch's static CUDA launcher (`torch._C._StaticCudaLauncher`) and
launches it from there, so its first call neither binds arguments through JITFunction.run,
nor hashes Triton's sources for a cache key, nor builds (with the system's C compiler) or
loads a launcher module per kernel signature: those were most of a warm process's first call.

What a launch needs is taken, after the graph's first successful call in the process that
compiled it, from each compiled kernel (`describe`): its function name, warps, shared memory,
and which of the fast path's arguments reach the kernel with what type (constexprs and
arguments Triton specialized away do not). A kernel is left to Triton when it needs what the
static launcher does not do: more than one CTA per cluster, global or profiling scratch
memory (Hopper's TMA template variant), cooperative or programmatic-dependent launches,
argument types outside the table below. A launcher adopts (`adopt`) only the alignment
patterns it launched in the first process; any other pattern, and a graph whose kernels this
torch cannot load, launch through Triton as before.
"""
from __future__ import annotations

import functools
import logging
import os

log = logging.getLogger("tuner.compiler")

# Triton signature type -> the static launcher's argument code; pointers travel as unsigned
# 64-bit integers (the fast path passes data pointers, not tensors)
_CODES = {"i1": "i", "i8": "b", "i16": "h", "i32": "i", "i64": "l", "u1": "I", "u8": "B",
          "u16": "H", "u32": "I", "u64": "K", "fp16": "f", "bf16": "f", "fp32": "f", "fp64": "d"}
_SCRATCH = ("global_scratch_size", "profile_scratch_size")
LOADED = 0   # kernels of cache-served graphs launched through the static launcher (tests read it)
FRESH = 0    # kernels this process compiled, launched through it after their first launch


def _impl():
    """torch's static CUDA launcher, or None (no CUDA build, Triton's interpreter, or
    TUNER_STATIC_LAUNCH off)."""
    from tuner.settings import settings
    return _launcher() if settings.static_launch else None


@functools.lru_cache(maxsize=None)
def _launcher():
    if os.environ.get("TRITON_INTERPRET", "0") == "1":
        return None
    try:
        from torch._C import _StaticCudaLauncher
    except ImportError:
        return None
    ok = hasattr(_StaticCudaLauncher, "_load_kernel") and hasattr(_StaticCudaLauncher, "_launch_kernel")
    return _StaticCudaLauncher if ok else None


def describe(k, nargs: int) -> dict | None:
    """What launching compiled kernel `k` statically needs, for a launcher whose fast path
    passes `nargs` arguments before its constexprs; None where the static launcher cannot."""
    md, src = getattr(k, "metadata", None), getattr(k, "src", None)
    if md is None or src is None or not hasattr(src, "signature") or not hasattr(k, "hash"):
        return None
    if (getattr(md, "num_ctas", 1) != 1 or any(getattr(md, f, 0) for f in _SCRATCH)
            or getattr(md, "launch_cooperative_grid", False) or getattr(md, "launch_pdl", False)
            or tuple(getattr(md, "cluster_dims", None) or (1, 1, 1)) not in ((1, 1, 1), (1,), ())):
        return None
    names = list(src.fn.arg_names)
    constants = {c[0] if isinstance(c, tuple) and len(c) == 1 else c for c in getattr(src, "constants", {})}
    keep, codes = [], ""
    for i, name in enumerate(names[:nargs]):
        ty = src.signature.get(name, src.signature.get(i))
        if ty == "constexpr" or i in constants or name in constants:
            continue
        code = "K" if isinstance(ty, str) and ty.startswith("*") else _CODES.get(ty)
        if code is None:
            return None
        keep.append(i)
        codes += code
    if any(src.signature.get(n, "constexpr") != "constexpr" for n in names[nargs:]):
        return None   # a runtime argument past the fast path's: not ours to place
    extra = sum(1 for f in _SCRATCH if hasattr(md, f))   # null scratch pointers, appended
    return {"hash": k.hash, "name": md.name, "num_warps": int(md.num_warps),
            "shared": int(md.shared), "codes": codes + "O" * extra, "keep": keep,
            "extra": extra, "nargs": nargs}


def describe_launcher(launcher) -> list:
    """[[alignment key, description], ...] of a launcher's compiled kernels (fast path only);
    a sized launcher's entries carry their size bucket third, every bucket it launched in
    being described; [] when there are none."""
    if _launcher() is None:   # (stored even when TUNER_STATIC_LAUNCH is off)
        return []
    held = [(None, launcher._compiled, launcher._grid, launcher._consts)]
    if launcher.nsizes:
        held = [(launcher._bucket, *held[0][1:])]
        held += [(b, s[3], s[4], s[5]) for b, s in launcher._buckets.items() if b is not None]
    out = []
    for bucket, compiled, grid, consts in held:
        if grid is None:
            continue
        nargs = len(launcher.fn.arg_names) - len(consts)
        for key, k in compiled.items():
            d = describe(k, nargs)
            if d is not None:
                entry = [key if key is True else [bool(b) for b in key], d]
                out.append(entry if bucket is None else entry + [list(bucket)])
    return out


class StaticKernel:
    """A loaded cubin; `run` takes the arguments Triton's launcher takes on the fast path. One
    made from a kernel this process compiled (`origin`) answers for it otherwise (its hash,
    metadata and source: the graph cache describes and carries it from those)."""
    packed_metadata = None

    def __init__(self, function, d: dict, origin=None):
        self._origin = origin
        self.function = function
        self._warps, self._shared, self._codes = d["num_warps"], d["shared"], d["codes"]
        keep = tuple(d["keep"])
        self._prefix = len(keep) if keep == tuple(range(len(keep))) else None
        self._keep = keep
        self._extra = (None,) * d["extra"]
        self._launch = _launcher()._launch_kernel

    def __getattr__(self, name):
        origin = self.__dict__.get("_origin")
        if origin is None:
            raise AttributeError(name)
        return getattr(origin, name)

    def run(self, gx, gy, gz, stream, function, _packed, _md, _enter, _exit, *args):
        if self._prefix is not None:
            args = args[:self._prefix] + self._extra
        else:
            args = tuple(args[i] for i in self._keep) + self._extra
        if gx and gy and gz:   # (an empty grid launches nothing, as with Triton's launcher)
            self._launch(function, gx, gy, gz, self._warps, self._shared, self._codes, args, stream)


def _load(d: dict, device: int, origin=None) -> StaticKernel | None:
    from .. import kernel_binaries as kb
    folder = kb.cache_dir(d["hash"])
    path = os.path.join(folder, f"{d['name']}.cubin") if folder else None
    if path is None or not os.path.isfile(path):
        return None
    got = _launcher()._load_kernel(path, d["name"], d["shared"], device)
    return StaticKernel(got[-3], d, origin)   # (module,) function, registers, spills


def fresh(k, nargs: int, device: int):
    """Kernel `k`, just compiled and launched once by Triton in this process, as a
    StaticKernel from its cubin in Triton's cache (the launches after its first skip Triton's
    Python launcher: its scratch and hook handling per call), or `k` itself where the static
    launcher cannot take it or is off, or while a CUDA graph is being captured."""
    global FRESH
    if _impl() is None or device is None:
        return k
    try:
        import torch
        if torch.cuda.is_current_stream_capturing():
            return k
        d = describe(k, nargs)
        sk = _load(d, device, k) if d is not None else None
    except Exception as e:   # noqa: BLE001 - Triton's launcher, as before
        log.debug("static launch of a fresh kernel: %s: %s", type(e).__name__, e)
        return k
    if sk is None:
        return k
    FRESH += 1
    return sk


def _consts(launcher, config, nargs) -> tuple:
    """The constexpr arguments after the fast path's `nargs`, under `config`."""
    return tuple(launcher._const(n, config) for n in launcher.fn.arg_names[nargs:])


def adopt(launcher, stored, device) -> int:
    """Give a restored launcher (config chosen) the kernels its graph's first process launched,
    loaded from their cubins, on its fast path (a sized launcher: in each size bucket it has a
    config for); how many it took. Never raises: a launcher that takes none launches through
    Triton."""
    global LOADED
    if not stored or _impl() is None or device is None:
        return 0
    from . import direct_launch
    taken = 0
    try:
        if not direct_launch._fast_launch_supported() or not direct_launch.hooks_unset():
            return 0
        import torch
        index = device.index if device.index is not None else torch.cuda.current_device()
        groups: dict = {}   # size bucket (None: an unsized launcher) -> (nargs, {key: kernel})
        for entry in stored:
            key, d = entry[0], entry[1]
            b = tuple(entry[2]) if len(entry) > 2 else None
            if (b is None) == bool(launcher.nsizes):
                continue
            k = _load(d, index)
            if k is not None:
                groups.setdefault(b, (d["nargs"], {}))[1][True if key is True else tuple(key)] = k
        for b, (nargs, kernels) in groups.items():
            if b is None or b == launcher._bucket:
                if launcher.config is None:
                    continue
                launcher._consts = _consts(launcher, launcher.config, nargs)
                launcher._compiled.update(kernels)
                launcher._grid = launcher.grid(launcher.config)
            else:
                saved = launcher._buckets.get(b)
                if saved is None or saved[2] is None:
                    continue
                meta, default, config, compiled, _, _, decision = saved
                grid = launcher.grid(config, extents=(meta.xnumel, meta.ynumel, None))
                launcher._buckets[b] = (meta, default, config, {**compiled, **kernels}, grid,
                                        _consts(launcher, config, nargs), decision)
            taken += len(kernels)
        if taken:
            launcher._device = index
            launcher._stream_of = direct_launch._stream_getter()
    except Exception as e:   # noqa: BLE001 - Triton's launcher, as before
        log.debug("static launch: %s: %s", type(e).__name__, e)
        launcher._compiled.clear()
        launcher._grid = None
        for b, saved in list(launcher._buckets.items()):
            launcher._buckets[b] = saved[:3] + ({}, None, ()) + saved[6:]
        return 0
    LOADED += taken
    return taken
