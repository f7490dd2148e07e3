"""Kernel-config problem generator and measurement for `tuner collect triton_kernel --focus KIND`.

The kernel-config point (tuner/points/triton_kernel.py) picks the launch config of every
kernel the compiler generates. A problem here is a small PyTorch function whose compiled
graph holds one kernel of the focused kind (pointwise, pointwise_tiled, persistent_reduction,
reduction, template), at a random size and dtype; measuring it compiles the function with the tuner
backend in max-autotune with every candidate of the point's exhaustive list timed (the
default config first), in collect mode, and returns the rows collect mode wrote for that
kernel: one per config, with the point's features (extents, dtypes, body counts, the default
config, the problem key). A learned config module reads them (`tuner learn-configs`).

Problem i of a stream depends only on (seed, focus, i, spec). Bodies mix what models run:
a scale, GELU times a sigmoid gate, a residual add with a row bias, a cast; transposes and
head permutes (tiled); softmax, LayerNorm, RMSNorm, sums and means over the last dim
(persistent and looped) and over the first (x-major, `outer`); matmul templates (forced with
TUNER_MM=template) over real models' linear layers (a ReLU or a bias for epilogue, weights as
nn.Linear stores them or row-major) and random sizes; and (focus `template_bmm`, the same
kernel kind) attention's batched matmuls: q @ k^T with its scale, p @ v, over heads x batch,
sequence length and head size; (foci `pool` and `pool_persistent`, the reduction kinds)
conv nets' global average pools over channels-last maps, batch x channels rows; (focus
`pool_mid`) the same x-major reductions over maps of 65 to 8192 positions, which the compiler
loops over (an x-major reduction is persistent only up to 64 rows) and the other foci never
reached: a pool, an L2 norm, and an L2 norm after a GELU (ConvNeXt-V2's global response norm,
whose kernels ran on the hand default 1.17-1.28x slower than max-autotune's choice).
"""
from __future__ import annotations

import math
import os
import random
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from tuner.heuristics.dataset import read_dataset
from tuner.points.kernel_kinds import OUTER_R as OUTER_PERSISTENT

POINT = "triton_kernel"
FOCI = {"pointwise": "1-D pointwise kernels", "pointwise_tiled": "transposes and permutes",
        "persistent_reduction": "reductions whose row fits one block",
        "reduction": "looped reductions (inner and x-major)",
        "template": "matmul templates (real models' linear layers and random sizes)",
        "template_bmm": "matmul templates of attention's batched matmuls (q @ k^T, p @ v)",
        "pool": "looped reductions of conv nets' global average pools over channels-last maps",
        "pool_persistent": "the same pools over maps that fit one block (persistent reductions)",
        "pool_mid": "x-major looped reductions over maps of 65-8192 positions (pools, norms, GELU then norm)"}
# the kernel kind a focus measures (its namespace triton.<kind>): a focus over-samples a region
# (pool: EfficientNet-B0's split pools of 30-147k rows ran 15-40% slower under the reduction
# shortlist than fully tuned, where the reduction focus stops at 2^16 rows)
KIND = {"template_bmm": "template", "pool": "reduction", "pool_persistent": "persistent_reduction",
        "pool_mid": "reduction"}
FEATURE_SCHEMA = 1
BODIES = {
    "pointwise": ("scale", "gelu_gate", "bias_residual", "cast"),
    "pointwise_tiled": ("transpose_add", "permute_heads"),
    "persistent_reduction": ("softmax", "layernorm", "rmsnorm", "sum", "sum_outer"),
    # x-major sums twice as often: their defaults lose the most (a bias gradient's shape)
    "reduction": ("sum", "mean_f32", "sum_outer", "sum_outer"),
    # relu(x @ w.T), x @ w.T + b (an addmm), relu(a @ b) with b row-major
    "template": ("linear", "linear_bias", "mm"),
    # softmax(q @ k^T * scale)'s matmul with the scale fused; p @ v
    "template_bmm": ("qk", "pv"),
    # x.mean(1) of (batch, h * w, channels): a global average pool or a squeeze-excite
    "pool": ("mean_spatial",),
    "pool_persistent": ("mean_spatial",),
    # ConvNeXt-V2's GRN: x.norm(p=2, dim=(1, 2)) of a channels-last map, after the MLP's GELU
    "pool_mid": ("mean_spatial", "norm_spatial", "gelu_norm_spatial"),
}
# spatial sizes of conv nets' feature maps (224 and 256 inputs, strides 2 to 32)
_POOL_HW = (49, 64, 196, 256, 784, 1024, 3136, 4096, 12544, 16384, 50176, 65536)
# token counts of the real-model matmuls (batch x sequence: 197 x 32 is ViT-B/16's 6304)
_TEMPLATE_M = (16, 64, 128, 256, 512, 1024, 2048, 4096, 6304, 8192)


