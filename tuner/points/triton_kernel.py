"""The kernel-config autotuning point: the launch config (block sizes, warps, stages) of every
Triton kernel the compiler generates.

Codegen emits each kernel with a `KernelMeta` (its kind, extents, argument dtypes and source);
everything the choice needs from there is in this package, for every kind. Each kind's config
policy is a class in kernel_kinds.py (`POLICIES`):

    default_config(meta)      the untuned config: what default mode launches, and where the
                              search starts (each kind's hand heuristic, measured on the H100)
    candidate_configs(meta)   the hand-written list an exhaustive search sweeps
    config_space(meta)        the ConfigSpace coordinate descent walks

what the GPU offers (TMA, its SMs, its limits) is probed in kernel_device.py, and a body's
loads, stores and special functions are counted in kernel_body.py. Here:

    features(meta, dtypes)    what a dataset row (TUNER_HEURISTICS=collect) records
    problem_key(meta, dtypes) the cache's problem: the source's hash (identical kernels share a
                              decision), the extents and the arguments' dtypes; in graphs with
                              dynamic sizes, the source with its literals blanked and each
                              extent's power-of-two bucket
    learned_config, shortlisted_configs   what shipped config modules answer for a kernel
    decide_config(...)        one call to tuner.engine.decide (heuristic, cache, then measuring
                              with the caller's launch); its search: coordinate descent from the
                              default (TUNER_SEARCH=coordinate_descent, the default), the
                              candidate list (exhaustive), or coordinate descent stopped after a
                              few measurements (budgeted)
    planned_configs(...)      what decide_config would build first (tuner.engine.plan)

Kinds: "pointwise" (1-D), "pointwise_tiled" (a [YBLOCK, XBLOCK] tile over (ynumel, xnumel)),
"persistent_reduction" and "reduction" (looped; both inner, or `outer` for x-major tiles),
"scan" (cumsum and the like: rows of rnumel, persistent or looped as its RBLOCK says),
"combo" (1-D pointwise parts in one launch), "foreach" (parts with one body, their pointers
in a table), "template" (a matmul over (batch, m, n, k)) and
"scatter" (a fixed config, never tuned).
"""
from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from tuner.points.kernel_body import body_counts
from tuner.points.kernel_kinds import (KINDS, config_dict, config_space, default_config, initial_configs,
                                       itemsize, large_tiles, next_pow2, search_options,
                                       template_extras, to_config)
from tuner.space import Config, ConfigSpace, DeviceLimits

log = logging.getLogger("tuner.points.triton_kernel")

_INT_LITERAL = re.compile(r"\b\d+\b")   # sizes, strides and constants in a kernel's source


@dataclass(frozen=True)
class KernelMeta:
    """What codegen says about one kernel; the point decides its config from this alone.

    xnumel: the launch's x extent (a tiled kernel's x side XN; a combo's sum of parts; a
        template's output elements; a scan's rows). ynumel: a tiled kernel's y side YN (None
        otherwise). rnumel: a reduction's reduced extent, a scan's row length. outer: an
        x-major reduction or scan (its loads are contiguous along x). parts: a combo kernel's
        sub-kernel extents. mm: a template's (batch, m, n, k), mm_dtype its operands' dtype.
        dtypes: the arguments' dtypes as codegen knows them (the runtime key uses the actual
        arguments'). bucketed: compiled for a graph with dynamic sizes (decisions shared per
        size bucket)."""
    kind: str
    source: str = ""
    xnumel: int = 1
    ynumel: int | None = None
    rnumel: int | None = None
    outer: bool = False
    parts: tuple[int, ...] | None = None
    mm: tuple[int, int, int, int] | None = None
    mm_dtype: str = ""
    dtypes: tuple[str, ...] = ()
    bucketed: bool = False
    tma: bool = False      # a template with Hopper's variant (the TMA constexpr; see tma_applies)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kernel kind {self.kind!r}; expected one of {', '.join(KINDS)}")

    @property
    def persistent(self) -> bool:
        """A reduction whose whole row is one block (no loop over r)."""
        return self.kind == "persistent_reduction"

    @property
    def reduction(self) -> bool:
        return self.kind in ("persistent_reduction", "reduction")

    @property
    def namespace(self) -> str:
        return f"triton.{self.kind}"


