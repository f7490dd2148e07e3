"""The compiled-graph cache (compiler/graph_cache.py, cache/graphs.py): hits rebuild a graph
without lowering and give the same outputs; any key change misses; bad entries recompile with
one warning; signatures, read-only, the size bound; a second process with an empty local
cache and a warm Redis lowers nothing. CPU, Triton's interpreter (tests/compiler/conftest.py),
a real redis-server."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import warnings

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from tuner.cache import CacheWarning, get_cache, reset_cache
from tuner.cache import graphs as graph_store
from tuner.cache.local import TABLE
from tuner.compiler import compile_graph as cg
from tuner.compiler import graph_cache
from tuner.compiler.context import CompileContext
from helpers import COUNT_LOWERINGS


pytestmark = pytest.mark.usefixtures("graph_cache_on")


@pytest.fixture
def remote(tmp_path, monkeypatch):
    """A real redis-server on a loopback port (tests/cache/conftest.py), used by the cache."""
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed: run `bash scripts/setup.sh`")
    from tests.cache.conftest import RedisServer
    (tmp_path / "redis").mkdir()
    server = RedisServer(tmp_path / "redis")
    monkeypatch.setenv("TUNER_REMOTE_CACHE", server.url)
    yield server
    server.kill()


def fn(x, y):
    return (torch.relu(x * 2 + y).sum(-1), torch.tanh(y) * x)


def inputs(n=8, dtype=torch.float32):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(n, 16, generator=g, dtype=dtype), torch.randn(n, 16, generator=g, dtype=dtype)]


def run(args, f=fn, **kw):
    """(compiled, outputs) of f's ATen graph compiled and called once on args."""
    gm = make_fx(f)(*args)
    compiled = cg.compile_graph(gm, args, **kw)
    return compiled, compiled(list(args))


def graph_rows(path=None):
    path = path or get_cache().local.path
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"SELECT digest, entry FROM [{TABLE}] WHERE namespace = 'graph' "
                            "ORDER BY created").fetchall()
    finally:
        conn.close()


def set_entry(digest, text):
    conn = sqlite3.connect(get_cache().local.path)
    with conn:
        conn.execute(f"UPDATE [{TABLE}] SET entry = ? WHERE digest = ?", [text, digest])
    conn.close()


def test_hit_gives_identical_outputs_and_lowers_nothing(lowerings):
    args = inputs()
    first, out1 = run(args)
    assert first.stats.graph_cache == "stored" and lowerings[0] == 1
    second, out2 = run(args)
    assert second.stats.graph_cache == "hit (local)"
    assert lowerings[0] == 1   # no lowering on the hit
    for a, b, e in zip(out1, out2, fn(*args)):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
        torch.testing.assert_close(a, e)
    # the same kernels and wrapper, the same stats
    assert second.stats.source == first.stats.source
    assert second.stats.kernels == first.stats.kernels >= 1
    assert second.stats.kernel_names == first.stats.kernel_names
    assert second.stats.planned_peak_bytes == first.stats.planned_peak_bytes is not None
    reset_cache()   # flushes the counters
    counters = graph_store_stats()
    assert counters["hits_local"] == 1 and counters["misses"] == 1 and counters["saved_s"] > 0


def graph_stats_path():
    from tuner.settings import settings
    return settings.cache_dir / "stats.db"


def graph_store_stats():
    from tuner.cache import stats
    return stats.read(graph_stats_path())[graph_store.NAMESPACE]


def test_tuner_cache_stats_shows_graph_hits():
    args = inputs()
    run(args)
    run(args)
    reset_cache()
    out = subprocess.run([sys.executable, "-m", "tuner", "cache", "stats"], capture_output=True,
                         text=True, env=os.environ.copy(), timeout=120)
    assert out.returncode == 0, out.stderr
    assert "graph: 1 hits (1 local, 0 remote), 1 misses" in out.stdout
    assert "of compiling saved" in out.stdout


