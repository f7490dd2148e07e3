"""Dataset headers reach generated code: names are refused unless plain, text is rendered so that
it never closes its string, and a rendered module holds only data (issue 51, item 1)."""
import json

import pytest
from click.testing import CliRunner

from tuner.cli import main
from tuner.heuristics import configs
from tuner.heuristics.render import check_data_only, docstring, load_module

from .synthetic import write_synthetic
from .test_configs import write_rows

PAYLOAD = 'x """ + __import__("os").system("touch {marker}") + """ y'


def _rewrite_header(path, **changes):
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header.update(changes)
    path.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")


def _learn(*args):
    return CliRunner().invoke(main, ["learn", *map(str, args), "--max-depth", "2", "--min-samples-leaf", "5"])


def test_a_header_text_field_cannot_inject_code(tmp_path):
    marker = tmp_path / "PWNED"
    data = tmp_path / "d.jsonl"
    write_synthetic(data, 120, seed=1)
    gpu = PAYLOAD.format(marker=marker)
    _rewrite_header(data, gpu_name=gpu, torch='2.11 """; import os #')
    r = _learn(data, "--out", tmp_path / "out")
    assert r.exit_code == 0, r.output
    (module_path,) = (tmp_path / "out").glob("*.py")
    source = module_path.read_text()
    check_data_only(source)
    mod = load_module(module_path)
    assert not marker.exists()
    assert gpu in mod.__doc__                      # the text survives verbatim, as text
    assert mod.PRECONDITION.gpu_name == gpu


@pytest.mark.parametrize("field, value, message", [
    ("gpu_name", 'x """\nimport os; os.system("touch PWNED")\n"""', "gpu_name is not a short printable"),
    ("point", 'pad_mm"); import os; ("', "is not a point name"),
    ("version", 2, "header version 2"),
    ("features", {"m": "int", "k)\nimport os #": "int"}, "is not a plain name"),
    ("choices", ["orig", 'pad = __import__("os")'], "is not a plain name"),
])
def test_hostile_header_fields_are_refused_in_one_line(tmp_path, field, value, message):
    data = tmp_path / "d.jsonl"
    write_synthetic(data, 120, seed=1)
    if field == "choices":   # the rows must name the same choices to get as far as rendering
        rows = [json.loads(ln) for ln in data.read_text().splitlines()[1:]]
        rows = [{**r, "choice": value[1]} if r["choice"] == "pad" else r for r in rows]
        head = data.read_text().splitlines()[0]
        data.write_text("\n".join([head] + [json.dumps(r) for r in rows]) + "\n")
    _rewrite_header(data, **{field: value})
    r = _learn(data, "--out", tmp_path / "out")
    assert r.exit_code != 0
    assert message in r.output and "Traceback" not in r.output, r.output
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.py"))


def test_learned_config_module_renders_header_text_as_text(tmp_path):
    marker = tmp_path / "PWNED"
    data = write_rows(tmp_path / "rows.jsonl", 200)
    gpu = PAYLOAD.format(marker=marker)
    _rewrite_header(data, gpu_name=gpu, triton='3.6 """ + str(1) + """')
    P, model, report = configs.learn([data], depths=(3,), leaves=(10,))
    path = configs.write(P, model, report, tmp_path / "pkg", "triton_pointwise_cpu")
    mod = load_module(path)
    assert not marker.exists()
    assert gpu in mod.__doc__ and '3.6 """ + str(1) + """' in mod.__doc__


@pytest.mark.parametrize("text", ['plain', 'ends in a quote"', 'a """ b', 'back\\slash \\"""',
                                  "cr\r lf\n tab\t", '""""""'])
def test_docstring_literal_is_exact(text):
    import ast
    assert ast.literal_eval(docstring(text)) == text


@pytest.mark.parametrize("source", [
    '"""doc"""\nimport os\n',
    '"""doc"""\nX = __import__("os").system("true")\n',
    '"""doc"""\ndef decide(f):\n    import os\n',
    '"""doc"""\ndef decide(f):\n    return eval("1")\n',
    '"""doc"""\nclass A:\n    pass\n',
    '"""doc"""\nprint(1)\n',
])
def test_check_data_only_refuses_code(source):
    with pytest.raises(ValueError, match="generated module"):
        check_data_only(source)
