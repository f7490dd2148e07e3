"""`tuner cache ...` through click's runner, on a real local store (and a real Redis)."""
import json
import sqlite3

import pytest
from click.testing import CliRunner

from tuner.cache import CacheKey, get_cache
from tuner.cache.local import TABLE, LocalStore
from tuner.cli import main
from tuner.settings import settings


def cli(*args, input=None):
    return CliRunner().invoke(main, ["cache", *args], input=input)


def fill(n=6):
    cache = get_cache()
    for i in range(n):
        cache.put(CacheKey(f"ns{i % 2}", f"problem-{i}", "cfg", "backend"),
                  {"choice": {"XBLOCK": 2 ** i}, "time_ms": 0.1 * i})
    return cache


def stored():
    return {r["digest"]: r["entry"] for r in LocalStore().rows()}


def test_export_then_import_into_an_empty_cache_gives_identical_entries(tmp_path, monkeypatch):
    fill()
    before = stored()
    out = tmp_path / "cache.jsonl"
    r = cli("export", str(out), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["exported"] == 6
    lines = out.read_text().splitlines()
    assert json.loads(lines[0])["count"] == 6 and len(lines) == 7
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache.jsonl", "tuner-cache"]  # no temp
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / "new-machine"))
    r = cli("import", str(out))
    assert r.exit_code == 0, r.output
    assert "imported 6 entries" in r.output
    assert stored() == before


def test_importing_a_damaged_file_imports_the_good_entries_and_exits_nonzero(tmp_path, monkeypatch):
    fill()
    out = tmp_path / "cache.jsonl"
    assert cli("export", str(out)).exit_code == 0
    lines = out.read_text().splitlines()
    entry = json.loads(lines[3])
    entry["schema"] = 99
    lines[2] = "not json at all"            # garbage
    lines[3] = json.dumps(entry)            # wrong schema
    lines[4] = lines[4][:30]                # truncated
    lines.pop()                             # lost last line: header count no longer matches
    out.write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / "new-machine"))
    r = cli("import", str(out), "--json")
    assert r.exit_code == 1
    report = json.loads(r.stdout)
    assert report["imported"] == 2 == len(stored())
    reasons = {s["line"]: s["reason"] for s in report["skipped"]}
    assert reasons[3].startswith("not JSON") and "schema 99" in reasons[4]
    assert reasons[5].startswith("not JSON") and "truncated" in reasons[None]
    assert len(reasons) == 4


def test_import_checks_signatures_when_a_secret_is_set(tmp_path, monkeypatch):
    fill(2)
    out = tmp_path / "cache.jsonl"
    assert cli("export", str(out)).exit_code == 0
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / "signed"))
    monkeypatch.setenv("TUNER_CACHE_SECRET", "team")
    r = cli("import", str(out))
    assert r.exit_code == 1 and "missing signature" in r.stderr
    assert stored() == {}


def test_import_without_header_still_imports_entries(tmp_path, monkeypatch):
    fill(2)
    out = tmp_path / "cache.jsonl"
    assert cli("export", str(out)).exit_code == 0
    out.write_text("\n".join(out.read_text().splitlines()[1:]))
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / "b"))
    r = cli("import", str(out))
    assert r.exit_code == 1 and "no tuner-cache export header" in r.stderr
    assert len(stored()) == 2


def test_import_writes_the_remote_cache_too(remote, tmp_path):
    fill(3)
    out = tmp_path / "cache.jsonl"
    assert cli("export", str(out)).exit_code == 0
    assert remote.client().flushall()
    r = cli("import", str(out), "--json")
    assert r.exit_code == 0 and json.loads(r.output)["remote_puts"] == 3
    assert len(remote.client().keys("tuner:*")) == 3


def test_export_to_a_missing_folder_fails_clearly(tmp_path):
    fill(1)
    r = cli("export", str(tmp_path / "nope" / "x.jsonl"))
    assert r.exit_code != 0 and "is not a folder" in r.output
    assert not (tmp_path / "nope").exists()


def test_ls_filters_by_namespace_and_flags_invalid_rows():
    fill()
    assert len(json.loads(cli("ls", "--json").output)) == 6
    rows = json.loads(cli("ls", "--namespace", "ns1", "--json").output)
    assert {r["problem"] for r in rows} == {"problem-1", "problem-3", "problem-5"}
    with sqlite3.connect(LocalStore().path) as conn:
        conn.execute(f"UPDATE [{TABLE}] SET entry = 'junk' WHERE problem = 'problem-1'")
    rows = json.loads(cli("ls", "-n", "ns1", "--json").output)
    assert [r["problem"] for r in rows if r["invalid"]] == ["problem-1"]
    r = cli("ls")
    assert r.exit_code == 0 and "problem-5" in r.output and "invalid" in r.output


