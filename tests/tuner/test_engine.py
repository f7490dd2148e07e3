"""decide(): heuristic -> cache -> search order, cache validity rules, decision records, the
autotune report and collect mode. The cache is the real one (SQLite in the test's folder)."""
import math
import sys
import types

import pytest

from tuner.decision import Decision
from tuner.engine import HISTORY, decide
from tuner.report import format_report
from tuner.space import Config, ConfigSpace, Field

INF = float("inf")


def space():
    return ConfigSpace([Field("XBLOCK", "pow2", 1, 4096), Field("num_warps", "pow2", 1, 32)],
                       size_hints={"XBLOCK": 1 << 16})


CANDS = [Config({"XBLOCK": 1}, num_warps=4, num_stages=1),
         Config({"XBLOCK": 64}, num_warps=4, num_stages=1),
         Config({"XBLOCK": 1024}, num_warps=4, num_stages=1)]


def cost(c):
    return abs(c["XBLOCK"] - 100) + abs(c.num_warps - 2) + 1.0


class Measure:
    def __init__(self, fn=cost):
        self.fn, self.calls = fn, []

    def __call__(self, c):
        self.calls.append(c)
        return self.fn(c)


def never(c):
    raise AssertionError(f"measured {c} although the answer was known")


def test_search_then_cache_hit_skips_measurement():
    m = Measure()
    d = decide("test.point", "p1", CANDS, m, search="exhaustive")
    assert d.source == "exhaustive" and d.choice == CANDS[1] and len(m.calls) == 3
    again = decide("test.point", "p1", CANDS, never, search="exhaustive")
    assert again.source == "cache" and again.found_by == "exhaustive"
    assert again.choice == d.choice and again.time_ms == d.time_ms and again.n_measured == 0
    assert [c for c, _ in again.timings] == [c for c, _ in d.timings]


def test_heuristic_answer_skips_cache_and_measurement(monkeypatch):
    monkeypatch.setenv("TUNER_HEURISTICS", "use")
    d = decide("test.point", "p2", CANDS, never, heuristic=lambda: CANDS[2])
    assert d.source == "heuristic" and d.choice == CANDS[2] and d.time_ms is None


def test_unsure_or_invalid_heuristic_falls_through_to_measurement():
    m = Measure()
    assert decide("test.point", "p3", CANDS, m, heuristic=lambda: None).source == "exhaustive"
    m2 = Measure()
    d = decide("test.point", "p3b", CANDS, m2, heuristic=lambda: Config({"XBLOCK": 3}))
    assert d.source == "exhaustive" and m2.calls
    m3 = Measure()
    d = decide("test.point", "p3c", CANDS, m3, heuristic=lambda: 1 / 0)
    assert d.source == "exhaustive" and m3.calls


def test_heuristics_off_ignores_the_heuristic(monkeypatch):
    monkeypatch.setenv("TUNER_HEURISTICS", "off")
    d = decide("test.point", "p4", CANDS, Measure(), heuristic=lambda: CANDS[2])
    assert d.source == "exhaustive" and d.choice == CANDS[1]


def test_a_stored_heuristic_answer_is_a_cache_hit_later_unless_heuristics_are_off(monkeypatch):
    monkeypatch.setenv("TUNER_HEURISTICS", "use")
    d = decide("test.point", "p4b", CANDS, never, heuristic=lambda: CANDS[2], search="exhaustive",
               store_heuristic=True)
    assert d.source == "heuristic"
    again = decide("test.point", "p4b", CANDS, never, search="exhaustive")   # nothing to say now
    assert again.source == "cache" and again.found_by == "heuristic" and again.choice == CANDS[2]
    assert again.time_ms is None
    monkeypatch.setenv("TUNER_HEURISTICS", "off")   # measuring asked for: the answer is a miss
    m = Measure()
    assert decide("test.point", "p4b", CANDS, m, search="exhaustive").source == "exhaustive" and m.calls


