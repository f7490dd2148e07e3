"""The decode-attention point (tuner/points/decode_attention.py): the rule, forced modes, a
cached answer, a measured answer (max-autotune's timer) stored and read back without
measuring, and symbolic sizes, which have no signature to store."""
import pytest

from tuner.points.decode_attention import (DecodeAttentionAnswer, DecodeAttentionProblem,
                                           decode_attention_decision)


def _problem(b=8, device="cuda"):
    return DecodeAttentionProblem(b, 16, 4, 256, 64, "bfloat16", "bool", device)


def _timer(times, calls):
    def timer(problem):
        calls.append("timer")

        def measure(choice):
            calls.append(choice)
            return times[choice]
        return measure
    return timer


def test_rule_and_forced_modes():
    # the kernel on CUDA (faster at batch 1, 8 and 32 on the H200), SDPA elsewhere
    assert decode_attention_decision(_problem()) == DecodeAttentionAnswer("gqa", "rule")
    assert decode_attention_decision(_problem(device="cpu")) == DecodeAttentionAnswer("sdpa", "rule")
    assert decode_attention_decision(_problem(), "sdpa") == DecodeAttentionAnswer("sdpa", "forced")
    assert decode_attention_decision(_problem(), "gqa") == DecodeAttentionAnswer("gqa", "forced")
    assert _problem().signature() == "cuda/bfloat16/b8h16kv4s256d64/bool"
    with pytest.raises(ValueError, match="auto, sdpa, gqa"):
        decode_attention_decision(_problem(), "flash")


def test_without_cuda_graphs_the_rule_is_sdpa_and_nothing_is_measured():
    # each launch's host time counts there: the op call and its two launches made LLaMA's
    # decode step 2.54 ms against SDPA's 1.93 at batch 8 (H200, default mode)
    calls = []
    direct = DecodeAttentionProblem(8, 16, 4, 256, 64, "bfloat16", "bool", "cuda", replayed=False)
    answer = decode_attention_decision(direct, timer=_timer({"sdpa": 2.0, "gqa": 1.0}, calls))
    assert answer == DecodeAttentionAnswer("sdpa", "rule") and calls == []
    assert direct.signature() == "cuda/bfloat16/b8h16kv4s256d64/bool/direct"
    assert decode_attention_decision(direct, "gqa") == DecodeAttentionAnswer("gqa", "forced")


def test_a_measured_answer_is_stored_and_read_back_without_measuring():
    # (SDPA measured faster here: the stored answer differs from the rule's)
    problem, calls = _problem(32), []
    answer = decode_attention_decision(problem, timer=_timer({"sdpa": 1.0, "gqa": 2.0}, calls))
    assert answer == DecodeAttentionAnswer("sdpa", "measured") and sorted(calls) == ["gqa", "sdpa", "timer"]
    calls.clear()
    again = decode_attention_decision(problem, timer=_timer({"sdpa": 1.0, "gqa": 2.0}, calls))
    assert again == DecodeAttentionAnswer("sdpa", "cache") and calls == []
    assert decode_attention_decision(problem) == again     # default mode reads it too
    assert decode_attention_decision(_problem(1)).source == "rule"   # another shape


@pytest.mark.parametrize("timer", [lambda p: None, lambda p: 1 / 0], ids=["cannot-time", "fails"])
def test_a_call_that_cannot_be_timed_gets_the_rule(timer):
    assert decode_attention_decision(_problem(2), timer=timer) == DecodeAttentionAnswer("gqa", "rule")


def test_symbolic_sizes_are_never_measured_or_stored():
    import sympy
    calls = []
    problem = DecodeAttentionProblem(sympy.Symbol("s0"), 16, 4, 256, 64, "bfloat16", "none", "cuda")
    answer = decode_attention_decision(problem, timer=_timer({"sdpa": 1.0, "gqa": 2.0}, calls))
    assert answer == DecodeAttentionAnswer("gqa", "rule") and calls == []
    assert decode_attention_decision(problem, "sdpa").source == "forced"
