"""What a generated kernel's body does, counted in its source: the kernel-config point's
features (and a learned config module's input) describe a kernel by these counts."""
from __future__ import annotations

import re

# what a kernel's body does, counted in its source: loads, stores, and calls of special
# functions (exp, erf, tanh, sqrt, ...: a GELU, a softmax, a norm), which decide whether a
# config is bound by memory or by arithmetic and how many values each thread keeps live
_SPECIAL = re.compile(r"\b(?:tl\.(?:exp2?|log2?|sqrt|rsqrt|sin|cos|sigmoid|erf|tanh|fdiv|div_rn)|"
                      r"th\.(?!(?:max_nan|min_nan|maximum_nan|minimum_nan|floordiv_int|"
                      r"remainder_int|remainder_float|prod|_mul)\()\w+|sp\.\w+)\(")


def body_counts(source: str) -> dict:
    """Loads, stores and special-function calls in a kernel's source (the learned config
    heuristic's description of its body); a template with Hopper's variant counted on its
    plain branch (the TMA branch repeats the epilogue twice)."""
    if "\n    if TMA:\n" in source:
        source = source.rsplit("\n    else:\n", 1)[-1]
    return {"loads": source.count("tl.load("), "stores": source.count("tl.store("),
            "special": len(_SPECIAL.findall(source))}