def test_different_candidate_set_is_a_cache_miss():
    decide("test.point", "p5", CANDS, Measure(), search="exhaustive")
    m = Measure()
    d = decide("test.point", "p5", CANDS[:2], m, search="exhaustive")
    assert d.source == "exhaustive" and len(m.calls) == 2


def test_coordinate_descent_answer_is_reused_with_other_start_configs_in_the_same_space():
    m = Measure()
    d = decide("test.point", "p6", CANDS, m, space=space(), search="coordinate_descent")
    assert d.source == "coordinate_descent" and d.choice == Config({"XBLOCK": 128}, num_warps=2,
                                                                      num_stages=1)
    other = [Config({"XBLOCK": 8}, num_warps=8, num_stages=1)]
    hit = decide("test.point", "p6", other, never, space=space(), search="coordinate_descent")
    assert hit.source == "cache" and hit.choice == d.choice and hit.found_by == "coordinate_descent"
    # a different space (smaller size hint) is a miss
    small = ConfigSpace([Field("XBLOCK", "pow2", 1, 4096), Field("num_warps", "pow2", 1, 32)],
                        size_hints={"XBLOCK": 64})
    m2 = Measure()
    d2 = decide("test.point", "p6", other, m2, space=small, search="coordinate_descent")
    assert d2.source == "coordinate_descent" and m2.calls


def test_exhaustive_answer_is_not_reused_for_another_candidate_set_in_the_same_space():
    decide("test.point", "p7", CANDS, Measure(), space=space(), search="exhaustive")
    m = Measure()
    d = decide("test.point", "p7", CANDS[1:], m, space=space(), search="exhaustive")
    assert d.source == "exhaustive" and m.calls


def _key(problem, cands):
    from tuner.cache import CacheKey, backend_hash, configs_hash
    from tuner.space import choice_to_json
    return CacheKey("test.point", problem, configs_hash(choice_to_json(c) for c in cands),
                    backend_hash(None))


@pytest.mark.parametrize("garbage", [
    {"version": 1},
    {"version": 99, "choice": "x"},
    {"version": 1, "choice": {"config": {"kwargs": {"XBLOCK": "big"}}}, "found_by": "exhaustive"},
    {"version": 1, "choice": {"config": {"kwargs": {"XBLOCK": 2}, "num_warps": 4, "num_stages": 1}},
     "found_by": "exhaustive", "time_ms": 1.0, "timings": []},   # not a candidate
    {"version": 1, "choice": {"config": CANDS[0].to_json()}, "found_by": "guess", "time_ms": 1.0},
    {"version": 1, "choice": {"config": CANDS[0].to_json()}, "found_by": "exhaustive",
     "time_ms": "fast", "timings": []},
])
def test_garbled_cached_value_is_a_miss(garbage):
    from tuner.cache import get_cache
    key = _key("p8", CANDS)
    get_cache().put(key, {**garbage, "configs_hash": key.configs_hash})
    m = Measure()
    d = decide("test.point", "p8", CANDS, m, search="exhaustive")
    assert d.source == "exhaustive" and len(m.calls) == 3


def test_cache_off_always_measures(monkeypatch):
    monkeypatch.setenv("TUNER_CACHE", "0")
    decide("test.point", "p9", CANDS, Measure(), search="exhaustive")
    m = Measure()
    assert decide("test.point", "p9", CANDS, m, search="exhaustive").source == "exhaustive"
    assert m.calls


def test_decision_record_fields():
    m = Measure()
    d = decide("test.point", "p10", CANDS, m, search="exhaustive")
    assert d.namespace == "test.point" and d.problem == "p10"
    assert d.default_time_ms == cost(CANDS[0]) and d.time_ms == cost(CANDS[1])
    assert d.speedup == pytest.approx(cost(CANDS[0]) / cost(CANDS[1]))
    assert [t for _, t in d.timings] == sorted(cost(c) for c in CANDS)
    assert d.tuning_seconds >= 0 and d.n_measured == 3
    rec = d.to_record()
    assert rec["choice"] == {"config": CANDS[1].to_json()} and rec["source"] == "exhaustive"
    assert HISTORY[-1] is d


