"""Compiler tests run generated Triton kernels in the interpreter on CPU tensors."""
import os

os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402
import torch  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
    # importing PyTorch's OpInfo database (torch.testing._internal) freezes the cuDNN flags for
    # the rest of the process; a later test that sets one (the GPU model tests) would fail
    if torch.backends.flags_frozen():
        torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True


@pytest.fixture
def aten_graphs(monkeypatch):
    """The ATen graphs that reach our compiler (compile_graph), in order."""
    import tuner.compiler.compile_graph as compile_graph_mod
    import tuner.compiler.stats as stats
    seen = []
    real = compile_graph_mod.compile_graph

    def spy(gm, *args, **kwargs):
        seen.append(gm)
        return real(gm, *args, **kwargs)
    monkeypatch.setattr(compile_graph_mod, "compile_graph", spy)
    stats.reset()
    torch._dynamo.reset()
    return seen


@pytest.fixture
def wrappers(monkeypatch):
    """Every WrapperCodegen that generated a wrapper, in order (its plan, graph and steps)."""
    from tuner.compiler.codegen import wrapper as wrapper_mod
    seen = []
    real = wrapper_mod.WrapperCodegen.generate

    def spy(self):
        src = real(self)
        seen.append(self)
        return src
    monkeypatch.setattr(wrapper_mod.WrapperCodegen, "generate", spy)
    return seen


@pytest.fixture
def graph_cache_on(monkeypatch):
    """The compiled-graph cache on (tests/conftest.py turns it off elsewhere), empty before and
    after the test."""
    from tuner.cache import reset_cache
    monkeypatch.setenv("TUNER_GRAPH_CACHE", "1")
    reset_cache()
    yield
    reset_cache()


@pytest.fixture
def lowerings(monkeypatch):
    """How many times a graph was lowered (compile_graph._lower calls)."""
    import tuner.compiler.compile_graph as cg
    count = [0]
    real = cg._lower

    def spy(*a, **kw):
        count[0] += 1
        return real(*a, **kw)
    monkeypatch.setattr(cg, "_lower", spy)
    return count
