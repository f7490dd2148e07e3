"""OpInfo sweep (CPU, Triton's interpreter): every OpInfo of PyTorch's op database
(torch.testing._internal.common_methods_invocations.op_db), float32, a few sample inputs each,
compiled with backend="tuner" and compared with eager; each sample is classified from
tuner.compiler.stats by what the compiler did with it.

    python3 scripts/opinfo_sweep.py --out /tmp/opinfo.jsonl                    # every op, 2 samples
    python3 scripts/opinfo_sweep.py --ops 'abs,add,nn.functional.*' --samples 1 --out /tmp/o.jsonl
    python3 scripts/opinfo_sweep.py --ops 'linalg.*' --grad --out /tmp/grad.jsonl   # gradients
    python3 scripts/opinfo_sweep.py --dynamic --out /tmp/dyn.jsonl           # dynamic=True
    python3 scripts/opinfo_sweep.py --out /tmp/opinfo.jsonl --resume           # go on after a stop
    python3 scripts/opinfo_sweep.py --list --ops 'max*'                         # the matching keys

Statuses of a sample, from worst to best (an op's status is the worst of its samples'):
  error              the compiled call (or its backward) raised; eager did not
  timeout            the op ran past --op-timeout (its worker was killed; the sweep goes on)
  mismatch           values differ from eager (max abs error recorded)
  graph_fallback     a graph ran whole in ATen (the reason recorded)
  no_graph           values match, but dynamo made no graph at all (the op ran in eager)
  pass_op_fallback   values match, some ATen op ran as an ATen call (stats fallbacks,
                     lowering_errors)
  extern             values match, no fallback, deliberate ATen calls only (mm, convolution)
  pass_kernels_only  values match, every graph compiled, everything ran as generated kernels
  dynamo_error       torch.compile fails with backend="eager" too: dynamo's own (not counted)
  eager_error        the op fails in eager with this sample (not counted as computing)
  skip               no float32 support, no sample, or not differentiable (--grad)

An error, a timeout, a mismatch not declared in KNOWN_(INTERPRETER_)MISMATCHES and a graph
fallback not declared in EXPECTED_GRAPH_FALLBACKS are failures (exit status 1). The declared
lists live in tests/compiler/opinfo_expected.py, shared with tests/compiler/test_opinfo_sweep.py.

Each sample is compiled afresh (torch._dynamo.reset() before it, so static shapes) and run once;
its inputs are copies, the same for eager and compiled, and inputs an op mutates are compared
too. Both runs are seeded alike (the database's wrapper_set_seed, which dynamo cannot trace,
just calls the op during a sweep): a random op whose compiled call draws other numbers than
eager's is compared by structure, shape and dtype only ("values": "rng"), as are the ops of
VALUES_UNCHECKED (uninitialized memory, "values": "unchecked"). A float16 or bfloat16 sample
is compared with torch.testing's tolerances for its dtype, against eager's result or, failing
that, eager's computed in float32 and rounded ("values": "float32 reference": ours computes
half math in float32, as eager's GPU kernels do). An ATen fallback of an op in
ATEN_ON_PURPOSE is marked "declared". --grad: differentiable ops with requires_grad samples;
the floating outputs times fixed random cotangents are summed and differentiated, and the
input gradients are compared as well (forward and backward graphs both classified).

Ops run in worker processes (-j of them), one op at a time each; a worker past --op-timeout on
an op is killed and replaced. Each finished sample is appended to --out as one JSON line at once;
--resume skips the (op, sample, mode) rows already there (a timeout row too); the workers'
stderr goes to OUT.log. The summary (counts per status, each op's status, the ATen ops that
fell back, every failure, versions, date and command) goes to --summary (default: OUT with
.summary.json) and a short table is printed last.

The runner lives under tests/ (tests/compiler/test_opinfo_sweep.py imports it);
scripts/opinfo_sweep.py is its command line.
"""
from __future__ import annotations

import os
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")   # before torch is imported
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPECTED_FILE = os.path.join(REPO, "tests", "compiler", "opinfo_expected.py")

import argparse  # noqa: E402
import collections  # noqa: E402
import datetime  # noqa: E402
import fnmatch  # noqa: E402
import importlib.util  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import queue  # noqa: E402
import re  # noqa: E402
import selectors  # noqa: E402
import shlex  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

RTOL, ATOL = 1.3e-6, 1e-5          # torch.testing's float32 defaults (the stock opinfo test's too)
# torch.testing's defaults for the half types; a half sample that misses eager's result by more
# is compared with eager computed in float32 and rounded to its dtype too (what eager's GPU
# kernels compute, and ours: half math in float32), and passes if it matches that
HALF_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5)}
# worst first; an op's status is the worst of its samples'
ORDER = ["error", "timeout", "mismatch", "graph_fallback", "no_graph", "pass_op_fallback",
         "extern", "pass_kernels_only", "dynamo_error", "eager_error", "skip"]
RANK = {s: i for i, s in enumerate(ORDER)}
NOT_COMPUTING = ("dynamo_error", "eager_error", "skip")
ROW_PREFIX = "OPINFO_ROW "
DONE_PREFIX = "OPINFO_DONE "
READY = "OPINFO_READY"


# --------------------------------------------------------------------------- declared lists

