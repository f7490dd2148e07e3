"""Triton source for a scan group: the scans of compiler/lowerings/scans.py (cumsum, cumprod,
logcumsumexp, cummax, cummin) and the pointwise nodes fused with them.

Each program takes XBLOCK rows (the elements of the other dims); a row runs along r, the
scanned dim, in [XBLOCK, RBLOCK] tiles scanned along r by tl.associative_scan with a combine
function of the helpers (th.scan_add, th.scan_mul, th.scan_logaddexp, th.scan_max/min, and
th.scan_argmax/argmin over (value, position) pairs). The source holds two variants, picked when
Triton compiles it by the config's RBLOCK, so the choice is the kernel-config point's
(tuner/points/triton_kernel.py, kind "scan"):

- persistent (RBLOCK covers the row): one tile per block of rows, no loop;
- looped: chunks of RBLOCK along the row; each chunk's scan is combined with the carry, the
  running result of the chunks before it, and the chunk's last column is the next carry.

A pointwise producer is computed in the loop where a scan reads it; a pointwise consumer of a
scan's result at the element being computed runs in the same loop (the scheduler fused only
such reads). cummax's (cummin's) values and indices nodes in one kernel share one scan.
Metadata: a KernelMeta of kind "scan" (xnumel rows of rnumel, `outer` when its loads run along
x); the launcher's grid is one program per XBLOCK rows, as for reductions.
"""
from __future__ import annotations

import math

import torch

from tuner.points.triton_kernel import KernelMeta

from .. import ir
from ..ops import use
from .triton import TL, CSEVar, TritonKernel, compute_dtype

COMBINE = {"sum": "th.scan_add", "prod": "th.scan_mul", "logsumexp": "th.scan_logaddexp",
           "max": "th.scan_max", "min": "th.scan_min"}
WITH_POSITION = {"max": "th.scan_argmax", "min": "th.scan_argmin"}


def carry_init(scan_type, dtype):
    """The carry before the first chunk, as a literal: combined with any b, it gives b (for
    the max with position, -inf or the dtype's least loses to every element, NaN and ties
    included, as `a`)."""
    v = float("-inf") if scan_type == "logsumexp" else ir.reduction_identity(scan_type, dtype)
    if dtype.is_floating_point:
        v = float(v)
        return f"float('{v}')" if math.isinf(v) else repr(v)
    return str(int(v))


class ScanKernel(TritonKernel):
    def __init__(self, group, scheduler, name="kernel"):
        super().__init__(group, scheduler, name=name)
        self.outer = self._outer()
        scans = [n for n in group.nodes if n.kind == "scan"]
        # one scan per pair (cummax's values and indices) or node, in order; positions are
        # scanned along with the values where a node stores them
        self.keys = list(dict.fromkeys(self._key(n) for n in scans))
        self.first = {}
        for n in scans:
            self.first.setdefault(self._key(n), n)
        self.positions = {self._key(n) for n in scans if n.index}
        self.done = set()   # scans emitted in the current variant

    @staticmethod
    def _key(n):
        return n.pair or n.name

    @property
    def kind(self) -> str:
        return "scan"

    def codegen(self):
        self.indent = 1
        with use(self):
            self._header_x("[:, None]")
            self.emit("rbase = tl.arange(0, RBLOCK)[None, :]")
            self.emit(f"if RBLOCK >= {self.rnumel}:   # persistent: a row is one block")
            self.indent += 1
            self.emit("r = rbase")
            self.emit(f"rmask = r < {self.rnumel}")
            self._body(carry=False)
            self.indent -= 1
            self.emit("else:   # looped: chunks of RBLOCK, each combined with the carry")
            self.indent += 1
            self.cache, self.values, self.done = {}, {}, set()
            for key in self.keys:
                n, name = self.first[key], self._lname_key(key)
                dt = compute_dtype(n.src_dtype)
                self.emit(f"{name}_c = tl.full([XBLOCK, 1], {carry_init(n.scan_type, dt)}, {TL[dt]})")
                if key in self.positions:
                    self.emit(f"{name}_ci = tl.full([XBLOCK, 1], 0, tl.int64)")
            self.emit(f"for roffset in range(0, {self.rnumel}, RBLOCK):")
            self.indent += 1
            self.emit("r = roffset + rbase")
            self.emit(f"rmask = r < {self.rnumel}")
            self._body(carry=True)
            self.indent -= 2
        return self._render()

    def _lname_key(self, key):
        """A scan's name in the source: by its order in this kernel (identical kernels, such
        as a model's repeated layers, get identical sources)."""
        return self._local.setdefault(key, f"scan{len(self._local)}")

    def _body(self, carry):
        for n in self.group.nodes:
            name = n.buffer.name
            if n.kind == "scan":
                self.red_result[name] = self._scan(n, carry)
                if name not in self.internal:
                    self.store(n, self.red_result[name])
            elif name not in self.internal:
                v = self.values.get(name) or self.node_value(n)
                self.values[name] = v
                self.store(n, v)

    def _scan(self, n, carry):
        """The node's result at this tile (emitting its scan, unless its pair's is there)."""
        key = self._key(n)
        s = self._lname_key(key)
        dt = compute_dtype(n.src_dtype)
        if key not in self.done:
            self.done.add(key)
            v = self.node_value(n)
            self.emit(f"{s}_in = tl.broadcast_to({v}.to({TL[dt]}), [XBLOCK, RBLOCK])")
            last = "rbase == RBLOCK - 1"   # the chunk's last column: the next chunk's carry
            if key in self.positions:
                fn = WITH_POSITION[n.scan_type]
                self.emit(f"{s}_pos = tl.broadcast_to(r.to(tl.int64), [XBLOCK, RBLOCK])")
                self.emit(f"{s}, {s}_i = tl.associative_scan(({s}_in, {s}_pos), 1, {fn})")
                if carry:
                    self.emit(f"{s}, {s}_i = {fn}({s}_c, {s}_ci, {s}, {s}_i)")
                    self.emit(f"{s}_ci = tl.sum(tl.where({last}, {s}_i, 0), 1)[:, None]")
            else:
                fn = COMBINE[n.scan_type]
                self.emit(f"{s} = tl.associative_scan({s}_in, 1, {fn})")
                if carry:
                    self.emit(f"{s} = {fn}({s}_c, {s})")
            if carry:
                self.emit(f"{s}_c = tl.sum(tl.where({last}, {s}, 0), 1)[:, None].to({TL[dt]})")
        if n.index:
            return CSEVar(f"{s}_i", torch.int64)
        out = n.buffer.dtype
        if compute_dtype(out) != dt:   # (a narrow integer or bool scanned in int32)
            return CSEVar(f"{s}.to({TL[compute_dtype(out)]})", out)
        return CSEVar(s, out)

    def meta(self, source: str, bucketed: bool = False) -> KernelMeta:
        return KernelMeta("scan", source, xnumel=self.xnumel, rnumel=self.rnumel,
                          outer=self.outer, dtypes=self.arg_dtypes(), bucketed=bucketed)
