"""The generated Python module per graph: allocate buffers (or reuse dead ones' storage, as
the memory plan says: compiler/memory_plan.py), launch kernels, call externs, free what is
dead, return the outputs."""
from __future__ import annotations

import logging
import math

import torch

from .. import ir, memory_plan
from .. import sym as S
from ..sizes import SymSize

log = logging.getLogger("tuner.compiler")


def base_namespace() -> dict:
    """What every generated wrapper calls besides its kernels, externs and constants: torch,
    the allocator, views (one C++ call each where torch has it: a model makes ~100 per call)
    and the layout check of extern results."""
    from ..runtime.launch import ensure_layout, fast_reinterpret, reinterpret
    view = fast_reinterpret()
    return {"torch": torch, "empty_strided": torch.empty_strided, "reinterpret": view or reinterpret,
            "as_strided": view or torch.as_strided, "ensure_layout": ensure_layout}


def alloc_namespace(dev) -> dict:
    """The C allocator for a wrapper allocating on one CPU or CUDA device `dev` (on CUDA with a
    device guard for the call: two threads' calls stay apart); {} otherwise."""
    from ..torch_compat import empty_strided_fast
    fast = empty_strided_fast(dev.type) if dev is not None and dev.type in ("cpu", "cuda") else None
    if fast is None:
        return {}
    return {"empty_strided_fast": fast, **({"device_guard": torch.cuda.device} if dev.type == "cuda" else {})}


def source_text(kernel_sources, wrapper: str) -> str:
    """A graph's generated code as stats.source keeps it: kernels commented out, the wrapper."""
    return "\n".join(["# kernels"] + ["# " + line for ks in kernel_sources for line in ks.splitlines()]
                     + ["", wrapper])


# Ops whose output is always a fresh dense row-major tensor: no layout check after the call.
_DENSE_OUT = {torch.ops.aten.mm.default, torch.ops.aten.addmm.default, torch.ops.aten.bmm.default,
              torch.ops.aten.baddbmm.default}


def _view_expr(v: ir.View, own: frozenset = frozenset()):
    """A view of a buffer. Buffers the wrapper allocated itself (`own`) start at storage offset 0,
    so as_strided takes the view's offset as is; inputs and extern outputs may not."""
    name = v.buffer.name
    if v.is_whole_buffer():
        return name
    if name in own:
        return f"as_strided({name}, {tuple(v.size)}, {tuple(v.stride)}, {v.offset})"
    return f"reinterpret({name}, {tuple(v.size)}, {tuple(v.stride)}, {v.offset})"


