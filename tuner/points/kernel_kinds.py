"""Each kernel kind's config policy, one class per kind (`POLICIES`, by kind): its default
config (what default mode launches and every search starts from: each kind's hand heuristic,
measured on the H100), the hand-written candidates an exhaustive search sweeps, the
ConfigSpace coordinate descent walks, the search's options and the configs it starts from.
The kernel-config point (tuner/points/triton_kernel.py) asks these through `default_config`,
`candidate_configs`, `config_space`, `search_options` and `initial_configs`.

The defaults moved from compiler/codegen as they were: default mode's figures in
docs/PERFORMANCE.md were measured with exactly these.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from tuner.points import kernel_device
from tuner.space import BLOCK_CAPS, Config, ConfigSpace, DeviceLimits, Field

if TYPE_CHECKING:
    from tuner.points.triton_kernel import KernelMeta


def next_pow2(n) -> int:
    return 1 << max(0, (int(n) - 1).bit_length())


def to_config(c: dict) -> Config:
    kw = {k: v for k, v in c.items() if k not in ("num_warps", "num_stages")}
    return Config(kw, num_warps=c.get("num_warps", 4), num_stages=c.get("num_stages", 1))


def config_dict(c: Config) -> dict:
    """A Config as the launcher passes it to Triton (meta-parameters and launch options)."""
    return dict(c.kwargs, num_warps=c.num_warps, num_stages=c.num_stages)


def itemsize(dtype: str) -> int:
    return {"float64": 8, "int64": 8, "float32": 4, "int32": 4, "float16": 2, "bfloat16": 2,
            "int16": 2, "int8": 1, "uint8": 1, "bool": 1}.get(dtype, 2)


class Kind:
    """A kind's policy; the defaults here are those most kinds share."""

    def default(self, meta: KernelMeta) -> dict:
        raise NotImplementedError

    def candidates(self, meta: KernelMeta) -> list[dict]:
        """The hand-written candidates an exhaustive search sweeps (the default is put first
        by `initial_configs`, not necessarily here)."""
        return [self.default(meta)]

    def space(self, meta: KernelMeta, device: DeviceLimits | None = None) -> ConfigSpace | None:
        """The space coordinate descent searches from the default; None: never tuned."""
        return None

    def search_options(self, meta: KernelMeta, space: ConfigSpace | None) -> dict:
        """Coordinate descent's options: the joint moves of every field at the end cost
        3^fields - 1 measurements, so a space of more than 3 fields moves pairs only."""
        if space is not None and len(space.tunable_fields) > 3:
            return {"check_all_directions": False, "check_pairs": True}
        return {}

    def initial(self, meta: KernelMeta, space: ConfigSpace | None, search: str) -> list[dict]:
        """What the search starts from: the default alone for coordinate descent and budgeted
        search (which walk the space from it), the default then the hand-written list for
        exhaustive search and a kind without a space."""
        default = self.default(meta)
        if space is None or search == "exhaustive":
            return [default] + [c for c in self.candidates(meta) if c != default]
        return [default]


class Pointwise(Kind):
    """1-D pointwise kernels."""

    def default(self, meta):
        xb = min(1024, next_pow2(meta.xnumel))
        return {"XBLOCK": max(xb, 16), "num_warps": 4 if xb >= 256 else 1, "num_stages": 1}

    def candidates(self, meta):
        out = []
        for xb in (128, 256, 512, 1024, 2048, 4096):
            for nw in (2, 4, 8):
                if xb // (32 * nw) >= 1:
                    out.append({"XBLOCK": xb, "num_warps": nw, "num_stages": 1})
        return out

    def space(self, meta, device=None):
        # XBLOCK from 16 (the default's floor) to the extent's power of two
        hi = max(16, min(BLOCK_CAPS["XBLOCK"], next_pow2(meta.xnumel)))
        return ConfigSpace([Field("XBLOCK", "pow2", 16, hi), Field("num_warps", "pow2", 1, 8)],
                           kind="triton.pointwise")


class Scatter(Kind):
    """A scatter: a fixed config (a pointwise one), never tuned."""
    default = Pointwise.default


