import subprocess
import sys

import pytest

from tuner.settings import SETTINGS, settings


def test_every_setting_is_declared_once_with_doc():
    names = [s.env for s in SETTINGS]
    assert len(names) == len(set(names))
    assert all(n.startswith("TUNER_") and s.doc for n, s in zip(names, SETTINGS))


def test_settings_read_environment_at_access(monkeypatch):
    monkeypatch.setenv("TUNER_REMOTE_TTL", "30")
    assert settings.remote_ttl == 30
    monkeypatch.setenv("TUNER_REMOTE_READONLY", "yes")
    assert settings.remote_readonly is True
    monkeypatch.delenv("TUNER_REMOTE_TTL")
    assert settings.remote_ttl == 0


def test_bad_setting_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("TUNER_SEARCH", "random")
    with pytest.raises(ValueError, match="TUNER_SEARCH"):
        settings.search
    monkeypatch.setenv("TUNER_REMOTE_TTL", "soon")
    with pytest.raises(ValueError, match="TUNER_REMOTE_TTL"):
        settings.remote_ttl


def test_unknown_setting_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no setting"):
        settings.not_a_setting


def test_cli_version_and_help():
    out = subprocess.run([sys.executable, "-m", "tuner.cli", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "tuner, version" in out.stdout
    out = subprocess.run([sys.executable, "-m", "tuner.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "settings" in out.stdout


def test_cli_settings_rejects_bad_value(monkeypatch):
    env = {"TUNER_SEARCH": "random", "PATH": "/usr/bin:/bin"}
    import os
    env = {**os.environ, **env}
    out = subprocess.run([sys.executable, "-m", "tuner.cli", "settings"], capture_output=True, text=True, env=env)
    assert out.returncode != 0 and "TUNER_SEARCH" in out.stderr


def test_readme_lists_every_setting_as_declared():
    from pathlib import Path

    from tuner.settings import markdown_table
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert markdown_table() in readme, "README's settings table is stale: paste `tuner settings --markdown`"


def test_cli_settings_never_prints_secrets():
    import json
    import os
    env = {**os.environ, "TUNER_REMOTE_CACHE": "redis://user:hunter22@cachehost:6379/0?password=qwerty9",
           "TUNER_CACHE_SECRET": "s3cr3t-value", "TUNER_REDIS_PASSWORD": "pw-12345"}
    for args in (["settings"], ["settings", "--json"]):
        out = subprocess.run([sys.executable, "-m", "tuner.cli", *args], capture_output=True, text=True, env=env)
        assert out.returncode == 0, out.stderr
        for secret in ("hunter22", "qwerty9", "s3cr3t-value", "pw-12345"):
            assert secret not in out.stdout
        assert "cachehost" in out.stdout and "***" in out.stdout
    rows = json.loads(subprocess.run([sys.executable, "-m", "tuner.cli", "settings", "--json"],
                                     capture_output=True, text=True, env=env).stdout)
    shown = {r["name"]: r["value"] for r in rows}
    assert shown["TUNER_CACHE_SECRET"] == "***" and shown["TUNER_REDIS_PASSWORD"] == "***"


def _tuner(*args, **env):
    import os
    return subprocess.run([sys.executable, "-m", "tuner", *args], capture_output=True, text=True,
                          env={**os.environ, **env})


@pytest.mark.parametrize("var,value,message", [
    ("TUNER_LOGS", "autotune,decision",
     "TUNER_LOGS='autotune,decision': unknown log 'decision' (did you mean 'decisions'?); "
     "valid: autotune, decisions, output_code"),
    ("TUNER_COMPILE_OPTIONS", '{"max_autotun": true}',
     "unknown option 'max_autotun' (did you mean 'max_autotune'?); valid: max_persistent_r, "
     "max_autotune, cudagraphs, cudagraph_min_launches, cudagraph_address_replay, pad_mm"),
    ("TUNER_BENCH_REPS", "abc", "TUNER_BENCH_REPS='abc': invalid literal for int()"),
])
def test_typos_in_settings_are_rejected_with_the_valid_names(var, value, message):
    out = _tuner("settings", **{var: value})
    assert out.returncode == 1 and message in out.stderr, out.stderr


def test_compile_options_take_no_private_keys(monkeypatch):
    # the compiler's own flags (inference, probe, dynamic) live in its CompileContext
    monkeypatch.setenv("TUNER_COMPILE_OPTIONS", '{"pad_mm": "never"}')
    assert settings.compile_options == {"pad_mm": "never"}
    monkeypatch.setenv("TUNER_COMPILE_OPTIONS", '{"pad_mm": "never", "_dynamic": true}')
    with pytest.raises(ValueError, match="unknown option '_dynamic'"):
        settings.compile_options
    monkeypatch.setenv("TUNER_LOGS", "decisions, autotune")
    assert settings.logs == {"decisions", "autotune"}


def test_python_m_tuner_and_version_lists_what_cache_keys_hold():
    out = _tuner("--version")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("tuner, version ")
    assert lines[1].startswith("torch ") and ", Triton " in lines[1] and ", CUDA " in lines[1]
    assert "(part of every cache key)" in lines[1]
    out = _tuner("settings", "--json")
    assert out.returncode == 0 and '"TUNER_LOGS"' in out.stdout


@pytest.mark.parametrize("env, value", [
    ("TUNER_BENCH_REPS", "-3"), ("TUNER_BENCH_REPS", "0"), ("TUNER_TUNE_BUDGET_S", "-5"),
    ("TUNER_SHAPE_LIMIT", "0"), ("TUNER_REMOTE_CONNECT_TIMEOUT", "-1"),
    ("TUNER_REMOTE_READ_TIMEOUT", "0"), ("TUNER_BENCH_WARMUP", "-1"), ("TUNER_REMOTE_TTL", "-2"),
    ("TUNER_KERNEL_MODULES", "0"),
])
def test_out_of_range_values_are_refused_naming_the_variable(monkeypatch, env, value):
    from tuner.settings import SettingError, check_all
    monkeypatch.setenv(env, value)
    with pytest.raises(SettingError, match=env):
        check_all()


def test_a_misspelled_variable_gets_one_warning_naming_the_setting(monkeypatch):
    import warnings

    from tuner import settings as settings_mod
    monkeypatch.setattr(settings_mod, "_warned_unknown", set())
    monkeypatch.setenv("TUNER_LOG", "autotune")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        settings_mod.check_all()
        settings_mod.check_all()
    said = [str(w.message) for w in seen if "TUNER_LOG " in str(w.message)]
    assert said == ["TUNER_LOG is not a tuner setting, it is ignored; did you mean TUNER_LOGS?"]


def test_a_compile_refuses_an_out_of_range_setting(monkeypatch):
    import torch
    monkeypatch.setenv("TUNER_BENCH_REPS", "0")
    torch._dynamo.reset()
    with pytest.raises(Exception, match="TUNER_BENCH_REPS"):
        torch.compile(lambda x: x + 1, backend="tuner")(torch.randn(3))
    torch._dynamo.reset()
