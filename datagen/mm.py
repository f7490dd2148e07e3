"""mm_backend problem generator and measurement for `tuner collect mm`.

The mm point (tuner/points/mm.py) chooses, per matmul, between the ATen call followed by a
kernel for its pointwise consumers ("extern") and our Triton template with them fused
("template", its config tuned by the kernel-config point). A row per (problem, choice) holds
the time of the compiler's own runner for that choice (compiler/compile_graph.py
`mm_runners`: the matmul and a ReLU epilogue, compiled and tuned as max-autotune would), so a
learned module answers the question the point asks. The template's row also records the
config its tuning chose and the fastest configs it measured (`template_config`,
`template_timings`): the data a learned template config needs.

Problem i of a stream depends only on (seed, i, spec). Shapes mix three sources: sizes of
real models' projections and attention (GPT-2, BERT, LLaMA, ViT at several batch and
sequence sizes), powers of two and their odd neighbours, and log-uniform sizes; ops mm,
addmm and bmm; fp16, bf16 and fp32; operands row- or column-major. The default stream's
matmuls have a cheap epilogue (a ReLU); `--focus bare` and `--focus costly` give the same
shapes with no pointwise consumer and with a tanh-GELU (the point's three epilogue classes).
`--focus bare_large` and `costly_large` keep to the problems a real model's projections pose
(every dimension >= 512, at least 2 GFLOP; most of them real models' layers), where those
classes come out near ties and max-autotune spends most of its template searches.
`--focus bare_model` (and `cheap_model`, `costly_model`, the same shapes with the other
epilogue classes) draws only what a transformer's training step multiplies, bare: each
linear layer's forward (tokens x hidden @ weight^T), input gradient and weight gradient
(hidden x tokens @ tokens x hidden: the first operand column-major), over hidden sizes and
token counts of public models, and the attention's q @ k^T and p @ v bmms over heads x batch,
sequence lengths and head dims; mostly bf16/fp16. There the bare question decides most of a
max-autotune compile's probes (a GPT-2 training step's seven: all near-ties or cuBLAS wins).
"""
from __future__ import annotations

import contextlib
import math
import random
import statistics
import time
from dataclasses import asdict, dataclass

from tuner.heuristics.contexts import MM_BACKEND_CHOICES, MM_BACKEND_FEATURE_SCHEMA, mm_backend_feature_types
from tuner.points.mm import TEMPLATE_REVISION, MMProblem

POINT = "mm_backend"
CHOICES = MM_BACKEND_CHOICES
FEATURE_SCHEMA = MM_BACKEND_FEATURE_SCHEMA

# (k, n) of real models' linear layers (hidden -> hidden, qkv, MLP up and down) and the
# attention matmuls' (head dim, sequence) pairs
_MODEL_KN = ((768, 768), (768, 2304), (768, 3072), (3072, 768), (1024, 1024), (1024, 4096),
             (4096, 1024), (4096, 4096), (4096, 12288), (4096, 11008), (11008, 4096),
             (512, 512), (512, 2048), (2048, 512), (64, 128), (64, 512), (128, 512),
             (512, 64), (1024, 64))
_MODEL_M = (1, 8, 16, 32, 64, 128, 197, 256, 512, 1024, 2048, 4096, 8192)

# the epilogue classes besides the default stream's cheap one (tuner/points/mm.py MMProblem)
FOCI = {"bare": "matmuls without a pointwise consumer (the extern side is the ATen call alone)",
        "costly": "matmuls followed by a tanh-GELU (a special function per element)",
        "bare_large": "bare, every dimension >= 512 and >= 2 GFLOP (real models' projections)",
        "costly_large": "costly, every dimension >= 512 and >= 2 GFLOP",
        "bare_model": "bare, only transformers' training-step matmuls (forward, input and weight "
                      "gradients of linear layers; attention bmms)",
        "cheap_model": "the same matmuls with a cheap epilogue (a ReLU; in the models a bias, a "
                       "residual, a cast of a weight gradient to fp32)",
        "costly_model": "the same matmuls followed by a tanh-GELU"}
LARGE_MIN_DIM = 512
LARGE_MIN_FLOPS = 2e9


def epilogue_class(focus: str | None) -> str | None:
    """The epilogue class of a focus (None: the default stream's cheap one)."""
    if focus is None:
        return None
    cls = focus.removesuffix("_large").removesuffix("_model")
    return None if cls == "cheap" else cls   # (the default stream's class is the cheap one)


