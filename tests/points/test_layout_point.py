"""The layout point (tuner/points/layout.py): the rule, forced modes, the problem's key, a
cached answer that wins over the rule, and a measured answer (max-autotune's timer) that is
stored and read back without measuring."""
import pytest

from tuner.points.layout import (CANDIDATES, NAMESPACE, ConvSignature, LayoutAnswer,
                                 LayoutProblem, layout_decision, rule)


def _problem(device="cuda", cl=False, convs=1):
    sig = ConvSignature(3, 8, (3, 3), 1, (1, 1), 32, 32, "float32")
    return LayoutProblem((sig,) * convs, device, cl)


def test_rule_converts_convolutions_on_cuda_only():
    assert rule(_problem(convs=2)) == "channels_last"
    assert rule(_problem("cpu", convs=2)) == "keep"
    assert rule(_problem(cl=True, convs=2)) == "keep"
    assert rule(_problem(convs=0)) == "keep"
    assert rule(_problem(convs=1)) == "keep"    # a ViT's lone patch-embedding convolution
    assert layout_decision(_problem(convs=3), "auto").choice == "channels_last"
    assert layout_decision(_problem(convs=3), "auto").source == "rule"
    assert layout_decision(_problem("cpu"), "channels_last").source == "forced"
    with pytest.raises(ValueError, match="auto, channels_last, keep"):
        layout_decision(_problem(), "nchw")


def test_signature_names_every_convolution_and_the_device():
    sig = _problem(convs=2).signature()
    assert sig.startswith("cuda/nchw/2conv/") and sig.count("3x8k3x3g1s1x1@32x32:float32") == 2
    assert _problem(cl=True).signature() != _problem().signature()


def test_a_cached_answer_wins_over_the_rule():
    from tuner.engine import decide
    problem = _problem(convs=2)
    # an answer measured once (keep faster) is stored under the problem's signature
    decide(NAMESPACE, problem.signature(), list(CANDIDATES),
           lambda choice: 1.0 if choice == "keep" else 2.0)
    answer = layout_decision(problem)
    assert (answer.choice, answer.source) == ("keep", "cache")
    assert layout_decision(_problem(convs=3)).source == "rule"   # another graph: the rule


def _timer(times, calls):
    """A timer as the layout pass gives one: counts its calls, times each choice from `times`."""
    def timer():
        calls.append("timer")

        def measure(choice):
            calls.append(choice)
            return times[choice]
        return measure
    return timer


def test_a_measured_answer_is_stored_and_read_back_without_measuring():
    problem, calls = _problem("cpu", convs=2), []
    answer = layout_decision(problem, timer=_timer({"keep": 2.0, "channels_last": 1.0}, calls))
    # measured although the rule (CPU) says keep; both choices timed once
    assert (answer.choice, answer.source) == ("channels_last", "measured")
    assert sorted(calls) == ["channels_last", "keep", "timer"]
    calls.clear()
    again = layout_decision(problem, timer=_timer({"keep": 2.0, "channels_last": 1.0}, calls))
    assert (again.choice, again.source) == ("channels_last", "cache") and calls == []
    # without a timer (default mode) the stored answer is read the same way
    assert layout_decision(problem) == again


def test_forced_wins_over_a_timer_and_a_stored_answer():
    problem, calls = _problem(convs=2), []
    timer = _timer({"keep": 1.0, "channels_last": 2.0}, calls)
    assert layout_decision(problem, "channels_last", timer) == LayoutAnswer("channels_last", "forced")
    assert calls == []
    assert layout_decision(problem, timer=timer).choice == "keep"   # measured and stored
    assert layout_decision(problem, "channels_last", timer).source == "forced"


@pytest.mark.parametrize("timer", [lambda: None, lambda: 1 / 0],
                         ids=["cannot-time", "timer-fails"])
def test_a_graph_that_cannot_be_timed_gets_the_rule(timer):
    problem = _problem(convs=2)
    assert layout_decision(problem, timer=timer) == LayoutAnswer("channels_last", "rule")


def test_choices_that_all_fail_store_nothing():
    problem, calls = _problem(convs=2), []
    inf = float("inf")
    answer = layout_decision(problem, timer=_timer({"keep": inf, "channels_last": inf}, calls))
    assert answer == LayoutAnswer("channels_last", "rule") and calls
    from tuner.engine import plan
    assert plan(NAMESPACE, problem.signature(), list(CANDIDATES)).decision is None


def test_nested_answer_watches_each_collect_until_they_close():
    # tuner.points.answers.watch(): what a compiled graph's cache link records; an inner watch
    # that closes must not end an outer one (an empty outer list equals an empty inner one)
    from tuner.points import answers
    with answers.watch() as outer:
        with answers.watch() as inner:
            layout_decision(_problem(convs=2))
        with answers.watch() as second:
            pass
        layout_decision(_problem(convs=3))
    assert [e[1] for e in inner] == [_problem(convs=2).signature()]
    assert second == []
    assert [e[1] for e in outer] == [_problem(convs=2).signature(), _problem(convs=3).signature()]
    assert all(e[0] == "layout" and e[3] is None for e in outer)   # the rule answered both
    assert answers.still_stand(outer)