@dataclass(frozen=True)
class KernelProblem:
    focus: str
    body: str
    rows: int          # the kept (x) extent: rows of a reduction, y side of a transpose; m
    cols: int          # the reduced (r) extent, or the row length; a matmul's n
    dtype: str
    inner: int = 0     # a matmul's k
    batch: int = 1     # a batched matmul's batch

    @property
    def kind(self) -> str:
        return KIND.get(self.focus, self.focus)

    def as_row(self) -> dict:
        row = {"body": self.body, "rows": self.rows, "cols": self.cols, "dtype": self.dtype}
        row = dict(row, inner=self.inner) if self.inner else row
        if self.batch == 1:
            return row
        # a pool's images are not a feature (the point's "batch" is a matmul's: a reduction
        # kernel at run time has none, and a learner would split on it)
        return dict(row, batch=self.batch) if self.kind == "template" else dict(row, images=self.batch)


@dataclass(frozen=True)
class GeneratorSpec:
    focus: str
    max_elements: int
    max_persistent: int    # the compiler's persistent-reduction limit on r
    min_looped: int

    @classmethod
    def for_device(cls, device: str, focus: str | None = None) -> "GeneratorSpec":
        if focus is None:
            raise ValueError(f"triton_kernel needs --focus, one of {', '.join(FOCI)}")
        if device == "cpu":   # Triton's interpreter: small sizes
            return cls(focus, 1 << 12, 1024, 1025)
        # the compiler's default max_persistent_r is 8192
        return cls(focus, 1 << 26, 8192, 8193)

    def to_json(self) -> dict:
        return asdict(self)


def _log_uniform(rng: random.Random, lo: int, hi: int) -> int:
    if rng.random() < 0.4:   # a power of two or an odd neighbour
        e = rng.randint(math.ceil(math.log2(lo)), int(math.log2(hi)))
        return max(lo, min(hi, (1 << e) + rng.choice((0, 0, -1, 1, 3))))
    return max(lo, min(hi, int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))))


