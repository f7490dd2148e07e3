"""Registry: discovers generated modules, checks preconditions, is asked only when
TUNER_HEURISTICS=use, and never imports scikit-learn at run time."""
import subprocess
import sys
import textwrap

import pytest

from tuner.heuristics.contexts import PadMMContext
from tuner.heuristics.interface import DeviceInfo
from tuner.heuristics.learn import learn
from tuner.heuristics.registry import CPU, Registry, device_info, take_reason

from .synthetic import H100 as H100_META, write_synthetic

H100 = DeviceInfo("NVIDIA H100 80GB HBM3", (9, 0), 232448)
A100 = DeviceInfo("NVIDIA A100-SXM4-80GB", (8, 0), 166912)
PAD = PadMMContext("mm", 64, 1500, 64, "float16")      # the synthetic rule: pad
ORIG = PadMMContext("mm", 64, 100, 64, "float32")       # the synthetic rule: orig


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    """A package holding one learned module, as heuristics/artifacts/ would."""
    root = tmp_path_factory.mktemp("pkgroot")
    pkg = root / "fake_artifacts"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    write_synthetic(root / "d.jsonl", 300)
    learn([root / "d.jsonl"], pkg, depths=(3,), leaves=(5,), name="pad_mm_h100", plot=False)
    return root


@pytest.fixture
def registry(artifacts, monkeypatch):
    monkeypatch.syspath_prepend(str(artifacts))
    return Registry(package="fake_artifacts")


def test_discovers_modules_by_name_and_answers(registry):
    assert [m.__name__ for m in registry.modules()] == ["fake_artifacts.pad_mm_h100"]
    assert registry.lookup("pad_mm", PAD, H100) == "pad"
    assert registry.lookup("pad_mm", ORIG, H100) == "orig"
    assert registry.lookup("pad_mm", PAD.features(), H100) == "pad"     # a plain feature dict


def test_precondition_mismatch_is_unsure(registry):
    assert registry.lookup("pad_mm", PAD, A100) is None
    assert registry.lookup("pad_mm", PAD, CPU) is None
    assert registry.lookup("pad_mm", PAD, None) is None
    assert registry.lookup("other_point", PAD, H100) is None
    # a context of another feature schema
    assert registry.lookup("pad_mm", type("Ctx", (), {"features": PAD.features, "feature_schema": 2})(), H100) is None


@pytest.mark.parametrize("mode", ["off", "collect"])
def test_heuristics_off_or_collect_never_answer(registry, monkeypatch, mode):
    # the engine owns TUNER_HEURISTICS: it does not ask the registry outside "use" mode
    from tuner.engine import decide
    monkeypatch.setenv("TUNER_HEURISTICS", mode)
    d = decide("pad_mm", f"registry-{mode}", ["orig", "pad"], lambda c: 1.0 if c == "orig" else 2.0,
               heuristic=lambda: registry.lookup("pad_mm", PAD, H100))
    assert registry.lookup("pad_mm", PAD, H100) == "pad" and d.source == "exhaustive"


def test_modules_of_one_point_answer_where_the_confident_ones_agree(registry):
    import types

    def module(name, answer):
        m = types.ModuleType(f"fake_artifacts.{name}")
        m.PRECONDITION = registry.modules()[0].PRECONDITION
        m.decide = lambda features: answer
        return m
    registry.add(module("pad_mm_h100_unsure", None))   # abstains: the first module answers
    assert registry.lookup("pad_mm", PAD, H100) == "pad"
    registry.add(module("pad_mm_h100_agrees", "pad"))
    assert registry.lookup("pad_mm", PAD, H100) == "pad"
    registry.add(module("pad_mm_h100_other", "orig"))  # a confident disagreement: unsure
    assert registry.lookup("pad_mm", PAD, H100) is None
    reason = take_reason()
    assert "disagree" in reason and "pad_mm_h100_other" in reason
    # config answers (dicts, nested) agree whatever their key order
    a = {"kwargs": {"XBLOCK": 256, "num_warps": 4}, "num_stages": 1}
    b = {"num_stages": 1, "kwargs": {"num_warps": 4, "XBLOCK": 256}}
    configs = Registry([module("triton_a", a), module("triton_b", b)])
    assert configs.lookup("pad_mm", PAD, H100) == a


def test_missing_feature_is_unsure_not_an_error(registry):
    feats = PAD.features()
    feats.pop("k")
    with pytest.warns(UserWarning, match="failed"):
        assert registry.lookup("pad_mm", feats, H100) is None


def test_device_info_on_cpu():
    assert device_info("cpu") == CPU
    assert Registry().modules() is not None    # the shipped package imports


def test_runtime_path_does_not_import_sklearn(artifacts):
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(artifacts)!r})
        from tuner.heuristics.contexts import PadMMContext
        from tuner.heuristics.interface import DeviceInfo
        from tuner.heuristics.registry import Registry, lookup
        r = Registry(package="fake_artifacts")
        assert r.lookup("pad_mm", PadMMContext("mm", 64, 1500, 64, "float16"),
                        DeviceInfo("x", (9, 0), 232448)) == "pad"
        lookup("pad_mm", PadMMContext("mm", 64, 1500, 64, "float16"))
        bad = [m for m in sys.modules if m.split(".")[0] in ("sklearn", "pandas", "matplotlib")]
        assert not bad, bad
    """)
    subprocess.run([sys.executable, "-c", code], check=True)