def test_ls_shows_the_newest_50_entries_one_line_each_then_how_many_more():
    fill(60)
    rows = json.loads((r := cli("ls", "--json")).stdout)
    assert len(rows) == 50 and rows[0]["problem"] == "problem-59"
    assert rows[-1]["problem"] == "problem-10" and rows[0]["value"]["choice"] == {"XBLOCK": 2 ** 59}
    assert "10 more entries not shown" in r.stderr and "--all" in r.stderr   # stdout stays JSON
    r = cli("ls")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    shown = [ln for ln in lines if "problem-" in ln]
    assert len(shown) == 50 and "problem-59" in shown[0] and "problem-9 " not in r.stdout
    assert all("choice=" in ln for ln in shown)       # a summary on the entry's own line
    assert all(len(ln) <= 80 for ln in lines[:-1])    # CliRunner's terminal: 80 columns
    assert lines[-1].startswith("10 more entries not shown") and "--limit N" in lines[-1]


def test_ls_limit_and_all():
    fill(60)
    assert [r["problem"] for r in json.loads(cli("ls", "--limit", "3", "--json").stdout)] == \
        ["problem-59", "problem-58", "problem-57"]
    r = cli("ls", "--all", "--json")
    assert len(json.loads(r.stdout)) == 60 and "more" not in r.stderr
    r = cli("ls", "--all")
    assert sum("problem-" in ln for ln in r.stdout.splitlines()) == 60 and "more" not in r.stdout
    r = cli("ls", "-n", "ns1", "--limit", "20", "--json")
    assert len(json.loads(r.stdout)) == 20 and "10 more entries" in r.stderr
    assert "more" not in cli("ls", "-n", "ns1", "--limit", "30", "--json").stderr


@pytest.mark.parametrize("args, message", [
    (["--limit", "0"], "0 is not a number of entries: give 1 or more"),
    (["--limit", "-1"], "-1 is not a number of entries: give 1 or more"),
    (["--limit", "x"], "'x' is not a valid integer"),
    (["--limit", "3", "--all"], "--limit and --all do not go together"),
])
def test_ls_refuses_bad_limits(args, message):
    fill(2)
    r = cli("ls", *args)
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output


def test_value_summary_is_one_short_line_whatever_the_value():
    from tuner.cache.cli import value_summary
    record = {"found_by": "exhaustive", "time_ms": 0.30000000000000004,
              "timings": [[{"XBLOCK": i}, 0.01 * i] for i in range(5000)],
              "choice": {"XBLOCK": 64, "num_warps": 4}, "note": "two\nlines \x1b[31m"}
    text = value_summary(record)
    assert text.startswith("choice={XBLOCK:64,num_warps:4} time_ms=0.3 found_by=exhaustive")
    assert "timings=[5000 items]" in text and len(text) <= 100 and text.endswith("…")
    assert "\n" not in text and "\x1b" not in text
    assert value_summary({"a": {"b": [1] * 1_000_000}}, width=40).endswith("…")
    assert len(value_summary({"a": {"b": [1] * 1_000_000}}, width=40)) == 40
    assert value_summary({"v": 1, "hash": "ab" * 32}) == "v=1 hash=" + "ab" * 10 + "…"


