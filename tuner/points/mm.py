"""The mm autotuning point: a matmul as an ATen call followed by a kernel for its pointwise
consumers ("extern"), or as our Triton template with those consumers fused into its epilogue
("template").

The template saves the epilogue's launch and its round trip of the product through memory,
and pays wherever its kernel is slower than cuBLAS (large square problems). So the choice is
measured, per problem: the compiler hands `decide_mm_backend` a factory of one runner per
choice (its own compiled code for the matmul and a representative epilogue, on random
operands; the template tuned by the kernel-config point), never timing anything itself.
The problem names the epilogue's class, since the answer turns on it: none ("bare": the
extern side is the ATen call alone), cheap (a ReLU stands for it: bias, residual, scale,
cast) or costly (a special function per element, which the template computes inside the
matmul's kernel: a tanh-GELU stands for it), and whether a kernel the graph launches anyway
takes the epilogue in on the extern side ("absorbed": a LayerNorm after a residual add, the
copy that splits attention heads), where the template saves only the product's round trip.
Order as everywhere: learned heuristic (when confident) -> cache -> benchmark both -> store;
each epilogue class asks its own module (`heuristic_namespace`).
With `measure=False` (the compiler's default mode) the answer is "extern" (ATen) and nothing
is asked or benchmarked. Both the heuristic and the cache answer "template" where the *tuned*
template beats ATen (the shipped modules, heuristics/artifacts/mm_backend_sm90.py for cheap
epilogues and mm_backend_bare_sm90.py / mm_backend_costly_sm90.py for the other classes,
learned from the tuned template's times; cache entries come from max-autotune's
measurements), and
default mode launches the template's untuned default config, which loses where the tuned one
wins (the figures behind this docstring: docs/PERF_NOTES.md, "Figures behind constants").
`TUNER_MM=template` forces the template in any mode.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

NAMESPACE = "mm_backend"
# "extern" first: the engine treats candidates[0] as the default (no answer, no measurement)
CANDIDATES = ("extern", "template")
# Part of every measured answer's cache key: bump it when the template kernel changes what it
# measures, so that answers timed against the old template (in the local cache and a shared
# Redis) stop matching. 2: epilogue operands narrower than the tile load in their own shape
# (2026-11-27; fp32 addmm with a bias up to 35x faster, so cached "extern" answers went stale).
# 3: Hopper's variant (persistent, TMA descriptors) timed for large 2-D fp16/bf16 templates
# (2026-11-27; 8-18% faster than the plain template there).
TEMPLATE_REVISION = 3


@dataclass(frozen=True)
class MMProblem:
    """One matmul: op ("mm", "bmm", "addmm"), batch (1 unless bmm), m, n, k, dtype name,
    whether each operand is column-major (a transposed contiguous matrix), and whether a
    pointwise consumer follows it (`epilogue`: the extern side then launches a kernel of its
    own for it, which the template fuses; without one, the extern is the ATen call alone, an
    addmm's bias included); `costly_epilogue`: one of those consumers evaluates a special
    function per element (tanh, erf, exp, sigmoid: a GELU, SiLU), which the template computes
    inside the matmul's kernel and the extern's own kernel hides under its memory traffic;
    `absorbed`: a kernel the graph launches anyway reads the epilogue's result (a LayerNorm
    after a residual add, a softmax after a scale, a contiguous copy for attention), so on the
    extern side the epilogue runs inside that kernel, not in one of its own: the template
    saves only the product's round trip through memory. `padded`: the pad_mm point chose to
    pad this matmul's operands, so the extern side is the ATen call on zero-padded operands
    (the template masks any size and never pads); shipped modules learned unpadded externs
    and are not asked about it."""
    op: str
    batch: int
    m: int
    n: int
    k: int
    dtype: str
    mat1_transposed: bool = False
    mat2_transposed: bool = False
    epilogue: bool = True
    costly_epilogue: bool = False
    absorbed: bool = False
    padded: bool = False

    def __post_init__(self):
        if self.op not in ("mm", "bmm", "addmm"):
            raise ValueError(f"mm problem: unknown op {self.op!r}; expected mm, bmm or addmm")
        if self.costly_epilogue and not self.epilogue:
            raise ValueError("mm problem: costly_epilogue needs epilogue (a bare matmul has none)")
        if self.absorbed and not self.epilogue:
            raise ValueError("mm problem: absorbed needs epilogue (a bare matmul has none)")
        for name in ("batch", "m", "n", "k"):
            v = getattr(self, name)
            if not isinstance(v, int) or v <= 0:
                raise ValueError(f"mm problem: {name} must be a positive int, got {v!r}")

    def signature(self) -> str:
        return (f"{self.op}:b{self.batch}:m{self.m}:n{self.n}:k{self.k}:{self.dtype}:"
                f"t{int(self.mat1_transposed)}{int(self.mat2_transposed)}"
                + ("" if self.epilogue else ":bare") + (":costly" if self.costly_epilogue else "")
                + (":absorbed" if self.absorbed else "") + (":padded" if self.padded else ""))

    @property
    def feature_schema(self) -> int:
        from tuner.heuristics.contexts import MM_BACKEND_FEATURE_SCHEMA
        return MM_BACKEND_FEATURE_SCHEMA

    def features(self) -> dict:
        """Numbers only (a learned module's input; datasets' rows): see
        tuner.heuristics.contexts.mm_backend_features."""
        from tuner.heuristics.contexts import mm_backend_features
        return mm_backend_features(self.op, self.batch, self.m, self.n, self.k, self.dtype,
                                   self.mat1_transposed, self.mat2_transposed, self.epilogue,
                                   self.costly_epilogue)


def problem_from_layout(op: str, size1, stride1, size2, stride2, dtype, epilogue: bool = True,
                        costly_epilogue: bool = False, absorbed: bool = False,
                        padded: bool = False) -> MMProblem | None:
    """The problem of a matmul given its operands' IR sizes and strides, or None where there
    is none to pose (symbolic or empty sizes)."""
    try:
        s1 = [int(s) for s in size1]
        s2 = [int(s) for s in size2]
        st1 = [int(s) for s in stride1]
        st2 = [int(s) for s in stride2]
    except (TypeError, ValueError):
        return None
    batch = s1[0] if len(s1) == 3 else 1
    m, k, n = s1[-2], s1[-1], s2[-1]
    if min(batch, m, k, n) <= 0:
        return None
    col = lambda st: st[-1] != 1 and st[-2] == 1   # noqa: E731
    return MMProblem(op, batch, m, n, k, str(dtype).replace("torch.", ""), col(st1), col(st2),
                     epilogue, costly_epilogue, absorbed and epilogue, padded)


def heuristic_namespace(problem: MMProblem) -> str:
    """The question a shipped module answers about this problem, by epilogue class: the cheap
    class asks "mm_backend" (heuristics/artifacts/mm_backend_sm90.py), a bare matmul
    "mm_backend.bare", a costly one "mm_backend.costly". A module learned for one class is
    never asked about another: its data never showed it. An absorbed epilogue asks the bare
    question: on the extern side the ATen call is the only kernel of its own, as for a bare
    matmul, and the template saves only the product's round trip (docs/PERF_NOTES.md)."""
    if not problem.epilogue or problem.absorbed:   # an absorbed costly one too: absorbed first
        return NAMESPACE + ".bare"
    if problem.costly_epilogue:
        return NAMESPACE + ".costly"
    return NAMESPACE


