"""`torch.compile(fn, backend="tuner", mode=..., options=...)`.

Capture: dynamo hands us an FX graph, whose constant attention masks are folded away first
(compiler/fold.py), whose eval-mode batch norms fold into their convolutions under freeze
(compiler/freeze.py) and whose 2-D convolutions may be converted to channels-last (the layout
point, compiler/channels_last.py); AOTAutograd (with PyTorch's own decompositions)
splits it into forward/backward ATen graphs, each compiled by `compile_graph`. Modes:
"default" and "max-autotune-no-cudagraphs" launch directly; "reduce-overhead" and
"max-autotune" replay CUDA graphs (on CUDA inputs); "max-autotune*" tunes every kernel
through tuner.engine on its first call. options (tuner.settings.COMPILE_OPTIONS; another key
is a ValueError listing these; the compiler's own flags live in compiler/context.py): {"max_persistent_r": int (default 8192),
"max_autotune": bool, "cudagraphs": bool, "cudagraph_min_launches": int (a graph of fewer
kernel/extern launches runs directly; default 2; so does one of more than
CUDAGRAPH_INPUTS_PER_LAUNCH tensor inputs per launch, an optimizer step), "cudagraph_address_replay": bool (replay
without input copies when inputs sit where they were recorded; default True), "pad_mm":
"auto" | "always" | "never" (default: the TUNER_PAD_MM setting), "mm": "auto" | "template" |
"extern" | "splitk" (default: the TUNER_MM setting), "mm_split_k": int (K slices under
mm="splitk"; default 4), "combo_kernels": bool (independent
pointwise kernels share launches; default True), "combo_max_subkernels": int (default 32),
"combo_max_args": int (pointer arguments per combo launch; default 200), "foreach_kernels": bool
(combined kernels of few distinct bodies take their pointers from a table: one compiled body
per launch, any number of tensors; default True), "precompile": bool (build every kernel of a
graph in a thread pool when it is compiled, not one by one on its first call; default False,
not yet measured), "round_intermediates": bool (round every half/bfloat16 op result to its
dtype as eager does; default False: fused values stay in fp32 until they are stored, as the
stock compiler keeps them; explicit casts always round), "layout": "auto" | "channels_last" |
"keep" (graphs with 2-D convolutions; default: the TUNER_LAYOUT setting), "freeze": bool
(parameters and buffers are constants, kept as compiled: eval-mode batch norms fold into their
convolutions in graphs that want no gradient, compiler/freeze.py; default: TUNER_FREEZE),
"memory_reorder": bool (a buffer's late last reader, such as a shortcut's convolution, runs
earlier when that frees memory, compiler/reorder.py; default True), "cudagraph_shared_pools":
bool (the forward and backward graphs of one compiled function record into shared CUDA graph
memory pools, compiler/cudagraphs.py; default False: it took 556 MiB off GPT-2's max-autotune
training step's reserved memory but added 2.9 GiB to ResNet-50's, whose forward then recorded
a second slot: a zero_grad inside the compiled function clears the gradients only after the
forward's graph; only graphs replaying on the caller's addresses share), "cudagraph_copy_in":
bool (a graph of fixed sizes whose results are >= 256 MiB and whose moving inputs are at most
1/16 of that, a training step's forward, copies its inputs in and records once for any batch
address instead of once per address pattern; default True)}. torch.compile takes a
mode or options, not both: with a mode, options come from the TUNER_COMPILE_OPTIONS setting.
Dynamo finds the backend by name through the `torch_dynamo_backends` entry point in
pyproject.toml.
"""
from __future__ import annotations

import contextlib
import gc
import logging

import torch

from tuner.search.base import first_line

from . import stats as stats_mod
from .context import CompileContext
from .specialize import SymbolicVariants, eager, is_symbolic, shape_key, symbolic_positions
from .torch_compat import (aot_backend, data_dependent_errors, decomposition_table, donated_inputs,
                           has_unbacked)

log = logging.getLogger("tuner.compiler")

MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
# CUDA graphs only for graphs with at most this many tensor inputs per launch: a replay saves
# a few microseconds of host time per launch but checks each input's address, which costs
# more than it saves on an optimizer step over hundreds of tensors (docs/PERF_NOTES.md).
CUDAGRAPH_INPUTS_PER_LAUNCH = 25


