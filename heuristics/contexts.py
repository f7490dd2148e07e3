"""Feature contexts: what a learned heuristic sees of one autotuning problem.

A context turns a problem (sizes, layouts, dtype, flags) into a flat dict of numbers with
fixed names. The same function feeds data collection, training and the generated modules at
run time, so the three can never disagree; FEATURE_SCHEMA is bumped whenever a name or a
formula changes, and a generated module only answers for the schema it was trained on.
Standard library only: the run-time path must stay light.
"""
from __future__ import annotations

from dataclasses import dataclass, field

PAD_MM_FEATURE_SCHEMA = 1
PAD_MM_CHOICES = ("orig", "pad")
DTYPES = ("float16", "bfloat16", "float32")


def alignment_for(dtype: str) -> int:
    """Elements a matmul dimension must be a multiple of: 16 bytes for fp16/bf16 and fp32."""
    if dtype in ("float16", "bfloat16"):
        return 8
    if dtype == "float32":
        return 4
    raise ValueError(f"pad_mm: unsupported dtype {dtype!r} (expected one of {', '.join(DTYPES)})")


def round_up(x: int, align: int) -> int:
    return (x + align - 1) // align * align


def pow2_alignment(x: int, cap: int = 128) -> int:
    """Largest power of two (at most `cap`) dividing x: how aligned a size is."""
    a = 1
    while a < cap and x % (a * 2) == 0:
        a *= 2
    return a


@dataclass(frozen=True)
class PadMMContext:
    """One pad_mm problem: C[b] = A[b] (m x k) @ B[b] (k x n), optionally plus a bias."""
    op: str                      # "mm", "bmm" or "addmm"
    m: int
    k: int
    n: int
    dtype: str                   # "float16", "bfloat16" or "float32"
    batch: int = 1
    mat1_transposed: bool = False   # A stored column-major (its last dim has stride != 1)
    mat2_transposed: bool = False
    mat1_prepadded: bool = False    # the producer can write A padded at no extra cost
    mat2_prepadded: bool = False
    tf32: bool = False
    mat1_strides: tuple[int, int] | None = None   # of the last two dims; derived if None
    mat2_strides: tuple[int, int] | None = None
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self):
        if self.op not in ("mm", "bmm", "addmm"):
            raise ValueError(f"pad_mm: unsupported op {self.op!r} (mm, bmm or addmm)")
        alignment_for(self.dtype)
        for name in ("m", "k", "n", "batch"):
            if getattr(self, name) < 1:
                raise ValueError(f"pad_mm: {name} must be >= 1, got {getattr(self, name)}")

    @property
    def feature_schema(self) -> int:
        return PAD_MM_FEATURE_SCHEMA

    # -- padding -----------------------------------------------------------------------
    @property
    def alignment(self) -> int:
        return alignment_for(self.dtype)

    def padded_sizes(self) -> tuple[int, int, int]:
        a = self.alignment
        return round_up(self.m, a), round_up(self.k, a), round_up(self.n, a)

    def needs_padding(self) -> bool:
        return self.padded_sizes() != (self.m, self.k, self.n)

    def strides(self) -> tuple[tuple[int, int], tuple[int, int]]:
        s1 = self.mat1_strides or ((1, self.m) if self.mat1_transposed else (self.k, 1))
        s2 = self.mat2_strides or ((1, self.k) if self.mat2_transposed else (self.n, 1))
        return tuple(s1), tuple(s2)

    def signature(self) -> str:
        """Problem string for cache keys: everything that can change the answer."""
        (a0, a1), (b0, b1) = self.strides()
        return (f"{self.op}:b{self.batch}:m{self.m}:k{self.k}:n{self.n}:{self.dtype}"
                f":s1={a0},{a1}:s2={b0},{b1}:pp{int(self.mat1_prepadded)}{int(self.mat2_prepadded)}"
                f":tf32={int(self.tf32)}")

    # -- features ----------------------------------------------------------------------
    def features(self) -> dict[str, float]:
        m, k, n = self.m, self.k, self.n
        pm, pk, pn = self.padded_sizes()
        (a0, a1), (b0, b1) = self.strides()
        return {
            "m": m, "k": k, "n": n, "batch": self.batch,
            "op_bmm": int(self.op == "bmm"), "op_addmm": int(self.op == "addmm"),
            "dtype_fp16": int(self.dtype == "float16"), "dtype_bf16": int(self.dtype == "bfloat16"),
            "dtype_fp32": int(self.dtype == "float32"),
            "itemsize": 4 if self.dtype == "float32" else 2,
            "tf32": int(self.tf32 and self.dtype == "float32"),
            "mat1_transposed": int(self.mat1_transposed), "mat2_transposed": int(self.mat2_transposed),
            "mat1_prepadded": int(self.mat1_prepadded), "mat2_prepadded": int(self.mat2_prepadded),
            "mat1_stride0": a0, "mat1_stride1": a1, "mat2_stride0": b0, "mat2_stride1": b1,
            "mk": m * k, "kn": k * n, "mn": m * n,
            # flops per element moved: high means compute bound, where alignment matters most
            "arith_intensity": (m * k * n) / (m * k + k * n + m * n),
            "pad_frac_m": (pm - m) / m, "pad_frac_k": (pk - k) / k, "pad_frac_n": (pn - n) / n,
            "align_m": pow2_alignment(m), "align_k": pow2_alignment(k), "align_n": pow2_alignment(n),
        }


