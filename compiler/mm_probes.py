"""The mm point's probes: a graph of one matmul and its epilogue class, compiled each way
("extern": ATen + an epilogue kernel; "template": the Triton template with the epilogue
fused) on random operands, for the point to time (tuner.points.mm).

The compile function is passed in (compile_graph owns this module and hands itself over), so
nothing here imports the compiler's entry point: a probe is an ordinary compile of its own.
"""
from __future__ import annotations

import logging

import torch

from tuner.settings import settings

from .context import CompileContext
from .torch_compat import aten

log = logging.getLogger("tuner.compiler")

# Seconds the template's config search may take inside one problem's measurement (each
# variant's kernels have this budget; the extern variant's epilogue kernel tunes in well under
# a second): the choice
# needs a good template config, not the best (the real kernel, with its own epilogue, tunes in
# full later); unbounded, a max-autotune compile paid a search per distinct matmul twice.
MM_PROBE_TUNE_S = 10.0
CHOICES = ("extern", "template")


def runners(problem, device, compile_fn) -> dict:
    """The mm point's runners for a problem: our own compiled code for the matmul followed by
    a pointwise consumer (relu; a tanh-GELU for a costly epilogue) when the problem has one,
    once as ATen + an epilogue kernel and once as the template with the epilogue fused (its
    config tuned by the kernel-config point), on random operands; a bare problem's is the
    matmul alone; an absorbed problem's also sums the epilogue's rows (the kernel that takes
    in the extern side's epilogue).
    Each variant runs once here (compiling and tuning it); one that fails is left out.
    compile_fn: compile_graph (gm, example inputs, ctx=...) -> a callable."""
    from tuner.bench import real_tensors
    with real_tensors():
        gm, inputs = probe_module(problem, device)
        fns = {}
        for choice in CHOICES:
            try:
                call = compile_fn(gm, inputs, ctx=probe_context(choice, problem.padded))
                call(list(inputs))
            except Exception as e:   # noqa: BLE001 - that choice loses
                log.debug("mm point: %s variant of %s failed: %s", choice, problem.signature(), e)
                continue
            fns[choice] = lambda call=call: call(list(inputs))
        return fns


def probe_module(problem, device, fill=True):
    """(graph module, inputs) of a problem's probe (see runners): random inputs, or
    uninitialized ones without `fill` (a compile that never runs them); under real_tensors."""
    kw = dict(device=device, dtype=getattr(torch, problem.dtype))
    new = torch.randn if fill else torch.empty

    def operand(rows, cols, transposed):
        shape = (problem.batch, cols, rows) if transposed else (problem.batch, rows, cols)
        t = new(*shape, **kw)
        t = t.transpose(-1, -2) if transposed else t
        return t if problem.op == "bmm" else t[0]
    a = operand(problem.m, problem.k, problem.mat1_transposed)
    b = operand(problem.k, problem.n, problem.mat2_transposed)
    inputs = [a, b]
    fx = torch.fx.Graph()
    pa, pb = fx.placeholder("a"), fx.placeholder("b")
    if problem.op == "addmm":
        inputs.append(new(problem.n, **kw))
        out = fx.call_function(aten.addmm.default, (fx.placeholder("bias"), pa, pb))
    else:
        out = fx.call_function(aten.bmm.default if problem.op == "bmm" else aten.mm.default, (pa, pb))
    if problem.costly_epilogue:   # the class of a GELU: a special function per element
        out = fx.call_function(aten.gelu.default, (out,), {"approximate": "tanh"})
    elif problem.epilogue:
        out = fx.call_function(aten.relu.default, (out,))
    if problem.absorbed:
        # a kernel launched anyway reads the epilogue's result: a row sum stands for it (a
        # LayerNorm's statistics); on the extern side the epilogue fuses into it
        fx.output((out, fx.call_function(aten.sum.dim_IntList, (out, [-1]))))
    else:
        fx.output((out,))
    return torch.fx.GraphModule({}, fx), inputs


def probe_context(choice, padded=False):
    """A probe variant's compile context: its kernels tune within MM_PROBE_TUNE_S, or less
    where TUNER_TUNE_BUDGET_S allows less; a padded problem's extern pads its operands."""
    user = settings.tune_budget_s
    budget = min(MM_PROBE_TUNE_S, user) if user > 0 else MM_PROBE_TUNE_S
    pad = "always" if padded and choice == "extern" else "never"
    return CompileContext("max-autotune-no-cudagraphs", {"mm": choice, "pad_mm": pad, "cudagraphs": False},
                          inference=True, probe=True, tune_budget_s=budget)


def prebuild(problems, compile_fn) -> int:
    """The template candidates (and the other kernels) of every probe about to be measured,
    built in one batch on the compile workers (compiler.runtime.launch prebuild), not one
    probe's batch after another as each measurement meets its problem (each batch waits for its
    slowest compile). problems: [(MMProblem, device)] that the point will measure, distinct;
    CUDA ones on the first one's device are built. Returns how many kernels were built; never
    raises."""
    try:
        return _prebuild(problems, compile_fn)
    except Exception as e:   # noqa: BLE001 - the probes build what they need, as before
        log.debug("prebuilding the mm probes failed: %s: %s", type(e).__name__, e)
        return 0


def _prebuild(problems, compile_fn) -> int:
    from tuner.bench import real_tensors

    from .runtime.launch import Launcher, _prebuild, prebuild_possible
    # (checked before any probe graph is compiled for nothing)
    todo = [(p, d) for p, d in problems if d.startswith("cuda")]
    if not todo or not prebuild_possible():
        return 0
    device = todo[0][1]
    launchers = []
    with real_tensors():
        for p, d in todo:
            if d != device:
                continue
            try:
                gm, inputs = probe_module(p, d, fill=False)
                for choice in CHOICES:
                    call = compile_fn(gm, inputs, ctx=probe_context(choice))
                    launchers += [v for v in call.fn.__globals__.values() if isinstance(v, Launcher)]
            except Exception as e:   # noqa: BLE001 - its probe builds (and reports) it again
                log.debug("mm probe prebuild: %s: %s: %s", p.signature(), type(e).__name__, e)
    return _prebuild(launchers, device, templates=True) if launchers else 0