def load_expected(path: str = EXPECTED_FILE):
    """tests/compiler/opinfo_expected.py as a module (its dicts are the declared lists)."""
    spec = importlib.util.spec_from_file_location("opinfo_expected", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def declared(table: dict, key: str):
    """The entry of a declared list whose key (an fnmatch glob) matches; None if none does."""
    if key in table:
        return table[key]
    for pattern, value in table.items():
        if fnmatch.fnmatchcase(key, pattern):
            return value
    return None


def declared_for(table: dict, key: str, dtype: str):
    """declared() of "key@dtype" (the samples' dtype), else of key."""
    return declared(table, f"{key}@{dtype}") or declared(table, key)


# --------------------------------------------------------------------------- op selection

def op_key(op) -> str:
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def all_ops() -> dict:
    from torch.testing._internal.common_methods_invocations import op_db
    return {op_key(op): op for op in op_db}


def select(ops: dict, patterns=None, limit=None) -> list[str]:
    """The keys of `ops` (key -> OpInfo, or key -> op name) matching any pattern, an fnmatch glob
    on the key or on the op's name (so 'max' selects every variant of max), in order, at most
    `limit`. A pattern that matches nothing is a ValueError naming it."""
    names = {k: getattr(v, "name", v) for k, v in ops.items()}
    keys = list(names)
    if patterns:
        chosen = set()
        for p in patterns:
            hit = {k for k in keys if fnmatch.fnmatchcase(k, p) or fnmatch.fnmatchcase(names[k], p)}
            if not hit:
                raise ValueError(f"no OpInfo matches {p!r} (try --list)")
            chosen |= hit
        keys = [k for k in keys if k in chosen]
    return keys[:limit] if limit else keys


# --------------------------------------------------------------------------- one sample

def first_line(e, n: int = 200) -> str:
    inner = getattr(e, "inner_exception", None)      # dynamo's BackendCompilerFailed wraps ours
    if isinstance(inner, BaseException):
        e = inner
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0] if lines else ''}"[:n]


def _copy(tree):
    """A fresh copy of every tensor in a (input, args, kwargs) tree, strides kept where the
    layout allows (a sliced view stays non-contiguous), requires_grad kept (as new leaves)."""
    import torch
    from torch.utils._pytree import tree_map

    def copy(t):
        if not isinstance(t, torch.Tensor):
            return t
        rg = t.requires_grad
        t = t.detach()
        if t.layout == torch.strided and torch._debug_has_internal_overlap(t) == 0:
            new = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=t.device).copy_(t)
        else:
            new = t.clone()
        if rg:
            new.requires_grad_(True)
        return new
    return tree_map(copy, tree)


def _leaves(tree):
    from torch.utils._pytree import tree_flatten
    return tree_flatten(tree)


def _err_stats(got, want):
    """(max abs error, max relative error) between two tensors of one shape; NaN where both are
    NaN (or equal infinities) counts as equal."""
    import torch
    if got.dtype == torch.bool or want.dtype == torch.bool:
        return float((got != want).sum().item()), None
    g, w = got.detach().to(torch.complex128 if got.is_complex() or want.is_complex() else torch.float64), \
        want.detach().to(torch.complex128 if got.is_complex() or want.is_complex() else torch.float64)
    same = (g == w) | (torch.isnan(g) & torch.isnan(w)) if not g.is_complex() else (g == w)
    diff = (g - w).abs()
    diff = torch.where(same, torch.zeros_like(diff), diff)
    diff = torch.where(torch.isnan(diff), torch.full_like(diff, math.inf), diff)
    if diff.numel() == 0:
        return 0.0, 0.0
    rel = diff / w.abs().clamp_min(1e-30)
    return float(diff.max().item()), float(rel.max().item())


def compare(got, want, rtol=RTOL, atol=ATOL, values=True):
    """"" when got matches want (nested outputs: structure, then every leaf), else why not;
    plus the largest absolute error seen among mismatching tensors (None if none)."""
    import torch
    from torch.utils._pytree import keystr, tree_flatten_with_path
    gl, gs = tree_flatten_with_path(got)
    wl, ws = tree_flatten_with_path(want)
    if gs != ws:
        return f"structure differs: {str(gs)[:80]} vs {str(ws)[:80]}", None
    worst, why = None, ""
    for (path, g), (_, w) in zip(gl, wl):
        where = keystr(path) or "output"
        if isinstance(w, torch.Tensor) or isinstance(g, torch.Tensor):
            if not (isinstance(w, torch.Tensor) and isinstance(g, torch.Tensor)):
                return f"{where}: {type(g).__name__} vs {type(w).__name__}", None
            if g.shape != w.shape:
                return f"{where}: shape {tuple(g.shape)} vs {tuple(w.shape)}", None
            if g.dtype != w.dtype:
                return f"{where}: dtype {g.dtype} vs {w.dtype}", None
            if not values:
                continue
            if g.layout != torch.strided:
                g = g.to_dense()
            if w.layout != torch.strided:
                w = w.to_dense()
            try:
                torch.testing.assert_close(g, w, rtol=rtol, atol=atol, equal_nan=True, check_stride=False)
            except AssertionError as e:
                err, rel = _err_stats(g, w)
                if worst is None or err > worst:
                    worst = err
                if not why:
                    msg = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
                    why = f"{where}: " + "; ".join(msg[:3])[:240]
        elif values:
            same = bool(g == w) or (isinstance(g, float) and isinstance(w, float) and
                              (math.isclose(g, w, rel_tol=rtol, abs_tol=atol) or (math.isnan(g) and math.isnan(w))))
            if not same:
                return f"{where}: {g!r} vs {w!r}"[:240], None
    return why, worst