# -- features and the problem key -------------------------------------------------------------

def dtype_names(args: Sequence[Any]) -> tuple[str, ...]:
    """The arguments' dtypes as the key spells them ("float32", "bfloat16")."""
    return tuple(str(a.dtype).replace("torch.", "") if hasattr(a, "dtype") else type(a).__name__
                 for a in args)   # (a size argument: "int")


def key_dtypes(meta: KernelMeta, args: Sequence[Any]) -> tuple[str, ...]:
    """The dtypes a decision is keyed and described by: the arguments', except for a foreach
    kernel, whose arguments are its tables (its tensors' dtypes are in the meta)."""
    return tuple(meta.dtypes) if meta.kind == "foreach" else dtype_names(args)


def features(meta: KernelMeta, dtypes: Sequence[str] | None = None) -> dict:
    """A kernel problem as a dataset row and a learned module's input: the kind, extents,
    body counts, the arguments' dtypes (names, their count and summed bytes per element),
    the default config (its JSON) and the problem key (which makes each row's problem id
    that of exactly one cache problem)."""
    out: dict[str, Any] = {"kind": meta.kind, "xnumel": meta.xnumel}
    if meta.ynumel is not None:
        out["ynumel"] = meta.ynumel
    if meta.rnumel is not None:
        out["rnumel"] = meta.rnumel
        out["outer"] = meta.outer
    if meta.parts is not None:
        out["parts"] = len(meta.parts)
        out["max_part"] = max(meta.parts)
    if meta.mm is not None:
        out.update(zip(("batch", "m", "n", "k"), meta.mm))
        out["mm_dtype"] = meta.mm_dtype
        if meta.tma:   # (rows of a kernel with Hopper's variant: its TMA configs fit it)
            out["tma"] = True
    names = tuple(meta.dtypes if dtypes is None else dtypes)
    out["dtypes"] = ",".join(names)
    out["args"] = len(names)
    out["arg_bytes"] = sum(itemsize(d) for d in names)
    out.update(body_counts(meta.source))
    from tuner.heuristics.dataset import choice_key
    out["default"] = choice_key(to_config(default_config(meta)))
    out["key"] = problem_key(meta, names)
    return out


def _bucket(n) -> int:
    """The power-of-two size bucket of an extent (the next power of two)."""
    return 1 << max(0, (int(n) - 1).bit_length())


def problem_key(meta: KernelMeta, dtypes: Sequence[str] | None = None) -> str:
    """The tuning cache's problem key: the kernel source (identical kernels share one
    decision; a combo's parts are in it), its extent, and the arguments' dtypes (one source
    can run on several). In a graph with dynamic sizes (compiled per concrete shape) the key is
    the source with its integer literals blanked and each extent's power-of-two bucket: a new
    size in a known bucket reuses the decision (a cache lookup, not a new search)."""
    dtypes = ",".join(meta.dtypes if dtypes is None else dtypes)
    if meta.bucketed:
        canon = _INT_LITERAL.sub("#", meta.source)
        h = hashlib.sha256(canon.encode()).hexdigest()[:24]
        ext = "x".join(str(_bucket(n)) for n in (meta.xnumel, meta.ynumel, meta.rnumel) if n is not None)
        return f"{h}:b{ext}" + (f":{dtypes}" if dtypes else "")
    src = meta.source
    if meta.kind == "foreach":   # one body for any parts: their extents are the problem
        src += repr(meta.parts)
    h = hashlib.sha256(src.encode()).hexdigest()[:24]
    return f"{h}:{meta.xnumel}" + (f"x{meta.ynumel}" if meta.ynumel is not None else "") + \
        (f":{dtypes}" if dtypes else "")