def tuner_backend(gm, example_inputs, mode=None, options=None, **kwargs):
    mode = mode or "default"
    from tuner.settings import (LAYOUT_CHOICES, check_all, check_compile_options, settings,
                                unknown_names)
    if mode not in MODES:
        raise ValueError(f"tuner backend: {unknown_names([mode], MODES, 'mode')}")
    check_compile_options(options or {}, "tuner backend: torch.compile(options=...)")
    # every TUNER_* value parses (a bad TUNER_BENCH_REPS, TUNER_LOGS or TUNER_COMPILE_OPTIONS
    # fails the compile here, naming the variable, instead of each candidate failing to time)
    check_all()
    options = {**settings.compile_options, **(options or {})}   # code wins over the setting

    from .lowerings.matmul import MM_MODES, PAD_MM_MODES
    if options.get("pad_mm", "auto") not in PAD_MM_MODES:
        raise ValueError(f"tuner backend: options['pad_mm']={options['pad_mm']!r}; "
                         f"expected one of {', '.join(PAD_MM_MODES)}")
    if (options.get("mm") or "auto") not in MM_MODES:   # (None: the TUNER_MM setting)
        raise ValueError(f"tuner backend: options['mm']={options['mm']!r}; "
                         f"expected one of {', '.join(MM_MODES)}")
    if options.get("layout") is not None and options["layout"] not in LAYOUT_CHOICES:
        raise ValueError(f"tuner backend: options['layout']={options['layout']!r}; "
                         f"expected one of {', '.join(LAYOUT_CHOICES)}")
    split = options.get("mm_split_k")
    if split is not None and (isinstance(split, bool) or not isinstance(split, int) or split < 1):
        raise ValueError(f"tuner backend: options['mm_split_k']={split!r}; expected an int >= 1")
    settings.pad_mm   # a bad TUNER_PAD_MM fails here, before any graph is lowered
    layout = options.get("layout") or settings.layout
    if should_prestart(mode, example_inputs):
        _prestart_compile_workers()
    use_graphs = options.get("cudagraphs", mode in ("reduce-overhead", "max-autotune"))
    # one-kernel graphs run directly and multi-kernel ones replay on the caller's tensors, so a
    # memory-bound graph pays no copies in and out (docs/PERF_NOTES.md)
    min_launches = int(options.get("cudagraph_min_launches", 2))
    address_replay = bool(options.get("cudagraph_address_replay", True))
    # the forward and backward of this function record into the same pools (slot i of each
    # ring shares pool i): the backward's intermediates reuse the forward's memory
    shared_pools = [] if options.get("cudagraph_shared_pools", False) else None
    copy_in = bool(options.get("cudagraph_copy_in", True))

    def build(gm_, inputs_, ctx):
        """One graph of concrete sizes -> a boxed callable (compiled; CUDA-graphed per mode)."""
        from .compile_graph import compile_graph
        try:
            compiled = compile_graph(gm_, inputs_, ctx=ctx)
        except Exception as e:   # a model never fails to compile because of us: ATen runs it
            return graph_fallback(gm_, e)
        return wrap(compiled, gm_, inputs_)

    def build_symbolic(gm_, inputs_, args, ctx):
        """A graph with symbolic sizes compiled keeping them (compiler/sizes.py) for the sizes
        of `args`: (guard check or None, boxed callable). Raises where it cannot."""
        from .compile_graph import compile_graph
        from .sizes import Unsupported, bind, shape_env_of
        sv = bind(inputs_, args)
        env = shape_env_of(inputs_)
        before = len(env.guards) if env is not None else 0
        # kernel kinds that hold sizes as constants stay out: ATen's matmuls, no combined kernels
        # (pad_mm pads only a matmul's fixed dims there: lowerings/matmul.py)
        opts = dict(ctx.options, combo_kernels=False, foreach_kernels=False, mm="extern")
        compiled = compile_graph(gm_, inputs_, ctx=ctx.with_(sizes=sv, options=opts))
        if env is not None and len(env.guards) != before:
            raise Unsupported("the lowering decided on dynamo's own size symbols")
        compiled.stats.symbolic, compiled.stats.guards = True, len(sv.guards)
        positions = symbolic_positions(inputs_)
        # (no CUDA graph replays a graph whose allocations depend on data: sv.unbacked)
        return sv.checker(), wrap(compiled, gm_, args, lambda a: shape_key(a, positions),
                                  replay=not sv.unbacked)

    def wrap(compiled, gm_, inputs_, shape_of=None, replay=True):
        """compiled, CUDA-graphed where the mode asks for it and it pays; `shape_of` (a graph
        with symbolic sizes): args -> the call's sizes, one recording per recurring shape;
        never for a graph with data-dependent sizes (`replay` False)."""
        call, st, mutated = compiled, compiled.stats, compiled.mutated_inputs
        launches = st.kernels + sum(st.externs.values())
        # A graph of one launch saves a few microseconds of host time but may cost copies of
        # inputs at new addresses (and of outputs a caller keeps): it runs directly. So does
        # one of many inputs per launch: a replay first checks every input's address, and an
        # optimizer step (2 launches, 5 tensors per parameter) spent more host time on that
        # than its GPU step took.
        tensors = sum(isinstance(t, torch.Tensor) for t in inputs_)
        if (use_graphs and replay and launches >= min_launches
                and tensors <= CUDAGRAPH_INPUTS_PER_LAUNCH * launches
                and any(getattr(t, "is_cuda", False) for t in inputs_)):
            from .cudagraphs import CUDAGraphed
            call = CUDAGraphed(call, address_replay, shape_key=shape_of,
                               max_shapes=settings.cudagraph_shapes,
                               pools=shared_pools if shape_of is None else None, copy_in=copy_in)
        return FirstCallGuard(call, gm_, st, mutated, compiled.donated_inputs)

    def build_unbacked(gm_, inputs_, ctx):
        """A graph of concrete input sizes holding data-dependent ones (nonzero's count): it
        can only compile with those kept symbolic; where it cannot, ATen runs it (counted in
        stats.symbolic_fallbacks and the graph's graph_fallback)."""
        try:
            check, call = build_symbolic(gm_, inputs_, inputs_, ctx)
        except Exception as e:   # a model never fails to compile because of us: ATen runs it
            stats_mod.note_symbolic_fallback(first_line(e, 200))
            return graph_fallback(gm_, e)
        assert check is None, "a guard on a graph whose inputs hold no size symbol"
        return call

    def compiler(gm_, inputs_, inference=False, donated=frozenset()):
        ctx = CompileContext(mode, options, inference=inference, donated=donated)
        unbacked = has_unbacked(gm_)
        if unbacked and not is_symbolic(inputs_):
            return build_unbacked(gm_, inputs_, ctx.with_(dynamic=True))
        if is_symbolic(inputs_):
            dyn = ctx.with_(dynamic=True)   # tuning decisions shared per size bucket
            return SymbolicVariants(gm_, inputs_, lambda g, ins, args: build_symbolic(g, ins, args, dyn),
                                    settings.shape_limit, graph_fallback)
        return build(gm_, inputs_, ctx)

    def inference_compiler(gm_, inputs_):
        # no backward will read this graph's outputs: they may keep padded layouts (pad_mm)
        return compiler(gm_, inputs_, inference=True)

    def backward_compiler(gm_, inputs_):
        # the saved activations AOTAutograd donated: their storage is reused once dead (not
        # under CUDA graphs, which copy every output on memory they do not own alone)
        return compiler(gm_, inputs_, donated=frozenset() if use_graphs else donated_inputs(inputs_))

    # a graph compiled before is found from dynamo's graph itself: no passes, no AOTAutograd
    from . import graph_front
    front = graph_front.key(gm, example_inputs, mode, options)
    hit = None
    if front is not None:
        from .compile_graph import _PUBLIC_OPS, load_kernel
        hit = graph_front.load(front, mode, options, load_kernel, _PUBLIC_OPS)
    if hit is not None:
        return boxed(wrap(hit[0], gm, example_inputs))
    # TUNER_FALLBACK_RANDOM=none: dropout decomposes into a draw of generated kernels
    # (the table is built after the lookup: a hit needs none)
    keep_dropout = settings.fallback_random != "none"
    backend = aot_backend(compiler, backward_compiler, decomposition_table(keep_dropout),
                          inference_compiler, settings.partitioner)
    from tuner.points import answers
    # the whole-graph points' answers the passes read: a link holds only while they stand
    with gc_paused(), answers.watch() as consulted:
        # hand-written attention becomes SDPA before AOTAutograd (compiler/attn_patterns.py),
        # and before the fold, which may then drop the new call's constant mask
        if settings.attention_patterns:
            _replace_attention(gm)
        # constant attention masks go before AOTAutograd picks SDPA's backend (compiler/fold.py)
        _fold_masks(gm, settings.fold_max_elements)
        # a decode step's attention over repeated KV heads reads them in place (compiler/gqa_decode.py)
        # (a graph of dynamic sizes replays a size only when it recurs: a growing cache never)
        _gqa(gm, example_inputs, settings.gqa_decode, CompileContext(mode, options).autotune,
             use_graphs and not is_symbolic(example_inputs))
        # frozen parameters: batch norms folded into convolutions, before the layout pass
        # converts the folded weights (compiler/freeze.py)
        _freeze(gm, example_inputs, options)
        # the layout before AOTAutograd too: forward and backward agree (compiler/channels_last.py)
        _channels_last(gm, example_inputs, layout, CompileContext(mode, options).autotune)
        fast = _inplace_update(gm, example_inputs,
                               lambda g, ins: build(g, ins, CompileContext(mode, options, inference=True)))
        if fast is not None:
            return fast
        try:
            with graph_front.Watch(len(example_inputs)) as watch:
                compiled = backend(gm, example_inputs)
            if front is not None and watch.link() is not None:
                graph_front.store(front, watch.link(), consulted)
        except (torch._dynamo.exc.TorchDynamoException, *data_dependent_errors()):
            # dynamo's own control flow (a restart, a skip), and sizes or values known only
            # at run time, which dynamo answers itself (it runs that code in eager)
            raise
        except Exception as e:   # AOTAutograd cannot capture the graph: ATen runs it
            graph_fallback(gm, e, when=" (AOTAutograd)")
            return lambda *args: _run_gm(gm, args)
        return AOTFirstCallGuard(compiled, gm)


