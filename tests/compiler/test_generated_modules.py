"""Generated kernel modules are owned by a bounded cache (compiler/runtime/modules.py): at most
TUNER_KERNEL_MODULES stay loaded, and the process's temporary kernel folder is removed at exit."""
import gc
import os
import subprocess
import sys
import weakref

import torch
from torch.fx.experimental.proxy_tensor import make_fx

from tuner.compiler.runtime.modules import GeneratedModules


def _generated(stem=""):
    return {name for name in sys.modules if name.startswith(f"tuner_gen_{stem}")}


def test_the_least_recently_used_module_is_dropped_beyond_the_limit(monkeypatch):
    monkeypatch.delenv("TUNER_DEBUG_DIR", raising=False)
    mods = GeneratedModules(limit=3)
    try:
        loaded = [mods.load(f"VALUE = {i}\n", "t") for i in range(4)]
        assert mods.load("VALUE = 1\n", "t") is loaded[1]      # a hit: now the most recent
        mods.load("VALUE = 4\n", "t")                          # evicts 2 (0 went at the 4th)
        assert len(mods) == 3
        names = {m.__name__ for m in loaded}
        assert names & _generated() == {loaded[1].__name__, loaded[3].__name__}
        assert loaded[0].VALUE == 0                            # a held module still works
        again = mods.load("VALUE = 0\n", "t")                  # loaded again from its file
        assert again is not loaded[0] and again.VALUE == 0
        folder = mods.folder()
        assert os.path.isdir(folder) and len(os.listdir(folder)) == 5
        mods.clear()
        assert len(mods) == 0 and not names & _generated()
    finally:
        mods.cleanup()
    assert not os.path.exists(folder)


def test_a_debug_dir_is_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("TUNER_DEBUG_DIR", str(tmp_path / "dbg"))
    mods = GeneratedModules(limit=2)
    mods.load("VALUE = 1\n", "t")
    mods.cleanup()
    assert [p.suffix for p in (tmp_path / "dbg").iterdir()] == [".py"]


def test_the_kernel_folder_is_removed_at_exit():
    code = ("import os, torch\n"
            "from torch.fx.experimental.proxy_tensor import make_fx\n"
            "from tuner.compiler.compile_graph import compile_graph, kernel_dir\n"
            "x = torch.randn(8)\n"
            "out = compile_graph(make_fx(lambda x: x * 3 + 1)(x), [x])([x])\n"
            "assert torch.allclose(out[0], x * 3 + 1)\n"
            "print(kernel_dir(), len(os.listdir(kernel_dir())))\n")
    env = {k: v for k, v in os.environ.items() if k != "TUNER_DEBUG_DIR"}
    env["TRITON_INTERPRET"] = "1"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    folder, files = r.stdout.split()
    assert os.path.basename(folder).startswith("tuner-kernels-") and int(files) >= 1
    assert not os.path.exists(folder)


def test_distinct_graphs_keep_at_most_the_limit_of_modules_loaded(monkeypatch):
    # a service compiling graph after graph: 300 distinct tiny graphs (`x * k + i`), each
    # compiled, called and dropped; only TUNER_KERNEL_MODULES modules stay alive (RSS is too
    # noisy on a shared box to bound; every module alive is counted instead)
    from tuner.compiler.compile_graph import compile_graph
    limit = 16
    monkeypatch.setenv("TUNER_KERNEL_MODULES", str(limit))
    monkeypatch.delenv("TUNER_DEBUG_DIR", raising=False)
    x = torch.randn(4)
    first = compile_graph(make_fx(lambda x: x * 0.5 - 1)(x), [x])   # held throughout
    refs, seen = [], _generated("k_")
    for i in range(300):
        k = 1.0 + i / 7
        call = compile_graph(make_fx(lambda x: x * k + i)(x), [x])
        torch.testing.assert_close(call([x])[0], x * k + i)
        for name in _generated("k_") - seen:
            refs.append(weakref.ref(sys.modules[name]))
            seen.add(name)
        assert len(_generated("k_")) <= limit
        del call
    gc.collect()
    assert len(refs) >= 300
    alive = sum(1 for r in refs if r() is not None)
    assert alive <= limit, alive
    # the held graph's kernel module was evicted long ago: the graph still runs it
    torch.testing.assert_close(first([x])[0], x * 0.5 - 1)
