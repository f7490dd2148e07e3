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


def test_generated_kernels_are_named_by_kind_and_content():
    """A profile tells every generated kernel apart (tk_<kind>_<hash of its source>), while
    identical kernels, and one graph's kernels at another size, keep one name."""
    import re

    import torch

    def names():
        return re.findall(r"def (tk_\w+)\(", stats.last().source)

    stats.reset()
    try:
        a = torch.compile(lambda x: (x * 2).sin() + 1, backend="tuner", dynamic=False)
        a(torch.randn(8, 33))
        first = names()
        assert len(first) == 1 and re.fullmatch(r"tk_pointwise_[0-9a-f]{8}", first[0]), first
        # what it computes, under the name a profiler lists (bench_compiler --kernel-times)
        assert stats.last().kernel_labels[first[0]].startswith("pointwise over")
        assert first[0] in stats.totals().kernel_labels
        a(torch.randn(12, 33))                              # another size: the same name
        assert names() == first
        torch.compile(lambda x: (x * 3).cos(), backend="tuner")(torch.randn(8, 33))
        assert names()[0].startswith("tk_pointwise_") and names() != first
        torch.compile(lambda x: x.sum(1), backend="tuner")(torch.randn(8, 33))
        assert re.fullmatch(r"tk_\w*reduction_[0-9a-f]{8}", names()[0]), names()
        # kernels that differ in a constant alone are two kernels, with two names
        torch.compile(lambda x: x * 2.5 + 1, backend="tuner")(torch.randn(8, 33))
        scaled = names()
        torch.compile(lambda x: x * 3.5 + 1, backend="tuner")(torch.randn(8, 33))
        assert names() != scaled
    finally:
        stats.reset()
