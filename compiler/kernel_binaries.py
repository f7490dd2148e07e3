"""Compiled Triton kernels carried with a cached graph (issue 53, part 2): what a machine
needs to load a kernel without compiling it, read from Triton's own cache folder after the
kernel ran, and written back into another machine's Triton cache before the kernel's first
launch, so Triton's compile finds it there.

A kernel is its Triton cache folder (named after the compile's hash, which covers the source,
the options, the Triton version and the target): of it only the metadata (`NAME.json`) and
the binary (`NAME.cubin` on NVIDIA, `NAME.hsaco` on AMD) travel; the group file that lists a
folder's files holds absolute paths, so it is written anew for the folder it lands in. Triton
loads what the group lists and needs no intermediate IR to launch. A machine whose Triton
cache already holds the folder keeps its own.

Host modules travel too: Triton builds C extension modules with the system compiler on first
use in an empty cache (its driver utilities, and in Triton 3.6 and before a launcher per kernel
signature: a quarter of a second each, most of a warm process's first call). `host_modules`
finds the ones the graph's kernels launch through (the `.so` behind each launcher's builtin
function, when it lies in Triton's cache) and `restore_host` writes one back into the same
folder of another machine's cache, where Triton's lookup (the file's name in the folder keyed
by its source) finds it instead of compiling.
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import types

KEPT_SUFFIXES = (".json", ".cubin", ".hsaco")
MAX_FILE_BYTES = 600_000     # a binary larger than this (base64 in one cache entry) compiles
RESTORED: set = set()        # hashes written into this machine's Triton cache by this process


def cache_dir(h: str) -> str | None:
    """The folder of Triton's cache for compile hash `h` (None: not a file cache)."""
    try:
        from triton.runtime.cache import get_cache_manager
        return getattr(get_cache_manager(h), "cache_dir", None)
    except Exception:   # noqa: BLE001 - no Triton cache here: nothing to carry
        return None


def compiled_kernels(launcher) -> list:
    """The compiled kernels a launcher launches: its fast path's, in every size bucket."""
    out = list(getattr(launcher, "_compiled", {}).values())
    for saved in getattr(launcher, "_buckets", {}).values():
        out.extend(saved[3].values())
    return out


def collect(launchers) -> dict:
    """hash -> {file name: base64 bytes} of the launchers' compiled kernels found in Triton's
    cache (a kernel whose folder is not there, or too large, is left to compile)."""
    out = {}
    for launcher in launchers:
        for k in compiled_kernels(launcher):
            h = getattr(k, "hash", None)
            if not isinstance(h, str) or h in out:
                continue
            files = _read(cache_dir(h))
            if files:
                out[h] = files
    return out


def _read(folder) -> dict | None:
    if not folder or not os.path.isdir(folder):
        return None
    files = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.startswith("__grp__") or not name.endswith(KEPT_SUFFIXES) or not os.path.isfile(path):
            continue
        if os.path.getsize(path) > MAX_FILE_BYTES:
            return None
        with open(path, "rb") as f:
            files[name] = base64.b64encode(f.read()).decode("ascii")
    metadata = [n for n in files if n.endswith(".json")]
    return files if len(metadata) == 1 and len(files) == 2 else None


def present(h: str) -> bool:
    """Whether this machine's Triton cache holds compile hash h's group (so it loads)."""
    folder = cache_dir(h)
    return bool(folder) and os.path.isdir(folder) and any(
        n.startswith("__grp__") for n in os.listdir(folder))