class PointwiseTiled(Kind):
    """A [YBLOCK, XBLOCK] tile over (ynumel, xnumel)."""

    def default(self, meta):
        yn, xn = meta.ynumel, meta.xnumel
        xb = max(1, min(64, next_pow2(xn)))
        yb = max(1, min(next_pow2(yn), 64 if xb >= 32 else max(64, 2048 // xb), 1024))
        tile = xb * yb
        return {"XBLOCK": xb, "YBLOCK": yb,
                "num_warps": 8 if tile >= 8192 else (4 if tile >= 1024 else (2 if tile >= 256 else 1)),
                "num_stages": 1}

    def candidates(self, meta):
        yn, xn = meta.ynumel, meta.xnumel
        out: list[dict] = []
        for xb in (16, 32, 64, 128):
            for yb in (16, 32, 64, 128):
                xb2, yb2 = min(xb, next_pow2(xn)), min(yb, next_pow2(yn))
                if xb2 * yb2 > 8192:
                    continue
                for nw in (2, 4, 8):
                    c = {"XBLOCK": xb2, "YBLOCK": yb2, "num_warps": nw, "num_stages": 1}
                    if c not in out:
                        out.append(c)
        return out or [self.default(meta)]

    def space(self, meta, device=None):
        return ConfigSpace.pointwise([meta.xnumel, meta.ynumel], max_block_numel=8192)


class Combo(Kind):
    """1-D pointwise parts in one launch, one XBLOCK for every part."""

    def default(self, meta):
        xb = max(128, min(1024, next_pow2(max(meta.parts))))
        return {"XBLOCK": xb, "num_warps": 4 if xb >= 512 else 2, "num_stages": 1}

    def candidates(self, meta):
        big = next_pow2(max(meta.parts))
        return [{"XBLOCK": xb, "num_warps": nw, "num_stages": 1}
                for xb in (128, 256, 512, 1024, 2048, 4096) if xb <= max(128, big)
                for nw in (1, 2, 4, 8) if xb // (32 * nw) >= 1]

    def space(self, meta, device=None):
        # one XBLOCK for every part: from 128 (the candidates' floor) to the largest part's
        hi = max(128, min(BLOCK_CAPS["XBLOCK"], next_pow2(max(meta.parts))))
        return ConfigSpace([Field("XBLOCK", "pow2", 128, hi), Field("num_warps", "pow2", 1, 8)],
                           kind="triton.combo")


class Foreach(Combo):
    """Parts with one body, their pointers in a table: a combo's candidates and space."""

    def default(self, meta):
        # 4 elements per thread (XBLOCK = 128 * num_warps), whatever the dtype: coordinate
        # descent chose exactly that for the AdamW step over GPT-2's and ResNet-50's parameter
        # lists in fp32 and bf16 (H100: 512/4, 256/2; 1024/8 within 1%), and the old default
        # of 4 KB per tensor (bf16: 2048 elements, 16 per thread) ran the bf16 step at 1.09 ms
        # against 0.65 ms tuned (the update's many live values per element spill)
        xb = max(128, min(512, next_pow2(max(meta.parts))))
        return {"XBLOCK": xb, "num_warps": xb // 128, "num_stages": 1}


# the most rows an x-major (outer) reduction keeps in registers (persistent); past it, it
# loops (compiler/codegen/triton.py; datagen's pool_mid samples just past it)
OUTER_R = 64


class Reduction(Kind):
    """Persistent (the whole row one block) and looped reductions, inner or `outer` (x-major
    tiles: loads contiguous along x)."""

    def default(self, meta):
        xnumel, rnumel = meta.xnumel, meta.rnumel
        if meta.outer:
            # x-major: a warp's lanes run along x (16-byte vectors), r is the short side
            if meta.persistent:
                rb = max(next_pow2(rnumel), 2)
                xb = max(1, min(next_pow2(xnumel), max(32, 4096 // rb), 256))
            elif xnumel >= 32768 and rnumel <= 512:
                # many columns over a short reduced side (a pool or a norm over a conv map that
                # the compiler split: ConvNeXt-V2's GRN, EfficientNet's pools): 64 rows over 32
                # columns on 8 warps. H200 data (pool_h200_s0, reduction_h200_s2, pool_mid_h200_s0:
                # 98 such kernels) geomean 1.16 / 1.12 / 1.15 of the best where 16 columns on 16
                # warps gave 1.26 / 1.21 / 1.38; short of 32768 columns it is the worse of the two
                return {"XBLOCK": 32, "RBLOCK": min(64, max(8, next_pow2(rnumel))), "num_warps": 8,
                        "num_stages": 1}
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

    def candidates(self, meta):
        out = []
        persistent, outer = meta.persistent, meta.outer
        rbs = [max(next_pow2(meta.rnumel), 2)] if persistent else \
            ([8, 16, 32, 64] if outer else [256, 512, 1024, 2048, 4096])
        for rb in rbs:
            for xb in ((16, 32, 64, 128, 256) if outer else (1, 2, 4, 8, 16, 32, 64, 128)):
                if xb * rb > (16384 if persistent else 8192) or xb > max(next_pow2(meta.xnumel), 1):
                    continue
                for nw in (2, 4, 8, 16):
                    out.append({"XBLOCK": xb, "RBLOCK": rb, "num_warps": nw, "num_stages": 1})
        return out or [self.default(meta)]

    def space(self, meta, device=None):
        # rows per program, the reduction chunk (a whole row when persistent: fixed), warps;
        # the block is capped as the candidates are (registers)
        d = self.default(meta)
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
                           kind=f"triton.{meta.kind}" + (".outer" if meta.outer else ""))


# -- scans (compiler/codegen/scan.py): the kind's whole policy ----------------------------------
# A scan kernel's source holds a persistent variant (RBLOCK covers the row: one block) and a
# looped one (chunks of RBLOCK along the row, the running prefix carried from chunk to chunk);
# the config's RBLOCK picks one when Triton compiles it, so the search weighs both. Figures
# reasoned, not yet swept on a GPU: a row in registers up to SCAN_PERSISTENT_MAX (a cummax
# holds a position beside each value), tiles of SCAN_TILE elements on 8 warps.
SCAN_PERSISTENT_MAX = 4096   # rows up to this long are one block by default
SCAN_CHUNK = 2048            # the looped default's chunk along a longer row
SCAN_TILE = 2048             # elements of a default tile (rows x chunk)



class Scan(Kind):
    """cumsum and the like: rows of rnumel, persistent or looped as the config's RBLOCK says."""

    def default(self, meta):
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

    def candidates(self, meta):
        """Chunks of 32 to 2048 and the whole row (where it is at most SCAN_PERSISTENT_MAX), rows
        per program up to 64, tiles up to 8192 elements, 2 to 8 warps."""
        whole = max(next_pow2(meta.rnumel), 2)
        rbs = {min(rb, whole) for rb in (32, 128, 512, 2048)}
        if whole <= SCAN_PERSISTENT_MAX:
            rbs.add(whole)
        return [{"XBLOCK": xb, "RBLOCK": rb, "num_warps": nw, "num_stages": 1}
                for rb in sorted(rbs) for xb in (1, 2, 4, 8, 16, 32, 64)
                if xb * rb <= 8192 and xb <= next_pow2(meta.xnumel) for nw in (2, 4, 8)]

    def space(self, meta, device=None):
        """Rows per program, RBLOCK from chunks of 16 to the whole row (the persistent variant),
        warps; the block capped as the candidates are (registers)."""
        d = self.default(meta)
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
# persistent loop over the tiles, one program per SM, operands loaded through TMA descriptors,
# at cuBLAS's speed where the plain template was 7-15% behind (docs/PERF_NOTES.md). Offered
# (timed beside the shortlist or the seeds) where the output has at least TMA_MIN_TILES tiles
# of 128 x 128 and K at least 64: tile count vs SMs is what a persistent loop pays off on.
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
    return k >= 64 and (-(-m // 128)) * (-(-n // 128)) >= TMA_MIN_TILES and kernel_device.tma_device()


def template_grid(mm, cfg) -> int:
    """Programs a template launches with this config: one per output tile, or with TMA (the
    persistent variant) at most one per SM."""
    b, m, n, _ = mm
    tiles = b * (-(-m // cfg["BLOCK_M"])) * (-(-n // cfg["BLOCK_N"]))
    return min(tiles, kernel_device.sm_count()) if cfg.get("TMA") else tiles


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


def large_tiles(meta: KernelMeta, configs: list[dict]) -> list[dict]:
    """configs without those under 64 x 64 where the template skips them (drops_small_tiles)."""
    if not drops_small_tiles(meta):
        return configs
    return [c for c in configs if c["BLOCK_M"] * c["BLOCK_N"] >= _SMALL_TILE]


def template_seeds(meta: KernelMeta) -> list[dict]:
    """A template's seed set: its default, then the hand-written seeds (compiled in one
    batch; coordinate descent starts from the fastest; small tiles left out where
    `drops_small_tiles`), then Hopper's variant where the kernel has it."""
    out = [default_config(meta)]
    for c in large_tiles(meta, list(map(_template_config, _TEMPLATE_SEEDS))):
        if c not in out:
            out.append(c)
    return out + _tma_configs(meta)


class Template(Kind):
    """A matmul over (batch, m, n, k) with its fused epilogue."""

    def default(self, meta):
        _, m, n, k = meta.mm
        small = m <= 64 or n <= 64
        bm = 32 if m <= 32 else (64 if small else 128)
        bn = 32 if n <= 32 else (64 if small else 128)
        bk = 32 if k <= 32 else 64
        return {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8,
                "num_warps": 4 if bm * bn <= 64 * 64 else 8, "num_stages": 3}

    def candidates(self, meta):
        # the seeds, then a wider grid over tiles, K steps, warps and stages (an exhaustive
        # search's sweep and the table `tuner collect triton_kernel --focus template` measures)
        out = template_seeds(meta)
        for c in map(_template_config, _TEMPLATE_GRID):
            if c not in out:
                out.append(c)
        return out

    def space(self, meta, device=None):
        _, m, n, k = meta.mm
        # the defaults' tiles are at least 32 a side: the space reaches them on small problems
        return ConfigSpace.matmul(max(m, 32), max(n, 32), max(k, 32), element_size=itemsize(meta.mm_dtype),
                                  device=device or kernel_device.device_limits())

    def search_options(self, meta, space):
        """Six fields, each candidate a Triton compile of seconds: one field at a time from the
        best of the seed set (initial_configs), with neither joint moves nor walks along
        plateaus: with pair moves (15 pairs, 60 candidates per sweep) and plateau walks, one
        GPT-2 MLP matmul tuned for over 100 s on the H100, the stock compiler's whole
        max-autotune of it took 37 s."""
        return {"check_all_directions": False, "check_pairs": False, "max_plateau_walks": 0}

    def initial(self, meta, space, search):
        """The seed set, compiled at once (one parallel batch); the descent walks from the
        fastest, so each seed lies in the space (the first, the default, is kept even outside
        it). Exhaustive search: the default then the candidates."""
        if search == "exhaustive":
            return super().initial(meta, space, search)
        seeds = template_seeds(meta)
        return seeds[:1] + [c for c in seeds[1:] if space is None or space.valid(to_config(c))]


# the policy of each kind, in the order of KINDS
POLICIES: dict[str, Kind] = {
    "pointwise": Pointwise(), "pointwise_tiled": PointwiseTiled(),
    "persistent_reduction": Reduction(), "reduction": Reduction(), "scan": Scan(),
    "combo": Combo(), "foreach": Foreach(), "template": Template(), "scatter": Scatter()}
KINDS = tuple(POLICIES)
TUNABLE_KINDS = tuple(k for k, p in POLICIES.items() if not isinstance(p, Scatter))


def default_config(meta: KernelMeta) -> dict:
    """The config default mode launches (and every search starts from)."""
    return POLICIES[meta.kind].default(meta)


def candidate_configs(meta: KernelMeta) -> list[dict]:
    """The hand-written candidates an exhaustive search sweeps (the default is put first by
    `initial_configs`, not necessarily here)."""
    return POLICIES[meta.kind].candidates(meta)


def config_space(meta: KernelMeta, device: DeviceLimits | None = None) -> ConfigSpace | None:
    """The space coordinate descent searches from the default; None for a kind that is never
    tuned (scatter). Every space holds the kind's default config. device: the GPU's limits
    (a template's shared memory), this process's GPU when None."""
    return POLICIES[meta.kind].space(meta, device)


def search_options(meta: KernelMeta, space: ConfigSpace | None) -> dict:
    """Coordinate descent's options for this kernel's kind (Kind.search_options)."""
    return POLICIES[meta.kind].search_options(meta, space)


def initial_configs(meta: KernelMeta, space: ConfigSpace | None, search: str) -> list[dict]:
    """What the search starts from: the default alone for coordinate descent and budgeted
    search (which walk the space from it), the default then the hand-written list for
    exhaustive search, a kind without a space, and templates (their seed set)."""
    return POLICIES[meta.kind].initial(meta, space, search)
