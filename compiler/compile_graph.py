"""One ATen graph -> a compiled callable: lower (measuring the mm point's questions after
lowering, with probe graphs compiled here: compiler/mm_probes.py), fuse, generate kernels and
the wrapper, load them, and (per mode) wrap the result in CUDA graphs."""
from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import re
import sys
import time

import torch

from . import graph_cache, graph_front, ir, mm_probes
from . import gqa_decode as _gqa_decode  # noqa: F401 - defines tuner::gqa_decode (cached graphs call it)
from .mutation import reinplace_input_scatters
from .reorder import reorder_for_memory
from . import stats as stats_mod
from .codegen import combo
from .context import CompileContext, CompiledGraph
from .codegen.scan import ScanKernel
from .codegen.template import TemplateKernel
from .codegen.triton import TritonKernel
from .codegen.wrapper import WrapperCodegen, alloc_namespace, base_namespace, source_text
from .graph import GraphLowering
from .runtime.launch import ForeachLauncher, Launcher, prebuild, precompile
from .runtime.modules import GeneratedModules
from .scheduler import Scheduler
from .sizes import SymSize, Unsupported, expr_source

log = logging.getLogger("tuner.compiler")
# the process's generated modules: the kernel folder and an LRU of loaded kernels
MODULES = GeneratedModules()

KERNEL_PRELUDE = """import triton
import triton.language as tl
from tuner.compiler.runtime import helpers as th
from tuner.compiler.runtime import special as sp

"""


def kernel_dir():
    return MODULES.folder()


def load_source(source, stem):
    """Write source to a file and import it (Triton reads kernel source from files)."""
    return MODULES.load(source, stem)


def load_kernel(src, name):
    """The kernel `name` of generated source `src` (the prelude prepended), loaded."""
    return getattr(load_source(KERNEL_PRELUDE + src, "k"), name)


# The public torch function for the hottest externs: the same kernel, a cheaper call than the
# OpOverload's schema-driven argument parsing (docs/PERF_NOTES.md).
_PUBLIC_OPS = {torch.ops.aten.convolution.default: torch.convolution,
               torch.ops.aten.mm.default: torch.mm,
               torch.ops.aten.addmm.default: torch.addmm,
               torch.ops.aten.bmm.default: torch.bmm}


_INTEGER = re.compile(r"(?<![\w.])\d+(?![\w.])")   # an integer literal, alone


def _named_by_content(k, src: str) -> str:
    """The kernel's source with its name `tk_<kind>` made `tk_<kind>_<hash of its source>`:
    a profile (torch.profiler, nsys) then tells every generated kernel apart and a name leads
    to its source in TUNER_LOGS=output_code, while identical kernels (a repeated layer, another
    graph, another process) keep one name and one source, so one compile and one cache key.
    No position or counter in the name: it would make identical kernels differ. The hash
    leaves integer literals out (sizes, strides; not names such as in_ptr0, nor constants such
    as 2.0): the kernels of one graph at other sizes (dynamic shapes compile one per size, a
    size bucket shares their tuning) keep the name, as they keep the tuning key."""
    head = f"def {k.name}("
    if src.count(head) != 1:
        return src
    shape = _INTEGER.sub("#", src)
    name = f"{k.name}_{hashlib.sha256(shape.encode()).hexdigest()[:8]}"
    k.name = name
    return src.replace(head, f"def {name}(")


def _with_size_params(src: str, name: str, size_args) -> str:
    """A kernel's source with the size symbols it reads as int parameters after its pointers
    (never specialized by Triton: one compiled kernel serves every size)."""
    if not size_args:
        return src
    head = re.search(rf"(@triton\.jit(?:\((?P<opts>[^)]*)\))?)\ndef {name}\((?P<params>[^)]*)\):", src)
    if head is None:
        raise Unsupported("a kernel whose signature takes no size arguments")
    params = [p.strip() for p in head.group("params").split(",") if p.strip()]
    at = next((j for j, p in enumerate(params) if "constexpr" in p), len(params))
    params[at:at] = list(size_args)
    opts = [o for o in [head.group("opts") or ""] if o] + [f"do_not_specialize={list(size_args)!r}"]
    return (src[:head.start()] + f"@triton.jit({', '.join(opts)})\ndef {name}({', '.join(params)}):"
            + src[head.end():])


