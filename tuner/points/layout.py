"""The layout autotuning point: run a graph's convolutions channels-last, or keep its layout.

Users pass conv nets NCHW; 2-D convolutions (and the pointwise, normalization and pooling ops
around them) run faster on channels-last tensors on GPUs. The compiler's layout pass
(compiler/channels_last.py) describes a graph's convolutions as a `LayoutProblem` and asks
`layout_decision` whether to convert: "keep" (the user's layout) or "channels_last" (inputs
that reach a convolution and the convolution weights converted once at the graph's entry,
outputs given back the strides eager would give them).

The answer comes, in order, from what the user forces (torch.compile's options={"layout": ...},
else the TUNER_LAYOUT setting, when either is not "auto"), the cache (an answer stored under
the problem's signature, read through the engine's `plan`, which measures nothing), then, in
max-autotune on CUDA (the caller passes a `timer`), a measurement of the whole graph under
both layouts, and otherwise a rule: channels_last for a graph with at least MIN_CONVS (2) 2-D
convolutions on CUDA whose activation inputs are not already channels-last; keep on any
other device.

A measured answer goes through the engine's `decide` (an exhaustive search of the two
candidates), which stores it in the cache under the problem's signature like every answer:
the next compile of a graph with the same convolutions, in any mode, reads it there and
measures nothing. The timer itself (compiler/channels_last.py, `layout_timer`) runs the
graph as ATen ops, not our compiled kernels; its docstring says why. No learned heuristic
exists for the point.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from tuner.points import answers
from tuner.settings import LAYOUT_CHOICES

NAMESPACE = "layout"
# "keep" first: the engine treats candidates[0] as the default it reports speedups against.
CANDIDATES = ("keep", "channels_last")


@dataclass(frozen=True)
class ConvSignature:
    """One 2-D convolution of a graph: what its speed under either layout depends on."""
    c_in: int
    c_out: int
    kernel: tuple[int, int]
    groups: int
    stride: tuple[int, int]
    h: int            # the input's height and width
    w: int
    dtype: str        # "float32", "bfloat16", ...

    def key(self) -> str:
        return (f"{self.c_in}x{self.c_out}k{self.kernel[0]}x{self.kernel[1]}g{self.groups}"
                f"s{self.stride[0]}x{self.stride[1]}@{self.h}x{self.w}:{self.dtype}")


@dataclass(frozen=True)
class LayoutProblem:
    """A graph's convolutions, the device it runs on ("cuda", "cpu") and whether its
    activation inputs that reach a convolution are all channels-last already."""
    convs: tuple[ConvSignature, ...]
    device: str
    inputs_channels_last: bool = False

    def signature(self) -> str:
        """The cache key: device, input layout, convolution count and each convolution."""
        cl = "cl" if self.inputs_channels_last else "nchw"
        return f"{self.device}/{cl}/{len(self.convs)}conv/" + ",".join(c.key() for c in self.convs)


@dataclass(frozen=True)
class LayoutAnswer:
    """The choice and what gave it: "forced" (option or setting), "heuristic" or "cache"
    (through the engine), "measured" (timed now, and stored), or "rule"."""
    choice: str
    source: str


# a graph with fewer 2-D convolutions keeps its layout by rule: a vision transformer's one
# patch-embedding convolution would pay the conversions (image, weight, output) for one op
MIN_CONVS = 2


def rule(problem: LayoutProblem) -> str:
    """The default answer: channels_last for a graph of MIN_CONVS or more convolutions on
    CUDA on inputs that are not channels-last already; keep otherwise (CPU, a lone
    convolution, or nothing to convert)."""
    if len(problem.convs) >= MIN_CONVS and problem.device == "cuda" and not problem.inputs_channels_last:
        return "channels_last"
    return "keep"


def check_mode(mode) -> str:
    """The layout mode given (None: "auto"); ValueError naming the valid ones otherwise."""
    return answers.check_mode(mode, LAYOUT_CHOICES, "layout")


# a function timing the graph under one choice (ms), or None when the graph cannot be timed
Timer = Callable[[], Optional[Callable[[str], float]]]


def layout_decision(problem: LayoutProblem, mode: str = "auto",
                    timer: Timer | None = None) -> LayoutAnswer:
    """"keep" or "channels_last" for a graph's convolutions: `mode` when it forces one, else
    the engine's heuristic or cache answer when there is one, else, when a `timer` is given
    (max-autotune), the faster choice measured and stored, else the rule. `timer` is called
    only when a measurement is needed; it returns choice -> ms, or None when the graph cannot
    be timed (the rule answers then)."""
    mode = check_mode(mode)
    if mode != "auto":
        return LayoutAnswer(mode, "forced")
    if not problem.convs:
        return LayoutAnswer("keep", "rule")
    found = answers.stored_or_measured(NAMESPACE, problem.signature(), CANDIDATES, timer)
    return LayoutAnswer(*found) if found is not None else LayoutAnswer(rule(problem), "rule")