def pad_mm_feature_types() -> dict[str, str]:
    """Feature name -> "int" | "float", in schema order (for dataset headers)."""
    sample = PadMMContext("mm", 3, 5, 7, "float16").features()
    return {k: ("float" if isinstance(v, float) else "int") for k, v in sample.items()}


PAD_MM_FEATURES = tuple(pad_mm_feature_types())

# Features a tree can split on more easily than on the raw ones: what padding changes (the
# leading dimensions cuBLAS needs 16-byte aligned), what it costs (bytes copied, relative to
# the matmul's own traffic and FLOPs). Expressions over the schema's features, evaluated in
# order by `interface.derive_features` at training and at run time alike; a generated module
# carries its own copy, so editing this list changes only future modules. Only + - * / %,
# comparisons and `a if c else b`: exact in IEEE doubles, so every platform agrees.
PAD_MM_DERIVED = (
    ("align", "16.0 / itemsize"),
    ("pm", "m + (-m) % align"),
    ("pk", "k + (-k) % align"),
    ("pn", "n + (-n) % align"),
    ("lda_aligned", "((mat1_stride0 if mat1_stride1 == 1 else mat1_stride1) % align == 0) * 1.0"),
    ("ldb_aligned", "((mat2_stride0 if mat2_stride1 == 1 else mat2_stride1) % align == 0) * 1.0"),
    ("ldc_aligned", "(n % align == 0) * 1.0"),
    ("unaligned_lds", "3.0 - lda_aligned - ldb_aligned - ldc_aligned"),
    ("unaligned_dims", "(pm != m) + (pk != k) + (pn != n) * 1.0"),
    ("copy_a", "((pm != m) + (pk != k) > 0) * (1.0 - mat1_prepadded)"),
    ("copy_b", "((pk != k) + (pn != n) > 0) * (1.0 - mat2_prepadded)"),
    ("flops", "2.0 * batch * m * n * k"),
    ("io_bytes", "itemsize * batch * (m * k + k * n + m * n)"),
    ("copy_a_bytes", "itemsize * batch * copy_a * pm * pk"),
    ("copy_b_bytes", "itemsize * batch * copy_b * pk * pn"),
    ("copy_per_io", "(copy_a_bytes + copy_b_bytes) / io_bytes"),
    ("copy_a_per_io", "copy_a_bytes / io_bytes"),
    ("copy_b_per_io", "copy_b_bytes / io_bytes"),
    ("copy_per_flop", "(copy_a_bytes + copy_b_bytes) / flops"),
    ("padded_flops_ratio", "pm * pk * pn / (m * k * n)"),
)
DERIVED = {"pad_mm": PAD_MM_DERIVED}


# -- mm_backend: a matmul as ATen + its epilogue kernel, or our template with it fused --------

# (the epilogue's class, epilogue and costly_epilogue, joined the features later: a module
# reads features by name, so an added one leaves the schema as it was)
MM_BACKEND_FEATURE_SCHEMA = 1
MM_BACKEND_CHOICES = ("extern", "template")


