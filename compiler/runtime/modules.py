"""The generated-source modules of a process: the folder their files are written to and an
LRU of the modules loaded from it, bounded by TUNER_KERNEL_MODULES.

A long-running service compiles graph after graph; without a bound every generated module
stayed loaded for the life of the process and a `tuner-kernels-*` folder was left behind.
Evicting a module drops only this cache's reference (and its `sys.modules` entry): a compiled
graph that launches one of its kernels keeps the module alive until the graph is dropped. The
files stay until exit (compile workers load kernels by path), when the temporary folder is
removed; a TUNER_DEBUG_DIR folder is the user's and is kept.
"""
from __future__ import annotations

import atexit
import collections
import hashlib
import importlib.util
import linecache
import os
import shutil
import sys
import tempfile
import threading


class GeneratedModules:
    """Writes generated source to files and imports them, one module per distinct source.

    `limit`: the most modules held at once (None: the TUNER_KERNEL_MODULES setting, read at
    each load). `folder()` is TUNER_DEBUG_DIR when set, else a temporary folder this object
    creates on first use and removes at interpreter exit (`cleanup`)."""

    def __init__(self, limit: int | None = None, prefix: str = "tuner-kernels-"):
        self._limit = limit
        self._prefix = prefix
        self._modules: collections.OrderedDict[str, object] = collections.OrderedDict()
        self._tmp: str | None = None
        self._tmp_pid: int | None = None   # the process that made the folder (a fork inherits it)
        self._lock = threading.Lock()

    def limit(self) -> int:
        if self._limit is not None:
            return self._limit
        from tuner.settings import settings
        return settings.kernel_modules

    def folder(self) -> str:
        """Where generated files go: TUNER_DEBUG_DIR when set, else this object's temp folder."""
        from tuner.settings import settings
        d = settings.debug_dir
        if d:
            os.makedirs(d, exist_ok=True)
            return d
        with self._lock:
            if self._tmp is None:
                self._tmp = tempfile.mkdtemp(prefix=self._prefix)
                self._tmp_pid = os.getpid()
                atexit.register(self.cleanup)
            return self._tmp

    def load(self, source: str, stem: str):
        """The module of `source` (written to `<stem>_<hash>.py`, Triton reads kernel source
        from files), loaded once while it stays among the `limit()` most recently used."""
        key = hashlib.sha256(source.encode()).hexdigest()[:20]
        with self._lock:
            mod = self._modules.get(key)
            if mod is not None:
                self._modules.move_to_end(key)
                return mod
        path = os.path.join(self.folder(), f"{stem}_{key}.py")
        if not os.path.exists(path):
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                f.write(source)
            os.replace(tmp, path)
        spec = importlib.util.spec_from_file_location(f"tuner_gen_{stem}_{key}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        with self._lock:
            self._modules[key] = mod
            self._modules.move_to_end(key)
            limit = max(int(self.limit()), 1)
            while len(self._modules) > limit:
                _, old = self._modules.popitem(last=False)
                self._forget(old)
        return mod

    def __len__(self) -> int:
        return len(self._modules)

    @staticmethod
    def _forget(mod) -> None:
        name = getattr(mod, "__name__", None)
        if name is not None and sys.modules.get(name) is mod:
            del sys.modules[name]
        path = getattr(mod, "__file__", None)
        if path is not None:
            linecache.cache.pop(path, None)   # the lines inspect read for Triton

    def clear(self) -> None:
        """Drops every loaded module (compiled graphs keep the ones they launch)."""
        with self._lock:
            mods, self._modules = list(self._modules.values()), collections.OrderedDict()
        for mod in mods:
            self._forget(mod)

    def cleanup(self) -> None:
        """At exit: removes the temporary folder, in the process that made it (a forked child
        shares it); never TUNER_DEBUG_DIR."""
        with self._lock:
            tmp, pid = self._tmp, self._tmp_pid
            if tmp is None or pid != os.getpid():
                return
            self._tmp = self._tmp_pid = None
        shutil.rmtree(tmp, ignore_errors=True)
