"""The layout point (tuner/points/layout.py): the rule, forced modes, the problem's key, and a
cached answer that wins over the rule."""
import pytest

from tuner.points.layout import (CANDIDATES, NAMESPACE, ConvSignature, LayoutProblem,
                                 layout_decision, rule)


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