def mm_backend_features(op: str, batch: int, m: int, n: int, k: int, dtype: str,
                        mat1_transposed: bool, mat2_transposed: bool, epilogue: bool = True,
                        costly_epilogue: bool = False) -> dict[str, float]:
    """The mm point's features (tuner/points/mm.py MMProblem.features): numbers only.
    epilogue / costly_epilogue: the class of the matmul's pointwise consumers (none: the
    extern side is the ATen call alone; cheap; a special function per element)."""
    return {
        "m": m, "k": k, "n": n, "batch": batch,
        "op_bmm": int(op == "bmm"), "op_addmm": int(op == "addmm"),
        "dtype_fp16": int(dtype == "float16"), "dtype_bf16": int(dtype == "bfloat16"),
        "dtype_fp32": int(dtype == "float32"),
        "itemsize": 4 if dtype == "float32" else 2,
        "mat1_transposed": int(mat1_transposed), "mat2_transposed": int(mat2_transposed),
        "mk": m * k, "kn": k * n, "mn": m * n,
        "arith_intensity": (m * k * n) / (m * k + k * n + m * n),
        "epilogue": int(epilogue), "costly_epilogue": int(costly_epilogue),
    }


def mm_backend_feature_types() -> dict[str, str]:
    sample = mm_backend_features("mm", 1, 3, 5, 7, "float16", False, False)
    return {k: ("float" if isinstance(v, float) else "int") for k, v in sample.items()}


# What decides template vs cuBLAS: how many output tiles there are to spread over the SMs
# (few: the template's epilogue fusion and launch savings dominate; many: cuBLAS's kernels
# win), the K loop's length, and the bytes the separate epilogue moves relative to the
# matmul's work. ceil(x / t) is written (x + (-x) % t) / t.
MM_BACKEND_DERIVED = (
    ("flops", "2.0 * batch * m * n * k"),
    ("tiles_128", "batch * ((m + (-m) % 128) / 128) * ((n + (-n) % 128) / 128)"),
    ("tiles_64", "batch * ((m + (-m) % 64) / 64) * ((n + (-n) % 64) / 64)"),
    ("k_steps_64", "(k + (-k) % 64) / 64"),
    ("out_bytes", "itemsize * batch * m * n"),
    ("epilogue_per_flop", "2.0 * itemsize * batch * m * n / flops"),
    ("aligned_16b", "((k * itemsize) % 16 == 0) * ((n * itemsize) % 16 == 0) * 1.0"),
    # every operand's leading dimension (a column-major operand's is its row count) and the
    # output's row on 16 bytes: cuBLAS's fast kernels need it (fp16 2434x8192x1296 with the
    # first operand column-major, 2434 rows: cuBLAS 0.226 ms, the template 0.106; learned
    # without this, the bare module answered extern there: data/mm/mm_bare_large_h100_s0)
    ("lead_aligned_16b", "(((mat1_transposed * m + (1 - mat1_transposed) * k) * itemsize) % 16 == 0)"
                         " * (((mat2_transposed * k + (1 - mat2_transposed) * n) * itemsize) % 16 == 0)"
                         " * ((n * itemsize) % 16 == 0) * 1.0"),
)
DERIVED["mm_backend"] = MM_BACKEND_DERIVED
# the features that measure a problem's size: with leaf ranges and a default tie, a leaf that
# answers extern answers it for problems larger than its training problems along these too
# (held-out, split seeds 0-3, bare and costly modules: 2-10 more answers per seed, none wrong)
SIZE_FEATURES = {"mm_backend": ("m", "k", "n", "batch", "mk", "kn", "mn", "arith_intensity", "flops",
                                "tiles_128", "tiles_64", "k_steps_64", "out_bytes")}
# and those that shrink as it grows (epilogue_per_flop is itemsize / k): open below alike
SHRINKING_FEATURES = {"mm_backend": ("epilogue_per_flop",)}


# -- the kernel-config point (tuner/points/triton_kernel.py features(); learned by configs.py):
# bumped when a feature a config module reads changes name or meaning
TRITON_CONFIG_FEATURE_SCHEMA = 1