def compile_graph(gm: torch.fx.GraphModule, example_inputs, mode="default", options=None, *,
                  ctx: CompileContext | None = None) -> CompiledGraph:
    """gm compiled for example_inputs' sizes: under `ctx`, else under mode and (user) options."""
    if ctx is None:
        ctx = CompileContext(mode, dict(options or {}))
    return _compile_graph(gm, example_inputs, ctx)


def _show_source(source, gm):
    """The graph's generated code to stderr (TUNER_LOGS=output_code) and, with its FX graph,
    to TUNER_DEBUG_DIR."""
    from tuner.settings import settings
    if "output_code" in settings.logs:
        print(source, file=sys.stderr)
    if settings.debug_dir:
        h = hashlib.sha256(source.encode()).hexdigest()[:12]
        with open(os.path.join(kernel_dir(), f"graph_{h}.py"), "w") as f:
            f.write(source + "\n# FX graph\n" + "\n".join("# " + ln for ln in str(gm.graph).splitlines()))


def mm_runners(problem, device) -> dict:
    """The mm point's runners for a problem: its probes (compiler.mm_probes.runners), each
    variant compiled here and run once."""
    return mm_probes.runners(problem, device, compile_graph)


# Lowerings of one graph at most: a lowering after the first replays every earlier answer, so
# it meets a new mm question only where a measured answer changed an operand's layout
MAX_LOWERINGS = 3
PROVISIONAL = "extern"   # what a lowering does with a matmul whose question is not answered yet


def interpreting() -> bool:
    """Whether Triton's interpreter runs kernels (TRITON_INTERPRET, read as Triton reads it)."""
    return os.environ.get("TRITON_INTERPRET", "0").strip().lower() in ("1", "true", "yes", "on", "y")


def _lower(gm, example_inputs, stats, ctx: CompileContext) -> GraphLowering:
    """The graph lowered with the mm point's answers: a question the point can answer only by
    measuring (max-autotune: no confident heuristic, nothing cached) is lowered as ATen and
    recorded; after lowering, outside the tracer's fake mode, every recorded question is
    measured (`_measure_mm_questions`), and where an answer is the template the graph is
    lowered again with it, every other answer replayed (pad_mm's and the mm point's)."""
    answers, lowerings = None, 0
    while True:
        g = GraphLowering(gm, example_inputs, stats, ctx, answers=answers)
        g.lower()
        lowerings += 1
        if not g.mm_questions:
            return g
        measured = _measure_mm_questions(g.mm_questions, stats, ctx)
        stands = all(c == PROVISIONAL for c in measured)
        if stands or lowerings == MAX_LOWERINGS:   # (then the provisional choices stay)
            for choice in measured:
                stats.count_mm_backend(choice if stands else PROVISIONAL)
            return g
        for (key, i, _, _), choice in zip(g.mm_questions, measured):
            g.answers[key][i] = choice
        answers = g.answers
        # counts of the lowering dropped; the probes' kernels built ahead stay counted
        fresh = stats_mod.GraphStats(graph=stats.graph, prebuilt=stats.prebuilt)
        for f in dataclasses.fields(fresh):
            setattr(stats, f.name, getattr(fresh, f.name))