def describe(sample) -> str:
    """A short text of a sample: tensor shapes (and a non-contiguous mark), other values."""
    import torch

    def one(x):
        if isinstance(x, torch.Tensor):
            s = "x".join(map(str, x.shape)) or "scalar"
            if x.layout != torch.strided:
                s += "," + str(x.layout).replace("torch.", "")
            elif not x.is_contiguous():
                s += ",nc"
            return f"T[{s}{'' if x.dtype == torch.float32 else ',' + str(x.dtype).replace('torch.', '')}]"
        if isinstance(x, (list, tuple)):
            inner = ",".join(one(y) for y in x[:4]) + (",..." if len(x) > 4 else "")
            return f"[{inner}]"
        return repr(x)[:30]
    parts = [one(sample.input)] + [one(a) for a in sample.args]
    parts += [f"{k}={one(v)}" for k, v in sample.kwargs.items()]
    return ", ".join(parts)[:200]


def _graph_info():
    """What the compiler did since stats.reset(), over every graph (forward and backward)."""
    import torch
    import tuner.compiler.stats as stats
    graphs = stats.graphs()
    fallbacks, externs, errors = collections.Counter(), collections.Counter(), {}
    kernels, reasons = 0, []
    for g in graphs:
        fallbacks.update(g.fallbacks)
        for name, n in g.externs.items():
            deliberate = n - g.fallbacks.get(name, 0)
            if deliberate > 0:
                externs[name] += deliberate
        for name, why in g.lowering_errors.items():
            errors.setdefault(name, why)
        if g.graph_fallback:
            reasons.append(g.graph_fallback.strip().splitlines()[0][:200])
        kernels += g.kernels
    breaks = [" - ".join(ln.strip() for ln in str(k).strip().splitlines()[:2])[:200]
              for k in torch._dynamo.utils.counters.get("graph_break", {})]
    return {"graphs": len(graphs), "kernels": kernels, "fallbacks": dict(fallbacks),
            "lowering_errors": errors, "externs": dict(externs), "graph_fallbacks": reasons,
            "graph_breaks": breaks, "symbolic": sum(bool(getattr(g, "symbolic", False)) for g in graphs),
            # graphs whose sizes could not stay symbolic (run in ATen), and why (--dynamic)
            "symbolic_declined": dict(getattr(stats, "symbolic_fallbacks", {}))}


def _seeded(seed, fn):
    import torch
    torch.manual_seed(seed)
    return fn()


def _forward(fn, sample, tree):
    inp, args, kwargs = tree
    return fn(inp, args, kwargs)


def _retyped(tree, src, dst):
    """tree with its tensors of dtype src cast to dst (leaves that required grad still do)."""
    import torch
    from torch.utils._pytree import tree_map

    def cast(t):
        if not isinstance(t, torch.Tensor) or t.dtype != src:
            return t
        new = t.detach().to(dst)
        return new.requires_grad_() if t.requires_grad else new
    return tree_map(cast, tree)


def _grad_run(fn, sample, tree, cotangent_seed, cotangent_dtype=None):
    """Outputs, input gradients and mutated inputs of one differentiable call. The cotangents
    are rounded to cotangent_dtype first when given (a wider reference run of a half sample
    takes the half sample's cotangents, not more precise ones)."""
    import torch
    out = fn(*tree)
    post = sample.output_process_fn_grad(out) if sample.output_process_fn_grad else out
    leaves, _ = _leaves(post)
    diff = [t for t in leaves if isinstance(t, torch.Tensor) and t.requires_grad
            and (t.is_floating_point() or t.is_complex())]
    ins = [t for t in _leaves(tree)[0] if isinstance(t, torch.Tensor) and t.requires_grad]
    if not diff or not ins:
        return out, None
    gen = torch.Generator().manual_seed(cotangent_seed)
    loss = 0
    for t in diff:
        ct = torch.randn(t.shape, generator=gen, dtype=torch.float32)
        ct = ct.to(cotangent_dtype or t.dtype).to(t.dtype) if not t.is_complex() else torch.complex(ct, torch.randn(t.shape, generator=gen))
        loss = loss + (t * ct).sum().real if t.is_complex() else loss + (t * ct).sum()
    grads = torch.autograd.grad(loss, ins, allow_unused=True)
    return out, [None if g is None else g.detach() for g in grads]


def _as_close(got, eager, exact, rtol, atol) -> bool:
    """Whether got is as close to the exact result (eager in float64 on the same half inputs) as
    eager's own half result is: within twice eager's largest error or twice the dtype's
    tolerance (about two half ulps), element by element. Half math done in another order (a
    decomposition's steps, another summation order) rounds differently, but no worse than
    eager's; a wrong result is far beyond both."""
    import torch

    def err(x, r):       # each element's error in units of the tolerance there
        x, r = x.detach().double(), r.detach().double()
        same = (x == r) | (x.isnan() & r.isnan())
        return torch.where(same, 0.0, ((x - r).abs() / (atol + rtol * r.abs())).nan_to_num(math.inf, math.inf))

    def no_worse(a, b, c) -> bool:
        ours, theirs = err(a, c), err(b, c)
        fair = theirs.isfinite()     # where eager overflowed or made a NaN, nothing is worse
        bound = max(2.0, 2 * float(theirs[fair].max())) if fair.any() else 2.0
        return not fair.any() or float(ours[fair].max()) <= bound
    g, e, x = (_leaves(t)[0] for t in (got, eager, exact))
    if not len(g) == len(e) == len(x) or any(isinstance(t, torch.Tensor) and t.is_complex() for t in g):
        return False
    return all(no_worse(a, b, c) if isinstance(a, torch.Tensor) and isinstance(c, torch.Tensor)
               else not isinstance(c, torch.Tensor) and (a is c or a == c) for a, b, c in zip(g, e, x))


