"""The loop-level IR.

Storage: `Buffer` (name, dtype, device, size, stride; ints). A graph input is an
`InputBuffer`, a tensor constant a `ConstantBuffer`; everything the compiled graph computes is written by a node:

- `Pointwise`  ranges, inner_fn(index) -> value, stored into its buffer; the ranges run in the
               buffer's memory order (outermost first), so the store is contiguous along the flat
               loop index even for a channels-last or otherwise permuted dense buffer;
- `Reduction`  ranges x reduction_ranges, inner_fn(index, rindex) -> value, reduction_type;
- `Scan`       ranges x (length of the scanned dim,), inner_fn(index, rindex) -> value, scan_type:
               the running sum/product/log-sum-exp/max/min (or the max's or min's position) stored
               at every element;
- `Scatter`    writes value_fn(index) at index_fn(index) into an existing buffer (mutation:
               copy_ into inputs, index_put, scatter), optionally accumulating atomically;
- `Extern`     a call to an ATen op on realized tensors (counted in stats).

Values handed between lowerings are `View` (a strided window on a buffer's storage: views
cost nothing) or `Lazy` (an unrealized pointwise inner_fn: inlined into its consumers).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import torch

from . import sym as S
from .ops import Recorder, ops, use


@dataclass(eq=False)
class Buffer:
    name: str
    dtype: torch.dtype
    device: torch.device
    size: tuple
    stride: tuple
    offset: int = 0
    extern_out: bool = False   # returned by an ATen call: may alias its inputs, never reused

    @property
    def numel(self):
        return math.prod(self.size)


@dataclass(eq=False)
class InputBuffer(Buffer):
    arg_index: int = 0
    storage_offset0: int = 0   # the example input's storage offset (as_strided is relative to it)


@dataclass(eq=False)
class MutationBuffer(Buffer):
    """The new contents of an existing buffer (`target`, a graph input such as an optimizer's
    parameter), written in place by a Pointwise node: `copy_(x, f(...))` as the last store of
    a fused kernel instead of a separate scatter. It has a name of its own, so that reads of
    the target inside the same kernel still load the old values; kernels and the wrapper
    address its memory by the target's name (`storage_name`)."""
    target: Any = None


def storage_name(buf) -> str:
    """The name of the memory a buffer lives in (a mutation's target, else its own)."""
    return buf.target.name if isinstance(buf, MutationBuffer) else buf.name


@dataclass(eq=False)
class ConstantBuffer(Buffer):
    """A tensor constant of the graph (a `get_attr` node): the wrapper holds the tensor itself
    under this buffer's name; never allocated, written or freed by the wrapper."""
    value: Any = None


class TensorValue:
    size: tuple
    dtype: torch.dtype
    device: torch.device

    @property
    def numel(self):
        return math.prod(self.size)

    def loader(self) -> Callable:
        raise NotImplementedError


@dataclass(eq=False)
class View(TensorValue):
    buffer: Buffer
    size: tuple
    stride: tuple
    offset: int = 0

    @property
    def dtype(self):
        return self.buffer.dtype

    @property
    def device(self):
        return self.buffer.device

    def loader(self):
        name, stride, offset = self.buffer.name, self.stride, self.offset

        def load(index):
            return ops.load(name, S.linear(index, stride, offset))
        return load

    def is_whole_buffer(self):
        b = self.buffer
        return (self.offset == 0 and tuple(self.size) == tuple(b.size)
                and tuple(self.stride) == tuple(b.stride))


@dataclass(eq=False)
class Lazy(TensorValue):
    size: tuple
    dtype: torch.dtype
    device: torch.device
    inner_fn: Callable
    stride_hint: tuple | None = None   # layout asked for (clone/_to_copy memory_format)

    def loader(self):
        return self.inner_fn


def memory_order(size, stride):
    """Dims of a layout from outermost to innermost (ties keep the logical order)."""
    return sorted(range(len(size)), key=lambda i: (-stride[i], i))


