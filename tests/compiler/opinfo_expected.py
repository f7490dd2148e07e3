"""What the OpInfo sweep (scripts/opinfo_sweep.py) expects, declared once: the sweep reads these
lists to tell a known outcome from a failure, and tests/compiler/test_opinfo_sweep.py reads them
too. Data only, no logic. Keys are OpInfo keys ("name" or "name.variant", as the sweep prints
them) except ATEN_ON_PURPOSE, keyed by ATen op ("aten.<op>.<overload>"); every key may be an
fnmatch glob. Every entry says why; an entry whose reason no longer holds should go.

A graph fallback (a graph the compiler could not finish, run whole in ATen) of an op not in
EXPECTED_GRAPH_FALLBACKS is a failure of the sweep, as is any mismatch of an op not in
KNOWN_INTERPRETER_MISMATCHES or KNOWN_MISMATCHES and any compile error.
"""

# OpInfo key (or "key@dtype", the samples' dtype, tried first) -> why the compiler gives the
# whole graph to ATen for this op
_BF16_ATOMIC_ADD = ("Triton's interpreter has no bfloat16 atomic add (its first call fails, "
                    "on CPU only); a GPU compiles it (test_opinfo_regressions: *_bf16 on GPU)")
EXPECTED_GRAPH_FALLBACKS: dict[str, str] = {
    f"{key}@bfloat16": _BF16_ATOMIC_ADD
    for key in ("index_add", "scatter_add", "scatter", "put", "index_reduce.mean", "scatter_reduce.sum",
                "scatter_reduce.mean", "_unsafe_masked_index_put_accumulate", "histc",
                # (--grad: their gradients add into a bfloat16 tensor)
                "gather", "index_select", "take", "take_along_dim", "__getitem__", "_unsafe_masked_index",
                "unfold_copy", "cummax", "cummin", "index_reduce.amax", "index_reduce.amin",
                "index_reduce.prod", "scatter_reduce.amax", "scatter_reduce.amin", "scatter_reduce.prod")
}

# ATen op -> why it stays an ATen call (counted in stats fallbacks) rather than a generated kernel
_FFT = ("FFTs produce or read complex tensors, which generated kernels do not hold "
        "(compiler/graph.py sends complex dtypes to ATen); no Triton FFT is planned")
_LAPACK = ("a dense factorization or solve (LAPACK on CPU, cuSOLVER/MAGMA on GPU): pivoting, "
           "iteration and convergence checks, not a fusable loop nest")
ATEN_ON_PURPOSE: dict[str, str] = {
    "aten._fft_r2c.default": _FFT,
    "aten._fft_c2c.default": _FFT,
    "aten._fft_c2r.default": _FFT,
    **{f"aten.{op}": _LAPACK for op in (
        "_linalg_svd.default", "_linalg_eigh.default", "_linalg_det.default", "_linalg_slogdet.default",
        "_linalg_solve_ex.default", "linalg_inv_ex.default", "linalg_cholesky_ex.default",
        "linalg_eig.default", "linalg_lu.default", "linalg_lu_factor_ex.default", "linalg_lu_solve.default",
        "linalg_ldl_factor_ex.default", "linalg_ldl_solve.default", "linalg_qr.default",
        "linalg_solve_triangular.default", "linalg_householder_product.default",
        "linalg_pinv.atol_rtol_tensor", "cholesky.default", "cholesky_inverse.default",
        "cholesky_solve.default", "triangular_solve.default", "geqrf.default", "ormqr.default")},
    # compiler/lowerings/conv.py keeps a convolution the ATen (cuDNN) call; its gradients too
    "aten.convolution_backward.default": "a convolution's gradients are ATen's convolution calls, as its forward",
    # compiler/lowerings/sorting.py ranks a row's elements by counting its pairs (n^2 work)
    **{f"aten.sort.{o}": "a row longer than 8192 elements, or more than 2^26 pairs in all: "
       "rank counting would cost n^2 per row (shorter rows are generated kernels)"
       for o in ("default", "stable")},
    "aten._segment_reduce_backward.default": "prod's gradient (eager's division by the data, "
                                             "with its cases for zeros); max, min, sum and mean "
                                             "are generated kernels",
    # compiler/torch_compat.py keeps these whole on purpose
    "aten.native_dropout.default": "dropout's RNG stays in ATen, so a compiled dropout draws eager's mask "
                                   "(TUNER_FALLBACK_RANDOM=0 draws it in kernels)",
}