def boxed(fn):
    """fn (called with one list of inputs, which it empties) as a backend's result, called
    boxed or with the inputs as arguments, as AOTAutograd's result is."""
    def call(*args):
        if len(args) == 1 and isinstance(args[0], list):   # (graph inputs are never lists)
            return fn(args[0])
        return fn(list(args))
    call._boxed_call = True
    return call


def _replace_attention(gm):
    """gm's attention chains replaced with SDPA calls (compiler/attn_patterns.py); a chain
    that fails to match or to rewrite stays as written."""
    from .attn_patterns import note_replaced, replace_attention
    try:
        names = replace_attention(gm)
    except Exception as e:   # noqa: BLE001 - the graph compiles with its attention as written
        log.debug("attention pattern replacement failed: %s", e)
        return
    note_replaced(names)


def _fold_masks(gm, max_elements):
    """gm's constant attention masks folded (compiler/fold.py); a failure leaves gm as it is."""
    from .fold import fold_constant_masks, note_folds
    try:
        folds = fold_constant_masks(gm, max_elements)
    except Exception as e:   # noqa: BLE001 - the graph compiles with its masks
        log.debug("attention mask folding failed: %s", e)
        return
    note_folds(folds)


def _gqa(gm, example_inputs, mode, autotune, replayed):
    """In an inference graph, one-token SDPA over repeated KV heads as tuner::gqa_decode
    where the decode-attention point says so (compiler/gqa_decode.py; `replayed`: under CUDA
    graphs); a failure leaves gm as it is."""
    from tuner.points.decode_attention import decode_attention_decision

    from .freeze import is_inference
    from .gqa_decode import decode_attention_timer, note_rewrites, rewrite_gqa_decode
    if mode == "sdpa" or not is_inference(example_inputs, gm):
        return
    timer = decode_attention_timer if autotune else None
    try:
        note_rewrites(rewrite_gqa_decode(gm, lambda p: decode_attention_decision(p, mode, timer), replayed))
    except Exception as e:   # noqa: BLE001 - the graph compiles with its attention as written
        log.debug("gqa decode rewrite failed: %s", e)


