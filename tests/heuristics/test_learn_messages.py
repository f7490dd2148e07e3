"""`tuner learn`'s messages (issue 17): strict JSON, no matplotlib, truncated files, the chosen
row, defaults shown as values."""
import json
import sys

from click.testing import CliRunner

from tuner.cli import main

from .synthetic import write_synthetic


def _learn(*args):
    return CliRunner().invoke(main, ["learn", *map(str, args), "--max-depth", "2",
                                     "--min-samples-leaf", "5"])


def _strict(text):
    def bad(name):
        raise ValueError(f"bare {name} in JSON")
    return json.loads(text, parse_constant=bad)


def test_summary_is_strict_json_and_the_table_marks_the_chosen_row(tmp_path):
    write_synthetic(tmp_path / "d.jsonl", 120)
    r = _learn(tmp_path / "d.jsonl", "--out", tmp_path / "o", "--max-depth", "2,3", "--no-plot")
    assert r.exit_code == 0, r.output
    summary = _strict((tmp_path / "o" / "summary.json").read_text())
    _strict((tmp_path / "o" / "eval_table.json").read_text())
    assert "bench_seconds_saved_per_answer" in summary   # NaN here (no bench_s): now null
    table = [ln for ln in r.output.split("\nchosen:")[0].splitlines() if ln.strip()]
    assert table[0].rstrip().endswith("chosen")
    depth = summary["best"]["max_depth"]
    marked = [ln for ln in table[1:] if ln.endswith("<- chosen")]
    assert len(marked) == 3 and all(ln.split()[0] == str(depth) for ln in marked)
    r = _learn(tmp_path / "d.jsonl", "--out", tmp_path / "j", "--json", "--no-plot")
    assert r.exit_code == 0 and _strict(r.output)["module"]


def test_no_matplotlib_skips_the_plot_with_a_message(tmp_path, monkeypatch):
    write_synthetic(tmp_path / "d.jsonl", 120)
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # import matplotlib -> ImportError
    r = _learn(tmp_path / "d.jsonl", "--out", tmp_path / "o")
    assert r.exit_code == 0, r.output
    assert "plot skipped: matplotlib is not installed" in r.output
    assert not (tmp_path / "o" / "plot.png").exists() and (tmp_path / "o" / "report.md").exists()


def test_a_truncated_gz_dataset_is_refused_naming_the_file(tmp_path):
    good = tmp_path / "good.jsonl.gz"
    write_synthetic(good, 120)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(good.read_bytes()[:-40])   # the gzip tail is gone
    r = _learn(good, cut, "--out", tmp_path / "o")
    assert r.exit_code == 1
    assert f"Error: {cut}: truncated" in r.output and str(good) + ":" not in r.output
    assert not (tmp_path / "o").exists()
    r = _learn(cut, "--out", tmp_path / "o2", "--allow-truncated", "--no-plot")
    assert r.exit_code == 0, r.output


def test_help_shows_default_values_not_internal_names():
    r = CliRunner().invoke(main, ["learn", "--help"], terminal_width=200)
    assert r.exit_code == 0
    assert "DEFAULT_" not in r.output
    assert "[default: 0.1]" in r.output


def test_default_tie_and_namespace_reach_the_module_and_bad_ones_are_refused(tmp_path):
    write_synthetic(tmp_path / "d.jsonl", 120)
    r = _learn(tmp_path / "d.jsonl", "--out", tmp_path / "o", "--no-plot", "--default-tie", "0.03",
               "--namespace", "pad_mm.trial")
    assert r.exit_code == 0, r.output
    src = (tmp_path / "o" / "pad_mm_trial_h100.py").read_text()
    assert "point='pad_mm.trial'" in src and "'default_tie': 0.03" in src
    r = _learn(tmp_path / "d.jsonl", "--out", tmp_path / "o2", "--no-plot", "--namespace", "mm_backend.bare")
    assert r.exit_code != 0 and "must be the dataset's point 'pad_mm'" in r.output
    assert not (tmp_path / "o2").exists()