def test_failing_candidates_score_inf_and_an_all_failed_answer_is_not_cached():
    def flaky(c):
        if c["XBLOCK"] == 64:
            raise RuntimeError("compile error")
        return cost(c)
    d = decide("test.point", "p11", CANDS, flaky, search="exhaustive")
    assert d.choice == CANDS[0] and dict(d.timings)[CANDS[1]] == INF and d.n_measured == 3
    dead = decide("test.point", "p12", CANDS, lambda c: INF, search="exhaustive")
    assert dead.choice == CANDS[0] and dead.time_ms == INF
    m = Measure()
    assert decide("test.point", "p12", CANDS, m, search="exhaustive").source == "exhaustive"


def test_plain_choices_are_searched_exhaustively_whatever_the_setting():
    d = decide("pad_mm", "mm:64x64", ["orig", "pad"], {"orig": 2.0, "pad": 1.5}.__getitem__,
               search="coordinate_descent")
    assert d.choice == "pad" and d.source == "exhaustive"
    assert decide("pad_mm", "mm:64x64", ["orig", "pad"], never).choice == "pad"


def test_single_candidate_without_space_is_not_measured():
    d = decide("test.point", "p13", CANDS[:1], never)
    assert d.choice == CANDS[0] and d.n_measured == 0


def test_budgeted_search_through_decide():
    m = Measure()
    d = decide("test.point", "p14", CANDS, m, space=space(), search="budgeted",
               search_options={"max_measurements": 5})
    assert d.source == "budgeted" and len(m.calls) == 5


def test_prepare_runs_once_before_measurement_and_not_on_a_hit():
    seen = []
    decide("test.point", "p15", CANDS, Measure(), prepare=lambda cands: seen.append(list(cands)))
    decide("test.point", "p15", CANDS, never, prepare=lambda cands: seen.append(list(cands)))
    assert seen == [CANDS]


def test_autotune_report(monkeypatch, capsys):
    monkeypatch.setenv("TUNER_LOGS", "autotune")
    decide("test.point", "report-problem", CANDS, cost, search="exhaustive")
    err = capsys.readouterr().err
    assert "autotune test.point report-problem" in err
    assert "XBLOCK=64,num_warps=4,num_stages=1" in err and "100.0%" in err and "<- chosen" in err
    assert "exhaustive: 3 measured" in err and "tuning took" in err
    decide("test.point", "report-problem", CANDS, never, search="exhaustive")
    assert "cache hit: XBLOCK=64" in capsys.readouterr().err


def test_report_shows_failures_and_percentages():
    d = Decision(CANDS[1], 1.0, 4.0, "exhaustive", [(CANDS[1], 1.0), (CANDS[0], 4.0), (CANDS[2], INF)],
                 0.5, "ns", "prob", "exhaustive", 3)
    text = format_report(d)
    assert " 25.0%" in text and "failed (inf)" in text and "4.00x over the default" in text


def test_no_report_without_the_log_setting(capsys):
    decide("test.point", "quiet", CANDS, cost, search="exhaustive")
    assert "autotune" not in capsys.readouterr().err


def _fake_dataset_writer(monkeypatch):
    """Collect mode with a stand-in dataset writer; returns what it was handed."""
    monkeypatch.setenv("TUNER_HEURISTICS", "collect")
    recorded = []
    fake = types.ModuleType("tuner.collect")
    fake.record_decision = lambda ns, features, d: recorded.append((ns, features, d))
    monkeypatch.setitem(sys.modules, "tuner.collect", fake)
    return recorded