@dataclass(frozen=True)
class GeneratorSpec:
    min_dim: int
    max_dim: int
    max_batch: int
    max_flops: float       # 2*b*m*n*k of the largest problem
    max_bytes: int         # operands + output
    focus: str | None = None   # the epilogue class (FOCI); None: cheap
    min_flops: float = 0.0

    @classmethod
    def for_device(cls, device: str, focus: str | None = None) -> "GeneratorSpec":
        if focus is not None and focus not in FOCI:
            raise ValueError(f"mm: unknown focus {focus!r} (known: {', '.join(FOCI)})")
        if device == "cpu":
            # Triton's interpreter: a few thousand multiply-adds per problem
            return cls(1, 40, 2, 2 * 40 ** 3, 1 << 20, focus)
        if focus is not None and focus.endswith("_large"):
            return cls(LARGE_MIN_DIM, 8192, 64, 2 * 4096 ** 3, 1 << 30, focus, LARGE_MIN_FLOPS)
        if focus is not None and focus.endswith("_model"):
            return cls(64, 16384, 768, 2 * 8192 ** 3, 1 << 30, focus)
        return cls(1, 8192, 64, 2 * 8192 ** 3, 1 << 30, focus)

    def to_json(self) -> dict:
        d = asdict(self)
        if d["focus"] is None:   # the default stream's header reads as before foci
            del d["focus"]
        if not d["min_flops"]:   # nor do the streams without a floor
            del d["min_flops"]
        return d


def _dim(rng: random.Random, spec: GeneratorSpec) -> int:
    r = rng.random()
    if r < 0.4:     # a power of two or an odd neighbour
        e = rng.randint(max(0, math.ceil(math.log2(max(spec.min_dim, 1)))), int(math.log2(spec.max_dim)))
        return max(spec.min_dim, min(spec.max_dim, (1 << e) + rng.choice((0, 0, 0, -1, 1, 7))))
    lo, hi = math.log(spec.min_dim), math.log(spec.max_dim)
    return max(spec.min_dim, min(spec.max_dim, int(round(math.exp(rng.uniform(lo, hi))))))


# hidden sizes (d_model, MLP widths, qkv widths) and token counts (batch x sequence) of public
# transformers; attention's sequence lengths and head dims
_HIDDEN = (512, 768, 1024, 1280, 1536, 2048, 2304, 2560, 3072, 4096, 5120, 8192, 11008, 12288, 14336)
_TOKENS = (256, 512, 1024, 2048, 4096, 8192, 16384)
_SEQ = (128, 197, 256, 512, 1024, 2048)
_HEAD_DIM = (64, 80, 128)


def _sample_model(rng: random.Random, spec: GeneratorSpec) -> MMProblem:
    """A transformer training step's matmul (the bare_model focus, see the module docstring)."""
    dtype = rng.choices(("bfloat16", "float16", "float32"), weights=(6, 3, 1))[0]
    cls = epilogue_class(spec.focus)
    kw = dict(epilogue=cls != "bare", costly_epilogue=cls == "costly")
    if rng.random() < 0.2:   # attention: (batch x heads) x seq x seq @ seq x head_dim, or q @ k^T
        s, d = rng.choice(_SEQ), rng.choice(_HEAD_DIM)
        b = rng.choice((12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384))
        if rng.random() < 0.5:   # q @ k^T, k^T a view (column-major) or made contiguous
            return MMProblem("bmm", b, s, s, d, dtype, False, rng.random() < 0.5, **kw)
        return MMProblem("bmm", b, s, d, s, dtype, False, False, **kw)      # p @ v
    t, h_in, h_out = rng.choice(_TOKENS), rng.choice(_HIDDEN), rng.choice(_HIDDEN)
    r = rng.random()
    if r < 0.4:     # forward: x @ W^T (the weight transposed: column-major), with or without bias
        return MMProblem(rng.choice(("mm", "addmm")), 1, t, h_out, h_in, dtype, False, True, **kw)
    if r < 0.7:     # input gradient: grad @ W
        return MMProblem("mm", 1, t, h_in, h_out, dtype, False, False, **kw)
    return MMProblem("mm", 1, h_out, h_in, t, dtype, True, False, **kw)   # weight gradient: grad^T @ x


def _sample(rng: random.Random, spec: GeneratorSpec) -> MMProblem:
    if spec.focus is not None and spec.focus.endswith("_model") and spec.max_dim >= 16384:
        return _sample_model(rng, spec)   # (the interpreter's tiny shapes on CPU: the default's)
    op = rng.choices(("mm", "addmm", "bmm"), weights=(4, 4, 2))[0]
    dtype = rng.choices(("bfloat16", "float16", "float32"), weights=(5, 3, 2))[0]
    batch = rng.randint(2, spec.max_batch) if op == "bmm" else 1
    large = spec.min_dim >= LARGE_MIN_DIM
    if rng.random() < (0.7 if large else 0.45) and spec.max_dim >= 4096:      # a real model's layer
        kn = [(k, n) for k, n in _MODEL_KN if min(k, n) >= spec.min_dim]
        k, n = rng.choice(kn)
        m = rng.choice([m for m in _MODEL_M if m >= spec.min_dim])
    else:
        m, n, k = _dim(rng, spec), _dim(rng, spec), _dim(rng, spec)
    t1, t2 = rng.random() < 0.2, rng.random() < 0.35
    cls = epilogue_class(spec.focus)
    return MMProblem(op, batch, m, n, k, dtype, t1, t2, epilogue=cls != "bare",
                     costly_epilogue=cls == "costly")