def restore(h: str, files: dict) -> bool:
    """Write a carried kernel into this machine's Triton cache (unless it holds one): the
    files, then their group with this folder's paths. False if it could not be written (the
    kernel then compiles, as it would have)."""
    folder = cache_dir(h)
    if not folder or present(h):
        return False
    if not isinstance(files, dict) or any(not isinstance(n, str) or os.sep in n or n.startswith(".")
                                          or not n.endswith(KEPT_SUFFIXES) for n in files):
        return False
    metadata = [n for n in files if n.endswith(".json")]
    if len(metadata) != 1:
        return False
    tmp = f"{folder}.tmp.{os.getpid()}"
    try:
        os.makedirs(tmp, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(base64.b64decode(data, validate=True))
        group = {"child_paths": {n: os.path.join(folder, n) for n in files}}
        with open(os.path.join(tmp, f"__grp__{metadata[0]}"), "w") as f:
            json.dump(group, f)
        if os.path.isdir(folder) and not os.listdir(folder):
            os.rmdir(folder)
        os.replace(tmp, folder)
    except (OSError, ValueError):
        shutil.rmtree(tmp, ignore_errors=True)
        return False
    RESTORED.add(h)
    return True


def cache_root() -> str | None:
    """Triton's cache folder on this machine (None: unknown)."""
    try:
        from triton import knobs
        root = knobs.cache.dir
    except Exception:   # noqa: BLE001 - Triton before knobs: its environment variable
        root = os.environ.get("TRITON_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".triton", "cache")
    return os.path.realpath(root) if root else None


def _module_file(fn) -> str | None:
    """The extension module file a builtin function (or a wrapper closing over one) is in."""
    for f in [fn] + [_cell(c) for c in (getattr(fn, "__closure__", None) or ())]:
        mod = getattr(f, "__self__", None) if isinstance(f, types.BuiltinFunctionType) else None
        path = getattr(mod, "__file__", None)
        if isinstance(path, str) and path.endswith(".so"):
            return path
    return None


def _cell(c):
    try:
        return c.cell_contents
    except ValueError:   # an empty cell
        return None


def host_modules(launchers) -> dict:
    """folder key -> {file name: base64 bytes} of the host modules the launchers' kernels
    launch through (their launchers and Triton's driver utilities) found in Triton's cache."""
    root = cache_root()
    if not root:
        return {}
    fns = []
    for launcher in launchers:
        for k in compiled_kernels(launcher):
            k = getattr(k, "_origin", None) or k   # (a static launcher's: the Triton kernel's)
            fns.append(getattr(getattr(k, "run", None), "launch", None))
    try:
        import triton
        fns.append(getattr(triton.runtime.driver.active.utils, "load_binary", None))
    except Exception:   # noqa: BLE001 - no active driver (the interpreter): nothing to carry
        pass
    out = {}
    for fn in fns:
        path = _module_file(fn) if fn is not None else None
        if path is None:
            continue
        folder, name = os.path.split(os.path.realpath(path))
        key = os.path.basename(folder)
        if os.path.dirname(folder) != root or key in out or os.path.getsize(path) > MAX_FILE_BYTES:
            continue
        with open(path, "rb") as f:
            out[key] = {name: base64.b64encode(f.read()).decode("ascii")}
    return out


def host_present(key: str) -> bool:
    """Whether Triton's cache here holds a module in folder `key`."""
    root = cache_root()
    folder = os.path.join(root, key) if root and isinstance(key, str) and key else None
    return bool(folder) and os.path.isdir(folder) and any(n.endswith(".so") for n in os.listdir(folder))


def restore_host(key: str, files: dict) -> bool:
    """Write a carried host module into this machine's Triton cache folder `key` (unless a
    file of that name is there). False if it could not be written: Triton then builds it."""
    root = cache_root()
    if (not root or not isinstance(key, str) or not key or os.sep in key or key.startswith(".")
            or not isinstance(files, dict) or len(files) != 1):
        return False
    (name, data), = files.items()
    if not isinstance(name, str) or os.sep in name or name.startswith(".") or not name.endswith(".so"):
        return False
    folder = os.path.join(root, key)
    path = os.path.join(folder, name)
    if os.path.exists(path):
        return False
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        os.makedirs(folder, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(base64.b64decode(data, validate=True))
        os.replace(tmp, path)
    except (OSError, ValueError):
        if os.path.exists(tmp):
            os.remove(tmp)
        return False
    RESTORED.add(key)
    return True