def _indices_point_at_values(got, want, pristine, dim_at, rtol, atol) -> bool:
    """For a selection or ordering along a dim (topk's and sort's (values, indices), argsort's
    indices; the dim at args[dim_at] or the keyword, else -1): got's values are eager's and
    its indices pick them from the input, so only which of several equal elements differs."""
    import torch
    inp, args, kwargs = pristine
    if not isinstance(inp, torch.Tensor):
        return False
    dim = kwargs.get("dim", args[dim_at] if len(args) > dim_at else -1)

    def pick(idx):
        return inp.gather(dim, idx) if inp.dim() else inp.expand(idx.shape)
    if isinstance(got, torch.Tensor):   # indices alone: the same values in the same order
        return got.shape == want.shape and torch.equal(pick(got), pick(want))
    if not (isinstance(got, tuple) and len(got) == 2) or got[1].shape != want[1].shape:
        return False
    return not compare(got[0], want[0], rtol, atol)[0] and torch.equal(pick(got[1]), got[0])


def run_sample(op, key, index, sample, mode, expected, seed=0) -> dict:
    """Eager and compiled runs of one sample, compared and classified: one result row."""
    import torch
    import tuner.compiler.stats as stats

    row = {"op": key, "mode": mode, "sample": index, "status": "", "detail": "", "declared": "",
           "desc": describe(sample), "values": "compared", "max_abs_err": None}
    t0 = time.time()
    f = op.get_op()

    def call(inp, args, kwargs):
        return f(inp, *args, **kwargs)

    pristine = (sample.input, tuple(sample.args), dict(sample.kwargs))
    first = sample.input if not isinstance(sample.input, (list, tuple)) else \
        next((t for t in sample.input if isinstance(t, torch.Tensor)), None)   # (einsum's list)
    dtype = str(getattr(first, "dtype", "")).replace("torch.", "")
    tol = declared_for(expected.TOLERANCE_OVERRIDES, key, dtype)
    rtol, atol = HALF_TOLERANCES.get(dtype, (RTOL, ATOL))
    if tol:   # (an override widens the dtype's tolerance, never narrows it)
        rtol, atol = max(rtol, tol[0]), max(atol, tol[1])
    grad = mode.startswith("grad")

    def run(fn, s, base=pristine, cotangent_dtype=None):
        tree = _copy(base)
        torch.manual_seed(s)
        if grad:
            out, grads = _grad_run(fn, sample, tree, 1000 + index, cotangent_dtype)
            return {"out": out, "grads": grads, "inputs": tree}
        return {"out": fn(*tree), "inputs": tree}

    try:
        ref = run(call, seed)
        if grad and ref["grads"] is None:
            row.update(status="skip", detail="no differentiable output or input",
                       seconds=round(time.time() - t0, 3))
            return row
        probe = run(call, seed + 1)
    except Exception as e:  # noqa: BLE001
        row.update(status="eager_error", detail=first_line(e), seconds=round(time.time() - t0, 3))
        return row
    unchecked = declared(expected.VALUES_UNCHECKED, key)
    rng = unchecked is None and bool(compare(probe, ref)[0])     # eager's values change with the seed

    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    stats.reset()
    # "-dynamic": every size symbolic (torch.compile(dynamic=True)), the shape-generic path
    dynamic = True if mode.endswith("-dynamic") else None
    compiled = torch.compile(call, backend="tuner", dynamic=dynamic)
    try:
        got = run(compiled, seed)
    except Exception as e:  # noqa: BLE001
        row.update(_graph_info())
        row.update(status="error", detail=first_line(e), seconds=round(time.time() - t0, 3))
        torch._dynamo.reset()
        try:    # dynamo alone (no backend of ours) failing alike: not ours to fix
            run(torch.compile(call, backend="eager", dynamic=dynamic), seed)
        except Exception:  # noqa: BLE001
            row["status"] = "dynamo_error"
        torch._dynamo.reset()
        return row
    info = _graph_info()
    torch._dynamo.reset()
    row.update(info)
    why, err = compare(got, ref, rtol, atol, values=not unchecked)
    ties = declared(getattr(expected, "INDICES_AMONG_TIES", {}), key)
    if why and ties and _indices_point_at_values(got["out"], ref["out"], pristine, ties[0], rtol, atol):
        why, row["values"] = "", "ties"   # eager's values, indices of equal elements
    if why and dtype in HALF_TOLERANCES and not unchecked and not rng:
        low = getattr(torch, dtype)

        def wide(dt):    # eager on the sample cast to dt (its cotangents too), not rounded back
            try:
                return run(call, seed, _retyped(pristine, low, dt), cotangent_dtype=low)
            except Exception:  # noqa: BLE001 - an op that takes no dt here: eager's result stands
                return None
        ref32 = wide(torch.float32)
        ref32 = ref32 and _retyped(ref32, torch.float32, low)
        # each part (output, gradients, mutated inputs) matches one reference or the other
        if ref32 is not None and set(ref32) == set(got) and all(
                not compare(got[k], ref[k], rtol, atol)[0] or not compare(got[k], ref32[k], rtol, atol)[0]
                for k in got):
            why, row["values"] = "", "float32 reference"
        exact = wide(torch.float64) if why else None
        if exact is not None and set(exact) == set(got) and all(
                _as_close(got[k], ref[k], exact[k], rtol, atol) for k in got):
            why, row["values"] = "", "as close as eager"
    if unchecked:
        row["values"] = "unchecked"
    elif rng and why:
        # a random op whose compiled draws differ from eager's (same seed): structure, shapes
        # and dtypes only; one that draws eager's numbers (ATen's RNG) is compared as any other
        why, err = compare(got, ref, values=False)
        row["values"] = "rng"
    if why:
        row.update(status="mismatch", detail=why, max_abs_err=err)
        known = declared_for(expected.KNOWN_INTERPRETER_MISMATCHES, key, dtype) or \
            declared_for(expected.KNOWN_MISMATCHES, key, dtype)
        if known:
            row["declared"] = known
    elif info["graph_fallbacks"]:
        row.update(status="graph_fallback", detail=info["graph_fallbacks"][0])
        known = declared_for(expected.EXPECTED_GRAPH_FALLBACKS, key, dtype)
        if known:
            row["declared"] = known
    elif info["graphs"] == 0:
        row.update(status="no_graph", detail=(info["graph_breaks"] or ["dynamo compiled no graph"])[0])
    elif info["fallbacks"]:
        row.update(status="pass_op_fallback", detail=", ".join(sorted(info["fallbacks"])))
        reasons = [declared(expected.ATEN_ON_PURPOSE, name) for name in info["fallbacks"]]
        if all(reasons):
            row["declared"] = "; ".join(sorted(set(reasons)))
    elif info["externs"]:
        row.update(status="extern", detail=", ".join(sorted(info["externs"])))
    else:
        row["status"] = "pass_kernels_only"
    row["seconds"] = round(time.time() - t0, 3)
    return row


