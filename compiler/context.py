"""What one graph compile knows, and what it produces.

`CompileContext` carries a compile's settings explicitly: the mode, the user's options (the
keys of tuner.settings.COMPILE_OPTIONS only) and the compiler's own flags, which never ride in
the options dict. `CompiledGraph` is a compile's result: the callable with its stats and the
inputs it writes, declared fields instead of attributes glued onto a function.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

AUTOTUNE_MODES = ("max-autotune", "max-autotune-no-cudagraphs")


@dataclass(frozen=True)
class CompileContext:
    mode: str = "default"
    options: dict = field(default_factory=dict)   # user options, validated by the backend
    inference: bool = False     # no backward reads the outputs (they may keep padded layouts)
    probe: bool = False         # a point timing its choices on a graph of its own (no stats kept)
    dynamic: bool = False       # compiled for one shape of a graph with symbolic sizes
    tune_budget_s: float | None = None   # a probe's own tuning budget (else the setting)
    sizes: Any = None           # a symbolic compile's SizeVars (compiler/sizes.py)
    # a backward's inputs AOTAutograd donated (indices): their storage may be reused once dead
    donated: frozenset = frozenset()

    @property
    def autotune(self) -> bool:
        """Whether kernels (and points that measure only when tuning, mm) are tuned."""
        return self.mode in AUTOTUNE_MODES or bool(self.options.get("max_autotune"))

    def option(self, name: str, default=None):
        value = self.options.get(name)
        return default if value is None else value

    def with_(self, **changes) -> "CompileContext":
        return replace(self, **changes)


@dataclass(eq=False)
class CompiledGraph:
    """A compiled graph in the boxed calling convention: `graph(args)` empties the list."""
    fn: Callable
    stats: Any
    mutated_inputs: tuple = ()   # indices of the inputs the graph writes in place
    donated_inputs: tuple = ()   # indices of the donated inputs whose storage it writes

    def __post_init__(self):
        # read by dynamo and AOTAutograd; an instance attribute, which functools.wraps copies
        self._boxed_call = True

    def __call__(self, args):
        return self.fn(args)
