"""What the zoo tests share: compile, note the phase of a failure, count compiles, compare."""
from __future__ import annotations

import contextlib

import torch
from torch import nn
from torch._dynamo.eval_frame import _debug_get_cache_entry_list

import tuner.compiler.stats as stats

# fp32 against eager: kernels reorder reductions (sums over 32-64 elements, softmax, norms)
RTOL, ATOL = 1e-3, 1e-4
MAX_COMPILES = 2    # the first shape, then one recompile with dynamic sizes
LAST = {}           # the last test's top-frame compile count, for the summary table (conftest)


def describe(kwargs):
    return ", ".join(f"{k}={tuple(v.shape)}" for k, v in kwargs.items() if isinstance(v, torch.Tensor))


@contextlib.contextmanager
def phase(text):
    """Name the phase (model, shape, eager or compiled) in the exception of a failure."""
    try:
        yield
    except BaseException as e:
        e.add_note(f"model zoo phase: {text}")
        raise


def clone_inputs(kwargs):
    out = {}
    for k, v in kwargs.items():
        if isinstance(v, torch.Tensor):
            v = v.detach().clone().requires_grad_(v.requires_grad)
        out[k] = v
    return out


def top_frame_compiles(compiled, model):
    """(name, count): how many times dynamo compiled the first frame it traces. That frame is
    the module's (possibly decorated) forward, or for torch.nn modules (whose files dynamo
    does not trace as a frame) the wrapper torch.compile puts around them, or the function."""
    candidates = []
    orig = getattr(getattr(compiled, "forward", compiled), "_torchdynamo_orig_callable", None)
    for fn in (orig, type(model).forward if isinstance(model, nn.Module) else model):
        fn = getattr(fn, "__func__", fn)
        if hasattr(fn, "__code__"):
            candidates.append((fn.__qualname__, len(_debug_get_cache_entry_list(fn.__code__))))
    return max(candidates, key=lambda c: c[1])


def check_compiles(compiled, model):
    name, entries = top_frame_compiles(compiled, model)
    LAST["top_frame_compiles"] = entries
    assert 1 <= entries <= MAX_COMPILES, (
        f"the top frame ({name}) was compiled {entries} times "
        f"(want 1..{MAX_COMPILES}: the first shape, then one recompile with dynamic sizes)")
    graphs = stats.graphs()
    assert graphs, "backend='tuner' compiled no graph"
    whole = [g.graph_fallback for g in graphs if getattr(g, "graph_fallback", "")]
    assert not whole, f"{len(whole)} graph(s) ran entirely in ATen: {whole[0]}"


def use_torchvision_stand_in() -> bool:
    """Where torchvision cannot be imported (see conftest.py), the stand-in under _stubs/ goes
    first on sys.path, after transformers has cached that torchvision is missing; for the zoo's
    tests and for code that runs its models outside pytest. True when the stand-in is used."""
    import sys
    from pathlib import Path
    try:
        import torchvision  # noqa: F401
        return False
    except Exception:  # noqa: BLE001 - not installed, or built against another torch
        for m in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
            del sys.modules[m]
    try:
        from transformers.utils import import_utils
        import_utils.is_torchvision_available()
    except Exception:  # noqa: BLE001
        pass
    sys.path.insert(0, str(Path(__file__).parent / "_stubs"))
    return True