def _freeze(gm, example_inputs, options):
    """With freeze on, an inference graph's eval-mode batch norms folded into their
    convolutions (compiler/freeze.py); a failure leaves gm as it is."""
    from .freeze import fold_conv_bn, freeze_enabled, is_inference, note_folds
    if not freeze_enabled(options) or not is_inference(example_inputs, gm):
        return
    try:
        folds = fold_conv_bn(gm, example_inputs)
    except Exception as e:   # noqa: BLE001 - the graph compiles with its batch norms
        log.debug("batch norm folding failed: %s", e)
        return
    note_folds(folds)


def _channels_last(gm, example_inputs, layout, autotune=False):
    """gm's convolutions converted to channels-last where the layout point says so
    (compiler/channels_last.py); when tuning (max-autotune*), on CUDA, the point measures the
    graph both ways if neither the user nor the cache answers. A failure leaves gm as it is."""
    from .channels_last import convert_graph, note_layout
    try:
        result = convert_graph(gm, example_inputs, layout,
                               measure_on=("cuda",) if autotune else ())
    except Exception as e:   # noqa: BLE001 - the graph compiles in its own layout
        log.debug("layout pass failed: %s", e)
        return
    note_layout(result)


def _run_gm(gm, args):
    """gm called as dynamo calls a backend's result: fn(*args), or boxed, fn(list), which the
    callee empties."""
    if len(args) == 1 and isinstance(args[0], list):   # (graph inputs are never lists)
        a = list(args[0])
        args[0].clear()
        return gm(*a)
    return gm(*args)