def test_every_key_part_misses(monkeypatch):
    args = inputs()
    gm = make_fx(fn)(*args)
    ctx = CompileContext("default", {})
    base = graph_cache.key(gm, args, ctx)
    assert base is not None and base == graph_cache.key(make_fx(fn)(*inputs()), inputs(), ctx)
    changed = {
        "option": graph_cache.key(gm, args, CompileContext("default", {"max_persistent_r": 1024})),
        "mode": graph_cache.key(gm, args, CompileContext("max-autotune-no-cudagraphs", {})),
        "inference": graph_cache.key(gm, args, ctx.with_(inference=True)),
        "donated": graph_cache.key(gm, args, ctx.with_(donated=frozenset({0}))),
        "dtype": graph_cache.key(make_fx(fn)(*inputs(dtype=torch.float64)),
                                 inputs(dtype=torch.float64), ctx),
        "shape": graph_cache.key(make_fx(fn)(*inputs(4)), inputs(4), ctx),
        "graph": graph_cache.key(make_fx(lambda x, y: (x + y,))(*args), args, ctx),
    }
    with monkeypatch.context() as m:
        m.setenv("TUNER_MM", "template")
        changed["setting"] = graph_cache.key(gm, args, ctx)
    with monkeypatch.context() as m:
        m.setenv("TUNER_FALLBACK_RANDOM", "1")   # random ops lowered or ATen calls
        changed["random setting"] = graph_cache.key(gm, args, ctx)
    import triton
    with monkeypatch.context() as m:
        m.setattr(triton, "__version__", "0.0.0-other")
        changed["triton version"] = graph_cache.key(gm, args, ctx)
    with monkeypatch.context() as m:
        m.setattr(torch, "__version__", "0.0.0-other")
        changed["torch version"] = graph_cache.key(gm, args, ctx)
    # CUDA graphs wrap the result whatever the mode: those share an entry
    assert graph_cache.key(gm, args, CompileContext("reduce-overhead", {"cudagraphs": False})) == base
    assert graph_cache.key(gm, args, CompileContext("max-autotune", {})) == changed["mode"]
    digests = {name: k.digest() for name, k in changed.items()}
    assert base.digest() not in digests.values()
    assert len(set(digests.values())) == len(digests)


def test_version_change_recompiles(monkeypatch, lowerings):
    args = inputs()
    run(args)
    import triton
    monkeypatch.setattr(triton, "__version__", "0.0.0-other")
    again, out = run(args)
    assert again.stats.graph_cache == "stored" and lowerings[0] == 2
    torch.testing.assert_close(out[0], fn(*args)[0])


def test_edited_compiler_source_recompiles(monkeypatch, lowerings):
    # a checkout edited since an entry was written keeps its version string: the key holds a
    # hash of the compiler's own sources, so the old entry (maybe calling a helper that no
    # longer exists) is never a hit
    args = inputs()
    run(args)
    monkeypatch.setattr(graph_cache, "code_hash", lambda: "edited-source")
    again, out = run(args)
    assert again.stats.graph_cache == "stored" and lowerings[0] == 2
    torch.testing.assert_close(out[0], fn(*args)[0])


