"""Graphs with symbolic sizes.

After a shape changes, dynamo hands the backend a graph whose sizes are symbols (`s0`, ...),
with SymInt inputs beside the tensors. A `ShapeSpecialized` graph is first compiled with its
sizes kept symbolic (compiler/sizes.py): kernels take the sizes as arguments, and the compiled
graph serves every call whose sizes satisfy the guards its lowering recorded; a call that
fails them compiles another symbolic variant. A graph the symbolic path cannot take (the
reason is counted in stats.symbolic_fallback) is compiled per concrete input shape instead:
the ATen graph is retraced on the first call of each distinct shape (fake tensors of those
sizes: every size becomes an int, size arithmetic folds away). Dynamo itself does not
recompile. Beyond the setting TUNER_SHAPE_LIMIT variants or shapes, a new shape runs the
graph in ATen (one warning).
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

    def __init__(self, gm, example_inputs, build, limit, build_symbolic=None):
        # an instance attribute: wrappers made with functools.wraps copy it (dynamo's included)
        self._boxed_call = True
        self.gm = gm
        self.example_inputs = list(example_inputs)
        self.positions = symbolic_positions(example_inputs)
        self.build = build          # (concrete gm, concrete example inputs) -> boxed callable
        # (gm, symbolic example inputs, this call's args) -> (guard check or None, callable);
        # raises where the graph cannot stay symbolic
        self.build_symbolic = build_symbolic
        self.limit = limit
        self.variants: list = []    # symbolic compiles: (check, call)
        self.compiled: dict = {}
        self._aten = None           # the graph run by ATen (past the limit, or not retraceable)

    def __call__(self, args):
        for check, call in self.variants:
            if check is None or check(args):
                return call(args)
        key = shape_key(args, self.positions)
        call = self.compiled.get(key)
        if call is None:
            call = self._new_variant(args)
            if call is not None:
                return call(args)
            call = self._specialize(args, key)
        return call(args)

    def _new_variant(self, args):
        """A symbolic compile for this call's sizes (None where the graph cannot stay symbolic
        or the variants reached the limit: it is compiled per shape from then on)."""
        if self.build_symbolic is None or len(self.variants) >= self.limit:
            return None
        try:
            check, call = self.build_symbolic(self.gm, self.example_inputs, list(args))
        except Exception as e:   # noqa: BLE001 - compiled per shape instead
            reason = first_line(e, 200)
            stats_mod.note_symbolic_fallback(reason)
            self.build_symbolic = None
            return None
        if check is not None and not check(args):   # (its guards hold for the call it was made for)
            self.build_symbolic = None
            return None
        self.variants.append((check, call))
        return call

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
