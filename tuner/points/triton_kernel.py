"""The kernel-config autotuning point: the launch config (block sizes, warps, stages) of every
Triton kernel the compiler generates.

Codegen emits each kernel with a `KernelMeta` (its kind, extents, argument dtypes and source);
everything the choice needs from there is here, for every kind:

    default_config(meta)      the untuned config: what default mode launches, and where the
                              search starts (each kind's hand heuristic, measured on the H100)
    candidate_configs(meta)   the hand-written list an exhaustive search sweeps
    config_space(meta)        the ConfigSpace coordinate descent walks
    features(meta, dtypes)    what a dataset row (TUNER_HEURISTICS=collect) records
    problem_key(meta, dtypes) the cache's problem: the source's hash (identical kernels share a
                              decision), the extents and the arguments' dtypes; in graphs with
                              dynamic sizes, the source with its literals blanked and each
                              extent's power-of-two bucket
    decide_config(...)        one call to tuner.engine.decide (heuristic, cache, then measuring
                              with the caller's launch); its search: coordinate descent from the
                              default (TUNER_SEARCH=coordinate_descent, the default), the
                              candidate list (exhaustive), or coordinate descent stopped after a
                              few measurements (budgeted)

Kinds: "pointwise" (1-D), "pointwise_tiled" (a [YBLOCK, XBLOCK] tile over (ynumel, xnumel)),
"persistent_reduction" and "reduction" (looped; both inner, or `outer` for x-major tiles),
"scan" (cumsum and the like: rows of rnumel, persistent or looped as its RBLOCK says; `_scan_*`),
"combo" (1-D pointwise parts in one launch), "foreach" (parts with one body, their pointers
in a table), "template" (a matmul over (batch, m, n, k)) and
"scatter" (a fixed config, never tuned).
"""
from __future__ import annotations

import functools
import hashlib
import logging
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from tuner.space import BLOCK_CAPS, Config, ConfigSpace, DeviceLimits, Field

log = logging.getLogger("tuner.points.triton_kernel")

KINDS = ("pointwise", "pointwise_tiled", "persistent_reduction", "reduction", "scan", "combo",
         "foreach", "template", "scatter")
TUNABLE_KINDS = tuple(k for k in KINDS if k != "scatter")
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


def next_pow2(n) -> int:
    return 1 << max(0, (int(n) - 1).bit_length())


# -- defaults (moved from compiler/codegen as they were: default mode's figures in
#    docs/PERFORMANCE.md were measured with exactly these) ---------------------------------