def corrupt_truncated(text):
    return text[: len(text) // 2]


def corrupt_payload(text):
    body = json.loads(text)
    body["value"]["z"] = body["value"]["z"][:-40] + "A" * 40
    return json.dumps(body)


def corrupt_code(text):
    """A well-formed entry whose kernels' source was replaced: only a signature tells."""
    body = json.loads(text)
    value = graph_store.unpack(body["value"])
    value["wrapper"] = "import os\n" + value["wrapper"]
    body["value"] = graph_store.pack(value)
    return json.dumps(body)


@pytest.mark.parametrize("corrupt", [corrupt_truncated, corrupt_payload])
def test_bad_entry_recompiles_with_one_warning(corrupt, lowerings):
    args = inputs()
    run(args)
    [(digest, text)] = graph_rows()
    set_entry(digest, corrupt(text))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        again, out = run(args)
    cache_warnings = [w for w in seen if issubclass(w.category, CacheWarning)]
    assert len(cache_warnings) == 1 and "rejected" in str(cache_warnings[0].message)
    assert lowerings[0] == 2 and again.stats.graph_cache == "stored"
    torch.testing.assert_close(out[1], fn(*args)[1])
    [(_, fresh)] = graph_rows()   # overwritten by the compile
    assert isinstance(graph_store.unpack(json.loads(fresh)["value"]), dict)
    third, _ = run(args)
    assert third.stats.graph_cache == "hit (local)" and lowerings[0] == 2


def test_signature_is_checked(monkeypatch, lowerings):
    monkeypatch.setenv("TUNER_CACHE_SECRET", "graph-secret")
    args = inputs()
    run(args)
    [(digest, text)] = graph_rows()
    assert "sig" in json.loads(text)
    set_entry(digest, corrupt_code(text))
    with pytest.warns(CacheWarning, match="wrong signature"):
        again, _ = run(args)
    assert again.stats.graph_cache == "stored" and lowerings[0] == 2
    # an unsigned entry is rejected by a process with a secret
    monkeypatch.delenv("TUNER_CACHE_SECRET")
    reset_cache()
    get_cache().local.delete(digest)
    run(args)
    monkeypatch.setenv("TUNER_CACHE_SECRET", "graph-secret")
    with pytest.warns(CacheWarning, match="missing signature"):
        last, _ = run(args)
    assert last.stats.graph_cache == "stored" and lowerings[0] == 4


def test_size_bound_evicts_oldest(monkeypatch):
    args = inputs()
    run(args)
    [(first, text)] = graph_rows()
    size = len(text.encode())
    monkeypatch.setenv("TUNER_GRAPH_CACHE_MAX_MB", str(1.5 * size / (1 << 20)))
    second, _ = run(inputs(4))
    rows = graph_rows()
    assert len(rows) == 1 and rows[0][0] != first   # the older graph went
    assert second.stats.graph_cache == "stored"
    # an entry larger than the bound is not stored at all
    monkeypatch.setenv("TUNER_GRAPH_CACHE_MAX_MB", str(size / 4 / (1 << 20)))
    third, _ = run(inputs(2))
    assert third.stats.graph_cache.startswith("not stored") and len(graph_rows()) == 1


def test_large_constant_is_uncacheable():
    big = torch.randn(200, 16 * 8)   # 100 KiB: over CONSTANT_MAX_BYTES

    def f(x, y):
        return (x.reshape(-1) + big.reshape(-1)[: x.numel()],)
    before = sum(graph_cache.UNCACHEABLE.values())
    compiled, out = run(inputs(), f)
    assert compiled.stats.graph_cache.startswith("uncacheable: a tensor constant")
    assert sum(graph_cache.UNCACHEABLE.values()) == before + 1
    torch.testing.assert_close(out[0], f(*inputs())[0])


def test_small_constant_is_cached(lowerings):
    small = torch.arange(16.0)

    def f(x, y):
        return (x * small + y,)
    args = inputs()
    _, out = run(args, f)
    again, out2 = run(args, f)
    assert again.stats.graph_cache == "hit (local)" and lowerings[0] == 1
    torch.testing.assert_close(out2[0], out[0], rtol=0, atol=0)


def test_graph_cache_off(monkeypatch, lowerings):
    monkeypatch.setenv("TUNER_GRAPH_CACHE", "0")
    args = inputs()
    run(args)
    again, _ = run(args)
    assert again.stats.graph_cache == "" and lowerings[0] == 2


def test_torch_compile_training_hits(lowerings):
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 4))
    x = torch.randn(8, 16)
    import tuner.compiler.stats as stats
    results = []
    for _ in range(2):
        torch._dynamo.reset()
        stats.reset()
        model.zero_grad()
        out = torch.compile(model, backend="tuner")(x)
        out.sum().backward()
        results.append((out.detach(), [p.grad.clone() for p in model.parameters()]))
        kinds = [g.graph_cache for g in stats.graphs()]
    assert kinds == ["hit (local)", "hit (local)"]   # forward and backward
    torch.testing.assert_close(results[0][0], results[1][0], rtol=0, atol=0)
    for a, b in zip(results[0][1], results[1][1]):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


SECOND_PROCESS = """
import json, os
import torch
from torch.fx.experimental.proxy_tensor import make_fx
import tuner
""" + COUNT_LOWERINGS + """def fn(x, y):
    return (torch.relu(x * 2 + y).sum(-1), torch.tanh(y) * x)
g = torch.Generator().manual_seed(0)
args = [torch.randn(8, 16, generator=g), torch.randn(8, 16, generator=g)]
compiled = cg.compile_graph(make_fx(fn)(*args), args)
out = compiled(list(args))
ok = all(torch.equal(a, b) for a, b in zip(out, fn(*args))) or all(
    torch.allclose(a, b) for a, b in zip(out, fn(*args)))
print(json.dumps({"cache": compiled.stats.graph_cache, "lowered": lowered[0], "ok": ok}))
"""