class WrapperCodegen:
    def __init__(self, graph, scheduler, steps):
        """steps: list of ("kernel", group, kernel_name, arg_buffer_names, stored_names, launch
        condition or None),
        ("extern", node) or ("alloc", names): buffers of a kernel with nothing to compute
        (zero elements), allocated and never launched."""
        self.g, self.s, self.steps = graph, scheduler, steps
        self.lines = []
        self.base = 0
        self.plan = None   # the graph's memory plan (compiler/memory_plan.py), once generated
        self.own = set()           # buffers allocated here (storage offset 0)
        self.fast_alloc = None     # "cpu" / "cuda": the caller put a C allocator (+ guard) in ns
        self.device_index = 0
        # indices of the inputs AOTAutograd donated (a backward's saved activations no one
        # reads again): the memory plan may put buffers in their storage after their last use
        self.donated: frozenset = frozenset()
        # objects an extern takes that have no source form (an op handed to a higher-order op
        # such as with_effects, a generator): the caller puts them in the wrapper's namespace
        self.objects: dict[str, object] = {}

    def emit(self, line, indent=1):
        self.lines.append("    " * (indent + self.base) + line)

    def generate(self):
        g = self.g
        ninputs = len(g.inputs)
        self.lines = ["def call(args):"]
        self.base = 0
        if self.fast_alloc == "cuda":
            self.emit(f"with device_guard({self.device_index}):")
            self.base = 1
        names = [b.name if b is not None else "_" for b in g.inputs]
        if g.sizes is not None:   # scalar inputs named: size symbols may be read from them
            names = [n if n != "_" else f"arg{i}" for i, n in enumerate(names)]
        if ninputs:
            self.emit(f"{', '.join(names)}{',' if ninputs == 1 else ''} = args")
        self.emit("args.clear()")
        if g.sizes is not None:   # this call's value of each size symbol
            for symbol, src in g.sizes.sources.items():
                self.emit(f"{symbol.name} = {src}")
        donated = [b.name for b in g.inputs if b is not None and b.arg_index in self.donated]
        try:   # frees before allocations where that lowers the live bytes
            self.steps = memory_plan.reorder(self.steps, g, donated)
        except Exception as e:   # noqa: BLE001 - the graph's own order, as before
            log.debug("memory_plan.reorder: %s: %s", type(e).__name__, e)
        self.plan = plan = memory_plan.plan(self.steps, g, donated)
        for i, st in enumerate(self.steps):
            if st[0] in ("alloc", "kernel"):
                for name in plan.defs.get(i, ()):   # allocated before the kernel first writes them
                    self._alloc(g.buffers[name], plan.actions[name])
                if st[0] == "kernel":   # (under its condition: a data-dependent extent not 0)
                    call = f"{st[2]}({', '.join(st[3])})"
                    self.emit(f"if {st[5]}: {call}" if st[5] else call)
            else:
                self._extern(st[1])
            if plan.frees.get(i):
                self.emit(f"del {', '.join(plan.frees[i])}")
        outs = []
        for o in g.outputs:
            if isinstance(o, ir.View):
                outs.append(_view_expr(o, self.own))
            else:
                outs.append(repr(o))
        self.emit(f"return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
        return "\n".join(self.lines) + "\n"

    def _extern(self, node):
        g = self.g
        parts = [self._extern_args(a) for a in node.args]
        parts += [f"{k}={self._extern_args(v)}" for k, v in node.kwargs.items()]
        call = f"{node.name}_op({', '.join(parts)})"
        outs = node.outputs
        if node.out_spec == "tuple":
            targets = [b.name if b is not None else "_" for b in outs]
            self.emit(f"{', '.join(targets)}{',' if len(targets) == 1 else ''} = {call}")
        else:
            self.emit(f"{outs[0].name if outs[0] is not None else '_'} = {call}")
        if g.sizes is not None:   # the data-dependent sizes this call's results carry
            for b in outs:
                for symbol, src in g.sizes.defined_by.get(b.name if b is not None else None, ()):
                    self.emit(f"{symbol.name} = {src}")
        dense = node.op in _DENSE_OUT
        for b in outs:
            if b is not None and not (dense and tuple(b.stride) == S.contiguous_strides(b.size)):
                self.emit(f"{b.name} = ensure_layout({b.name}, {tuple(b.size)}, {tuple(b.stride)})")

    def _alloc(self, b, action):
        """b bound per the memory plan: a fresh allocation or a dead buffer's storage."""
        how, old = action
        donated = self.plan.on_donated.get(b.name)
        if donated is None:
            self.own.add(b.name)   # (a reused storage starts at offset 0 too)
        if how == "same":
            note = f" (donated {donated})" if donated else ""
            if self.plan.in_place.get(old) == b.name:   # written over old by the kernel reading it
                note += f" in place, {tuple(b.size)} {tuple(b.stride)}"
            self.emit(f"{b.name} = {old}  # reuse{note}")
            return
        if how == "view" and donated is not None:
            # a donated input's storage: from that input's storage offset, which may not be 0
            self.emit(f"{b.name} = reinterpret({old}, {tuple(b.size)}, {tuple(b.stride)}, 0)"
                      f"  # reuse (donated {donated})")
            return
        if how == "view":
            self.emit(f"{b.name} = as_strided({old}, {tuple(b.size)}, {tuple(b.stride)}, 0)  # reuse")
            return
        if self.fast_alloc:
            # the C allocator on the current device: a CUDA call() runs under its device guard
            self.emit(f"{b.name} = empty_strided_fast({tuple(b.size)}, {tuple(b.stride)}, {b.dtype})")
            return
        self.emit(f"{b.name} = empty_strided({tuple(b.size)}, {tuple(b.stride)}, "
                  f"dtype={b.dtype}, device='{b.device}')")

    def _extern_args(self, a):
        if isinstance(a, SymSize):
            return repr(a)   # its expression over the size symbols the wrapper read
        if isinstance(a, ir.View):
            return _view_expr(a, self.own)
        if isinstance(a, (list, tuple)):
            inner = ", ".join(self._extern_args(x) for x in a)
            return f"[{inner}]" if isinstance(a, list) else f"({inner}{',' if len(a) == 1 else ''})"
        if isinstance(a, torch.device):
            return f"torch.device('{a}')"
        if isinstance(a, (torch.dtype, torch.memory_format, torch.layout)):
            return str(a)   # "torch.float32": the wrapper's namespace has torch
        if isinstance(a, float) and not math.isfinite(a):
            return f"float('{a}')"   # repr gives inf / nan, names the wrapper does not have
        if a is None or isinstance(a, (bool, int, float, complex, str)):
            return repr(a)
        return self._object(a)

    def _object(self, a):
        """A name for an argument with no source form (an OpOverload, a GraphModule): the
        object itself, held in the wrapper's namespace (`objects`)."""
        for name, obj in self.objects.items():
            if obj is a:
                return name
        name = f"obj{len(self.objects)}"
        self.objects[name] = a
        return name