def test_collect_mode_hands_benchmarked_decisions_to_the_dataset(monkeypatch):
    recorded = _fake_dataset_writer(monkeypatch)
    d = decide("test.point", "p16", CANDS, cost, features={"n": 100}, heuristic=lambda: CANDS[2])
    assert d.source == "exhaustive"  # collect mode measures even when a heuristic answers
    assert recorded == [("test.point", {"n": 100}, d)]
    decide("test.point", "p16", CANDS, never)  # a cache hit is not new data
    assert len(recorded) == 1


def test_collect_mode_skips_a_decision_without_features(monkeypatch):
    # a point whose problem its dataset does not describe (the mm point's bare matmuls) passes
    # no features: decided and cached, not recorded under an empty feature row
    recorded = _fake_dataset_writer(monkeypatch)
    assert decide("test.point", "p16b", CANDS, cost).choice == CANDS[1] and not recorded


def test_collect_mode_without_a_dataset_writer_still_decides(monkeypatch):
    monkeypatch.setenv("TUNER_HEURISTICS", "collect")
    monkeypatch.setitem(sys.modules, "tuner.collect", None)  # import fails
    assert decide("test.point", "p17", CANDS, cost).choice == CANDS[1]


def test_bad_strategy_name_fails_before_measuring():
    with pytest.raises(ValueError, match="unknown search strategy"):
        decide("test.point", "p18", CANDS, never, search="annealing")


def test_collect_mode_writes_rows_with_the_real_dataset_writer(monkeypatch, tmp_path):
    monkeypatch.setenv("TUNER_HEURISTICS", "collect")
    monkeypatch.setenv("TUNER_DATASET_DIR", str(tmp_path / "data"))
    decide("test.collect", "p19", CANDS, cost, features={"n": 100})
    [path] = (tmp_path / "data").glob("test.collect*.jsonl")
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + len(CANDS)  # header + one row per measured candidate


def test_coordinate_descent_prepares_each_batch_before_timing_it():
    events = []

    def prepare(batch):
        events.append(("prepare", list(batch)))

    def measure(c):
        events.append(("measure", c))
        return cost(c)
    d = decide("test.point", "p-prepare", CANDS, measure, space=space(),
               search="coordinate_descent", prepare=prepare)
    batches = [b for kind, b in events if kind == "prepare"]
    measured = [c for kind, c in events if kind == "measure"]
    assert batches[0] == CANDS and len(batches) > 2 and d.n_measured == len(measured)
    prepared = [c for b in batches for c in b]
    assert len(prepared) == len(set(prepared))          # each config prepared once
    for i, (kind, c) in enumerate(events):              # and before its first timing
        if kind == "measure":
            assert any(k == "prepare" and c in b for k, b in events[:i]), c
    # a sweep's neighbours come as one batch, not one config at a time
    assert max(len(b) for b in batches[1:]) >= 3


# -- the one check of cached answers (issue 17) ---------------------------------------------


def _stored_record(problem, cands, **changes):
    """decide() once, then rewrite its cached record's choice/fields as a hostile writer would."""
    from tuner.cache import get_cache
    decide("test.point", problem, cands, cost, search="exhaustive")
    key = _key(problem, cands)
    record = get_cache().get(key)
    for name, value in changes.items():
        if name in ("num_warps", "num_stages", "kwargs"):
            record["choice"]["config"][name] = value
        else:
            record[name] = value
    get_cache().put(key, record)
    return key


@pytest.mark.parametrize("changes", [
    {"kwargs": {"XBLOCK": 64.0}},                    # equals 64 for Config, not for Triton
    {"kwargs": {"XBLOCK": 64, "EVIL": 1}},           # extra keyword
    {"kwargs": {}},                                  # missing keyword
    {"num_stages": 2},                               # not a candidate's
    {"time_ms": 10 ** 400},                          # OverflowError in float()
    {"time_ms": -1.0},
])
def test_cached_choice_must_match_a_candidate_exactly(changes):
    from tuner.cache import get_cache
    _stored_record("exact", CANDS, **changes)
    before = get_cache().stats()["local"]["rejected"]
    m = Measure()
    d = decide("test.point", "exact", CANDS, m, search="exhaustive")
    assert d.source == "exhaustive" and len(m.calls) == 3
    assert get_cache().stats()["local"]["rejected"] == before + 1


