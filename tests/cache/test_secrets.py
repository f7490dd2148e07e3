"""Passwords and secrets never shown: not in a repr, not in a warning about a URL that hides
the host inside the password, not in the parse error of a setting they were put in by mistake."""
import pytest
from click.testing import CliRunner

from tuner.cache import CacheWarning, get_cache
from tuner.cli import main
from tuner.settings import SettingError, settings

from .conftest import _free_port


def cli(*args):
    return CliRunner().invoke(main, ["cache", *args])


def test_the_remote_config_repr_hides_the_password(remote, monkeypatch):
    monkeypatch.setenv("TUNER_CACHE_SECRET", "team-secret")
    monkeypatch.setenv("TUNER_REMOTE_CACHE", f"redis://app:Url-Pw-771@127.0.0.1:{remote.port}/0")
    config = get_cache().remote.config
    for shown in (repr(config), str(config), f"{config}", repr([config])):
        assert "Url-Pw-771" not in shown and "redis://app:***@127.0.0.1" in shown
        assert "prefix='tuner:'" in shown
    monkeypatch.setenv("TUNER_REMOTE_CACHE", remote.url)
    monkeypatch.setenv("TUNER_REDIS_PASSWORD", "Field-Pw-772")
    shown = repr(get_cache().remote.config)
    assert "Field-Pw-772" not in shown and "password='***'" in shown
    assert get_cache().remote.config.password == "Field-Pw-772"   # the value itself is kept


@pytest.mark.parametrize("password", ["Kx7@127.0.0.1:1/Qw9", "Kx7/Qw9", "Kx7?Qw9", "Kx7#Qw9"])
def test_a_password_that_moves_the_host_is_refused_without_quoting_it(monkeypatch, password):
    # unencoded, '/', '?' or '#' ends the URL's authority inside the password: redis-py would
    # connect to a host read from it (127.0.0.1:1 in the first) and the warning would name it
    port = _free_port()
    monkeypatch.setenv("TUNER_REMOTE_CACHE", f"redis://:{password}@127.0.0.1:{port}/0")
    with pytest.warns(CacheWarning) as caught:
        cache = get_cache()
    assert cache.remote is None
    shown = " ".join(str(w.message) for w in caught)
    assert "percent-encode" in shown
    for piece in ("Kx7", "Qw9", "127.0.0.1:1/"):
        assert piece not in shown
    r = cli("stats")
    assert r.exit_code == 1 and "percent-encode" in r.output
    assert "Kx7" not in r.output and "Qw9" not in r.output


def test_a_percent_encoded_password_is_fine(start_redis, monkeypatch):
    server = start_redis("--requirepass", "Kx7@x/Qw9?#")
    monkeypatch.setenv("TUNER_CACHE_SECRET", "team-secret")
    monkeypatch.setenv("TUNER_REMOTE_CACHE",
                       f"redis://:Kx7%40x%2FQw9%3F%23@127.0.0.1:{server.port}/0")
    from tuner.cache import CacheKey
    cache = get_cache()
    cache.put(CacheKey("ns", "p", "c", "b"), {"v": 1})
    assert cache.stats()["remote"]["puts"] == 1


@pytest.mark.parametrize("env", ["TUNER_REMOTE_TTL", "TUNER_REMOTE_CONNECT_TIMEOUT",
                                 "TUNER_REMOTE_READONLY"])
def test_a_secret_in_the_wrong_setting_is_not_echoed(monkeypatch, env):
    monkeypatch.setenv("TUNER_REMOTE_CACHE", f"redis://127.0.0.1:{_free_port()}/0")
    monkeypatch.setenv(env, "mysecretpassword")
    with pytest.raises(SettingError) as raised:
        getattr(settings, env.removeprefix("TUNER_").lower())
    message = str(raised.value)
    assert env in message and "mysecret" not in message and "value not shown" in message
    assert message.endswith("expected an integer" if env == "TUNER_REMOTE_TTL" else
                            "expected a number" if "TIMEOUT" in env else "on/off)")
    with pytest.warns(CacheWarning, match=env) as caught:
        get_cache()
    assert all("mysecret" not in str(w.message) for w in caught)
    r = CliRunner().invoke(main, ["settings"])
    assert r.exit_code == 1 and env in r.output and "mysecret" not in r.output


def test_other_settings_still_quote_a_bad_value_but_never_a_configured_secret(monkeypatch):
    monkeypatch.setenv("TUNER_BENCH_REPS", "abc")
    with pytest.raises(SettingError, match="TUNER_BENCH_REPS='abc': invalid literal"):
        settings.bench_reps
    monkeypatch.setenv("TUNER_REDIS_PASSWORD", "Pw-In-Reps-773")
    monkeypatch.setenv("TUNER_BENCH_REPS", "Pw-In-Reps-773")
    with pytest.raises(SettingError) as raised:
        settings.bench_reps
    assert "Pw-In-Reps-773" not in str(raised.value) and "TUNER_BENCH_REPS" in str(raised.value)