def _raised_in_aot_runtime(err) -> bool:
    """Whether err was raised by AOTAutograd's own runtime code (its wrappers around the
    compiled graphs), not by a compiled graph, an ATen op or the caller's code."""
    tb = err.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    path = tb.tb_frame.f_code.co_filename.replace("\\", "/")
    return "/torch/_functorch/" in path


class AOTFirstCallGuard:
    """What AOTAutograd returns, run with a guard on its first call: when AOTAutograd's own
    runtime fails there (an LSTM under torch._dynamo.config.allow_rnn: mkldnn_rnn_layer's
    meta says it returns a tensor that is saved for backward, the real op returns none, and
    AOTAutograd asserts; the stock compiler fails the same way), the graph runs in ATen from
    then on (named in stats.graph_fallback, one warning per reason). A failure anywhere else
    (a compiled graph that ATen cannot run either, the caller's inputs) is the caller's and
    propagates, as does one that ATen raises too. The graphs AOTAutograd compiled guard
    their own first calls (FirstCallGuard); this one covers the code around them. Open: the
    compiled forward ran before such a failure, so a write it keeps in the graph (a training
    BatchNorm's running stats) is made again by the retry; the LSTM's graph writes nothing,
    and AOTAutograd applies its own input writes after the point where it asserts. A failure
    of its runtime around a backward graph is not covered (the forward's result is out)."""

    def __init__(self, fn, gm):
        self.fn, self.gm = fn, gm
        self.checked = False
        if hasattr(fn, "_boxed_call"):
            self._boxed_call = fn._boxed_call

    def __call__(self, *args):
        if self.checked:
            return self.fn(*args)
        # called boxed (one list, which the callee empties) or not: keep the inputs for a retry
        saved = (list(args[0]),) if len(args) == 1 and isinstance(args[0], list) else args
        try:
            out = self.fn(*args)
        except torch.OutOfMemoryError:
            raise
        except Exception as e:
            if not _raised_in_aot_runtime(e):
                raise
            try:
                out = _run_gm(self.gm, saved)
            except Exception:
                raise e from None   # ATen fails too: the inputs' fault
            graph_fallback(self.gm, e, when=" (AOTAutograd, first call)")
            gm = self.gm
            self.fn = lambda *a: _run_gm(gm, a)
        self.checked = True
        return out


def _inplace_update(gm, example_inputs, build):
    """A graph that only writes its inputs in place and wants no gradient (an optimizer step),
    compiled without AOTAutograd (compiler/inplace.py); None for any other graph."""
    from .inplace import functional_graph
    try:
        got = functional_graph(gm, example_inputs)
    except Exception as e:   # noqa: BLE001 - AOTAutograd takes the graph instead
        log.debug("in-place fast path declined: %s", e)
        return None
    if got is None:
        return None
    aten_gm, args, lifted = got
    call = build(aten_gm, args)

    def run(*xs):
        return call([*xs, *lifted])
    return run