def _measure_mm_questions(questions, stats, ctx: CompileContext) -> list:
    """The mm point's answers to a lowering's questions (see `_lower`), in order: each problem
    measured with its probes (`mm_runners`), which are built ahead in one batch on the compile
    workers (CUDA; not for a dynamic graph's shape); a problem asked again finds the answer its
    first measurement stored."""
    from tuner.bench import real_tensors
    from tuner.points.mm import decide_mm_backend
    out = []
    with real_tensors():
        if not ctx.dynamic:
            # (padded problems' probes build as they are measured)
            distinct: dict = {}
            for _, _, problem, device in questions:
                if not problem.padded:
                    distinct.setdefault(problem.signature(), (problem, device))
            stats.prebuilt += mm_probes.prebuild(list(distinct.values()), compile_graph)
        for _, _, problem, device in questions:
            try:
                choice = decide_mm_backend(problem, lambda p=problem, d=device: mm_runners(p, d),
                                           device=device, measure=True)
            except Exception as e:   # noqa: BLE001 - the point failing leaves the ATen call
                log.warning("mm point failed for %s (%s: %s); ATen", problem.signature(),
                            type(e).__name__, e)
                choice = PROVISIONAL
            out.append(choice)
    return out


def _compile_graph(gm, example_inputs, ctx: CompileContext):
    options = ctx.options
    start = time.perf_counter()
    # a graph compiled before (here, or on a machine sharing the remote cache) is rebuilt from
    # its stored sources and configs: no lowering, no tuning (compiler/graph_cache.py)
    record = graph_cache.Record.of(gm, example_inputs, ctx)
    if not ctx.probe:   # (a cold backend call links dynamo's graph to this key: graph_front)
        graph_front.note(gm, record.key, ctx.inference)
    if record.key is not None:
        hit = graph_cache.load(record.key, ctx, start, load_kernel, _PUBLIC_OPS)
        if hit is not None:
            _show_source(hit.stats.source, gm)
            return hit
    # a probe (a point measuring its choices on a graph of its own) leaves the stats alone
    stats = stats_mod.new(keep=not ctx.probe)
    autotune, probe, dynamic = ctx.autotune, ctx.probe, ctx.dynamic
    reinplace_input_scatters(gm)   # a KV cache's index_copy_ stays in place
    # a late last reader moved up (a shortcut's convolution)
    reordered = reorder_for_memory(gm) if ctx.options.get("memory_reorder", True) else 0
    g = _lower(gm, example_inputs, stats, ctx)
    stats.reordered = reordered   # (after _lower, which starts the counts afresh per lowering)
    kernels = any(not isinstance(n, ir.Extern) for n in g.nodes)
    if g.device.type == "cpu" and kernels and not interpreting():
        # Triton runs kernels on a GPU unless its interpreter is on: said now, not by a failed
        # first launch ("cannot be accessed from Triton (cpu tensor?)") and a second run in ATen
        raise RuntimeError("CPU tensors need Triton's interpreter: set TRITON_INTERPRET=1 "
                           "before importing torch to run generated kernels on them")
    stats.nodes = len(g.nodes)
    sched = Scheduler(g)
    groups = sched.fuse()
    stats.fused_nodes = sched.fused_nodes
    max_r = int(options.get("max_persistent_r", 8192))
    budget_s = ctx.tune_budget_s   # a probe's own tuning budget (else the setting)
    ns = base_namespace()
    steps, kernel_sources = [], []
    probes = {}   # pointwise groups' kernels, built once: for combining, then for codegen
    bodies = {}   # pointwise groups' foreach bodies (codegen/combo.py table_body) and kernels
    if options.get("combo_kernels", True):
        def combinable(grp):
            if grp.kind != "pointwise":
                return False
            probes[id(grp)] = TritonKernel(grp, sched, max_persistent_r=max_r)
            return combo.combinable(probes[id(grp)])

        def body_key(grp):
            k = TritonKernel(grp, sched, max_persistent_r=max_r)
            body = combo.table_body(k)
            if body is None:
                return None
            bodies[id(grp)] = (body, k)
            return body
        groups = sched.combine(groups, combinable,
                               max_subs=int(options.get("combo_max_subkernels", 32)),
                               max_args=int(options.get("combo_max_args", 200)),
                               body_key=body_key if options.get("foreach_kernels", True) else None)
    # a probe (the mm point timing its choices) tunes its template only: the kernels beside
    # it (the extern side's epilogue, the row sum standing for a LayerNorm) are alike on both
    # sides and launch default mode's config; searching them costs compile time and decides
    # nothing (figures: docs/PERF_NOTES.md, "Figures behind constants")

    def add_kernel(i, grp, k, src, kind, label):
        """Load a generated kernel, give the wrapper its launcher and record it in stats."""
        tune = autotune and (not probe or kind == "template")
        src = _named_by_content(k, src)
        size_args = ()
        if g.sizes is not None:   # the size symbols the kernel reads: arguments after the pointers
            size_args = tuple(n for n in sorted(s.name for s in g.sizes.hints)
                              if re.search(rf"\b{n}\b", src))
            if size_args and kind in ("foreach", "combo", "template"):
                raise Unsupported(f"symbolic sizes in a {kind} kernel")
            src = _with_size_params(src, k.name, size_args)
        fn = load_kernel(src, k.name)
        kname = f"kernel{i}"
        extents = None   # a sized kernel's launch extents over its size arguments
        if kind == "foreach":   # every part's buffers, part-major; addresses go in a table
            arg_names = k.arg_names
            ns[kname] = ForeachLauncher(fn, k.meta(src, dynamic), k.slots, len(grp) * k.ncol,
                                        k.body_of, k.written, tune, stats=stats,
                                        budget_s=budget_s)
            stored = [n for n in k.args if k.arg_kind[n] != "in"]
        else:
            arg_names = list(k.args)
            outs = [j for j, n in enumerate(arg_names) if k.arg_kind[n] != "in"]
            meta = k.meta(src, dynamic)
            if size_args:   # launched over extents computed per call from the sizes
                extents = (size_args, meta.xnumel, meta.ynumel, meta.rnumel)
                meta = dataclasses.replace(meta, xnumel=g.sizes.hint(meta.xnumel),
                                           ynumel=None if meta.ynumel is None else g.sizes.hint(meta.ynumel),
                                           rnumel=None if meta.rnumel is None else g.sizes.hint(meta.rnumel))
            hints = None if not size_args else \
                tuple(g.sizes.hints[next(s for s in g.sizes.hints if s.name == n)] for n in size_args)
            ns[kname] = Launcher(fn, meta, outs, tune, stats=stats, budget_s=budget_s, extents=extents,
                                 size_hints=hints)
            stored = [arg_names[j] for j in outs]
        # a kernel over a data-dependent number of rows launches only when there is one (u0 may
        # be 0 this call; a reduction over no element still runs); other sizes are never 0
        # (dynamo specializes sizes 0 and 1)
        rows = grp.space()[0] if g.sizes is not None and kind not in ("foreach", "combo") else 0
        when = (f"{expr_source(rows)} > 0" if isinstance(rows, SymSize) and
                rows.expr.free_symbols & g.sizes.unbacked else None)
        steps.append(("kernel", grp, kname, arg_names + list(size_args), stored, when))
        kernel_sources.append(f"# {kname}: {label}\n" + src)
        record.kernel(kname, k.name, src, label, extents)
        stats.kernels += 1
        stats.kernel_names.append(kname)
        stats.kernel_kinds.append(kind)
        stats.kernel_labels.setdefault(k.name, label[:300])

    for i, grp in enumerate(groups):
        if isinstance(grp, list) and all(id(m) in bodies for m in grp):   # a table kernel
            k = combo.ForeachKernel([bodies[id(m)][1] for m in grp], [bodies[id(m)][0] for m in grp])
            add_kernel(i, grp, k, k.codegen(), "foreach",
                       f"foreach of {len(grp)} ({len(k.bodies)} bodies) over {k.numels}")
            continue
        if isinstance(grp, list):   # independent pointwise groups in one launch
            k = combo.ComboKernel([probes[id(m)] for m in grp], name="tk_combo")
            add_kernel(i, grp, k, k.codegen(), "combo", f"combo of {len(grp)} over {k.numels}")
            continue
        if grp.kind == "template":   # a matmul with its fused epilogue
            k = TemplateKernel(grp, sched, max_persistent_r=max_r, name="tk_template")
            add_kernel(i, grp, k, k.codegen(), "template", f"template over {k.template.ranges} x "
                       f"K={k.k}, nodes {[n.name for n in grp.nodes]}")
            continue
        if grp.kind == "extern":
            node = grp.nodes[0]
            ns[f"{node.name}_op"] = _PUBLIC_OPS.get(node.op, node.op)
            record.extern(f"{node.name}_op", node.op)
            steps.append(("extern", node))
            continue
        k = probes.pop(id(grp), None) or (ScanKernel(grp, sched) if grp.kind == "scan" else
                                          TritonKernel(grp, sched, max_persistent_r=max_r))
        kind = k.kind
        k.name = f"tk_{kind}"   # (add_kernel appends a hash of its source: _named_by_content)
        src = k.codegen()
        if k.xnumel == 0 or not k.args:
            # nothing to compute (zero elements): its outputs are still allocated, empty
            steps.append(("alloc", [n for n in k.args if k.arg_kind[n] != "in"]))
            continue
        add_kernel(i, grp, k, src, kind, f"{kind} over {k.space}, nodes {[n.name for n in grp.nodes]}")
    # the launchers that tune on the graph's first call: the last one prints the graph's report
    stats.tune_pending = sum(1 for v in ns.values() if isinstance(v, Launcher) and v.config is None)
    wrapper_gen = WrapperCodegen(g, sched, steps)
    wrapper_gen.donated = ctx.donated
    ns.update(g.constants)
    # the devices the wrapper allocates on (constants are held, never allocated)
    devices = {torch.device(b.device) for b in g.buffers.values() if not isinstance(b, ir.ConstantBuffer)}
    dev = next(iter(devices)) if len(devices) == 1 else None
    alloc = alloc_namespace(dev)
    if alloc:
        # one device: allocate with the C allocator (on CUDA under a device guard for the call)
        wrapper_gen.fast_alloc = dev.type
        ns.update(alloc)
        if dev.type == "cuda":
            wrapper_gen.device_index = dev.index if dev.index is not None else torch.cuda.current_device()
    if autotune and not probe and not dynamic and dev is not None and dev.type == "cuda":
        # every tuning kernel's first candidates built now, in one batch on the compile
        # workers, not one kernel's batch after another as the first call tunes them
        stats.prebuilt += prebuild([v for v in ns.values() if isinstance(v, Launcher)], dev)
    if (options.get("precompile") or g.mutated_inputs) and dev is not None:
        # every kernel built now, in parallel, not one by one on the first call; always for a
        # graph writing its inputs, where a kernel Triton cannot build fails the compile (the
        # graph runs in ATen) before any kernel wrote an input (FirstCallGuard also restores
        # written inputs from a snapshot where one fits in memory)
        precompile([v for v in ns.values() if isinstance(v, Launcher)], dev, strict=bool(g.mutated_inputs))
    wrapper = wrapper_gen.generate()
    ns.update(wrapper_gen.objects)
    plan = wrapper_gen.plan
    stats.planned_peak_bytes, stats.unplanned_bytes = plan.peak_bytes, plan.unplanned_bytes
    stats.donated_reused_bytes = plan.donated_reused_bytes
    if plan.peak_bytes is not None:
        log.debug("graph %d memory plan: peak %d bytes, %d buffer(s) in a dead one's storage; "
                  "%d bytes without reuse or frees", stats.graph, plan.peak_bytes,
                  sum(a[0] != "alloc" for a in plan.actions.values()), plan.unplanned_bytes)
    source = source_text(kernel_sources, wrapper)
    stats.source = source
    _show_source(source, gm)
    code = compile(wrapper, f"<tuner wrapper {len(stats_mod.graphs())}>", "exec")
    exec(code, ns)
    stats.compile_seconds = time.perf_counter() - start
    mutated = tuple(b.arg_index for b in g.inputs if b is not None and b.name in g.mutated_inputs)
    reused = tuple(b.arg_index for b in g.inputs if b is not None and b.name in plan.storage)
    # stored after its first successful call, when the graph is cacheable
    return record.finish(CompiledGraph(ns["call"], stats, mutated, reused), g, ns, wrapper,
                         wrapper_gen.objects, dev)
