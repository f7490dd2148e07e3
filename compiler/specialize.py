"""Graphs with symbolic sizes.

After a shape changes, dynamo hands the backend a graph whose sizes are symbols (`s0`, ...),
with SymInt inputs beside the tensors. `SymbolicVariants` compiles it with its sizes kept
symbolic (compiler/sizes.py): kernels take the sizes as arguments, and the compiled graph
serves every call whose sizes satisfy the guards its lowering recorded; a call that fails them
compiles another symbolic variant, up to the setting TUNER_SHAPE_LIMIT variants (past it, a
call no variant admits runs the graph in ATen, with one warning). A graph the symbolic path
cannot take runs in ATen, the reason counted in stats.symbolic_fallbacks and named once.
(Compiling per concrete shape, the path this replaced, is what dynamo itself does under
`torch.compile(..., dynamic=False)`.)
"""
from __future__ import annotations

import torch

from tuner.search.base import first_line

from . import stats as stats_mod


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


class SymbolicVariants:
    """A boxed callable (args: list) over `gm` compiling symbolic variants as calls need them.
    build_symbolic: (gm, symbolic example inputs, this call's args) -> (guard check or None,
    callable), raising where the graph cannot stay symbolic; fallback: (gm, error) -> the
    graph run by ATen (counted and named by the caller)."""

    def __init__(self, gm, example_inputs, build_symbolic, limit, fallback):
        # an instance attribute: wrappers made with functools.wraps copy it (dynamo's included)
        self._boxed_call = True
        self.gm = gm
        self.example_inputs = list(example_inputs)
        self.build_symbolic = build_symbolic
        self.fallback = fallback
        self.limit = limit
        self.variants: list = []    # symbolic compiles: (check, call)
        self.refused = False        # a variant failed to compile: no further tries
        self._aten = None           # the graph run by ATen (refused, or past the limit)

    def __call__(self, args):
        for check, call in self.variants:
            if check is None or check(args):
                return call(args)
        return self._new_variant(args)(args)

    def _new_variant(self, args):
        """A symbolic compile for this call's sizes, or the graph in ATen."""
        if self.refused:
            return self._aten
        if len(self.variants) >= self.limit:
            stats_mod.warn_once(("shape_limit", id(self)),
                                f"tuner: a graph with dynamic sizes needed more than {self.limit} "
                                "symbolic variants (TUNER_SHAPE_LIMIT); sizes none admits run in ATen")
            return self._eager()
        try:
            check, call = self.build_symbolic(self.gm, self.example_inputs, list(args))
            if check is not None and not check(args):
                raise RuntimeError("a symbolic variant's guards refuse the sizes it was compiled for")
        except torch.OutOfMemoryError as e:   # (tuning, say): this call in ATen, a later one retries
            stats_mod.warn_once(("symbolic_oom", id(self)), f"tuner: compiling a symbolic variant ran "
                                f"out of memory ({first_line(e, 120)}); this call runs in ATen")
            return self._eager()
        except Exception as e:   # noqa: BLE001 - a model never fails to compile because of us
            stats_mod.note_symbolic_fallback(first_line(e, 200))
            self.refused = True   # (the variants so far keep serving their sizes)
            self._aten = self.fallback(self.gm, e)
            return self._aten
        self.variants.append((check, call))
        return call

    def _eager(self):
        if self._aten is None:
            self._aten = eager(self.gm)
        return self._aten


class eager:
    """gm run by ATen op by op, in the boxed calling convention."""

    def __init__(self, gm):
        self.gm = gm
        self._boxed_call = True   # (an instance attribute: see SymbolicVariants)

    def __call__(self, args):
        a = list(args)
        args.clear()
        return self.gm(*a)