# -- the decision -------------------------------------------------------------------------------

def budget_left(spent_seconds: float) -> float | None:
    """Seconds of tuning left to a graph that spent `spent_seconds` (TUNER_TUNE_BUDGET_S;
    None: unlimited). At 0 or below, kernels still take a heuristic's or the cache's answer
    but measure nothing: they keep their default config."""
    from tuner.settings import settings
    budget = settings.tune_budget_s
    return None if budget <= 0 else budget - spent_seconds


# Template configs decided in this process, by matmul: sizes, dtype and the operands' strides
# (a template kernel's first two arguments). Another template of the same matmul (its fused
# epilogue differs: the mm point's probe with a ReLU, then the model's graph with bias + GELU;
# a layer repeated with another residual) takes that config as its answer instead of a new
# search: on the H100 a second search of a GPT-2 MLP matmul made its max-autotune compile
# 134 s against 37 s for the stock compiler. Bounded (oldest dropped first).
_TEMPLATE_SEEN: dict = {}
_TEMPLATE_SEEN_MAX = 4096


def _mm_signature(meta: KernelMeta, args: Sequence[Any]):
    if meta.kind != "template" or len(args) < 2 or not all(hasattr(a, "stride") for a in args[:2]):
        return None
    return (tuple(meta.mm), meta.mm_dtype, tuple(args[0].stride()), tuple(args[1].stride()), meta.tma)


def forget_templates() -> None:
    """Drop the template configs remembered by matmul (tests; a fresh process starts empty)."""
    _TEMPLATE_SEEN.clear()


# kinds a config module is learned for (`tuner collect triton_kernel --focus KIND`)
LEARNED_KINDS = ("pointwise", "pointwise_tiled", "persistent_reduction", "reduction", "template")


def answer_fits(meta: KernelMeta, cfg: Config, space: ConfigSpace | None = None) -> bool:
    """Whether a config from outside (a learned module) may be launched for this kernel: the
    engine's check of heuristic and cache answers (the kind's space, the default's names and
    fixed values). space: the kernel's, when the caller has it already."""
    space = space if space is not None else config_space(meta)
    default = default_config(meta)
    like = [to_config(default)]
    if meta.tma:   # a kernel with Hopper's variant also takes its configs (the TMA field)
        like.append(to_config(dict(default, TMA=1)))
    return space is not None and space.why_foreign(cfg, like) is None


def meta_from_features(f: dict) -> KernelMeta | None:
    """The KernelMeta a dataset row describes, as far as the space and default need it (the
    kinds of LEARNED_KINDS), or None for another kind."""
    if f.get("kind") not in LEARNED_KINDS:
        return None
    if f["kind"] == "template":
        return KernelMeta("template", xnumel=int(f["xnumel"]),
                          mm=tuple(int(f[d]) for d in ("batch", "m", "n", "k")),
                          mm_dtype=str(f.get("mm_dtype", "")), tma=bool(f.get("tma", False)))
    return KernelMeta(f["kind"], xnumel=int(f["xnumel"]),
                      ynumel=None if f.get("ynumel") is None else int(f["ynumel"]),
                      rnumel=None if f.get("rnumel") is None else int(f["rnumel"]),
                      outer=bool(f.get("outer", False)))


def learned_form(f: dict, choice: str) -> str:
    """A config (JSON) of a dataset row in the form a learned module names it: a persistent
    reduction's blocks as TILE = XBLOCK x RBLOCK (its RBLOCK is the whole row, so an absolute
    config fits one row length only; a tile and warps name a config for any, XBLOCK =
    TILE / RBLOCK); other kinds as they are. `from_learned_form` turns it back per kernel.
    H100 data (tuner learn-configs, persistent_reduction_h100_s0/s1): a shortlist of 5 tiles
    with the default is within 5% of the best on 60 of 64 held-out persistent reductions
    (5 absolute configs: 44, the default alone: 34)."""
    if f.get("kind") != "persistent_reduction":
        return choice
    import json

    from tuner.heuristics.dataset import choice_key
    c = Config.from_json(json.loads(choice))
    kw = dict(c.kwargs)
    if "XBLOCK" not in kw or "RBLOCK" not in kw:
        return choice
    kw["TILE"] = kw.pop("XBLOCK") * kw.pop("RBLOCK")
    return choice_key(Config(kw, num_warps=c.num_warps, num_stages=c.num_stages))