def problem(seed: int, index: int, spec: GeneratorSpec) -> MMProblem:
    """The index-th problem of the stream: deterministic, independent of shards."""
    # a focused stream of an epilogue class draws the default stream's shapes (its own problem
    # ids tell them apart); a *_large stream draws its own (every dim >= 512, >= 2 GFLOP)
    rng = random.Random(f"{POINT}:{seed}:{index}")
    for _ in range(10_000):
        p = _sample(rng, spec)
        item = 4 if p.dtype == "float32" else 2
        nbytes = item * p.batch * (p.m * p.k + p.k * p.n + p.m * p.n)
        flops = 2 * p.batch * p.m * p.n * p.k
        if spec.min_flops <= flops <= spec.max_flops and nbytes <= spec.max_bytes:
            return p
    raise RuntimeError(f"{POINT}: no problem fits the budget for seed {seed} index {index}")


def header_fields(spec: GeneratorSpec) -> dict:
    # template_revision: which template kernel was timed (tuner.points.mm; files without it
    # predate revision 2): learn a module from files of one revision
    return {"point": POINT, "features": mm_backend_feature_types(), "choices": list(CHOICES),
            "feature_schema": FEATURE_SCHEMA, "generator": spec.to_json(),
            "template_revision": TEMPLATE_REVISION,
            "runner": "compiler.compile_graph.mm_runners (matmul + "
                      + {None: "ReLU", "bare": "nothing", "costly": "tanh-GELU"}[epilogue_class(spec.focus)]
                      + "; template tuned)"}


def measure(p: MMProblem, device: str, *, reps: int = 3, inner: int = 10, warmup: int = 3,
            seed: int = 0) -> list[dict]:
    """Build both runners (compiling and tuning them, as the point does), then time them
    `reps` times each, alternating. One row per choice; a runner that fails scores inf."""
    from tuner.bench import benchmark
    from tuner.compiler.compile_graph import mm_runners

    t0 = time.perf_counter()
    failed = None
    samples: dict[str, list[float]] = {c: [] for c in CHOICES}
    tuned = None
    try:
        with _template_decisions() as made:
            fns = mm_runners(p, device)
        tuned = _template_config(made)
        build_s = time.perf_counter() - t0
        for r in range(reps):
            for c in (CHOICES if r % 2 == 0 else CHOICES[::-1]):
                fn = fns.get(c)
                if fn is None:
                    samples[c].append(math.inf)
                    continue
                # on CPU wall time per run after one warm-up; under the bench lock when set
                w = 1 if device == "cpu" else (warmup if r == 0 else 1)
                samples[c].append(float(benchmark(fn, warmup=w, reps=inner, device=device)))
    except (RuntimeError, MemoryError) as e:   # OOM: both score infinity
        failed = (str(e).splitlines() or [type(e).__name__])[0][:200]
        build_s = time.perf_counter() - t0
        for c in CHOICES:
            samples[c] = samples[c] or [math.inf]
    feats = p.features()
    rows = []
    for c in CHOICES:
        ts = samples[c]
        med = statistics.median(ts)
        spread = (max(ts) - min(ts)) / med if math.isfinite(med) and med > 0 else None
        row = {"choice": c, "time_ms": med, "reps": len(ts), "spread": spread, "min_ms": min(ts),
               "max_ms": max(ts), "bench_s": (time.perf_counter() - t0) / max(1, reps),
               "build_s": build_s, "op": p.op, "dtype": p.dtype, **feats}
        if c == "template" and tuned is not None:
            row.update(tuned)
        if failed:
            row["error"] = failed
        rows.append(row)
    return rows


@contextlib.contextmanager
def _template_decisions():
    """The template-config decisions (tuner.engine.HISTORY, namespace triton.template) made
    inside the block: the list yielded is filled when it ends."""
    from tuner import engine
    before = {id(d) for d in engine.HISTORY}
    made: list = []
    try:
        yield made
    finally:
        made.extend(d for d in engine.HISTORY
                    if id(d) not in before and d.namespace == "triton.template")


def _template_config(decisions) -> dict | None:
    """Row fields for the template's tuned config (data for a learned template config: the
    point benchmarks half as much with a "template" answer and still searches configs):
    template_config (the winner's meta-parameters and launch options), template_timings
    (the fastest measured configs, up to 8, with ms) and template_search_stopped (the probe's
    tuning budget ran out: the best so far)."""
    from tuner.points.triton_kernel import config_dict
    if not decisions:
        return None
    d = decisions[-1]
    as_dict = lambda c: config_dict(c) if hasattr(c, "kwargs") else dict(c)   # noqa: E731
    return {"template_config": as_dict(d.choice),
            "template_timings": [{"config": as_dict(c), "ms": t} for c, t in d.timings[:8]
                                 if math.isfinite(t)],
            "template_search_stopped": bool(d.stopped_early)}