def problem_from_row(row: dict) -> MMProblem:
    """The problem a `tuner collect mm` dataset row describes (its sizes, dtype and layouts)."""
    return MMProblem(row["op"], int(row["batch"]), int(row["m"]), int(row["n"]), int(row["k"]),
                     row["dtype"], bool(row["mat1_transposed"]), bool(row["mat2_transposed"]))


def aligned_rows(problem: MMProblem) -> bool:
    """Whether the rows each operand and the output are stored in (mat1's K, or M when it is
    transposed; mat2's N, or K; the output's N) are 16-byte multiples. cuBLAS picks other
    kernels where they are not, and its speed there jumps between neighbouring sizes: every
    answer of the shipped modules that lost more than 10% on fresh H200 files (3 of ~1,100;
    up to 1.67x) and the 13.8x outlier of the post-fix relearn had such a row (see
    `heuristic_answer`)."""
    from tuner.heuristics.contexts import alignment_for
    align = alignment_for(problem.dtype)   # elements per 16 bytes
    rows = (problem.m if problem.mat1_transposed else problem.k,
            problem.k if problem.mat2_transposed else problem.n, problem.n)
    return all(r % align == 0 for r in rows)


def heuristic_answer(problem: MMProblem, device) -> str | None:
    """A shipped module's confident answer for this problem (its epilogue class's module,
    `heuristic_namespace`), or None: unsure, a padded problem (its extern is another runner
    than the modules' data had), or rows that are not 16-byte multiples (`aligned_rows`).
    The point measures where this is None; only max-autotune asks (default mode is ATen), so
    staying unsure costs two timings, never a slower matmul. device: a DeviceInfo."""
    from tuner.heuristics.registry import lookup
    if problem.padded or not aligned_rows(problem):
        return None
    ns = heuristic_namespace(problem)
    # the bare module is asked the bare question: an absorbed problem as the matmul alone (its
    # data has no epilogue, so a module learned with leaf ranges would find epilogue=1 outside
    # every leaf and never answer one)
    asked = dataclasses.replace(problem, epilogue=False, costly_epilogue=False, absorbed=False) \
        if ns == NAMESPACE + ".bare" else problem
    return lookup(ns, asked, device)