def second_process(tmp_path, name, **env):
    e = {k: v for k, v in os.environ.items() if k not in ("TUNER_CACHE_SECRET", "TUNER_REMOTE_CACHE")}
    e.update(TUNER_CACHE_DIR=str(tmp_path / name), TRITON_INTERPRET="1", **env)
    out = subprocess.run([sys.executable, "-c", SECOND_PROCESS], capture_output=True, text=True,
                         env=e, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_hits_the_remote(remote, monkeypatch, tmp_path, lowerings):
    monkeypatch.setenv("TUNER_CACHE_SECRET", "ci-secret")
    args = inputs()
    run(args)
    assert lowerings[0] == 1
    assert len(remote.client().keys("tuner:*")) == 1
    got = second_process(tmp_path, "machine-b", TUNER_REMOTE_CACHE=remote.url,
                         TUNER_CACHE_SECRET="ci-secret")
    assert got == {"cache": "hit (remote)", "lowered": 0, "ok": True}
    # without the secret the shared entries are not trusted: a local compile
    got = second_process(tmp_path, "machine-c", TUNER_REMOTE_CACHE=remote.url)
    assert got["cache"] == "stored" and got["lowered"] == 1


def test_unsigned_graphs_stay_local(remote, lowerings):
    run(inputs())
    assert remote.client().keys("tuner:*") == []
    assert len(graph_rows()) == 1


def test_read_only_remote_is_not_written(remote, monkeypatch, lowerings):
    monkeypatch.setenv("TUNER_CACHE_SECRET", "ci-secret")
    monkeypatch.setenv("TUNER_REMOTE_READONLY", "1")
    args = inputs()
    run(args)
    assert remote.client().keys("tuner:*") == [] and len(graph_rows()) == 1
    again, _ = run(args)
    assert again.stats.graph_cache == "hit (local)"


def cli(*argv, **env):
    e = dict(os.environ, **env)
    if not e.get("TUNER_CACHE_SECRET"):
        e.pop("TUNER_CACHE_SECRET", None)
    return subprocess.run([sys.executable, "-m", "tuner", "cache", *argv, "--json"],
                          capture_output=True, text=True, env=e, timeout=120)


def test_export_and_import_carry_signed_graphs_only(tmp_path, monkeypatch, lowerings):
    monkeypatch.setenv("TUNER_CACHE_SECRET", "ci-secret")
    args = inputs()
    run(args)
    reset_cache()
    path = tmp_path / "export.jsonl"
    out = cli("export", str(path))
    assert out.returncode == 0, out.stderr
    lines = path.read_text().splitlines()[1:]
    assert [json.loads(line)["key"]["namespace"] for line in lines] == ["graph"]
    # a compiled graph is code: without a secret to verify it, import skips it
    out = cli("import", str(path), TUNER_CACHE_DIR=str(tmp_path / "unsigned"), TUNER_CACHE_SECRET="")
    assert out.returncode == 1 and "imported only when" in out.stdout
    out = cli("import", str(path), TUNER_CACHE_DIR=str(tmp_path / "signed"))
    assert out.returncode == 0, out.stdout + out.stderr
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / "signed"))
    again, _ = run(args)
    assert again.stats.graph_cache == "hit (local)" and lowerings[0] == 1


def test_read_only_local_cache_serves_hits(unprivileged, tmp_path, lowerings):
    """A baked, read-only cache folder (a CI image's): its graphs are hits, nothing written."""
    from tuner.settings import settings
    run(inputs())
    reset_cache()   # checkpointed into cache.db
    folder = settings.cache_dir
    os.chmod(folder / "cache.db", 0o444)
    os.chmod(folder, 0o555)
    try:
        env = dict(os.environ, TRITON_INTERPRET="1")
        r = unprivileged([sys.executable, "-c", SECOND_PROCESS], env=env)
    finally:
        os.chmod(folder, 0o755)
        os.chmod(folder / "cache.db", 0o644)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got == {"cache": "hit (local)", "lowered": 0, "ok": True}


def test_optimizer_step_hits_with_foreach_kernels(lowerings):
    """An optimizer step (in-place on its inputs, a foreach table kernel): the cached graph
    updates the parameters as the fresh one did."""
    import tuner.compiler.stats as stats
    shapes = [(4, 5), (7,), (6, 3), (33,), (16, 8)]
    torch.manual_seed(0)
    ps = [torch.randn(s, requires_grad=True) for s in shapes]
    ref = [p.detach().clone().requires_grad_() for p in ps]
    opt = torch.optim.Adam(ps, lr=0.1, foreach=True)
    ropt = torch.optim.Adam(ref, lr=0.1, foreach=True)
    seen = []
    for _ in range(2):   # two sessions: the second compiles its step from the cache
        torch._dynamo.reset()
        stats.reset()
        step = torch.compile(opt.step, backend="tuner")
        for _ in range(2):
            for p, r in zip(ps, ref):
                g = torch.randn(p.shape)
                p.grad, r.grad = g.clone(), g.clone()
            step()
            ropt.step()
            for p, r in zip(ps, ref):   # (compiled steps round as a fresh compile does)
                torch.testing.assert_close(p, r, rtol=1e-3, atol=1e-5)
        seen.append([(g.graph_cache, tuple(g.kernel_kinds)) for g in stats.graphs()])
    assert any("foreach" in kinds or "combo" in kinds for _, kinds in seen[0])
    assert [c for c, _ in seen[1]] and all(c == "hit (local)" for c, _ in seen[1]), seen
    assert [k for _, k in seen[1]] == [k for _, k in seen[0]]