def test_bool_is_not_an_int_in_a_cached_choice():
    from tuner.cache import get_cache
    flags = [Config({"XBLOCK": 64, "EVEN": True}, num_warps=4, num_stages=1),
             Config({"XBLOCK": 64, "EVEN": 1}, num_warps=4, num_stages=1)]
    measure = Measure(lambda c: 1.0 if c.get("EVEN") is True else 2.0)
    assert decide("test.point", "flags", flags, measure).choice is flags[0]
    key = _key("flags", flags)
    record = get_cache().get(key)
    record["choice"]["config"]["kwargs"]["EVEN"] = 1.0   # equal to both for ==, to neither here
    get_cache().put(key, record)
    m = Measure()
    assert decide("test.point", "flags", flags, m).source == "exhaustive" and m.calls
    hit = decide("test.point", "flags", flags, never)
    assert hit.source == "cache" and hit.choice is flags[0]   # the candidate itself, True kept


def test_space_config_that_is_not_a_candidate_fits_only_a_point_that_searches_the_space():
    sp = space()
    d = decide("test.point", "cd", CANDS, Measure(), space=sp, search="coordinate_descent")
    assert d.choice not in CANDS
    assert decide("test.point", "cd", CANDS, never, space=sp,
                  search="coordinate_descent").source == "cache"
    m = Measure()  # the same record, read by a point that measures its candidates only
    assert decide("test.point", "cd", CANDS, m, space=sp, search="exhaustive").source == "exhaustive"
    assert m.calls


def test_a_float_heuristic_answer_is_not_launched(monkeypatch):
    monkeypatch.setenv("TUNER_HEURISTICS", "use")
    m = Measure()
    d = decide("test.point", "h-float", CANDS, m,
               heuristic=lambda: Config({"XBLOCK": 64.0}, num_warps=4, num_stages=1))
    assert d.source == "exhaustive" and m.calls


def test_parse_record_never_raises():
    from tuner.engine import RECORD_KEYS, parse_record
    deep = 1
    for _ in range(100_000):
        deep = [deep]
    record = {**dict.fromkeys(RECORD_KEYS), "version": 1, "configs_hash": "h",
              "found_by": "exhaustive", "timings": [], "time_ms": 1.0, "choice": deep}
    for value in (record, {**record, "choice": {"config": CANDS[0].to_json()},
                           "time_ms": 10 ** 400}, deep, None):
        assert parse_record(value, CANDS, space(), "h", "set") is None


def test_candidates_that_cannot_be_cached_are_still_decided():
    weird = [object(), object()]
    d = decide("test.point", "weird", weird, lambda c: 1.0 if c is weird[1] else 2.0)
    assert d.choice is weird[1]


def test_a_discarded_answer_is_tuned_again_and_its_local_entry_dropped():
    from tuner.cache import get_cache
    from tuner.engine import discard
    decide("test.point", "launch-fails", CANDS, Measure(), search="exhaustive")
    hit = decide("test.point", "launch-fails", CANDS, never, search="exhaustive")
    assert hit.source == "cache" and hit.cache_key == _key("launch-fails", CANDS)
    discard(hit, "TypeError at launch")
    assert get_cache().local.get(hit.cache_key.digest()) is None
    m = Measure(lambda c: INF if c == hit.choice else cost(c))  # it fails when measured too
    d = decide("test.point", "launch-fails", CANDS, m, search="exhaustive")
    assert d.source == "exhaustive" and d.choice != hit.choice and m.calls
    # even if a stale copy of the bad answer comes back (another machine's Redis), it is not used
    get_cache().put(hit.cache_key, {**get_cache().get(hit.cache_key),
                                    "choice": {"config": hit.choice.to_json()}})
    assert decide("test.point", "launch-fails", CANDS, Measure(), search="exhaustive").source \
        == "exhaustive"