def pointwise_in_memory_order(name, buffer, size, loader):
    """A Pointwise node writing loader(index) into `buffer` (of logical `size`), iterating in
    the buffer's memory order: for a permuted dense buffer (channels-last) the loop runs over
    the permuted sizes, so the store (and loads of inputs in the same layout) are contiguous."""
    size = tuple(size)
    perm = memory_order(size, buffer.stride)
    if perm == list(range(len(size))):
        return Pointwise(name, buffer, size, loader)
    inv = [0] * len(perm)
    for j, p in enumerate(perm):
        inv[p] = j

    def inner(it):
        return loader([it[inv[i]] for i in range(len(size))])
    return Pointwise(name, buffer, tuple(size[p] for p in perm), inner,
                     iter_stride=tuple(buffer.stride[p] for p in perm), perm=tuple(perm))


class Node:
    """A unit of work for the scheduler. `reads`: buffer names; `deps`: node names; `order`:
    the node's position in the graph (set by the scheduler; fusion keeps it); `access_memo`:
    the scheduler's accesses per iteration space (scheduler.accesses)."""
    name: str
    buffer: Buffer | None
    reads: set
    deps: set
    indirect: bool = False
    order: int = 0
    access_memo: dict

    def __post_init__(self):   # run by each dataclass subclass's generated __init__
        self.deps = set()
        self.record()

    def record(self):
        self.access_memo = {}
        rec = Recorder()
        with use(rec):
            self.run_body(self.symbols())
        self.read_index = rec.reads
        self.reads = {n for n, _ in rec.reads}
        self.indirect = rec.indirect


def _idx(prefix, n):
    return [S.sym(f"{prefix}{i}") for i in range(n)]


@dataclass(eq=False)
class Pointwise(Node):
    name: str
    buffer: Buffer
    ranges: tuple
    inner_fn: Callable
    iter_stride: tuple | None = None   # buffer strides in `ranges` order (None: buffer.stride)
    perm: tuple | None = None   # the logical dim at each loop position (None: ranges are logical)
    kind = "pointwise"

    def symbols(self):
        return _idx("d", len(self.ranges))

    def run_body(self, index):
        return self.inner_fn(index)

    def store_index(self, index):
        return S.linear(index, self.iter_stride or self.buffer.stride, self.buffer.offset)

    def logical_ranges(self):
        """The loop sizes in logical dim order (ranges undone of the memory-order permutation)."""
        if self.perm is None:
            return self.ranges
        out = [1] * len(self.ranges)
        for j, p in enumerate(self.perm):
            out[p] = self.ranges[j]
        return tuple(out)

    def from_logical(self, index):
        """Loop indices (memory order) from indices in logical dim order."""
        return list(index) if self.perm is None else [index[p] for p in self.perm]

    @property
    def numel(self):
        return self.buffer.numel


@dataclass(eq=False)
class Reduction(Node):
    name: str
    buffer: Buffer
    ranges: tuple
    reduction_ranges: tuple
    reduction_type: str
    inner_fn: Callable
    src_dtype: torch.dtype
    # input_index(x indices, r indices): the index (in the logical dims of input_size) at
    # which the loops read the reduced tensor; a pointwise producer of that shape is computed
    # at that index in the reduction's kernel (scheduler.node_index). None where nothing is
    # indexed through it (a split reduction's second stage, over its first stage's partials)
    input_size: tuple | None = None
    input_index: Callable | None = None
    kind = "reduction"

    def symbols(self):
        return _idx("d", len(self.ranges)), _idx("r", len(self.reduction_ranges))

    def run_body(self, index):
        return self.inner_fn(*index)

    def store_index(self, index):
        return S.linear(index, self.buffer.stride, self.buffer.offset)

    @property
    def xnumel(self):
        return self.buffer.numel

    @property
    def rnumel(self):
        return math.prod(self.reduction_ranges)