def from_learned_form(meta: KernelMeta, cfg: Config) -> Config | None:
    """A learned module's config for this kernel: TILE back to XBLOCK (the kernel's whole-row
    RBLOCK kept), None where the tile holds no whole row, is not a multiple of one, or asks
    for more rows per program than the measured candidates had (short rows: a tile of 8192
    over rows of 2); a config in the absolute form as it is."""
    if meta.kind == "pointwise_tiled" and "TILE" not in cfg.kwargs:
        # blocks beyond the extents cut to them, as the candidates are
        kw = dict(cfg.kwargs)
        for name, n in (("XBLOCK", meta.xnumel), ("YBLOCK", meta.ynumel)):
            if name in kw and n is not None:
                kw[name] = min(int(kw[name]), next_pow2(n))
        return Config(kw, num_warps=cfg.num_warps, num_stages=cfg.num_stages)
    if "TILE" not in cfg.kwargs:
        return cfg
    if meta.kind != "persistent_reduction":
        return None
    r = default_config(meta)["RBLOCK"]
    tile = int(cfg.kwargs["TILE"])
    if tile < r or tile % r or tile // r > (256 if meta.outer else 128):
        return None
    kw = {k: v for k, v in cfg.kwargs.items() if k != "TILE"}
    kw.update(XBLOCK=tile // r, RBLOCK=r)
    return Config(kw, num_warps=cfg.num_warps, num_stages=cfg.num_stages)


def launched_form(f: dict, choice: str) -> str | None:
    """A learned-form config (JSON) as the point would launch it for a dataset row's kernel,
    back in the learned form (a tiled kernel's blocks cut to its extents), or None where it
    would not launch it: the learner credits a config on problems it was not measured on by
    what it becomes there."""
    from tuner.heuristics.dataset import choice_key
    got = _row_config(f, choice)
    if got is None:
        return None
    meta, cfg = got
    return choice if meta is None else learned_form(f, choice_key(cfg))


def _row_config(f: dict, choice: str):
    """(the row's KernelMeta, the config as launched for it) for a dataset row and a config
    in the learned form; (None, None) for a kind the point does not learn; None where the
    row lacks a field or the config would not be launched."""
    import json
    try:
        meta = meta_from_features(f)
        if meta is None:
            return None, None
        cfg = from_learned_form(meta, Config.from_json(json.loads(choice)))
    except (ValueError, TypeError, KeyError):   # a row missing a field: not credited
        return None
    return None if cfg is None else (meta, cfg)


def device_limits_of(header: dict) -> DeviceLimits | None:
    """The limits of the GPU a dataset was measured on (its header), or None where the header
    does not say."""
    smem = header.get("shared_memory_per_block")
    if not smem:
        return None
    return DeviceLimits(name=str(header.get("gpu_name", "generic")), shared_memory_per_block=int(smem))


def row_config_fits(f: dict, choice: str, device: DeviceLimits | None = None) -> bool:
    """Whether a dataset row's config (its JSON) may be launched for the row's kernel: the
    learner credits only answers the point would accept. device: the measuring GPU's limits
    (device_limits_of the dataset's header); this process's GPU when None."""
    got = _row_config(f, choice)
    if got is None:
        return False
    meta, cfg = got
    return meta is None or answer_fits(meta, cfg, config_space(meta, device))


def _asks_modules(meta: KernelMeta) -> bool:
    """Whether shipped config modules are consulted for this kernel: a learned kind with
    TUNER_HEURISTICS=use."""
    from tuner.settings import settings
    return meta.kind in LEARNED_KINDS and settings.heuristics == "use"


def _launchable(meta: KernelMeta, answers, space: ConfigSpace | None = None) -> list[dict]:
    """A module's answers (JSON form) that fit the kernel (answer_fits), as the launcher
    passes them."""
    space = space if space is not None else config_space(meta)
    cfgs = (from_learned_form(meta, Config.from_json(a)) for a in answers)
    return [config_dict(c) for c in cfgs if c is not None and answer_fits(meta, c, space)]


def learned_config(meta: KernelMeta, dtypes: Sequence[str] | None = None,
                   feats: dict | None = None) -> dict | None:
    """A shipped module's confident config for this kernel (tuner learn-configs), as the
    launcher passes it, or None: unsure, no module for this kind and GPU, TUNER_HEURISTICS
    not `use`, or an answer outside the kind's space. Default mode launches it instead of
    the hand default; in max-autotune the search starts from it and the default. feats: the
    kernel's `features` when the caller has them already."""
    names = tuple(meta.dtypes if dtypes is None else dtypes)
    if not _asks_modules(meta) or not all(names):
        return None   # (codegen writes "" for a dtype it does not know: the features would lie)
    try:
        from tuner.heuristics.registry import has_module, lookup
        if not has_module(meta.namespace):   # most kinds: no features computed for nothing
            return None
        answer = lookup(meta.namespace, feats if feats is not None else features(meta, names))
        fits = _launchable(meta, [answer]) if answer is not None else []
        return fits[0] if fits else None
    except Exception as e:  # noqa: BLE001 - a broken module is unsure, never a failed compile
        log.debug("learned config for %s failed: %s", meta.namespace, e)
        return None


def shortlisted_configs(meta: KernelMeta, space: ConfigSpace | None = None,
                        feats: dict | None = None) -> list[dict]:
    """The configs a shipped module names as worth measuring for this kind (tuner learn-configs
    --shortlist), a template's hand extras after them, as the launcher passes them, those the
    kernel's space would not launch dropped; [] without a module, with TUNER_HEURISTICS other than `use`, or (given the
    kernel's features) for a kernel larger than the problems the shortlist was chosen on.
    space: the kernel's, when the caller has it already."""
    if not _asks_modules(meta):
        return []
    try:
        from tuner.heuristics.registry import shortlist
        space = space if space is not None else config_space(meta)
        short = _launchable(meta, shortlist(meta.namespace, features=feats), space)
        if short and meta.kind == "template":   # attention's and Hopper's (template_extras)
            short = large_tiles(meta, short) or short
            short += [config_dict(c) for c in map(to_config, template_extras(meta))
                      if answer_fits(meta, c, space)]
        return short
    except Exception as e:  # noqa: BLE001 - a broken module names nothing
        log.debug("shortlist for %s failed: %s", meta.namespace, e)
        return []


def planned_configs(meta: KernelMeta, args: Sequence[Any], *, out_args: Sequence[int] = (),
                    search: str | None = None, template: bool = False) -> list[dict]:
    """The configs `decide_config` would build first for this kernel with arguments like
    `args` (stand-ins of the same dtypes do): a heuristic's or the cache's answer alone, else
    the search's first batch (the default, a learned answer and a shipped shortlist, or a
    seed set), as config dicts; [] where nothing would be built. Nothing is launched, measured
    or recorded (tuner.engine.plan): the compiler builds these for every kernel of a graph in
    one batch on the compile workers before the graph's first call tunes its kernels one
    after another. A template is planned only with `template` (the mm point's probe tunes its
    template; in a model's graph its config is the probe's, by matmul). out_args: accepted
    as decide_config takes it (a plan writes nothing)."""
    from tuner.engine import plan
    if meta.kind == "template" and not template:
        return []
    # (a plan neither reads nor remembers a matmul's config: no heuristic from _TEMPLATE_SEEN)
    p = plan(**_decision_inputs(meta, args, search)[0])
    if p.decision is None:
        return [config_dict(c) for c in p.batch]
    if getattr(p.decision, "choice", None) is None:
        return []
    return [config_dict(p.decision.choice)]


def _decision_inputs(meta: KernelMeta, args: Sequence[Any], search: str | None
                     ) -> tuple[dict, dict]:
    """What decide_config and planned_configs hand the engine for this kernel: (decide's and
    plan's arguments: its namespace and problem key, the configs the search starts from (the
    default, a learned answer, a shipped shortlist, or a template's seed set), the space and
    the search; decide's alone: the search's options and the dataset row)."""
    from tuner.settings import settings

    if meta.kind == "scatter":
        raise ValueError("scatter kernels have a fixed config")
    strategy = search or settings.search
    space = config_space(meta)
    configs = [to_config(c) for c in initial_configs(meta, space, strategy)]
    dtypes = key_dtypes(meta, args)
    feats = features(meta, dtypes)   # (its "key" is the problem's cache key)
    head = configs[:1]   # the default (and a learned answer): measured beside a shortlist
    if strategy != "exhaustive":
        # a shipped config module's answer (tuner learn-configs) seeds the search: measured
        # beside the default, the descent starts from the faster (a learned answer is near the
        # best on problems like the ones it learned from, not on every kernel it is asked about)
        learned = learned_config(meta, dtypes, feats)
        if learned is not None and to_config(learned) not in configs:
            configs.insert(1, to_config(learned))
        if learned is not None:
            head = list(dict.fromkeys(head + [to_config(learned)]))
    options = search_options(meta, space) if strategy != "exhaustive" else None
    beyond = feats if settings.shortlist_beyond == "search" else None
    short = shortlisted_configs(meta, space, beyond) if strategy == "coordinate_descent" else []
    if short:
        # the module's few configs worth measuring: the default (and a learned answer) and
        # those, compiled in one batch and timed, no descent from the fastest (pointwise on the
        # H100: within 5% of the best on 47 of 50 held-out problems with 4 timings, a descent
        # takes ~19). Still a coordinate-descent decision: a cached descent answer stands.
        # TUNER_SHORTLIST_SWEEPS > 0: that many sweeps from the fastest, one field at a time
        configs = list(dict.fromkeys(head + [to_config(c) for c in short]))
        options = dict(options or {}, max_sweeps=max(0, settings.shortlist_sweeps), plateau=0.0,
                       max_plateau_walks=0, check_all_directions=False, check_pairs=False)
    return ({"namespace": meta.namespace, "problem": feats["key"], "candidates": configs,
             "space": space, "search": search}, {"search_options": options, "features": feats})


def clone_strided(t):
    """A copy with t's sizes and strides (clone() makes a non-dense view dense, and a kernel
    indexing it with the view's strides would run past its end)."""
    import torch
    return torch.empty_strided(t.size(), t.stride(), dtype=t.dtype, device=t.device).copy_(t)


def written_copies(args: Sequence[Any], out_args: Sequence[int], source: str = "") -> list:
    """args with each one at out_args that the kernel also reads (`read_back`, or under another
    argument sharing its storage) replaced by its clone_strided copy: what measurements write
    into. An argument the kernel only stores into is measured in place: every candidate writes
    what the real launch after the tuning writes again, and no device temporary raises the peak
    (an lm-head's logits: hundreds of MiB). Made only when a config is measured: a decision
    answered by a cache or a heuristic allocates nothing."""
    scratch = list(args)
    copy = set(read_back(source, out_args))
    copy |= {i for i in out_args if _shares_storage(args, i)}   # (a pointwise kernel in place)
    for i in sorted(copy):
        scratch[i] = clone_strided(args[i])
    return scratch


def _shares_storage(args: Sequence[Any], i: int) -> bool:
    """Whether args[i] shares its storage with another argument (written in place, the kernel
    reads it under another name)."""
    storage = getattr(args[i], "untyped_storage", None)
    if storage is None:
        return True
    base = storage().data_ptr()
    return any(j != i and hasattr(a, "untyped_storage") and a.untyped_storage().data_ptr() == base
               for j, a in enumerate(args))


_SIGNATURE = re.compile(r"@triton\.jit\s*\ndef \w+\(([^)]*)\)", re.S)


def read_back(source: str, out_args: Sequence[int]) -> list:
    """The positions in out_args whose pointer the kernel (`source`, one @triton.jit function)
    uses other than as the first argument of a tl.store: loaded, updated atomically, made a
    block pointer. All of them when the source says too little to tell."""
    m = _SIGNATURE.search(source or "")
    if m is None:
        return list(out_args)
    names = [p.split(":")[0].strip() for p in m.group(1).split(",")]
    body = source[m.end():].splitlines()
    out = []
    for i in out_args:
        name = names[i] if i < len(names) else None
        if name is None or not name.isidentifier():
            out.append(i)
            continue
        word = re.compile(rf"\b{name}\b")
        if any(word.search(ln) and not re.match(rf"\s*tl\.store\({name}\b", ln)
               or len(word.findall(ln)) > 1 for ln in body):
            out.append(i)
    return out


def decide_config(meta: KernelMeta, args: Sequence[Any], launch: Callable[[dict, list], Any], *,
                  out_args: Sequence[int] = (), warmup: Callable[[dict, list], Any] | None = None,
                  describe: Callable[[dict, list], Any] | None = None,
                  search: str | None = None, max_seconds: float | None = None,
                  heuristic: Callable[[], Any] | None = None):
    """The engine's Decision for one kernel launched with `args` (real tensors).

    launch(config, args) runs the kernel once with a config dict; warmup(config, args), when
    given, compiles it without running (candidates compile in parallel before they are timed);
    describe(config, args), when given, is that warmup as a job for a compile worker process
    (tuner.compile_workers), or None.
    Arguments at `out_args` are written: measurements write into copies. max_seconds: the
    tuning time left to this kernel's graph (see `budget_left`); the search stops there and
    keeps the best so far (at 0 or below nothing is measured)."""
    import torch

    from tuner.bench import benchmark, compile_all
    from tuner.engine import decide

    inputs, measuring = _decision_inputs(meta, args, search)
    copies: list = []   # the arguments with written ones copied, made when first measured

    def scratch():
        if not copies:
            copies.append(written_copies(args, out_args, meta.source))
        return copies[0]
    device = "cuda" if torch.cuda.is_available() else "cpu"

    def measure(cfg):
        try:
            return benchmark(lambda: launch(config_dict(cfg), scratch()), device=device)
        except Exception as e:   # a config that does not compile or run scores infinity
            log.debug("config %s failed: %s", cfg, e)
            return float("inf")

    def precompile(batch):
        # a batch of candidates builds at once (in worker processes where they can be
        # described, then in threads) instead of one per measurement
        written = scratch()   # (once, before the threads)
        jobs = (lambda cfg: describe(config_dict(cfg), written)) if describe is not None else None
        compile_all(lambda cfg: warmup(config_dict(cfg), written), batch, jobs=jobs)

    sig = _mm_signature(meta, args)
    seen = _TEMPLATE_SEEN.get(sig) if sig is not None else None
    if heuristic is None and seen is not None:
        heuristic = lambda: seen   # noqa: E731 - the same matmul's config (answers as a heuristic)
    d = decide(**inputs, **measuring, measure=measure, heuristic=heuristic,
               prepare=precompile if warmup is not None else None, max_seconds=max_seconds,
               # the same matmul's config, taken from this process's memory: stored under this
               # kernel too, so a process that skips the probe (the mm point's answer cached)
               # finds it instead of searching again
               store_heuristic=seen is not None)
    if sig is not None and getattr(d, "choice", None) is not None and getattr(d, "source", "") != "budget":
        if len(_TEMPLATE_SEEN) >= _TEMPLATE_SEEN_MAX:
            _TEMPLATE_SEEN.pop(next(iter(_TEMPLATE_SEEN)))
        _TEMPLATE_SEEN[sig] = d.choice
    return d