# OpInfo key -> why the whole op stays in ATen on purpose, beyond ATEN_ON_PURPOSE's calls (an op
# whose every ATen call is in ATEN_ON_PURPOSE is on purpose too): complex tensors, and the FFTs'
# conversions to and from them
_COMPLEX = ("complex tensors: generated kernels hold real dtypes only (compiler/graph.py sends "
            "complex dtypes to ATen)")
OPS_ON_PURPOSE: dict[str, str] = {
    "fft.*": _FFT, "stft": _FFT,
    **{name: _COMPLEX for name in ("cdouble", "cfloat", "chalf", "complex", "polar", "view_as_complex")},
}

# OpInfo key -> why the interpreter's result differs from eager (not a compiler bug)
KNOWN_INTERPRETER_MISMATCHES: dict[str, str] = {
    # tl.tensor.to(tl.bfloat16) under TRITON_INTERPRET=1 truncates (the interpreter's cast passes
    # no rounding mode), where eager and a GPU round to nearest even: -8.47 -> -8.4375, not -8.5
    "bfloat16": "the interpreter's float32 -> bfloat16 cast truncates instead of rounding to nearest even",
}

# OpInfo key (or "key@dtype") -> why a sample's mismatch is not a wrong result on any device
# (checked by other means, named here)
_TIES = ("ties among 8,000 half values (3,951 in float16, 7,109 in bfloat16): a gradient goes "
         "to another of equal elements than eager's, its sort's order among ties (checked: the "
         "gradients summed over each group of equal inputs are eager's exactly)")
KNOWN_MISMATCHES: dict[str, str] = {"msort@float16": _TIES, "msort@bfloat16": _TIES}

# OpInfo key (or "key@dtype", the samples' dtype, tried first) -> (rtol, atol, why), where the
# default (rtol 1.3e-6, atol 1e-5, as torch.testing's float32 default) is too tight for a
# correct kernel
_UINT8_RESIZE = ("uint8 resizing: eager's CPU kernel interpolates in fixed point with its own "
                 "rounding (its CUDA kernel in float); ours in float32: within 1")
_BIAS_AFTER = ("the bias is added by the kernel after the convolution, rounding twice in half "
               "as eager's cuDNN path does (convolution, then add); eager's CPU kernel rounds once")
_HALF_SCATTER_ADD = ("the gradient adds the cotangents at each running extreme's position in "
                     "half, in another order than eager's CPU loop: a sum that cancels (0.028 "
                     "from terms near 1) keeps a rounding of its terms, about one ulp at 1")
TOLERANCE_OVERRIDES: dict[str, tuple[float, float, str]] = {
    "cummax@float16": (1e-3, 2e-3, _HALF_SCATTER_ADD),
    "cummin@float16": (1e-3, 2e-3, _HALF_SCATTER_ADD),
    "nn.functional.interpolate.bilinear@uint8": (1e-6, 1.0, _UINT8_RESIZE),
    "nn.functional.interpolate.bicubic@uint8": (1e-6, 1.0, _UINT8_RESIZE),
    "nn.functional.upsample_bilinear@uint8": (1e-6, 1.0, _UINT8_RESIZE),
    # (a 1x1x1 kernel's output near 1: one float16 ulp is 1e-3 there)
    "nn.functional.conv3d@float16": (1e-3, 1e-3, _BIAS_AFTER),
    # (a result that cancels to ~0 keeps the rounding error of the convolution's own output)
    "nn.functional.conv_transpose3d@bfloat16": (1.6e-2, 3.2e-2, _BIAS_AFTER),
    # its samples hold 1e4 beside values near 0: the float32 gradient is ill-conditioned (eager's
    # is 7.2 off a float64 reference, ours 7.2 off it too and within 4e-3 of eager's)
    "logcumsumexp": (1e-3, 5e-3, "an input of 1e4 beside values near 0: the float32 gradient "
                                 "is ill-conditioned (eager's is 7.2 off float64's; ours is "
                                 "within 4e-3 of eager's)"),
}

# OpInfo key -> (position of the dim among the sample's args, why): indices checked by value:
# eager's values, and indices that pick them from the input (which of several equal elements
# they name may differ). Our sort is stable; eager's unstable sort and its topk are not.
_TIES = ("among equal elements eager's order is unspecified (CPU and CUDA differ; ours is "
         "stable, lowest index first): integer and boolean samples tie")
INDICES_AMONG_TIES: dict[str, tuple[int, str]] = {
    "topk": (1, _TIES),
    "sort": (0, _TIES),
    "argsort": (0, _TIES),
}

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
