"""Graphs with symbolic sizes, compiled once per concrete input shape.

After a shape changes, dynamo hands the backend a graph whose sizes are symbols (`s0`, ...),
with SymInt inputs beside the tensors. This compiler lowers concrete sizes only: a
`ShapeSpecialized` graph retraces the ATen graph on the first call of each distinct shape
(fake tensors of those sizes: every size becomes an int, size arithmetic folds away) and
compiles that; later calls of the shape go straight to its compiled graph. Dynamo itself does
not recompile: one dynamic graph serves every size its guards admit. Beyond the setting
TUNER_SHAPE_LIMIT shapes, a new shape runs the graph in ATen (one warning).
"""
from __future__ import annotations

import torch

from tuner.search.base import first_line

from . import stats as stats_mod
from .torch_compat import outside_fake_mode, retrace_concrete


def symbolic_positions(example_inputs):
    """Where the sizes live that a specialization depends on: (input, what, dim) for each
    symbolic size, stride or offset of a tensor input and each symbolic scalar input. The rest
    of every input's layout is fixed by dynamo's guards, so the key reads only these (a model
    has hundreds of parameter inputs: keying on all of them would cost ~1 us each per call)."""
    pos = []
    for i, x in enumerate(example_inputs):
        if isinstance(x, (torch.SymInt, torch.SymFloat, torch.SymBool)):
            pos.append((i, "value", 0))
        elif isinstance(x, torch.Tensor):
            pos += [(i, "size", d) for d, v in enumerate(x.shape) if isinstance(v, torch.SymInt)]
            pos += [(i, "stride", d) for d, v in enumerate(x.stride()) if isinstance(v, torch.SymInt)]
            if isinstance(x.storage_offset(), torch.SymInt):
                pos.append((i, "offset", 0))
    return tuple(pos)


def is_symbolic(example_inputs) -> bool:
    """Whether any input is a symbolic scalar or a tensor with a symbolic size, stride or offset."""
    return bool(symbolic_positions(example_inputs))


def shape_key(args, positions):
    """The concrete values at `positions` (see symbolic_positions) for this call's args."""
    key = []
    for i, what, d in positions:
        a = args[i]
        if what == "value":
            key.append(a)
        elif what == "size":
            key.append(a.size(d))
        elif what == "stride":
            key.append(a.stride(d))
        else:
            key.append(a.storage_offset())
    return tuple(key)


class ShapeSpecialized:
    """A boxed callable (args: list) over `gm` that compiles per distinct shape_key."""

    def __init__(self, gm, example_inputs, build, limit):
        # an instance attribute: wrappers made with functools.wraps copy it (dynamo's included)
        self._boxed_call = True
        self.gm = gm
        self.positions = symbolic_positions(example_inputs)
        self.build = build          # (concrete gm, concrete example inputs) -> boxed callable
        self.limit = limit
        self.compiled: dict = {}
        self._aten = None           # the graph run by ATen (past the limit, or not retraceable)

    def __call__(self, args):
        key = shape_key(args, self.positions)
        call = self.compiled.get(key)
        if call is None:
            call = self._specialize(args, key)
        return call(args)

    def _specialize(self, args, key):
        if len(self.compiled) >= self.limit:
            stats_mod.warn_once(("shape_limit", id(self)),
                                f"tuner: a graph with dynamic sizes met more than {self.limit} "
                                "input shapes (TUNER_SHAPE_LIMIT); further shapes run in ATen")
            return self._eager()   # not kept: the compiled shapes stay bounded by the limit
        try:
            with outside_fake_mode():
                gm = retrace_concrete(self.gm, list(args))
        except Exception as e:   # a graph that cannot be retraced: ATen runs it
            reason = first_line(e, 200)
            stats_mod.warn_once(("retrace", reason),
                                f"tuner: could not specialize a dynamic graph ({reason}); it runs in ATen")
            call = self._eager()
        else:
            call = self.build(gm, list(args))
        self.compiled[key] = call
        return call

    def _eager(self):
        if self._aten is None:
            self._aten = eager(self.gm)
        return self._aten


class eager:
    """gm run by ATen op by op, in the boxed calling convention."""

    def __init__(self, gm):
        self.gm = gm
        self._boxed_call = True   # (an instance attribute: see ShapeSpecialized)

    def __call__(self, args):
        a = list(args)
        args.clear()
        return self.gm(*a)