def decide_mm_backend(problem: MMProblem | None, runners: Callable[[], dict] | None,
                      device: str = "cuda", measure: bool = True) -> str:
    """ "extern" or "template" for one problem; see `mm_decision`."""
    d = mm_decision(problem, runners, device, measure)
    return "extern" if d is None else d.choice


def mm_decision(problem: MMProblem | None, runners: Callable[[], dict] | None,
                device: str = "cuda", measure: bool = True):
    """The engine's Decision for a problem, or None where there is nothing to decide.

    runners: called once, on the first measurement only (a heuristic or cache answer builds
    nothing), returning {"extern": fn, "template": fn} of no-argument callables that run the
    matmul with the same epilogue each way. A choice whose runner fails scores infinity."""
    if problem is None or not measure:   # default mode: ATen (see the module's docstring)
        return None
    from tuner.bench import benchmark
    from tuner.engine import decide

    state: dict = {}

    def timed(choice):
        if "fns" not in state:
            state["fns"] = runners() if runners is not None else {}
        fn = state["fns"].get(choice)
        if fn is None:
            return float("inf")
        try:
            return benchmark(fn, device=str(device))
        except Exception:   # a variant that does not compile or run loses
            return float("inf")

    ns = heuristic_namespace(problem)
    try:
        # features (collect mode's dataset rows, harvested under NAMESPACE) for the cheap class
        # only: the default stream's; its features do not tell an absorbed or padded problem apart
        return decide(**_decision_inputs(problem, device), measure=timed,
                      features=problem.features() if ns == NAMESPACE and not problem.padded else None)
    finally:
        state.clear()


def measures(problem: MMProblem, device: str = "cuda") -> bool:
    """Whether `mm_decision` would measure this problem now (no confident heuristic, no cached
    answer): asked through tuner.engine.plan, nothing built, timed or recorded."""
    from tuner.engine import plan
    return plan(**_decision_inputs(problem, device)).measures


def _decision_inputs(problem: MMProblem, device) -> dict:
    """The engine's question for a problem, as mm_decision asks it and `measures` plans it."""
    from tuner.heuristics.registry import device_info
    # each epilogue class is its own question (heuristic_namespace): the cheap class's module
    # learned from runners with a ReLU epilogue in a kernel of its own, the bare and costly
    # ones from runners with none and with a tanh-GELU
    heuristic = None if problem.padded else (lambda: heuristic_answer(problem, device_info(device)))
    return {"namespace": NAMESPACE, "problem": problem.signature(), "candidates": list(CANDIDATES),
            "heuristic": heuristic, "backend_extra": {"template_revision": TEMPLATE_REVISION}}
