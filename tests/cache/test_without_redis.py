"""A tuner whose redis package cannot be imported (a broken install) still tunes and compiles:
the shared cache is what is lost, with a warning naming the package when one is configured.
Each case runs in a fresh interpreter where `import redis` fails."""
import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import sys, warnings
    sys.modules["redis"] = None          # `import redis` raises ImportError from here on
    import torch
    from tuner.cache import CacheKey, get_cache
    from tuner.compiler import stats
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache = get_cache()
        k = CacheKey("triton.reduction", "problem", "cfg", "backend")
        cache.put(k, {"XBLOCK": 8})
        print("hit", cache.get(k) is not None, "remote", cache.remote is not None)
        f = torch.compile(lambda x: (x.sin() * 2).sum(-1), backend="tuner")
        x = torch.randn(4, 33)
        torch.testing.assert_close(f(x), (x.sin() * 2).sum(-1))
        print("graphs", len(stats.graphs()), "fallbacks", [g.graph_fallback for g in stats.graphs() if g.graph_fallback])
    print("warnings", [str(w.message) for w in caught if "remote cache" in str(w.message)])
""")


def run(tmp_path, **env):
    full = dict(os.environ, TUNER_CACHE_DIR=str(tmp_path / "cache"), TRITON_INTERPRET="1", **env)
    full.pop("TUNER_REMOTE_CACHE", None)
    full.update(env)
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=full, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_without_redis_and_no_shared_cache_nothing_is_lost(tmp_path):
    out = run(tmp_path)
    assert "hit True remote False" in out
    assert "graphs 1 fallbacks []" in out, out
    assert "warnings []" in out


def test_a_configured_shared_cache_without_redis_is_off_with_a_warning_naming_it(tmp_path):
    out = run(tmp_path, TUNER_REMOTE_CACHE="redis://127.0.0.1:1/0", TUNER_CACHE_SECRET="s")
    assert "hit True remote False" in out, out
    assert "graphs 1 fallbacks []" in out, out
    assert "redis package" in out and "pip install" in out, out


CLI = textwrap.dedent("""
    import sys
    sys.modules["redis"] = None
    from tuner.cli import main
    sys.argv = ["tuner", "cache"] + sys.argv[1:]
    main()
""")


def cli(tmp_path, *args):
    env = dict(os.environ, TUNER_CACHE_DIR=str(tmp_path / "cache"),
               TUNER_REMOTE_CACHE="redis://127.0.0.1:1/0", TUNER_CACHE_SECRET="s")
    return subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_cache_cli_reports_a_missing_redis_package_without_a_traceback(tmp_path):
    r = cli(tmp_path, "stats", "--json")   # (a configured remote it cannot use: exit 1, as
    assert r.returncode == 1, r.stderr[-2000:]   # for a server that does not answer)
    assert "redis package" in r.stdout and "Traceback" not in r.stderr
    r = cli(tmp_path, "clear", "--yes", "--remote")
    assert r.returncode != 0 and "redis package" in r.stderr + r.stdout, r.stderr[-2000:]
    assert "nothing deleted" in r.stderr + r.stdout and "Traceback" not in r.stderr