@dataclass(eq=False)
class Scan(Node):
    """An inclusive scan along one dim (cumsum, cumprod, logcumsumexp, cummax, cummin): for each
    of the other dims' elements (`ranges`, a row), the running combination of inner_fn(index,
    rindex) (in src_dtype) over rindex = 0..length-1, stored at every element of the row. Its
    buffer has the input's shape; `input_index` maps (row index, position) to the input's (and
    output's) logical index, `input_size` is that shape: the scheduler indexes a pointwise
    producer of that shape where the scan reads it, as for a Reduction (whose attribute names
    it shares, so fusion treats both alike). `index`: store the position of the running max/min
    (int64, ATen's: the last among equal values, the latest NaN) instead of its value; the
    values and indices nodes of one cummax/cummin share `pair`, so a kernel holding both
    scans once."""
    name: str
    buffer: Buffer
    ranges: tuple
    length: int
    scan_type: str          # "sum" | "prod" | "logsumexp" | "max" | "min"
    inner_fn: Callable
    src_dtype: torch.dtype
    input_size: tuple = ()
    input_index: Callable | None = None
    index: bool = False
    pair: str | None = None
    kind = "scan"

    def symbols(self):
        return _idx("d", len(self.ranges)), _idx("r", 1)

    def run_body(self, index):
        return self.inner_fn(*index)

    def store_index(self, index):
        """The output element of (row index, position): the scan stores every element."""
        return S.linear(self.input_index(*index), self.buffer.stride, self.buffer.offset)

    @property
    def reduction_ranges(self):
        return (self.length,)

    @property
    def xnumel(self):
        return math.prod(self.ranges)

    @property
    def rnumel(self):
        return self.length


@dataclass(eq=False)
class Template(Node):
    """A matmul computed by a generated Triton kernel (a K loop of tl.dot over tiles of the
    output) instead of an ATen call, so pointwise consumers of its output (bias, activation,
    residual, cast) run in the same kernel before the single store. `ranges` is the output's
    shape, (M, N) or (B, M, N); mat1 (…, M, K) and mat2 (…, K, N) are realized Views."""
    name: str
    buffer: Buffer
    ranges: tuple
    mat1: Any
    mat2: Any
    kind = "template"

    def symbols(self):
        return _idx("d", len(self.ranges))

    def run_body(self, index):
        # only the operands' names matter to dependency analysis (the K loop reads whole rows)
        ops.load(self.mat1.buffer.name, 0)
        ops.load(self.mat2.buffer.name, 0)
        return None

    def store_index(self, index):
        return S.linear(index, self.buffer.stride, self.buffer.offset)

    @property
    def numel(self):
        return self.buffer.numel


@dataclass(eq=False)
class Scatter(Node):
    """Writes value_fn(index) into `buffer` at index_fn(index): a mutation of that buffer."""
    name: str
    buffer: Buffer
    ranges: tuple
    index_fn: Callable
    value_fn: Callable
    mode: str | None = None       # None (store), "atomic_add", "atomic_max" or "atomic_min"
    kind = "scatter"

    def symbols(self):
        return _idx("d", len(self.ranges))

    def run_body(self, index):
        self.index_fn(index)
        return self.value_fn(index)

    @property
    def numel(self):
        return math.prod(self.ranges)


@dataclass(eq=False)
class Extern(Node):
    """Calls `op(*args, **kwargs)` at run time; tensors in args are Views (realized)."""
    name: str
    op: Any
    args: tuple
    kwargs: dict
    outputs: list            # Buffers (None for a non-tensor output), flattened
    out_spec: Any = None     # "single" | "tuple"
    buffer: Buffer | None = None
    kind = "extern"

    def __post_init__(self):
        self.deps = set()
        self.reads = set()
        for v in _flatten(self.args) + _flatten(list(self.kwargs.values())):
            if isinstance(v, View):
                self.reads.add(v.buffer.name)
        self.read_index = []


def _flatten(x):
    if isinstance(x, (list, tuple)):
        out = []
        for i in x:
            out += _flatten(i)
        return out
    return [x]


def reduction_identity(rtype: str, dtype) -> Any:
    """The value a reduction of type rtype over `dtype` values ignores: what its accumulator
    starts from and what a masked element contributes."""
    if rtype == "sum":
        return 0
    if rtype == "prod":
        return 1
    if rtype in ("max", "argmax"):
        return float("-inf") if dtype.is_floating_point else (0 if dtype == torch.bool else torch.iinfo(dtype).min)
    if rtype in ("min", "argmin"):
        return float("inf") if dtype.is_floating_point else (1 if dtype == torch.bool else torch.iinfo(dtype).max)
    return {"any": 0, "all": 1}[rtype]