def test_entry_that_cannot_be_rebuilt_recompiles_with_one_warning(lowerings):
    """Well-formed and validly signed, yet unusable (a kernel its source does not define):
    a miss with one warning, the graph compiled again and its entry overwritten."""
    import tuner.compiler.stats as stats
    args = inputs()
    run(args)
    [(digest, text)] = graph_rows()
    body = json.loads(text)
    value = graph_store.unpack(body["value"])
    value["kernels"][0]["name"] = "tk_not_there"
    body["value"] = graph_store.pack(value)
    set_entry(digest, json.dumps(body))
    stats.reset()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        again, out = run(args)
    assert [str(w.message) for w in seen if "could not be loaded" in str(w.message)] != []
    assert len([w for w in seen if "could not be loaded" in str(w.message)]) == 1
    assert lowerings[0] == 2 and [g.graph_cache for g in stats.graphs()] == ["stored"]
    torch.testing.assert_close(out[0], fn(*args)[0])
    third, _ = run(args)
    assert third.stats.graph_cache == "hit (local)" and lowerings[0] == 2


def launcher_configs(compiled):
    from tuner.compiler.runtime.launch import Launcher
    ns = compiled.fn.__globals__   # the wrapper's namespace
    return {k: v.config for k, v in ns.items() if isinstance(v, Launcher)}


def test_max_autotune_hit_launches_the_tuned_configs_without_tuning(lowerings):
    args = inputs()
    mode = "max-autotune-no-cudagraphs"
    first, out1 = run(args, mode=mode)
    assert first.stats.decisions_measured >= 1 and first.stats.graph_cache == "stored"
    tuned = launcher_configs(first)
    assert tuned and all(c is not None for c in tuned.values())
    again, out2 = run(args, mode=mode)
    assert again.stats.graph_cache == "hit (local)" and lowerings[0] == 1
    assert again.stats.decisions == 0 and again.stats.tuning_seconds == 0   # nothing measured
    assert launcher_configs(again) == tuned
    for a, b in zip(out1, out2):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_a_hit_whose_first_call_fails_deletes_its_local_entry(lowerings):
    """A stored config that does not launch: the call fails (torch.compile's guard then runs
    the graph in ATen), and the entry goes, so the next compile is a fresh one."""
    args = inputs()
    run(args)
    [(digest, text)] = graph_rows()
    body = json.loads(text)
    value = graph_store.unpack(body["value"])
    value["kernels"][0]["config"] = {}
    body["value"] = graph_store.pack(value)
    set_entry(digest, json.dumps(body))
    gm = make_fx(fn)(*args)
    hit = cg.compile_graph(gm, args)
    assert hit.stats.graph_cache == "hit (local)"
    with pytest.raises(KeyError):
        hit(list(args))
    assert graph_rows() == [] and "deleted" in hit.stats.graph_cache
    again, out = run(args)
    assert again.stats.graph_cache == "stored" and lowerings[0] == 2
    torch.testing.assert_close(out[0], fn(*args)[0])


def test_random_graph_hit_draws_its_seed(lowerings):
    # the seed draw (an aten.randint of the wrapper, compiler/lowerings/random.py) survives a
    # rebuild: the hit reproduces the stored graph's numbers under the same torch seed
    def noisy(x, y):
        return (torch.rand_like(x) + y, torch.bernoulli(torch.sigmoid(x)))
    args = inputs()
    torch.manual_seed(11)
    first, out1 = run(args, noisy)
    torch.manual_seed(11)
    second, out2 = run(args, noisy)
    assert first.stats.graph_cache == "stored" and second.stats.graph_cache == "hit (local)"
    assert lowerings[0] == 1 and not first.stats.fallbacks
    for a, b in zip(out1, out2):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    assert not torch.equal(second(list(args))[0], out2[0])   # a next call draws anew

