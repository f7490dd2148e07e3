"""torch.compile(backend="tuner") rejects option typos and bad settings before compiling."""
import pytest
import torch

from helpers import assert_close


def _compile(**kw):
    fn = torch.compile(lambda x: x * 2 + 1, backend="tuner", **kw)
    return fn(torch.ones(8))


def test_unknown_option_lists_the_valid_ones():
    with pytest.raises(Exception, match=r"unknown option 'max_autotun' \(did you mean "
                                        r"'max_autotune'\?\); valid: max_persistent_r, "):
        _compile(options={"max_autotun": True})


def test_unknown_option_in_the_setting(monkeypatch):
    monkeypatch.setenv("TUNER_COMPILE_OPTIONS", '{"cudagraph": false}')
    with pytest.raises(Exception, match=r"TUNER_COMPILE_OPTIONS=.*unknown option 'cudagraph' "
                                        r"\(did you mean 'cudagraphs'\?\)"):
        _compile()


def test_bad_benchmark_setting_fails_the_compile(monkeypatch):
    monkeypatch.setenv("TUNER_BENCH_REPS", "abc")
    with pytest.raises(Exception, match="TUNER_BENCH_REPS='abc'"):
        _compile(mode="max-autotune-no-cudagraphs")


@pytest.mark.parametrize("options, message", [
    ({"max_persistent_r": "big"}, r"option 'max_persistent_r'='big': expected an integer >= 1"),
    ({"cudagraphs": "no"}, r"option 'cudagraphs'='no': expected True or False"),
    ({"combo_max_args": 0}, r"option 'combo_max_args'=0: expected an integer >= 1"),
    ({"precompile": 2}, r"option 'precompile'=2: expected True or False"),
])
def test_an_option_of_the_wrong_type_is_refused_naming_it(options, message):
    with pytest.raises(Exception, match=message):
        _compile(options=options)


def test_a_mistyped_mode_gets_did_you_mean():
    with pytest.raises(Exception, match=r"unknown mode 'max-autotun' \(did you mean 'max-autotune'\?\)"):
        _compile(mode="max-autotun")


def test_internal_options_and_good_ones_compile():
    assert torch.equal(_compile(options={"max_persistent_r": 16}), torch.full((8,), 3.0))


def test_the_garbage_collector_is_off_while_a_graph_compiles_and_back_on_after(monkeypatch):
    import gc

    import tuner.compiler.compile_graph as cg
    seen = []
    real = cg.compile_graph

    def spy(*a, **k):
        seen.append(gc.isenabled())
        return real(*a, **k)
    monkeypatch.setattr(cg, "compile_graph", spy)
    torch._dynamo.reset()
    assert gc.isenabled()
    x = torch.randn(8)
    out = torch.compile(lambda t: t.sin() + 1, backend="tuner")(x)
    assert_close(out, x.sin() + 1)
    assert seen == [False] and gc.isenabled()
    # a compile that finds it off leaves it off
    gc.disable()
    try:
        torch._dynamo.reset()
        torch.compile(lambda t: t.cos(), backend="tuner")(x)
        assert not gc.isenabled()
    finally:
        gc.enable()