def test_stats_counts_local_and_remote_entries(remote):
    fill(4)
    r = cli("stats", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["local"]["entries"] == 4 and out["local"]["namespaces"] == {"ns0": 2, "ns1": 2}
    assert out["remote"]["reachable"] and out["remote"]["entries"] == 4
    remote.kill()
    out = json.loads(cli("stats", "--json").output)
    assert not out["remote"]["reachable"] and "Connection" in out["remote"]["error"]
    assert "4 entries" in cli("stats").output


def test_clear_asks_unless_yes(remote):
    fill(3)
    remote.client().set("unrelated", "stays")
    r = cli("clear", input="n\n")
    assert r.exit_code != 0 and len(stored()) == 3
    r = cli("clear", input="y\n")
    assert r.exit_code == 0 and stored() == {}
    assert len(remote.client().keys("tuner:*")) == 3
    r = cli("clear", "--yes", "--remote", "--json")
    assert r.exit_code == 0 and json.loads(r.output) == {"local": 0, "remote": 3}
    assert remote.client().keys("*") == [b"unrelated"]


def test_broken_database_file_is_a_clear_error_then_clear_fixes_it():
    path = settings.cache_dir / "cache.db"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database" * 200)
    r = cli("ls")
    assert r.exit_code == 1 and "tuner cache clear" in r.output and "Traceback" not in r.output
    assert cli("clear", "--yes").exit_code == 0
    fill(1)
    assert len(stored()) == 1


def test_password_never_shown_or_exported(start_redis, monkeypatch, tmp_path):
    server = start_redis("--requirepass", "hunter2-pw")
    monkeypatch.setenv("TUNER_REMOTE_CACHE", f"redis://:hunter2-pw@127.0.0.1:{server.port}/0")
    fill(2)
    out = tmp_path / "cache.jsonl"
    shown = [cli("stats").output, cli("stats", "--json").output, cli("ls").output,
             cli("export", str(out)).output]
    assert json.loads(shown[1])["remote"]["entries"] == 2
    assert all("hunter2" not in s for s in shown)
    assert "hunter2" not in out.read_text()
    assert not any(b"hunter2" in p.read_bytes() for p in (tmp_path / "tuner-cache").iterdir())


def test_reading_commands_do_not_create_a_cache():
    for args in (["stats"], ["ls"], ["stats", "--json"]):
        assert cli(*args).exit_code == 0
    assert not settings.cache_dir.exists()


# -- secrets --------------------------------------------------------------------------------


def test_settings_show_secrets_as_stars_and_urls_redacted(monkeypatch):
    from tuner.settings import SETTINGS
    shown = lambda: {s.env: s.shown() for s in SETTINGS}  # noqa: E731
    assert shown()["TUNER_CACHE_SECRET"] == "" and shown()["TUNER_REDIS_PASSWORD"] == ""
    monkeypatch.setenv("TUNER_REMOTE_CACHE", "redis://u:url-pw#x@h:6379/0?password=query-pw")
    monkeypatch.setenv("TUNER_CACHE_SECRET", "hmac-secret")
    monkeypatch.setenv("TUNER_REDIS_PASSWORD", "redis-pw")
    values = shown()
    assert values["TUNER_CACHE_SECRET"] == "***" and values["TUNER_REDIS_PASSWORD"] == "***"
    assert values["TUNER_REMOTE_CACHE"] == "redis://u:***@h:6379/0?password=***"
    assert not any(s in v for v in values.values()
                   for s in ("url-pw", "query-pw", "hmac-secret", "redis-pw"))


def test_stats_hides_a_query_password_and_fails_when_the_remote_is_unreachable(monkeypatch):
    from tests.cache.conftest import _free_port
    monkeypatch.setenv("TUNER_REMOTE_CACHE", f"redis://127.0.0.1:{_free_port()}/0?password=qpw-77")
    plain, as_json = cli("stats"), cli("stats", "--json")
    assert plain.exit_code == 1 and as_json.exit_code == 1
    assert "unreachable" in plain.output and "password=***" in plain.output
    assert json.loads(as_json.stdout)["remote"]["reachable"] is False
    assert "qpw-77" not in plain.output + as_json.output


# -- what a hostile cache or file can hold --------------------------------------------------


def test_ls_and_stats_escape_terminal_sequences():
    evil = "ns\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e"
    get_cache().put(CacheKey(evil, "problem\x1b[31m", "cfg", "backend"), {"v": 1})
    for args in (["ls"], ["stats"]):
        r = cli(*args)
        assert r.exit_code == 0, r.output
        assert not any(c in r.output for c in "\x1b\x07\x9b\u202e")
        assert "\\x1b]0;pwned" in r.output
    assert json.loads(cli("ls", "--json").stdout)[0]["namespace"] == evil  # JSON escapes itself


def test_ls_and_export_with_an_empty_namespace_are_errors(tmp_path):
    fill(2)
    for args in (["ls", "--namespace", ""], ["export", str(tmp_path / "x.jsonl"), "-n", " "]):
        r = cli(*args)
        assert r.exit_code == 2 and "is empty" in r.output
    assert not (tmp_path / "x.jsonl").exists()


def test_export_dash_writes_to_stdout(tmp_path):
    fill(3)
    r = cli("export", "-")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert json.loads(lines[0])["count"] == 3 and len(lines) == 4
    assert "exported 3 entries to stdout" in r.stderr and not (tmp_path / "-").exists()


def test_import_skips_bad_lines_and_keeps_every_line_after_them(tmp_path, monkeypatch):
    from tuner.cache.entry import MAX_ENTRY_BYTES
    fill(4)
    out = tmp_path / "cache.jsonl"
    assert cli("export", str(out)).exit_code == 0
    header, *entries = out.read_text().splitlines()
    lines = [header, entries[0],
             "[" * 100_000 + "]" * 100_000,                    # line 3: nested 100k deep
             '{"pad": "' + "x" * (MAX_ENTRY_BYTES + 10) + '"}',  # line 4: over the size limit
             entries[1], entries[1],                           # line 6: a duplicate of line 5
             '{"schema": 1, "created": NaN}',                  # line 7: not JSON
             entries[2], entries[3]]
    out.write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / "new-machine"))
    r = cli("import", str(out), "--json")
    assert r.exit_code == 1
    report = json.loads(r.stdout)
    assert report["imported"] == 4 == len(stored())  # every good entry, those after the bad too
    reasons = {s["line"]: s["reason"] for s in report["skipped"]}
    assert "nested" in reasons[3] and "over the limit" in reasons[4]
    assert reasons[6] == "duplicate key (first on line 5): not imported again"
    assert reasons[7].startswith("not JSON")
    plain = cli("import", str(out))
    assert plain.exit_code == 1 and "skipped line 6: duplicate key" in plain.stderr