@contextlib.contextmanager
def gc_paused():
    """The cyclic garbage collector off while a graph is traced and compiled: tracing makes
    hundreds of thousands of short-lived objects, and the full collections they trigger cost
    about a tenth of the compile (a 148-tensor AdamW step on CPU: backend 6.2-6.5 s with it,
    5.6-5.7 s without). Collection resumes, and catches up, when the compile ends."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def should_prestart(mode: str, example_inputs) -> bool:
    """Whether this compile starts the compile worker processes now: max-autotune (it tunes
    every kernel, in batches the workers compile) on CUDA inputs, TUNER_COMPILE_PRESTART on."""
    from tuner.settings import settings
    return (mode.startswith("max-autotune") and settings.compile_prestart
            and any(getattr(t, "is_cuda", False) for t in example_inputs))


def _prestart_compile_workers() -> None:
    """Max-autotune compiles tuning candidates in worker processes, each of which imports
    torch and Triton first (seconds): start them now, while the graph is lowered."""
    from tuner.bench import compile_processes
    n = compile_processes()
    if n > 1:
        from tuner import compile_workers
        compile_workers.prestart_async(n)


def graph_fallback(gm, err, stats=None, when=""):
    """The graph run by ATen after the compiler failed on it: the reason goes to `stats` (a new
    GraphStats when the compile itself failed), with one warning per reason."""
    reason = first_line(err, 200)
    if "active drivers" in reason:   # Triton found no GPU: CPU tensors need its interpreter
        reason = ("Triton found no GPU driver; to run generated kernels on CPU tensors set "
                  "TRITON_INTERPRET=1 before importing torch")
    st = stats if stats is not None else stats_mod.new()
    st.graph_fallback = reason + when
    stats_mod.warn_once(("graph", reason), f"tuner: compiling a graph failed ({reason}); it runs in ATen")
    return eager(gm)


class FirstCallGuard:
    """Runs a compiled graph; if its first call fails (a generated kernel that Triton cannot
    compile, say), the graph falls back to ATen for good and the call is retried there; an
    error ATen raises too is the caller's and propagates.

    A graph that writes its inputs in place (an optimizer step) may fail in a later kernel
    after an earlier one wrote an input (the step counters): the retry would then apply the
    update twice. Its first call therefore snapshots those inputs and restores them before the
    retry. The snapshot is skipped when the inputs would not fit in half the free memory of
    their device; such graphs still compile every kernel with a known config before the first
    call (compile_graph's strict `precompile`), so a kernel Triton cannot build fails the
    compile, not the call. Open there: a kernel that tunes on its first call (max-autotune)
    or fails at launch after an earlier kernel wrote an input.

    A backward that puts buffers in its donated inputs' storage (compiler/memory_plan.py)
    overwrites saved activations the retry would read: those are snapshotted too, and where
    they do not fit, a failing first call raises its error rather than retry on them."""

    def __init__(self, call, gm, stats, mutated=(), donated=()):
        self.call, self.gm, self.stats = call, gm, stats
        self.mutated = tuple(mutated)     # indices of the inputs the graph writes in place
        self.donated = tuple(donated)     # indices of the donated inputs whose storage it reuses
        self.checked = False
        self._boxed_call = True

    def __call__(self, args):
        if self.checked:
            return self.call(args)
        saved = list(args)
        snapshot = _snapshot(saved, self.mutated + self.donated)
        try:
            out = self.call(args)
        except torch.OutOfMemoryError:
            _restore(saved, snapshot)
            raise   # the caller's condition, not the compiler's: ATen would run out too
        except Exception as e:
            if self.donated and not snapshot:
                raise   # donated inputs may be overwritten: ATen would read garbage
            _restore(saved, snapshot)   # undo what the kernels before the failing one wrote
            fallback = eager(self.gm)
            try:
                out = fallback(saved)
            except Exception:
                raise e from None   # ATen fails too: the input's fault; our message says more
            self.call = graph_fallback(self.gm, e, self.stats, " (first call)")
        self.checked = True
        return out


def _restore(args, snapshot):
    with torch.no_grad():
        for i, copy in snapshot.items():
            args[i].copy_(copy)


def _snapshot(args, indices):
    """Copies of the tensors args[i] for i in indices ({} when there are none, or when they
    would take more than half the free memory of their device)."""
    tensors = {i: args[i] for i in indices if isinstance(args[i], torch.Tensor)}
    if not tensors:
        return {}
    need = sum(t.untyped_storage().nbytes() for t in tensors.values())
    devices = {t.device for t in tensors.values()}
    for dev in devices:
        if dev.type == "cuda":
            free, _ = torch.cuda.mem_get_info(dev)
            if need > free // 2:
                return {}
    try:
        with torch.no_grad():
            return {i: t.detach().clone() for i, t in tensors.items()}
    except torch.OutOfMemoryError:
        return {}
