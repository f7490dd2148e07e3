"""Compiled Triton kernels carried between machines (compiler/kernel_binaries.py), on Triton's
real file cache in temporary folders: a kernel folder read on one "machine" is written into
another's cache with a group file of that cache's own paths, which Triton's cache manager then
finds; bad names and folders that are already there are left alone. (The whole path, a second
process loading kernels without compiling them, runs on the GPU: test_graph_cache_gpu.py.)"""
import base64
import json
import os

import pytest

from tuner.compiler import kernel_binaries as kb

HASH = "ab" * 32


def _kernel_folder(root, h=HASH, name="tk_pointwise_0"):
    """A folder as Triton's compile leaves it: IRs, binary, metadata and the group file."""
    os.environ["TRITON_CACHE_DIR"] = str(root)
    folder = kb.cache_dir(h)
    files = {f"{name}.ttir": b"ir", f"{name}.ptx": b"ptx", f"{name}.cubin": b"\x7fELF\x00binary",
             f"{name}.json": json.dumps({"hash": h, "name": name}).encode()}
    for n, data in files.items():
        with open(os.path.join(folder, n), "wb") as f:
            f.write(data)
    with open(os.path.join(folder, f"__grp__{name}.json"), "w") as f:
        json.dump({"child_paths": {n: os.path.join(folder, n) for n in files}}, f)
    return folder


class _Launcher:
    def __init__(self, *hashes):
        self._compiled = {True: type("K", (), {"hash": hashes[0]})()}
        self._buckets = {(i,): (None,) * 3 + ({True: type("K", (), {"hash": h})()},)
                         for i, h in enumerate(hashes[1:])}


@pytest.fixture(autouse=True)
def _restore_env():
    saved = os.environ.get("TRITON_CACHE_DIR")
    yield
    if saved is None:
        os.environ.pop("TRITON_CACHE_DIR", None)
    else:
        os.environ["TRITON_CACHE_DIR"] = saved


def test_a_kernel_carried_to_an_empty_cache_is_found_by_triton(tmp_path):
    _kernel_folder(tmp_path / "a")
    carried = kb.collect([_Launcher(HASH)])
    assert set(carried) == {HASH}
    assert set(carried[HASH]) == {"tk_pointwise_0.json", "tk_pointwise_0.cubin"}   # no IRs
    os.environ["TRITON_CACHE_DIR"] = str(tmp_path / "b")
    assert not kb.present(HASH)
    assert kb.restore(HASH, carried[HASH]) and kb.present(HASH) and HASH in kb.RESTORED
    from triton.runtime.cache import get_cache_manager
    group = get_cache_manager(HASH).get_group("tk_pointwise_0.json")
    assert set(group) == {"tk_pointwise_0.json", "tk_pointwise_0.cubin"}
    for name, path in group.items():
        assert path.startswith(str(tmp_path / "b"))
        with open(path, "rb") as f:
            assert f.read() == base64.b64decode(carried[HASH][name])


def test_size_buckets_are_collected_and_missing_folders_skipped(tmp_path):
    other = "cd" * 32
    _kernel_folder(tmp_path, HASH)
    _kernel_folder(tmp_path, other, "tk_reduction_1")
    assert set(kb.collect([_Launcher(HASH, other, "ef" * 32)])) == {HASH, other}


def test_a_folder_already_there_and_bad_names_are_not_written(tmp_path):
    _kernel_folder(tmp_path)
    files = kb.collect([_Launcher(HASH)])[HASH]
    assert not kb.restore(HASH, files)            # this machine's own stays
    os.environ["TRITON_CACHE_DIR"] = str(tmp_path / "b")
    for bad in ({"../x.json": "", "k.cubin": ""}, {"k.cubin": ""}, {"a.json": "", "b.json": ""}, "x"):
        assert not kb.restore(HASH, bad) and not kb.present(HASH)
    assert not kb.restore(HASH, {"k.json": "not base64!", "k.cubin": ""}) and not kb.present(HASH)


def test_host_modules_travel_into_another_triton_cache(tmp_path, monkeypatch):
    # Triton builds its C launchers with the system compiler into its cache; a module found
    # there behind a kernel's launch function is carried, and written back into the same
    # folder of an empty cache, byte for byte, where Triton's lookup by file name finds it
    import importlib.util
    import shutil
    import types

    import _struct
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "a"))
    root = kb.cache_root()
    assert root == os.path.realpath(tmp_path / "a")
    folder = os.path.join(root, "0123abcd")
    os.makedirs(folder)
    so = shutil.copy(_struct.__file__, os.path.join(folder, "__triton_launcher.so"))
    spec = importlib.util.spec_from_file_location("_struct", so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    pack = mod.pack

    def wrapped(*args):            # a launcher wrapping the builtin (Triton's tensor descriptors)
        return pack(*args)
    outside = types.SimpleNamespace(run=types.SimpleNamespace(launch=_struct.pack))   # not in the cache
    inside = types.SimpleNamespace(run=types.SimpleNamespace(launch=wrapped))
    launcher = types.SimpleNamespace(_compiled={0: outside, 1: inside}, _buckets={})
    hosts = kb.host_modules([launcher])
    assert list(hosts) == ["0123abcd"] and list(hosts["0123abcd"]) == ["__triton_launcher.so"]

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "b"))
    assert not kb.host_present("0123abcd")
    assert kb.restore_host("0123abcd", hosts["0123abcd"])
    assert kb.host_present("0123abcd")
    with open(so, "rb") as a, open(tmp_path / "b" / "0123abcd" / "__triton_launcher.so", "rb") as b:
        assert a.read() == b.read()
    assert not kb.restore_host("0123abcd", hosts["0123abcd"])          # present: kept
    data = hosts["0123abcd"]["__triton_launcher.so"]
    for key, files in (("../x", {"m.so": data}), ("k", {"../m.so": data}), ("k", {"m.py": data}),
                       ("k", {"m.so": "not base64!"}), ("k", {})):
        assert not kb.restore_host(key, files)
    assert not kb.host_present("k")