# -- a time limit (max_seconds): the compiler's per-graph tuning budget -------------------------

def _slow(seconds):
    import time

    def measure(c):
        time.sleep(seconds)
        return cost(c)
    return Measure(measure)


def test_no_time_left_answers_the_default_after_heuristic_and_cache(monkeypatch):
    from tuner.decision import OVER_BUDGET
    from tuner.report import explain
    d = decide("test.budget", "p1", CANDS, never, space=space(), max_seconds=0)
    assert d.source == OVER_BUDGET and d.choice == CANDS[0] and d.stopped_early
    assert "nothing measured" in format_report(d) and "nothing measured" in explain(d)
    # what the cache or a heuristic knows is still used
    decide("test.budget", "p2", CANDS, Measure(), space=space(), search="exhaustive")
    assert decide("test.budget", "p2", CANDS, never, space=space(), search="exhaustive",
                  max_seconds=0).source == "cache"
    monkeypatch.setenv("TUNER_HEURISTICS", "use")
    assert decide("test.budget", "p3", CANDS, never, heuristic=lambda: CANDS[2],
                  max_seconds=-1).source == "heuristic"


@pytest.mark.parametrize("search", ["coordinate_descent", "exhaustive", "budgeted"])
def test_a_search_stops_at_the_time_limit_with_the_best_so_far_not_stored(search):
    m = _slow(0.02)
    d = decide("test.budget", f"cut-{search}", CANDS, m, space=space(), search=search,
               max_seconds=0.03)
    assert d.stopped_early and d.source == search and 1 <= len(m.calls) <= 3
    assert d.choice in m.calls and d.time_ms == min(cost(c) for c in m.calls)
    assert "time was spent" in format_report(d)
    again = decide("test.budget", f"cut-{search}", CANDS, Measure(), space=space(), search=search)
    assert again.source == search and not again.stopped_early   # not cached: searched again
    assert decide("test.budget", f"cut-{search}", CANDS, never, space=space(),
                  search=search).source == "cache"


def test_a_search_within_its_time_limit_is_stored_as_usual():
    m = Measure()
    d = decide("test.budget", "fits", CANDS, m, space=space(), max_seconds=60)
    assert d.source == "coordinate_descent" and not d.stopped_early and len(m.calls) > 3
    assert decide("test.budget", "fits", CANDS, never, space=space()).source == "cache"


def test_plan_says_what_decide_would_build_first_and_records_nothing(monkeypatch):
    # plan(): the heuristic and the cache asked as decide() asks them; on a miss the search's
    # first batch (its initial candidates, each once), nothing measured, stored or in HISTORY
    from tuner.engine import plan
    HISTORY.clear()
    p = plan("t.plan", "p1", CANDS + CANDS[:1], space=space())
    assert p.measures and p.decision is None and p.batch == CANDS and not HISTORY
    batches = []
    d = decide("t.plan", "p1", CANDS, Measure(), space=space(), prepare=batches.append)
    assert batches[0] == CANDS
    p = plan("t.plan", "p1", CANDS, space=space())
    assert not p.measures and p.decision.source == "cache" and p.decision.choice == d.choice
    assert p.batch == [] and len(HISTORY) == 1
    # a confident heuristic answers (its answer is not stored by a plan); one candidate or no
    # tuning time left needs no measurement either
    monkeypatch.setenv("TUNER_HEURISTICS", "use")
    p = plan("t.plan", "p2", CANDS, space=space(), heuristic=lambda: CANDS[1])
    assert p.decision.source == "heuristic" and p.decision.choice == CANDS[1]
    assert plan("t.plan", "p2", CANDS, space=space()).measures
    assert plan("t.plan", "p3", ["a"]).decision.source == "exhaustive"
    assert plan("t.plan", "p3", ["a", "b"], max_seconds=0).decision.source == "budget"
    assert len(HISTORY) == 1
