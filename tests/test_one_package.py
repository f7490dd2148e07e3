"""One module per file: `tuner` is found through its install (setup.py's folder mapping;
`pip install -e .` for a source checkout) or a copy laid out as the package, never by adding
the checkout root to the package's path, which loaded tuner/ a second time as `tuner.tuner`
(a second settings object)."""
import importlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tuner


def _loaded_twice() -> dict:
    by_file: dict = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and (name == "tuner" or name.startswith("tuner.")):
            by_file.setdefault(Path(path).resolve(), []).append(name)
    return {str(f): names for f, names in by_file.items() if len(names) > 1}


def test_the_checkout_root_is_not_part_of_the_package():
    assert all(not (Path(p) / "setup.py").is_file() for p in tuner.__path__), tuner.__path__
    assert importlib.util.find_spec("tuner.tuner") is None
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tuner.tuner.settings")
    assert not [n for n in sys.modules if n == "tuner.tuner" or n.startswith("tuner.tuner.")]


def test_settings_is_one_object_across_imports():
    import tuner.settings
    from tuner import settings as module
    from tuner.cache import config
    from tuner.settings import settings
    assert module is tuner.settings is sys.modules["tuner.settings"]
    assert settings is module.settings and config._installed is settings
    assert not _loaded_twice()


@pytest.mark.parametrize("sub", ["cache", "compiler", "heuristics", "datagen"])
def test_the_mapped_folders_come_from_the_tree_tuner_comes_from(sub):
    # root/tuner with root/cache (an editable install of a checkout), or tuner/cache (a wheel,
    # a laid-out copy); never tuner/ of one checkout with cache/ of another
    here = Path(tuner.__file__).resolve().parent
    origin = Path(importlib.util.find_spec(f"tuner.{sub}").origin).resolve()
    assert origin in (here.parent / sub / "__init__.py", here / sub / "__init__.py"), origin


def test_a_compile_worker_like_process_loads_each_file_once():
    # as tuner.compile_workers starts a worker: this process's sys.path as PYTHONPATH, no
    # current folder first (-P), here started from the checkout root
    code = ("import sys, tuner, tuner.settings, tuner.cache.config as c, tuner.compile_workers\n"
            "assert c._installed is tuner.settings.settings\n"
            "assert not [n for n in sys.modules if n.startswith('tuner.tuner')]\n"
            "print(tuner.settings.__file__)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))}
    r = subprocess.run([sys.executable, "-P", "-c", code], cwd=Path(__file__).parent.parent, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()).resolve() == Path(tuner.settings.__file__).resolve()


def test_a_checkout_laid_out_as_the_package_loads_its_own_folders_once(tmp_path):
    # how a checkout runs without an install (the GPU machine, scripts/device/env.sh): laid out
    # as the package first on PYTHONPATH, -P keeping the checkout root's bare tuner/ off sys.path
    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("bench_compiler_for_layout", root / "scripts" / "bench_compiler.py")
    bench_compiler = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench_compiler   # its dataclasses resolve annotations through it
    spec.loader.exec_module(bench_compiler)
    bench_compiler.lay_out_checkout(tmp_path)
    code = ("import importlib.util, sys, tuner.cache, tuner.cache.config as c, tuner.heuristics.registry, "
            "tuner.datagen.pad_mm, tuner.settings\n"
            "assert importlib.util.find_spec('tuner.tuner') is None\n"
            "assert c._installed is tuner.settings.settings\n"
            "print(tuner.__file__); print(tuner.cache.__file__); print(tuner.datagen.pad_mm.__file__)")
    out = subprocess.run([sys.executable, "-P", "-c", code], cwd=root, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert all(line.startswith(str(tmp_path)) for line in out.stdout.split()), out.stdout