def default_config(meta: KernelMeta) -> dict:
    """The config default mode launches (and every search starts from)."""
    kind = meta.kind
    if kind == "scan":
        return _scan_default(meta)
    if kind == "pointwise_tiled":
        yn, xn = meta.ynumel, meta.xnumel
        xb = max(1, min(64, next_pow2(xn)))
        yb = max(1, min(next_pow2(yn), 64 if xb >= 32 else max(64, 2048 // xb), 1024))
        tile = xb * yb
        return {"XBLOCK": xb, "YBLOCK": yb,
                "num_warps": 8 if tile >= 8192 else (4 if tile >= 1024 else (2 if tile >= 256 else 1)),
                "num_stages": 1}
    if kind in ("pointwise", "scatter"):
        xb = min(1024, next_pow2(meta.xnumel))
        return {"XBLOCK": max(xb, 16), "num_warps": 4 if xb >= 256 else 1, "num_stages": 1}
    if kind == "combo":
        xb = max(128, min(1024, next_pow2(max(meta.parts))))
        return {"XBLOCK": xb, "num_warps": 4 if xb >= 512 else 2, "num_stages": 1}
    if kind == "foreach":
        # 4 elements per thread (XBLOCK = 128 * num_warps), whatever the dtype: coordinate
        # descent chose exactly that for the AdamW step over GPT-2's and ResNet-50's parameter
        # lists in fp32 and bf16 (H100: 512/4, 256/2; 1024/8 within 1%), and the old default
        # of 4 KB per tensor (bf16: 2048 elements, 16 per thread) ran the bf16 step at 1.09 ms
        # against 0.65 ms tuned (the update's many live values per element spill)
        xb = max(128, min(512, next_pow2(max(meta.parts))))
        return {"XBLOCK": xb, "num_warps": xb // 128, "num_stages": 1}
    if kind == "template":
        _, m, n, k = meta.mm
        small = m <= 64 or n <= 64
        bm = 32 if m <= 32 else (64 if small else 128)
        bn = 32 if n <= 32 else (64 if small else 128)
        bk = 32 if k <= 32 else 64
        return {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8,
                "num_warps": 4 if bm * bn <= 64 * 64 else 8, "num_stages": 3}
    # reductions
    xnumel, rnumel = meta.xnumel, meta.rnumel
    if meta.outer:
        # x-major: a warp's lanes run along x (16-byte vectors), r is the short side
        if meta.persistent:
            rb = max(next_pow2(rnumel), 2)
            xb = max(1, min(next_pow2(xnumel), max(32, 4096 // rb), 256))
        elif xnumel > 8:
            # 64 rows per step over 16 columns on 16 warps: the looped x-major kernels of the H100
            # data (data/triton_kernel/reduction_h100_s0/s1, 52 problems of 9 to 87552 columns)
            # ran within 5% of their best on 46, geomean 1.013, worst 1.20, where the old default
            # (8 rows over up to 128 columns) was 4.9x slower on geomean, 17x at worst: a few
            # programs walk the whole reduced side, and their step count is what costs
            rb, xb = min(64, max(8, next_pow2(rnumel))), 16
            return {"XBLOCK": xb, "RBLOCK": rb, "num_warps": 16, "num_stages": 1}
        else:
            # up to 8 columns: 8 rows per step (the data's best of what it measured there)
            rb, xb = 8, max(1, next_pow2(xnumel))
        tile = rb * xb
        return {"XBLOCK": xb, "RBLOCK": rb, "num_warps": 8 if tile >= 4096 else (4 if tile >= 512 else 2),
                "num_stages": 1}
    if meta.persistent:
        rb = max(next_pow2(rnumel), 2)
        xb = max(1, min(next_pow2(xnumel), max(1, 4096 // rb), 64))
        tile = rb * xb
        # a whole row in registers up to 8192 (one read of the input, no reloads); 16 warps
        # keep that at 16 values per thread
        return {"XBLOCK": xb, "RBLOCK": rb,
                "num_warps": 16 if tile >= 8192 else (8 if tile >= 4096 else (4 if tile >= 512 else 2)),
                "num_stages": 1}
    # looped, inner: one row per program, 4096 a step on 16 warps (H100 kernel data,
    # reduction_h100_s0/s1: 66 of 79 looped row reductions within 5% of their best, geomean
    # 1.043, where 2048 on 8 warps reached 9, geomean 1.45; one problem, 22 rows of 259009,
    # ran 3.8x slower than its best against 1.12; the shipped module answers the same config
    # for up to 265 rows)
    rb = min(4096, next_pow2(rnumel))
    return {"XBLOCK": 1, "RBLOCK": rb, "num_warps": 16 if rb >= 2048 else 8, "num_stages": 1}


# -- scans (compiler/codegen/scan.py): the kind's whole policy ----------------------------------
# A scan kernel's source holds a persistent variant (RBLOCK covers the row: one block) and a
# looped one (chunks of RBLOCK along the row, the running prefix carried from chunk to chunk);
# the config's RBLOCK picks one when Triton compiles it, so the search weighs both. Figures
# reasoned, not yet swept on a GPU: a row in registers up to SCAN_PERSISTENT_MAX (a cummax
# holds a position beside each value), tiles of SCAN_TILE elements on 8 warps.
SCAN_PERSISTENT_MAX = 4096   # rows up to this long are one block by default
SCAN_CHUNK = 2048            # the looped default's chunk along a longer row
SCAN_TILE = 2048             # elements of a default tile (rows x chunk)


def _scan_default(meta: KernelMeta) -> dict:
    """Rows of up to SCAN_PERSISTENT_MAX: persistent, as many rows per program as fill a
    SCAN_TILE tile (64 at most); longer ones: looped, one row per program, chunks of
    SCAN_CHUNK (always shorter than the row, or the kernel would take its persistent
    variant). An `outer` scan (loads along x, a scan over a leading dim) takes 64 rows wide
    tiles for coalesced loads, and loops over short chunks where a whole row would not fit."""
    x, whole = meta.xnumel, max(next_pow2(meta.rnumel), 2)
    if meta.outer:
        xb = max(1, min(next_pow2(x), 64))
        fits = whole <= SCAN_PERSISTENT_MAX and whole * xb <= SCAN_TILE
        rb = whole if fits else max(2, min(SCAN_TILE // xb, whole // 2))
    elif whole <= SCAN_PERSISTENT_MAX:
        rb = whole
        xb = max(1, min(next_pow2(x), SCAN_TILE // rb, 64))
    else:
        xb, rb = 1, min(SCAN_CHUNK, whole // 2)
    tile = xb * rb
    return {"XBLOCK": xb, "RBLOCK": rb,
            "num_warps": 8 if tile >= 2048 else (4 if tile >= 512 else (2 if tile >= 128 else 1)),
            "num_stages": 1}


def _scan_candidates(meta: KernelMeta) -> list[dict]:
    """Chunks of 32 to 2048 and the whole row (where it is at most SCAN_PERSISTENT_MAX), rows
    per program up to 64, tiles up to 8192 elements, 2 to 8 warps."""
    whole = max(next_pow2(meta.rnumel), 2)
    rbs = {min(rb, whole) for rb in (32, 128, 512, 2048)}
    if whole <= SCAN_PERSISTENT_MAX:
        rbs.add(whole)
    return [{"XBLOCK": xb, "RBLOCK": rb, "num_warps": nw, "num_stages": 1}
            for rb in sorted(rbs) for xb in (1, 2, 4, 8, 16, 32, 64)
            if xb * rb <= 8192 and xb <= next_pow2(meta.xnumel) for nw in (2, 4, 8)]


def _scan_space(meta: KernelMeta) -> ConfigSpace:
    """Rows per program, RBLOCK from chunks of 16 to the whole row (the persistent variant),
    warps; the block capped as the candidates are (registers)."""
    d = _scan_default(meta)
    whole = max(next_pow2(meta.rnumel), 2)
    xhi = max(d["XBLOCK"], min(BLOCK_CAPS["XBLOCK"], next_pow2(meta.xnumel)))
    rhi = max(d["RBLOCK"], min(BLOCK_CAPS["RBLOCK"], whole))
    return ConfigSpace([Field("XBLOCK", "pow2", 1, xhi),
                        Field("RBLOCK", "pow2", min(16, d["RBLOCK"]), rhi),
                        Field("num_warps", "pow2", 1, 16)],
                       block_numel_fields=("XBLOCK", "RBLOCK"),
                       max_block_numel=max(8192, d["XBLOCK"] * d["RBLOCK"]),
                       kind="triton.scan" + (".outer" if meta.outer else ""))


# a template's hand-written seeds beside its default: (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages)
_TEMPLATE_SEEDS = ((64, 64, 32, 4, 3), (128, 128, 32, 8, 3), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4),
                   (128, 128, 64, 8, 3), (32, 64, 64, 4, 5), (128, 256, 64, 8, 3), (64, 32, 128, 4, 4))
# and the wider grid of an exhaustive sweep: per tile shape, a few K steps x warps x stages
# (K steps of 32 on 4 warps: attention's q @ k^T with its scale, 96 heads x 512 x 64, ran
# fastest on (128, 128, 32) w4 s4 and (128, 64, 32) w4 s3 under the stock compiler's search)
_TEMPLATE_GRID = tuple(
    (bm, bn, bk, nw, ns)
    for tiles, steps in (
        (((128, 128),), ((64, 8, 3), (64, 4, 4), (32, 8, 4), (128, 8, 2), (64, 8, 4), (32, 4, 5),
                         (32, 4, 4))),
        (((256, 128), (128, 256)), ((64, 8, 3), (32, 8, 4), (64, 8, 4))),
        (((256, 64), (64, 256)), ((64, 8, 3), (64, 4, 4))),
        (((128, 64), (64, 128)), ((64, 4, 4), (32, 4, 5), (128, 4, 3), (64, 8, 3), (32, 4, 3))),
        (((64, 64),), ((64, 4, 4), (32, 4, 5), (128, 4, 3))),
        (((32, 64), (64, 32)), ((64, 4, 5), (128, 4, 4))),
        (((32, 32),), ((128, 4, 4), (64, 2, 5))))
    for bm, bn in tiles for bk, nw, ns in steps)


# configs timed beside a template's shipped shortlist for attention's q @ k^T (a whole K of at
# most 64 in one or two steps of 32 over a large output), which the shortlist's training
# problems (114 projections and MLP matmuls) lack. The stock compiler's search picked these two
# for it (see _TEMPLATE_GRID); on the H200, 96 heads x 512 x 64 with its scale, one call:
# 0.0224 ms with them against stock max-autotune's 0.0221 (two calls before: our shortlist's
# best 0.0253 / 0.0254 against 0.0236 / 0.0230).
_TEMPLATE_SMALL_K = ((128, 128, 32, 4, 4), (128, 64, 32, 4, 3))
# and for attention's p @ v (an output at most 64 wide over a long K: the sequence). Among the
# default and the shortlist the search kept the default, 64 x 64 x 64 s3 (0.0251 ms, L2
# flushed); the point then timed that template at 0.0259 against cuBLAS at 0.0254 and kept
# cuBLAS, 0.0195 ms replayed against stock max-autotune's Triton 0.0181. A sweep of 454 configs
# (H200, 96 heads x 512 x 512 @ 512 x 64, bench/results/mm/template_sweep_20261127_h200.json)
# put 64 x 64 x 64 on two stages first (0.0246; 0.0178 replayed) and stock's pick, 128 x 64 x 64
# w4 s3, third (0.0249). (A head dim of 32 or less gets neither: BLOCK_N 64 is outside its space)
_TEMPLATE_LONG_K_NARROW = ((64, 64, 64, 4, 2), (128, 64, 64, 4, 3))
# and for a decode step's matmul, at most 16 rows: the shortlist's tiles are 32 rows or more
# (its training problems), so a 16-row tile was never timed there. LLaMA's MLP up at m = 16
# (16 x 11008 x 4096 + ReLU, H200): the shortlist's best 32 x 32 x 128 replayed at 0.0249 ms
# against stock max-autotune's 16 x 32 x 128 at 0.0247, two calls; two of the sweep's best four
# (0.0338 / 0.0339 ms L2 flushed; in 16-bit both fit 100 KB of shared memory), the best replayed at
# 0.0237 (bench/results/mm/template_sweep_20261127_h200.json)
_TEMPLATE_SKINNY_M = ((16, 32, 128, 4, 4), (16, 64, 128, 4, 4))


# Hopper's variant of the template (compiler/codegen/template.py, the TMA constexpr): a
# persistent loop over the tiles, one program per SM, operands loaded through TMA descriptors.
# On the H200 (scripts/probes/template_tma_persistent.py, bf16 F.linear + bias + GELU, one
# kernel with each variant switched on, L2 flushed): 8-18% faster than the plain template on
# 4096^3, 4096 x 3072 x 768, 2048 x 12288 x 4096 and 8192 x 4096 x 1024, 1.00-1.04x of cuBLAS
# + the GELU kernel where the plain one reached 0.85-0.93x; (128, 256, 64) w8 s3 fastest on all
# four. Offered (timed beside the shortlist or the seeds) where the output has at least
# TMA_MIN_TILES tiles of 128 x 128 and K at least 64; tile count vs SMs is what a persistent
# loop pays off on. (128, 128, 64) w8 s3 was offered too until its figures came in: 1.06-1.43x
# of (128, 256, 64) s3 on the probe's four shapes, and never among the three fastest configs of
# the 21 template searches of GPT-2, BERT and ViT-B/16 in max-autotune where it was timed
# (bench/results/compiler/ma_compile_table_20261127_sm90_costly_r3.json), where s4 won one
# (BERT's MLP down, 6% over s3).
_TEMPLATE_TMA = ((128, 256, 64, 8, 3), (128, 256, 64, 8, 4))
TMA_MIN_TILES = 64
# Tiles smaller than 64 x 64 (the shortlist's and the seeds' skinny configs) are not timed for
# a matmul large enough for Hopper's variant whose M and N are both at least 128: on the 38
# such 16-bit problems of the H100 template data (data/triton_kernel/template_h100_s0) the best
# of them ran 1.06-3.7x slower than the problem's best config, none within 5%.
_SMALL_TILE = 64 * 64


def tma_applies(m: int, n: int, k: int) -> bool:
    """Whether a template of this size gets Hopper's variant: a GPU of compute capability 9 or
    later (or Triton's interpreter) with a Triton that has device-side tensor descriptors, K
    at least 64 and at least TMA_MIN_TILES output tiles of 128 x 128."""
    return k >= 64 and (-(-m // 128)) * (-(-n // 128)) >= TMA_MIN_TILES and _tma_device()


@functools.lru_cache(maxsize=None)
def _tma_device() -> bool:
    import os

    import triton
    import triton.language as tl
    if not hasattr(tl, "make_tensor_descriptor") or not hasattr(triton, "set_allocator"):
        return False
    if os.environ.get("TRITON_INTERPRET", "0") == "1":
        return True
    try:
        import torch
        return torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)
    except Exception:  # noqa: BLE001 - no readable GPU: no variant
        return False


@functools.lru_cache(maxsize=None)
def _sm_count() -> int:
    """Programs of a persistent template: the GPU's SMs (4 under the interpreter, so its loop
    over the tiles runs more than once on small tests)."""
    try:
        import torch
        if torch.cuda.is_available():
            return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    except Exception:  # noqa: BLE001
        pass
    return 4


def template_grid(mm, cfg) -> int:
    """Programs a template launches with this config: one per output tile, or with TMA (the
    persistent variant) at most one per SM."""
    b, m, n, _ = mm
    tiles = b * (-(-m // cfg["BLOCK_M"])) * (-(-n // cfg["BLOCK_N"]))
    return min(tiles, _sm_count()) if cfg.get("TMA") else tiles


def template_extras(meta: KernelMeta) -> list[dict]:
    """The hand-written configs a template times beside its shortlist: attention's
    (_TEMPLATE_SMALL_K for q @ k^T, _TEMPLATE_LONG_K_NARROW for p @ v), a decode step's
    (_TEMPLATE_SKINNY_M) and Hopper's variant where the kernel has it (_TEMPLATE_TMA)."""
    _, m, n, k = meta.mm
    out = []
    if k <= 64 and m >= 128 and n >= 64:
        out = list(map(_template_config, _TEMPLATE_SMALL_K))
    elif n <= 64 and k >= 256 and m >= 128:
        out = list(map(_template_config, _TEMPLATE_LONG_K_NARROW))
    elif m <= 16 and k >= 256:
        out = list(map(_template_config, _TEMPLATE_SKINNY_M))
    return out + _tma_configs(meta)


def _template_config(c) -> dict:
    bm, bn, bk, nw, ns = c
    return {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "num_warps": nw, "num_stages": ns}


def _tma_configs(meta: KernelMeta) -> list[dict]:
    """Hopper's variant's configs (_TEMPLATE_TMA) for a kernel that has it, else none."""
    return [dict(_template_config(c), TMA=1) for c in _TEMPLATE_TMA] if meta.tma else []


def drops_small_tiles(meta: KernelMeta) -> bool:
    """Whether this template skips configs with tiles under 64 x 64 (_SMALL_TILE): a kernel
    with Hopper's variant (a large 2-D 16-bit matmul) whose M and N are both at least 128."""
    _, m, n, _ = meta.mm
    return bool(meta.tma) and min(m, n) >= 128


def _large_tiles(meta: KernelMeta, configs: list[dict]) -> list[dict]:
    if not drops_small_tiles(meta):
        return configs
    return [c for c in configs if c["BLOCK_M"] * c["BLOCK_N"] >= _SMALL_TILE]


def template_seeds(meta: KernelMeta) -> list[dict]:
    """A template's seed set: its default, then the hand-written seeds (compiled in one
    batch; coordinate descent starts from the fastest; small tiles left out where
    `drops_small_tiles`), then Hopper's variant where the kernel has it."""
    out = [default_config(meta)]
    for c in _large_tiles(meta, list(map(_template_config, _TEMPLATE_SEEDS))):
        if c not in out:
            out.append(c)
    return out + _tma_configs(meta)


def candidate_configs(meta: KernelMeta) -> list[dict]:
    """The hand-written candidates an exhaustive search sweeps (the default is put first by
    `decide_config`, not necessarily here)."""
    kind = meta.kind
    out: list[dict] = []
    if kind == "scatter":
        return [default_config(meta)]
    if kind == "scan":
        return _scan_candidates(meta)
    if kind == "pointwise_tiled":
        yn, xn = meta.ynumel, meta.xnumel
        for xb in (16, 32, 64, 128):
            for yb in (16, 32, 64, 128):
                xb2, yb2 = min(xb, next_pow2(xn)), min(yb, next_pow2(yn))
                if xb2 * yb2 > 8192:
                    continue
                for nw in (2, 4, 8):
                    c = {"XBLOCK": xb2, "YBLOCK": yb2, "num_warps": nw, "num_stages": 1}
                    if c not in out:
                        out.append(c)
        return out or [default_config(meta)]
    if kind == "pointwise":
        for xb in (128, 256, 512, 1024, 2048, 4096):
            for nw in (2, 4, 8):
                if xb // (32 * nw) >= 1:
                    out.append({"XBLOCK": xb, "num_warps": nw, "num_stages": 1})
        return out
    if kind in ("combo", "foreach"):
        big = next_pow2(max(meta.parts))
        return [{"XBLOCK": xb, "num_warps": nw, "num_stages": 1}
                for xb in (128, 256, 512, 1024, 2048, 4096) if xb <= max(128, big)
                for nw in (1, 2, 4, 8) if xb // (32 * nw) >= 1]
    if kind == "template":
        # the seeds, then a wider grid over tiles, K steps, warps and stages (an exhaustive
        # search's sweep and the table `tuner collect triton_kernel --focus template` measures)
        out = template_seeds(meta)
        for c in map(_template_config, _TEMPLATE_GRID):
            if c not in out:
                out.append(c)
        return out
    persistent, outer = meta.persistent, meta.outer
    rbs = [max(next_pow2(meta.rnumel), 2)] if persistent else \
        ([8, 16, 32, 64] if outer else [256, 512, 1024, 2048, 4096])
    for rb in rbs:
        for xb in ((16, 32, 64, 128, 256) if outer else (1, 2, 4, 8, 16, 32, 64, 128)):
            if xb * rb > (16384 if persistent else 8192) or xb > max(next_pow2(meta.xnumel), 1):
                continue
            for nw in (2, 4, 8, 16):
                out.append({"XBLOCK": xb, "RBLOCK": rb, "num_warps": nw, "num_stages": 1})
    return out or [default_config(meta)]


# -- spaces -------------------------------------------------------------------------------------

def config_space(meta: KernelMeta, device: DeviceLimits | None = None) -> ConfigSpace | None:
    """The space coordinate descent searches from the default; None for a kind that is never
    tuned (scatter). Every space holds the kind's default config. device: the GPU's limits
    (a template's shared memory), this process's GPU when None."""
    kind = meta.kind
    if kind == "scatter":
        return None
    if kind == "scan":
        return _scan_space(meta)
    if kind == "pointwise_tiled":
        return ConfigSpace.pointwise([meta.xnumel, meta.ynumel], max_block_numel=8192)
    if kind == "pointwise":
        # XBLOCK from 16 (the default's floor) to the extent's power of two
        hi = max(16, min(BLOCK_CAPS["XBLOCK"], next_pow2(meta.xnumel)))
        return ConfigSpace([Field("XBLOCK", "pow2", 16, hi), Field("num_warps", "pow2", 1, 8)],
                           kind="triton.pointwise")
    if kind in ("combo", "foreach"):
        # one XBLOCK for every part: from 128 (the candidates' floor) to the largest part's
        hi = max(128, min(BLOCK_CAPS["XBLOCK"], next_pow2(max(meta.parts))))
        return ConfigSpace([Field("XBLOCK", "pow2", 128, hi), Field("num_warps", "pow2", 1, 8)],
                           kind="triton.combo")
    if kind == "template":
        _, m, n, k = meta.mm
        # the defaults' tiles are at least 32 a side: the space reaches them on small problems
        return ConfigSpace.matmul(max(m, 32), max(n, 32), max(k, 32),
                                  element_size=_itemsize(meta.mm_dtype), device=device or _device_limits())
    # reductions: rows per program, the reduction chunk (a whole row when persistent: fixed),
    # warps; the block is capped as the candidates are (registers)
    d = default_config(meta)
    xhi = max(d["XBLOCK"], min(BLOCK_CAPS["XBLOCK"], next_pow2(meta.xnumel)))
    r = max(next_pow2(meta.rnumel), 2)
    if meta.persistent:
        rfield, cap = Field("RBLOCK", "pow2", r, r), max(16384, r)
    else:
        rb = d["RBLOCK"]
        rfield = Field("RBLOCK", "pow2", min(2, rb), max(rb, min(BLOCK_CAPS["RBLOCK"], r)))
        cap = max(8192, d["XBLOCK"] * rb)
    return ConfigSpace([Field("XBLOCK", "pow2", 1, xhi), rfield, Field("num_warps", "pow2", 1, 16)],
                       block_numel_fields=("XBLOCK", "RBLOCK"), max_block_numel=cap,
                       kind=f"triton.{kind}" + (".outer" if meta.outer else ""))


@functools.lru_cache(maxsize=None)
def _device_limits() -> DeviceLimits:
    return DeviceLimits.current()


def _itemsize(dtype: str) -> int:
    return {"float64": 8, "int64": 8, "float32": 4, "int32": 4, "float16": 2, "bfloat16": 2,
            "int16": 2, "int8": 1, "uint8": 1, "bool": 1}.get(dtype, 2)


def search_options(meta: KernelMeta, space: ConfigSpace | None) -> dict:
    """Coordinate descent's options per kind: the joint moves of every field at the end cost
    3^fields - 1 measurements. A template (six fields, each candidate a Triton compile of
    seconds) descends one field at a time from the best of its seed set (initial_configs),
    with neither joint moves nor walks along plateaus: with pair moves (15 pairs, 60
    candidates per sweep) and plateau walks, one GPT-2 MLP matmul tuned for over 100 s on the
    H100, the stock compiler's whole max-autotune of it took 37 s."""
    if meta.kind == "template":
        return {"check_all_directions": False, "check_pairs": False, "max_plateau_walks": 0}
    if space is not None and len(space.tunable_fields) > 3:
        return {"check_all_directions": False, "check_pairs": True}
    return {}


# -- features and the problem key -------------------------------------------------------------

def dtype_names(args: Sequence[Any]) -> tuple[str, ...]:
    """The arguments' dtypes as the key spells them ("float32", "bfloat16")."""
    return tuple(str(a.dtype).replace("torch.", "") if hasattr(a, "dtype") else type(a).__name__
                 for a in args)   # (a size argument: "int")


def key_dtypes(meta: KernelMeta, args: Sequence[Any]) -> tuple[str, ...]:
    """The dtypes a decision is keyed and described by: the arguments', except for a foreach
    kernel, whose arguments are its tables (its tensors' dtypes are in the meta)."""
    return tuple(meta.dtypes) if meta.kind == "foreach" else dtype_names(args)


# what a kernel's body does, counted in its source: loads, stores, and calls of special
# functions (exp, erf, tanh, sqrt, ...: a GELU, a softmax, a norm), which decide whether a
# config is bound by memory or by arithmetic and how many values each thread keeps live
_SPECIAL = re.compile(r"\b(?:tl\.(?:exp2?|log2?|sqrt|rsqrt|sin|cos|sigmoid|erf|tanh|fdiv|div_rn)|"
                      r"th\.(?!(?:max_nan|min_nan|maximum_nan|minimum_nan|floordiv_int|"
                      r"remainder_int|remainder_float|prod|_mul)\()\w+)\(")


def body_counts(source: str) -> dict:
    """Loads, stores and special-function calls in a kernel's source (the learned config
    heuristic's description of its body); a template with Hopper's variant counted on its
    plain branch (the TMA branch repeats the epilogue twice)."""
    if "\n    if TMA:\n" in source:
        source = source.rsplit("\n    else:\n", 1)[-1]
    return {"loads": source.count("tl.load("), "stores": source.count("tl.store("),
            "special": len(_SPECIAL.findall(source))}


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
    out["arg_bytes"] = sum(_itemsize(d) for d in names)
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

def to_config(c: dict) -> Config:
    kw = {k: v for k, v in c.items() if k not in ("num_warps", "num_stages")}
    return Config(kw, num_warps=c.get("num_warps", 4), num_stages=c.get("num_stages", 1))


def config_dict(c: Config) -> dict:
    """A Config as the launcher passes it to Triton (meta-parameters and launch options)."""
    return dict(c.kwargs, num_warps=c.num_warps, num_stages=c.num_stages)


def budget_left(spent_seconds: float) -> float | None:
    """Seconds of tuning left to a graph that spent `spent_seconds` (TUNER_TUNE_BUDGET_S;
    None: unlimited). At 0 or below, kernels still take a heuristic's or the cache's answer
    but measure nothing: they keep their default config."""
    from tuner.settings import settings
    budget = settings.tune_budget_s
    return None if budget <= 0 else budget - spent_seconds


def initial_configs(meta: KernelMeta, space: ConfigSpace | None, search: str) -> list[dict]:
    """What the search starts from: the default alone for coordinate descent and budgeted
    search (which walk the space from it), the default then the hand-written list for
    exhaustive search, a kind without a space, and templates (their seed set)."""
    default = default_config(meta)
    if meta.kind == "template" and search != "exhaustive":
        # the seed set, compiled at once (one parallel batch); the descent walks from the
        # fastest, so each seed lies in the space
        seeds = template_seeds(meta)   # (its first is the default, kept even outside the space)
        return seeds[:1] + [c for c in seeds[1:] if space is None or space.valid(to_config(c))]
    if space is None or search == "exhaustive":
        return [default] + [c for c in candidate_configs(meta) if c != default]
    return [default]


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
            short = _large_tiles(meta, short) or short
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
    scratch = list(args)
    for i in out_args:   # same sizes and strides (a clone of a non-dense view is dense)
        a = args[i]
        scratch[i] = torch.empty_strided(a.size(), a.stride(), dtype=a.dtype, device=a.device).copy_(a)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    def measure(cfg):
        try:
            return benchmark(lambda: launch(config_dict(cfg), scratch), device=device)
        except Exception as e:   # a config that does not compile or run scores infinity
            log.debug("config %s failed: %s", cfg, e)
            return float("inf")

    def precompile(batch):
        # a batch of candidates builds at once (in worker processes where they can be
        # described, then in threads) instead of one per measurement
        jobs = (lambda cfg: describe(config_dict(cfg), scratch)) if describe is not None else None
        compile_all(lambda cfg: warmup(config_dict(cfg), scratch), batch, jobs=jobs)

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