def _sample(rng: random.Random, spec: GeneratorSpec) -> KernelProblem:
    body = rng.choice(BODIES[spec.focus])
    dtype = rng.choices(("bfloat16", "float16", "float32"), weights=(5, 2, 3))[0]
    cap = spec.max_elements
    if spec.focus == "pointwise":
        n = _log_uniform(rng, 1, cap)
        return KernelProblem(spec.focus, body, 1, n, dtype)
    if spec.focus == "pointwise_tiled":
        rows = _log_uniform(rng, 2, 1 << 15)
        cols = _log_uniform(rng, 2, max(2, min(1 << 15, cap // rows)))
        return KernelProblem(spec.focus, body, rows, cols, dtype)
    if spec.focus == "template":
        return _sample_matmul(rng, spec, body, dtype)
    if spec.focus == "template_bmm":
        return _sample_attention(rng, spec, body, dtype)
    if spec.focus in ("pool", "pool_persistent", "pool_mid"):
        return _sample_pool(rng, spec, body, dtype)
    if spec.focus == "persistent_reduction":
        cols = _log_uniform(rng, 2, spec.max_persistent)
    elif body == "sum_outer":   # the reduced side of an x-major sum, beyond one block
        cols = _log_uniform(rng, spec.min_looped, max(spec.min_looped, min(1 << 18, cap)))
    else:
        cols = _log_uniform(rng, spec.min_looped, max(spec.min_looped, min(1 << 20, cap)))
    rows = _log_uniform(rng, 1, max(1, min(1 << 16, cap // cols)))
    return KernelProblem(spec.focus, body, rows, cols, dtype)


def _sample_pool(rng: random.Random, spec: GeneratorSpec, body: str, dtype: str) -> KernelProblem:
    """A pool over h * w (a real map size half the time) of batch x channels rows: looped
    beyond the persistent limit for `pool`, within it for `pool_persistent`, from 65 positions
    to that limit for `pool_mid` (x-major, so looped); batch * rows * cols within the element
    cap."""
    cap = spec.max_elements
    lo, hi = {"pool": (spec.min_looped, max(spec.min_looped, min(1 << 16, cap))),
              "pool_mid": (OUTER_PERSISTENT + 1, max(OUTER_PERSISTENT + 1, min(spec.max_persistent, cap))),
              }.get(spec.focus, (4, spec.max_persistent))
    real = [hw for hw in _POOL_HW if lo <= hw <= hi]
    hw = rng.choice(real) if real and rng.random() < 0.5 else _log_uniform(rng, lo, hi)
    ch = _log_uniform(rng, 1, max(1, min(2048, cap // hw)))
    batch = _log_uniform(rng, 1, max(1, min(256, cap // (hw * ch))))
    return KernelProblem(spec.focus, body, ch, hw, dtype, batch=batch)


def _sample_matmul(rng: random.Random, spec: GeneratorSpec, body: str, dtype: str) -> KernelProblem:
    from .mm import _MODEL_KN
    if spec.max_elements <= 1 << 12:   # the interpreter: a few tiles
        m, n, k = (_log_uniform(rng, 1, 48) for _ in range(3))
    elif rng.random() < 0.7:   # a real model's layer
        (k, n), m = rng.choice(_MODEL_KN), rng.choice(_TEMPLATE_M)
    else:
        m, n, k = (_log_uniform(rng, 16, 8192) for _ in range(3))
    while m * n > spec.max_elements or m * n * k > 1 << 37:   # (~0.3 ms of bf16 tensor cores)
        m = max(1, m // 2)
    return KernelProblem(spec.focus, body, m, n, dtype, inner=k)


def _sample_attention(rng: random.Random, spec: GeneratorSpec, body: str, dtype: str) -> KernelProblem:
    """q @ k^T (m = n = sequence, k = head size) or p @ v (m = k = sequence, n = head size)
    over batch = heads x batch."""
    if spec.max_elements <= 1 << 12:   # the interpreter: a few tiles
        batch, seq, hd = rng.randint(1, 3), _log_uniform(rng, 1, 40), rng.choice((16, 32))
    else:
        seq = rng.choice((64, 128, 197, 256, 384, 512, 577, 1024, 2048)) if rng.random() < 0.7 \
            else _log_uniform(rng, 32, 4096)
        hd = rng.choice((32, 64, 64, 64, 80, 96, 128, 128))
        batch = _log_uniform(rng, 4, 512)
    m, n, k = (seq, seq, hd) if body == "qk" else (seq, hd, seq)
    while batch > 1 and (batch * m * n > spec.max_elements or batch * m * n * k > 1 << 37):
        batch //= 2
    return KernelProblem(spec.focus, body, m, n, dtype, inner=k, batch=batch)


def problem(seed: int, index: int, spec: GeneratorSpec) -> KernelProblem:
    """The index-th problem of the focused stream: deterministic, independent of shards."""
    rng = random.Random(f"{POINT}:{spec.focus}:{seed}:{index}")
    return _sample(rng, spec)


def header_fields(spec: GeneratorSpec) -> dict:
    from tuner.points.triton_kernel import KINDS
    return {"point": f"triton.{KIND.get(spec.focus, spec.focus)}", "features": {}, "choices": [],
            "feature_schema": FEATURE_SCHEMA, "generator": spec.to_json(),
            "kinds": list(KINDS),
            "runner": "the tuner backend, max-autotune-no-cudagraphs, exhaustive search, collect mode"}


def build(p: KernelProblem, device: str, seed: int = 0):
    """(fn, inputs) of a problem."""
    import torch
    import torch.nn.functional as F

    g = torch.Generator(device="cpu").manual_seed(seed)
    dt = getattr(torch, p.dtype)

    def rand(*shape, dtype=dt):
        return torch.randn(*shape, generator=g).to(device=device, dtype=dtype)

    r, c = p.rows, p.cols
    if p.focus == "template_bmm":
        scale = 1.0 / math.sqrt(p.inner if p.body == "qk" else p.cols)
        if p.body == "qk":   # k stored as attention keeps it, (batch, seq, head) transposed
            q, kt = rand(p.batch, r, p.inner), rand(p.batch, c, p.inner)
            return (lambda q, k: (q @ k.transpose(-1, -2)) * scale), (q, kt)
        pr, v = rand(p.batch, r, p.inner), rand(p.batch, p.inner, c)
        return (lambda pr, v: pr @ v), (pr, v)
    if p.focus == "template":
        x, b = rand(r, p.inner), rand(c)
        w = rand(c, p.inner) if p.body != "mm" else rand(p.inner, c)
        fns = {"linear": lambda x, w, b: torch.relu(F.linear(x, w)),
               "linear_bias": lambda x, w, b: F.linear(x, w, b),
               "mm": lambda x, w, b: torch.relu(x @ w)}
        return fns[p.body], (x, w, b)
    if p.focus == "pointwise":
        x, y = rand(c), rand(c)
        fns = {"scale": lambda x, y: x * 0.5 + 1.0,
               "gelu_gate": lambda x, y: F.gelu(x, approximate="tanh") * torch.sigmoid(y) + y,
               "bias_residual": lambda x, y: torch.relu(x + 0.1) + y,
               "cast": lambda x, y: (x.float() * y.float()).to(torch.float32)}
        return fns[p.body], (x, y)
    if p.focus == "pointwise_tiled":
        if p.body == "transpose_add":
            x, y = rand(r, c), rand(c, r)
            return (lambda x, y: x.t() + y), (x, y)
        heads = 4 if c % 4 == 0 and c >= 8 else 1
        x = rand(r, heads, c // heads)
        return (lambda x: (x.permute(1, 0, 2) * 2.0).contiguous()), (x,)
    if p.body.endswith("_spatial"):   # rows: channels, cols: h * w, channels-last maps
        x = rand(p.batch, c, r)
        fns = {"mean_spatial": lambda x: x.mean(1), "norm_spatial": lambda x: x.norm(p=2, dim=1),
               "gelu_norm_spatial": lambda x: F.gelu(x).norm(p=2, dim=1)}
        return fns[p.body], (x,)
    x = rand(r, c) if p.body != "sum_outer" else rand(c, r)
    if p.body == "softmax":
        return (lambda x: torch.softmax(x.float(), -1)), (x,)
    if p.body == "layernorm":
        w, b = rand(c), rand(c)
        return (lambda x, w, b: F.layer_norm(x, (c,), w, b)), (x, w, b)
    if p.body == "rmsnorm":
        w = rand(c)
        return (lambda x, w: (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w), (x, w)
    if p.body == "sum":
        return (lambda x: x.sum(-1)), (x,)
    if p.body == "mean_f32":
        return (lambda x: x.float().mean(-1)), (x,)
    if p.body == "sum_outer":
        return (lambda x: x.sum(0)), (x,)
    raise ValueError(f"unknown body {p.body!r}")


def measure(p: KernelProblem, device: str, *, reps: int = 3, inner: int = 10, warmup: int = 3,
            seed: int = 0) -> list[dict]:
    """Compile the problem's function with every candidate config of its kernels timed
    (collect mode), and return the rows of its largest kernel of the focused kind."""
    import torch
    import torch._dynamo

    from tuner.settings import environ

    fn, inputs = build(p, device, seed)
    namespace = f"triton.{p.kind}"
    if p.kind == "template":   # a matmul seen before in this process answers without a sweep
        from tuner.points.triton_kernel import forget_templates
        forget_templates()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tuner-kc-") as tmp:
        env = dict(TUNER_HEURISTICS="collect", TUNER_DATASET_DIR=tmp, TUNER_SEARCH="exhaustive",
                   TUNER_BENCH_REPS=str(max(1, reps * inner // 3)),
                   TUNER_CACHE_DIR=os.path.join(tmp, "cache"), TUNER_REMOTE_CACHE="")
        if p.kind == "template":   # the matmul as our template, unpadded
            env.update(TUNER_MM="template", TUNER_PAD_MM="never")
        failed = None
        with environ(env):
            torch._dynamo.reset()
            try:
                torch.compile(fn, backend="tuner", mode="max-autotune-no-cudagraphs")(*inputs)
            except Exception as e:   # noqa: BLE001 - a problem that does not compile: no rows
                failed = (str(e).splitlines() or [type(e).__name__])[0][:200]
            finally:
                torch._dynamo.reset()
        path = Path(tmp) / f"{namespace}.jsonl"
        rows = read_dataset(path).rows if path.exists() else []
    by_problem: dict = {}
    for row in rows:
        by_problem.setdefault(row.pop("problem"), []).append(row)
    if not by_problem:
        return [{"choice": "none", "time_ms": math.inf, "reps": 0, "error": failed or
                 f"no {namespace} kernel", **p.as_row()}]
    # the largest kernel of the kind (a softmax's one kernel; never a side kernel)
    chosen = max(by_problem.values(), key=lambda rs: (rs[0].get("xnumel", 0) * (rs[0].get("rnumel") or 1)
                                                      * (rs[0].get("ynumel") or 1)))
    bench_s = (time.perf_counter() - t0) / max(1, len(chosen))
    return [{**r, "bench_s": bench_s, **p.as_row()} for r in chosen]
