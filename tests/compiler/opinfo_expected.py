"""What the OpInfo sweep (scripts/opinfo_sweep.py) expects, declared once: the sweep reads these
lists to tell a known outcome from a failure, and tests/compiler/test_opinfo_sweep.py reads them
too. Data only, no logic. Keys are OpInfo keys ("name" or "name.variant", as the sweep prints
them) except ATEN_ON_PURPOSE, keyed by ATen op ("aten.<op>.<overload>"); every key may be an
fnmatch glob. Every entry says why; an entry whose reason no longer holds should go.

A graph fallback (a graph the compiler could not finish, run whole in ATen) of an op not in
EXPECTED_GRAPH_FALLBACKS is a failure of the sweep, as is any mismatch of an op not in
KNOWN_INTERPRETER_MISMATCHES and any compile error.
"""

# OpInfo key -> why the compiler gives the whole graph to ATen for this op
EXPECTED_GRAPH_FALLBACKS: dict[str, str] = {}

# ATen op -> why it stays an ATen call (counted in stats fallbacks) rather than a generated kernel
ATEN_ON_PURPOSE: dict[str, str] = {}

# OpInfo key -> why the interpreter's result differs from eager (not a compiler bug)
KNOWN_INTERPRETER_MISMATCHES: dict[str, str] = {}

# OpInfo key -> (rtol, atol, why), float32, where the default (rtol 1.3e-6, atol 1e-5, as
# torch.testing's float32 default) is too tight for a correct kernel
TOLERANCE_OVERRIDES: dict[str, tuple[float, float, str]] = {}

# OpInfo key -> why its values are not compared (only structure, shapes and dtypes): the output
# is not a function of the inputs (uninitialized memory). Ops whose eager output changes with
# the RNG seed are found by the sweep itself and need no entry.
_UNINITIALIZED = "returns uninitialized memory: any values are right"
VALUES_UNCHECKED: dict[str, str] = {
    "empty": _UNINITIALIZED,
    "empty_like": _UNINITIALIZED,
    "empty_strided": _UNINITIALIZED,
    "empty_permuted": _UNINITIALIZED,
    "new_empty": _UNINITIALIZED,
    "new_empty_strided": _UNINITIALIZED,
}
