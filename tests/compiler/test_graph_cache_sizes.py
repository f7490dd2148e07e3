"""The compiled-graph cache for graphs with symbolic sizes (compiler/graph_cache_sizes.py): one
entry serves every size its guards admit; a hit lowers nothing and keeps the cold compile's
guards; the key holds the size symbols, not their values. CPU, Triton's interpreter."""
import re

import pytest
import torch

import tuner.compiler.stats as stats
from tuner.compiler import graph_cache, sizes


pytestmark = pytest.mark.usefixtures("graph_cache_on")


@pytest.fixture
def checks(monkeypatch):
    """The guards (as text) of every symbolic compile, in order: build_symbolic builds each
    compile's checker from its SizeVars."""
    seen = []
    real = sizes.SizeVars.checker

    def spy(self):
        seen.append([str(g) for g in self.guards])
        return real(self)
    monkeypatch.setattr(sizes.SizeVars, "checker", spy)
    return seen


@pytest.fixture
def keys(monkeypatch):
    """The cache keys of the graphs compiled with symbolic sizes, in order."""
    seen = []
    real = graph_cache._key

    def spy(gm, example_inputs, ctx):
        out = real(gm, example_inputs, ctx)
        if ctx.sizes is not None:
            seen.append(out)
        return out
    monkeypatch.setattr(graph_cache, "_key", spy)
    return seen


def row_sum(x):
    # its lowering records guards (the row length against the persistent-reduction bound)
    return (x * 2).sum(-1) + x[:, 0]


def compiled_at(n, fn=row_sum, dtype=torch.float32, cols=None):
    """A fresh dynamo (as in a new process) compiling fn with dynamic sizes, called at n rows;
    (the graph's stats, the output, the input)."""
    torch._dynamo.reset()
    stats.reset()
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    x = torch.randn(n, cols or n + 3, dtype=dtype)
    out = cf(x)
    graphs = stats.graphs()
    assert len(graphs) == 1 and graphs[0].symbolic, [g.symbolic for g in graphs]
    return graphs[0], cf, out, x


def test_a_symbolic_graph_hits_at_another_size_and_lowers_nothing(lowerings, checks, keys):
    cold, _, out, x = compiled_at(6)
    torch.testing.assert_close(out, row_sum(x))
    assert cold.graph_cache == "stored" and lowerings[0] == 1
    assert cold.guards >= 1 and checks[0]   # the lowering recorded guards
    hit, cf, out, x = compiled_at(11)
    assert hit.graph_cache == "hit (local)"
    assert lowerings[0] == 1   # no lowering on the hit
    torch.testing.assert_close(out, row_sum(x))
    # the hit checks the guards the cold compile recorded, and counts them
    assert checks[1] == checks[0] and hit.guards == cold.guards
    assert keys[0][0] is not None and keys[1][0] == keys[0][0]   # no size in the key
    assert hit.source == cold.source
    # the one compiled graph serves other sizes its guards admit, without a compile
    for n in (3, 9, 30, 70):
        y = torch.randn(n, 17)
        torch.testing.assert_close(cf(y), row_sum(y))
    assert lowerings[0] == 1 and len(stats.graphs()) == 1


def test_the_stored_guards_are_the_cold_compiles(checks, monkeypatch):
    from tuner import graph_store as graphs
    compiled_at(6)
    found = []
    real = graphs.lookup

    def spy(k):
        value, layer = real(k)
        if value is not None and "sizes" in value:
            found.append(value)
        return value, layer
    monkeypatch.setattr(graphs, "lookup", spy)
    compiled_at(8)
    assert found
    stored = found[0]["sizes"]["guards"]
    # the cold compile's guards, each symbol named by where the wrapper reads it
    assert len(stored) == len(checks[0]) >= 1
    assert all(re.search(r"\ba\d+_(value|size|stride)\d+\b", g) for g in stored), stored
    assert not any(re.search(r"\bs\d+\b", g) for g in stored), stored   # no dynamo name
    # each kernel takes its sizes as arguments: its extents and its bucket's config are stored
    assert all(k.get("extents") and k.get("buckets") for k in found[0]["kernels"]), found[0]["kernels"]


def test_sizes_the_guards_refuse_miss_and_compile(lowerings, checks):
    compiled_at(6)
    assert any("< 512" in g for g in checks[0]), checks[0]   # a guard a long row fails
    stats_, _, out, x = compiled_at(4, cols=600)
    assert stats_.graph_cache == "stored"   # a miss: compiled (and stored) anew
    assert lowerings[0] == 2
    torch.testing.assert_close(out, row_sum(x))


def test_the_key_changes_with_dtype_not_sizes(keys):
    compiled_at(5)
    compiled_at(7)
    compiled_at(5, dtype=torch.float64)
    assert keys[0][0] is not None
    assert keys[0][0] == keys[1][0] != keys[2][0]


def test_data_dependent_sizes_are_refused():
    def nz(x):
        return x[x > 0] * 2
    import torch._dynamo.config as dcfg
    with dcfg.patch(capture_dynamic_output_shape_ops=True):
        torch._dynamo.reset()
        stats.reset()
        cf = torch.compile(nz, backend="tuner", dynamic=True)
        x = torch.randn(9, 4)
        torch.testing.assert_close(cf(x), nz(x))
    kinds = [g.graph_cache for g in stats.graphs()]
    assert kinds == ["uncacheable: data-dependent sizes"], kinds
    assert graph_cache.UNCACHEABLE["data-dependent sizes"] >= 1


def test_buckets_entered_after_the_store_are_stored_again(monkeypatch):
    # a sized kernel entering a new size bucket compiles what the entry lacks: the next call
    # (or the process's exit) stores the entry again, every bucket's config in it
    from tuner import graph_store as graphs
    stored = []
    real = graphs.store

    def spy(k, v):
        if "kernels" in v:
            stored.append([len(k.get("buckets", ())) for k in v["kernels"] if "extents" in k])
        return real(k, v)
    monkeypatch.setattr(graphs, "store", spy)
    _, cf, _, _ = compiled_at(6, cols=17)
    assert len(stored) == 1 and stored[0] and set(stored[0]) == {1}, stored

    def call(n):
        y = torch.randn(n, 17)
        torch.testing.assert_close(cf(y), row_sum(y))
    call(7)   # the same buckets: nothing to store
    assert len(stored) == 1 and not graph_cache.PENDING
    call(70)   # a new bucket: owed, stored after the next call
    assert len(stored) == 1 and graph_cache.PENDING
    call(71)
    assert len(stored) == 2 and set(stored[1]) == {2} and not graph_cache.PENDING, stored
    call(71)
    assert len(stored) == 2
    call(300)   # and one the process's exit stores
    graph_cache._store_pending()
    assert len(stored) == 3 and set(stored[2]) == {3}, stored
    # a new process hits the entry and finds the three buckets' configs; a fourth bucket it
    # enters first is stored again from the hit, which stays a hit in its stats
    _, cf, out, x = compiled_at(300, cols=17)
    assert stats.graphs()[0].graph_cache.startswith("hit")
    torch.testing.assert_close(out, row_sum(x))
    call(2000)
    graph_cache._store_pending()
    assert len(stored) == 4 and set(stored[3]) == {4}, stored
    assert stats.graphs()[0].graph_cache.startswith("hit") and len(stats.graphs()) == 1
