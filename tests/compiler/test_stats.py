"""Compile statistics stay bounded: the last KEEP_GRAPHS graphs (sources included) are kept,
and totals() still counts every graph since reset()."""
import tuner.compiler.stats as stats


def test_only_the_last_graphs_are_kept_but_totals_count_them_all(monkeypatch):
    monkeypatch.setattr(stats, "KEEP_GRAPHS", 4)
    stats.reset()
    try:
        for i in range(10):
            g = stats.new()
            g.kernels, g.source = 2, f"source of graph {i}"
            g.kernel_kinds.extend(["pointwise", "reduction"])
            g.count_extern("mm")
        kept = stats.graphs()
        assert [g.source for g in kept] == [f"source of graph {i}" for i in range(6, 10)]
        assert stats.last() is kept[-1]
        t = stats.totals()
        assert t.kernels == 20 and t.externs == {"mm": 10}
        assert len(t.kernel_kinds) == 8          # lists cover the kept graphs only
        stats.reset()
        assert stats.graphs() == [] and stats.totals().kernels == 0
    finally:
        stats.reset()