def is_failure(row: dict) -> bool:
    """An error, a timeout, an undeclared mismatch or an undeclared graph fallback."""
    s = row["status"]
    return s in ("error", "timeout") or (s in ("mismatch", "graph_fallback") and not row.get("declared"))


# --------------------------------------------------------------------------- one op

class _PlainSeeding:
    """While a sweep runs, the OpInfo database's wrapper_set_seed (random ops, dropout,
    attention) just calls the op: the original saves and restores the RNG state in a way dynamo
    cannot trace, so those ops would never reach the compiler. The sweep seeds each run itself."""

    def __enter__(self):
        import torch.testing._internal.common_methods_invocations as cmi
        self.cmi, self.saved = cmi, cmi.wrapper_set_seed
        cmi.wrapper_set_seed = _call_op

    def __exit__(self, *exc):
        self.cmi.wrapper_set_seed = self.saved


def _call_op(op, *args, **kwargs):
    return op(*args, **kwargs)


def interpreter_rounds_bfloat16() -> bool:
    """Triton's interpreter rounds float32 -> bfloat16 casts to nearest even, as a GPU does
    (tests/triton_rounding.py; installed for every test by tests/conftest.py, here for the
    sweep's workers, which run outside pytest)."""
    module = sys.modules.get("triton_rounding")   # (under pytest the root conftest's import)
    if module is None:   # (not tests/ on sys.path: its namespace folders would shadow `tuner`)
        path = os.path.join(REPO, "tests", "triton_rounding.py")
        spec = importlib.util.spec_from_file_location("triton_rounding", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["triton_rounding"] = module
    return module.interpreter_rounds_bfloat16()


def run_op(op, *, samples: int = 2, mode: str = "fwd", skip=(), expected=None, key=None,
           dtype: str = "float32"):
    """Yields one result row per sample of one OpInfo (at most `samples`, of `dtype`, CPU),
    skipping sample indices in `skip`; an op-level row (sample -1) when it has nothing to run."""
    import torch
    expected = expected or load_expected()
    key = key or op_key(op)
    grad = mode.startswith("grad")
    interpreter_rounds_bfloat16()
    dt = getattr(torch, dtype)
    if dt not in op.supported_dtypes("cpu"):
        yield {"op": key, "mode": mode, "sample": -1, "status": "skip", "detail": f"no {dtype} on CPU"}
        return
    if grad and (not op.supports_autograd or not (dt.is_floating_point or dt.is_complex)):
        yield {"op": key, "mode": mode, "sample": -1, "status": "skip", "detail": "not differentiable"}
        return
    torch.manual_seed(0)                       # sample inputs are random: the same every run
    try:
        it = op.sample_inputs("cpu", dt, requires_grad=grad)
        got = list(itertools.islice(it, samples))
    except Exception as e:  # noqa: BLE001
        yield {"op": key, "mode": mode, "sample": -1, "status": "skip",
               "detail": "sample_inputs raised: " + first_line(e)}
        return
    if not got:
        yield {"op": key, "mode": mode, "sample": -1, "status": "skip", "detail": "no sample inputs"}
        return
    for i, sample in enumerate(got):
        if i in skip:
            continue
        with _PlainSeeding():
            row = run_sample(op, key, i, sample, mode, expected)
        yield row


# --------------------------------------------------------------------------- workers

def worker_main():
    """Reads one JSON request per line ({"op", "mode", "samples", "skip"}), writes a row line per
    sample and a done line per op."""
    import warnings
    warnings.simplefilter("ignore")
    ops = all_ops()
    expected = load_expected()
    print(READY, flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        key = req["op"]
        try:
            for row in run_op(ops[key], samples=req["samples"], mode=req["mode"],
                              skip=set(req["skip"]), expected=expected, key=key,
                              dtype=req.get("dtype", "float32")):
                print(ROW_PREFIX + json.dumps(row), flush=True)
        except Exception as e:  # noqa: BLE001  (a bug of the sweep itself: recorded, not fatal)
            print(ROW_PREFIX + json.dumps({"op": key, "mode": req["mode"], "sample": -1, "status": "error",
                                           "detail": "sweep: " + first_line(e)}), flush=True)
        print(DONE_PREFIX + key, flush=True)


class Worker:
    """One worker process; run() sends it an op and returns its rows, or raises TimeoutError."""

    def __init__(self, log):
        env = {**os.environ, "TRITON_INTERPRET": os.environ.get("TRITON_INTERPRET", "1")}
        # this process's import path: the worker imports the tuner package this process did
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"], cwd=REPO,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                  text=True, bufsize=1, env=env, start_new_session=True)
        self.fd = self.p.stdout.fileno()
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.fd, selectors.EVENT_READ)
        self.buf = b""
        self.ops = 0
        try:
            self._readline(time.monotonic() + 600, until=READY)
        except BaseException:
            self.close(kill=True)
            raise

    def _readline(self, deadline, until=None):
        # raw reads of the pipe (a buffered readline would hide lines already read from select)
        while True:
            while b"\n" in self.buf:
                raw, self.buf = self.buf.split(b"\n", 1)
                line = raw.decode(errors="replace")
                if until is None or line == until:
                    return line
            left = deadline - time.monotonic()
            if left <= 0 or not self.sel.select(timeout=left):
                raise TimeoutError
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise EOFError(f"worker exited (rc {self.p.wait()})")
            self.buf += chunk

    def run(self, req, timeout, on_row):
        self.ops += 1
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        deadline = time.monotonic() + timeout
        while True:
            line = self._readline(deadline)
            if line.startswith(ROW_PREFIX):
                on_row(json.loads(line[len(ROW_PREFIX):]))
            elif line.startswith(DONE_PREFIX):
                return

    def close(self, kill=False):
        """Ends the worker: closing its input lets it finish; kill ends its whole session."""
        if not kill:
            try:
                self.p.stdin.close()
                self.p.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                kill = True
        if kill:
            try:
                os.killpg(self.p.pid, 9)
            except ProcessLookupError:
                pass
            self.p.wait()
        self.sel.close()
        for f in (self.p.stdin, self.p.stdout):
            try:
                f.close()
            except OSError:
                pass


def read_rows(path):
    """The rows of a results file; a torn last line (a killed run) is dropped, any other line
    that is not a row is a ValueError."""
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            assert isinstance(row, dict) and {"op", "mode", "sample", "status"} <= set(row)
        except (ValueError, AssertionError):
            if n == len(lines) or (n == len(lines) - 1 and not lines[-1]):
                continue
            raise ValueError(f"{path}:{n} is not a row of an OpInfo sweep") from None
        rows.append(row)
    return rows


def sweep(keys, out, *, samples=2, mode="fwd", op_timeout=300.0, jobs=1, resume=False, dtype="float32",
          recycle=100, progress=True):
    """Runs the ops in worker processes, appending each row to `out` as it comes; returns the
    rows of these ops in `out` (earlier ones too with resume)."""
    old = read_rows(out) if resume else []
    done = collections.defaultdict(set)
    for r in old:
        if r["mode"] == mode:
            done[r["op"]].add(r["sample"])
    todo = [k for k in keys if -1 not in done[k] and not set(range(samples)) <= done[k]]
    if not resume and os.path.exists(out):
        open(out, "w").close()
    if os.path.exists(out) and os.path.getsize(out):
        with open(out, "rb") as f:
            f.seek(-1, 2)
            torn = f.read(1) != b"\n"
        if torn:
            with open(out, "a") as f:
                f.write("\n")
    lock = threading.Lock()
    fh = open(out, "a")
    log = open(out + ".log", "a")
    work = queue.Queue()
    for k in todo:
        work.put(k)
    finished = [0]
    t_start = time.time()

    def write(row):
        with lock:
            fh.write(json.dumps(row) + "\n")
            fh.flush()

    def loop():
        worker = None
        while True:
            try:
                key = work.get_nowait()
            except queue.Empty:
                break
            seen = set(done[key])
            req = {"op": key, "mode": mode, "samples": samples, "skip": sorted(seen), "dtype": dtype}

            def on_row(row, seen=seen):
                seen.add(row["sample"])
                write(row)
            started = False
            try:
                if worker is None or worker.ops >= recycle:
                    if worker:
                        worker.close()
                    worker = None
                    worker = Worker(log)
                started = True
                t0 = time.time()
                worker.run(req, op_timeout, on_row)
            except (TimeoutError, EOFError, OSError) as e:
                if worker:
                    worker.close(kill=True)
                worker = None
                nxt = next((i for i in range(samples) if i not in seen), -1)
                if not started:
                    status, detail = "error", f"worker did not start ({type(e).__name__}: {e}); see {out}.log"
                elif isinstance(e, TimeoutError):
                    status, detail = "timeout", f"op ran past --op-timeout {op_timeout:g} s"
                else:
                    status, detail = "error", f"worker died ({type(e).__name__}: {e}); see {out}.log"
                write({"op": key, "mode": mode, "sample": nxt, "status": status, "detail": detail[:300],
                       "seconds": round(time.time() - t0, 1) if started else 0})
            with lock:
                finished[0] += 1
                if progress:
                    print(f"[{finished[0]}/{len(todo)} {time.time() - t_start:.0f}s] {key}",
                          file=sys.stderr, flush=True)
        if worker:
            worker.close()

    threads = [threading.Thread(target=loop, daemon=True) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    fh.close()
    log.close()
    wanted = set(keys)
    return [r for r in read_rows(out) if r["op"] in wanted and r["mode"] == mode]


# --------------------------------------------------------------------------- summary

def op_status(rows) -> str:
    """The worst status of an op's rows, computing samples first."""
    statuses = [r["status"] for r in rows]
    computing = [s for s in statuses if s not in NOT_COMPUTING]
    return min(computing or statuses, key=RANK.__getitem__)


def summarize(rows, header=None, expected=None) -> dict:
    expected = expected or load_expected()
    by_op = collections.defaultdict(list)
    for r in rows:
        by_op[r["op"]].append(r)
    sample_counts = collections.Counter(r["status"] for r in rows if r["sample"] >= 0)
    ops, by_status = {}, collections.defaultdict(list)
    for key, rs in by_op.items():
        s = op_status(rs)
        worst = next(r for r in rs if r["status"] == s)
        ops[key] = {"status": s, "detail": worst.get("detail", ""), "samples": sum(r["sample"] >= 0 for r in rs)}
        if worst.get("declared"):
            ops[key]["declared"] = worst["declared"]
        by_status[s].append(key)
    computing = [k for k, v in ops.items() if v["status"] not in NOT_COMPUTING]
    kernels_only = by_status.get("pass_kernels_only", [])
    fb = collections.defaultdict(lambda: {"samples": 0, "ops": set()})
    lowering_errors = {}
    for r in rows:
        for name in r.get("fallbacks", {}):
            fb[name]["samples"] += 1
            fb[name]["ops"].add(r["op"])
        for name, why in r.get("lowering_errors", {}).items():
            lowering_errors.setdefault(name, why)
    # ops left in ATen on purpose (OPS_ON_PURPOSE, or every ATen call declared in ATEN_ON_PURPOSE):
    # the coverage figure is also given over the others
    on_purpose = sorted(k for k in computing if ops[k]["status"] == "pass_op_fallback" and (
        declared(getattr(expected, "OPS_ON_PURPOSE", {}), k) or all(
            declared(expected.ATEN_ON_PURPOSE, name) or name == "with_effects"
            for r in by_op[k] for name in r.get("fallbacks", {}))))
    ours = len(computing) - len(on_purpose)
    fallbacks = sorted(({"aten": name, "samples": v["samples"], "ops": len(v["ops"]),
                         "opinfos": sorted(v["ops"]),
                         "on_purpose": declared(expected.ATEN_ON_PURPOSE, name) or ""}
                        for name, v in fb.items()), key=lambda d: (-d["samples"], d["aten"]))
    failures = [{"op": r["op"], "sample": r["sample"], "status": r["status"], "detail": r.get("detail", ""),
                 "max_abs_err": r.get("max_abs_err"), "desc": r.get("desc", "")}
                for r in rows if is_failure(r)]
    declined = collections.defaultdict(lambda: {"samples": 0, "ops": set()})
    for r in rows:   # (symbol names vary between samples: s0, s53, ... read as s)
        for why in r.get("symbolic_declined", {}):
            d = declined[re.sub(r"\b[su]\d+\b", "s", why)[:160]]
            d["samples"] += 1
            d["ops"].add(r["op"])
    symbolic_declined = sorted(({"reason": k, "samples": v["samples"], "ops": len(v["ops"]),
                                 "opinfos": sorted(v["ops"])} for k, v in declined.items()),
                               key=lambda d: (-d["samples"], d["reason"]))
    declared_rows = [{"op": r["op"], "sample": r["sample"], "status": r["status"], "declared": r["declared"]}
                     for r in rows if r.get("declared") and r["status"] in ("mismatch", "graph_fallback")]
    return {
        "header": header or {},
        "sample_counts": {s: sample_counts[s] for s in ORDER if sample_counts[s]},
        "op_counts": {s: len(by_status[s]) for s in ORDER if by_status.get(s)},
        "ops_selected": len(by_op),
        "sample_seconds": round(sum(r.get("seconds") or 0 for r in rows), 1),
        "computing_ops": len(computing),
        "kernels_only_ops": len(kernels_only),
        "kernels_only_pct": round(100 * len(kernels_only) / len(computing), 1) if computing else None,
        "kernels_or_extern_pct": (round(100 * (len(kernels_only) + len(by_status.get("extern", [])))
                                        / len(computing), 1) if computing else None),
        "on_purpose_ops": on_purpose,
        "kernels_only_pct_not_on_purpose": round(100 * len(kernels_only) / ours, 1) if ours else None,
        "failures": failures,
        "failed_ops": sorted({f["op"] for f in failures}),
        "declared_outcomes": declared_rows,
        "aten_fallbacks": fallbacks,
        "lowering_errors": lowering_errors,
        "symbolic_declined": symbolic_declined,
        "values_unchecked": sorted({r["op"] for r in rows
                                    if r.get("values", "compared") not in ("compared", "float32 reference")}),
        "float32_reference": sorted({r["op"] for r in rows if r.get("values") == "float32 reference"}),
        "graph_breaks": sorted({r["op"] for r in rows if r.get("graph_breaks")}),
        "ops_by_status": {s: sorted(by_status[s]) for s in ORDER if by_status.get(s)},
        "ops": dict(sorted(ops.items())),
    }


def table(summary, top=15) -> str:
    s = summary
    lines = [f"{'status':<18} {'ops':>5} {'samples':>8}"]
    for st in ORDER:
        if st in s["op_counts"] or st in s["sample_counts"]:
            lines.append(f"{st:<18} {s['op_counts'].get(st, 0):>5} {s['sample_counts'].get(st, 0):>8}")
    lines.append(f"ops that compute: {s['computing_ops']}; entirely generated kernels: "
                 f"{s['kernels_only_ops']} ({s['kernels_only_pct']}%), with deliberate externs "
                 f"{s['kernels_or_extern_pct']}%; of the {s['computing_ops'] - len(s['on_purpose_ops'])} "
                 f"not left in ATen on purpose, {s['kernels_only_pct_not_on_purpose']}%")
    if s["aten_fallbacks"]:
        lines.append("ATen fallbacks (samples, ops): " + ", ".join(
            f"{f['aten']} {f['samples']}/{f['ops']}{'*' if f['on_purpose'] else ''}"
            for f in s["aten_fallbacks"][:top]) + ("  (* on purpose)" if any(f["on_purpose"] for f in s["aten_fallbacks"][:top]) else ""))
    if s.get("symbolic_declined"):
        lines.append("not symbolic, run in ATen (samples, ops): " + "; ".join(
            f"{d['reason'][:70]} {d['samples']}/{d['ops']}" for d in s["symbolic_declined"][:6]))
    seen = set()
    fails = [f for f in s["failures"] if not (f["op"] in seen or seen.add(f["op"]))]
    lines.append(f"failures: {len(fails)} op(s)" + (":" if fails else ""))
    for f in fails:
        err = f" (max abs err {f['max_abs_err']:.3g})" if f.get("max_abs_err") is not None else ""
        lines.append(f"  {f['op']:<34} {f['status']:<15} {f['detail'][:110]}{err}")
    return "\n".join(lines)


def header(argv, args) -> dict:
    import torch
    import triton
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        commit += "+dirty" if commit and dirty else ""
    except Exception:  # noqa: BLE001
        commit = ""
    return {"torch": torch.__version__, "triton": triton.__version__, "python": platform.python_version(),
            "platform": platform.platform(), "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "command": "python3 scripts/opinfo_sweep.py " + shlex.join(argv), "commit": commit,
            "device": "cpu", "dtype": args.dtype, "triton_interpret": os.environ.get("TRITON_INTERPRET", ""),
            "mode": _mode(args), "samples": args.samples, "op_timeout_s": args.op_timeout,
            **dict(zip(("rtol", "atol"), HALF_TOLERANCES.get(args.dtype, (RTOL, ATOL))))}


# --------------------------------------------------------------------------- CLI

def _mode(args) -> str:
    """A row's mode: fwd or grad, with -dynamic when every size is a symbol."""
    return ("grad" if args.grad else "fwd") + ("-dynamic" if args.dynamic else "")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    doc = __doc__.split("\n\n")
    ap = argparse.ArgumentParser(prog="opinfo_sweep.py", description=doc[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="examples:\n" + doc[1] + "\n\n" + "\n\n".join(doc[2:]))
    ap.add_argument("--ops", action="append", metavar="NAMES",
                    help="comma-separated OpInfo keys or globs (name or name.variant); repeatable (default: all)")
    ap.add_argument("--limit", type=int, help="at most this many ops (after --ops)")
    ap.add_argument("--samples", type=int, default=2, help="sample inputs per op (default 2)")
    ap.add_argument("--grad", action="store_true", help="gradient mode: requires_grad samples, backward compared")
    ap.add_argument("--dynamic", action="store_true",
                    help="compile with dynamic=True: every size a symbol (the shape-generic kernels)")
    ap.add_argument("--dtype", default="float32", help="the samples' dtype (default float32; e.g. int64, bool, float64)")
    ap.add_argument("--out", help="results file, one JSON line per sample (required unless --list)")
    ap.add_argument("--summary", help="summary JSON (default: OUT with .summary.json)")
    ap.add_argument("--resume", action="store_true", help="keep OUT's rows and skip the samples already there")
    ap.add_argument("--op-timeout", type=float, default=300, help="seconds one op may take (default 300)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--list", action="store_true", help="print the selected OpInfo keys and exit")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker_main()
        return 0
    for name in ("samples", "jobs", "limit"):
        v = getattr(args, name)
        if v is not None and v < 1:
            ap.error(f"--{name} must be at least 1 (got {v})")
    import torch
    if not isinstance(getattr(torch, args.dtype, None), torch.dtype):
        ap.error(f"--dtype: {args.dtype!r} is not a torch dtype (e.g. float32, float64, int64, int32, bool)")
    if args.op_timeout <= 0:
        ap.error(f"--op-timeout must be positive (got {args.op_timeout:g})")
    patterns = [p.strip() for group in (args.ops or []) for p in group.split(",") if p.strip()]
    if args.ops and not patterns:
        ap.error("--ops names no op")
    try:
        keys = select(all_ops(), patterns, args.limit)
    except ValueError as e:
        ap.error(f"--ops: {e}")
    if args.list:
        print("\n".join(keys))
        return 0
    if not args.out:
        ap.error("--out is required (the results file)")
    out_dir = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(out_dir):
        ap.error(f"--out: folder {out_dir} does not exist")
    try:
        if args.resume:
            read_rows(args.out)
    except ValueError as e:
        ap.error(f"--resume: {e}")
    summary_path = args.summary or (args.out[:-len(".jsonl")] if args.out.endswith(".jsonl") else args.out) + ".summary.json"
    if not os.path.isdir(os.path.dirname(os.path.abspath(summary_path))):
        ap.error(f"--summary: folder {os.path.dirname(os.path.abspath(summary_path))} does not exist")
    t0 = time.time()
    rows = sweep(keys, args.out, samples=args.samples, mode=_mode(args),
                 op_timeout=args.op_timeout, jobs=args.jobs, resume=args.resume, dtype=args.dtype)
    head = header(argv, args)
    head["ops_selected"] = len(keys)
    head["seconds"] = round(time.time() - t0, 1)
    summary = summarize(rows, head)
    with open(summary_path, "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    print(f"rows: {args.out}\nsummary: {summary_path}", file=sys.stderr)
    print(table(summary))
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