def test_import_of_many_bad_lines_keeps_a_bounded_report(tmp_path, monkeypatch):
    import tracemalloc

    from tuner.cache.cli import SKIPPED_KEPT
    fill(2)
    out = tmp_path / "cache.jsonl"
    assert cli("export", str(out)).exit_code == 0
    header, *entries = out.read_text().splitlines()
    n_bad = 200_000
    with open(out, "w") as f:
        f.write(header.replace('"count": 2', f'"count": {n_bad + 2}') + "\n" + entries[0] + "\n")
        for i in range(n_bad // 2):
            f.write(f"junk {i}\n{{\"schema\": {i + 2}}}\n")   # not JSON; JSON, not an entry
        f.write(entries[1] + "\n")
    monkeypatch.setenv("TUNER_CACHE_DIR", str(tmp_path / "new-machine"))
    small = tmp_path / "small.jsonl"              # imports every module the big run needs
    small.write_text("\n".join([header, "junk"]) + "\n")
    cli("import", str(small), "--json")
    tracemalloc.start()
    try:
        r = cli("import", str(out), "--json")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.exit_code == 1
    report = json.loads(r.stdout)
    assert report["imported"] == 2 and report["skipped_total"] == n_bad
    assert len(report["skipped"]) == SKIPPED_KEPT
    assert [s["line"] for s in report["skipped"][:3]] == [3, 4, 5]
    assert sum(report["skipped_by_reason"].values()) == n_bad
    assert report["skipped_by_reason"]["schema N, expected N"] == n_bad // 2
    # the file is about 3 MB; a report of every line took about 60 MB of Python objects, a
    # bounded one takes about 200 KB (whatever the file's size)
    assert out.stat().st_size > 2_500_000 and peak < 1_000_000, peak
    plain = cli("import", str(out))
    assert plain.exit_code == 1 and f"{n_bad} problem(s)" in plain.stderr
    assert f"... and {n_bad - SKIPPED_KEPT} more" in plain.stderr
    assert f"{n_bad // 2} x schema N, expected N" in plain.stderr
    assert len(plain.stderr.splitlines()) < SKIPPED_KEPT + 10


# -- clear on a cache it must not destroy ---------------------------------------------------


def test_clear_on_a_locked_database_fails_and_deletes_nothing(monkeypatch):
    import tuner.cache.local as local
    fill(3)
    monkeypatch.setattr(local, "BUSY_TIMEOUT_S", 0.2)
    holder = sqlite3.connect(LocalStore().path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        r = cli("clear", "--yes")
    finally:
        holder.rollback()
        holder.close()
    assert r.exit_code == 1 and "deleted" not in r.output.replace("nothing deleted", "")
    assert "database is locked" in r.output and "another process holds it" in r.output
    assert len(stored()) == 3


def test_clear_says_when_it_removes_a_file_that_is_not_a_database():
    path = settings.cache_dir / "cache.db"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database" * 200)
    r = cli("clear", "--yes")
    assert r.exit_code == 0 and "was not a SQLite database" in r.stderr
    assert "removed the file (2800 bytes)" in r.stderr and not path.exists()


def _read_only_cache(tmp_path):
    """A cache folder baked read-only (as in a CI image), holding one entry."""
    import os
    fill(1)
    get_cache().close()
    folder = settings.cache_dir
    os.chmod(folder / "cache.db", 0o444)
    os.chmod(folder, 0o555)
    return folder


def test_clear_on_a_read_only_cache_fails_and_deletes_nothing(unprivileged, tmp_path):
    import os
    import sys
    folder = _read_only_cache(tmp_path)
    try:
        r = unprivileged([sys.executable, "-m", "tuner.cli", "cache", "clear", "--yes"],
                         env=dict(os.environ))
        assert r.returncode == 1, r.stderr
        assert "is read-only here: nothing deleted" in r.stderr and "deleted 0" not in r.stdout
        assert (folder / "cache.db").exists()
    finally:
        os.chmod(folder, 0o755)
    assert len(stored()) == 1
