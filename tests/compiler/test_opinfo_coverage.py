"""OpInfo ops that ran in ATen (pass_op_fallback in the sweep, issue 45) and now run as
generated kernels: each family on its OpInfo samples and on edge values, compared with eager,
with no ATen call for the op (float32 and float64, CPU, interpreter)."""
import pytest
import torch

import tuner.compiler.stats as stats
from helpers import check_generated

torch.manual_seed(0)


def check(fn, *args, generated=(), **kw):
    return check_generated(fn, *args, generated=generated, min_kernels=1, **kw)


def opinfo_samples(name, n=2, variant="", dtype=torch.float32):
    """The first n samples of an OpInfo entry with elements (CPU)."""
    from torch.testing._internal.common_methods_invocations import op_db
    op = next(o for o in op_db if o.name == name and o.variant_test_name == variant)
    out = []
    for s in op.sample_inputs("cpu", dtype):
        if s.input.numel() and all(a.numel() for a in s.args if isinstance(a, torch.Tensor)):
            out.append((op, s))
        if len(out) == n:
            break
    return out


def check_opinfo(name, variant="", generated=(), n=2):
    for op, s in opinfo_samples(name, n, variant):
        check(lambda x, *a: op.op(x, *a, **s.kwargs), s.input, *s.args, generated=generated)


# -- digamma and polygamma (runtime helpers th.digamma, th.polygamma) -----------------------

POLYGAMMA = ("aten.polygamma.default", "aten.digamma.default")


@pytest.mark.parametrize("variant", [f"polygamma_n_{n}" for n in range(5)])
def test_polygamma_opinfo(variant):
    check_opinfo("polygamma", variant, POLYGAMMA)


def test_digamma_opinfo():
    check_opinfo("digamma", "", POLYGAMMA)


EDGES = [0.0, -0.0, -1.0, -3.0, float("inf"), float("-inf"), float("nan"), 1e-6, -1e-6,
         0.5, 0.49, -0.5, 100.25, -7.999, -24.6, 1e10, 3.0]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
def test_polygamma_edges_and_range(n, dtype):
    # a grid over [-20, 30] and the poles, zeros and infinities (eager's values there)
    x = torch.cat([torch.linspace(-20.3, 30.7, 401, dtype=dtype), torch.tensor(EDGES, dtype=dtype)])
    if n == 1 and dtype == torch.float32:
        x = x[(x - x.round()).abs() > 1e-3]   # eager's own float32 trigamma is off near the poles
    check(lambda t: torch.polygamma(n, t), x, generated=POLYGAMMA, dtype=dtype)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_polygamma_far_below_zero(n):
    # the Hurwitz zeta's terms are summed until every lane passes 15, from any x (a fixed 40
    # terms were wrong below -25)
    x = torch.tensor([-100.5, -40.25, -26.7, -1000.3, -3.3], dtype=torch.float64)
    check(lambda t: torch.polygamma(n, t), x, generated=POLYGAMMA, dtype=torch.float64)


def test_digamma_of_integers_and_half():
    check(torch.digamma, torch.arange(-3, 40), generated=POLYGAMMA)
    check(lambda t: torch.special.digamma(t) * 2, torch.randn(64, dtype=torch.float16) * 4,
          generated=POLYGAMMA, dtype=torch.float16)


# -- scatter_reduce and index_reduce: prod as a reduction over the index (no atomic) --------

REDUCE_INTO = ("aten.scatter_reduce.two", "aten.index_reduce.default")


@pytest.mark.parametrize("name,reduce", [("scatter_reduce", r) for r in ("sum", "prod", "mean", "amax", "amin")]
                         + [("index_reduce", r) for r in ("prod", "mean", "amax", "amin")])
def test_reduce_into_opinfo(name, reduce):
    check_opinfo(name, reduce, REDUCE_INTO)


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod(include_self):
    def fn(dim):
        return lambda a, i, b: torch.scatter_reduce(a, dim, i, b, "prod", include_self=include_self)
    check(fn(0), torch.randn(6, 5), torch.randint(0, 6, (9, 5)), torch.randn(9, 5),
          generated=REDUCE_INTO)
    # an index smaller than x beside dim, src larger than the index: only index's positions
    check(fn(1), torch.randn(6, 5), torch.randint(0, 5, (4, 3)), torch.randn(7, 8),
          generated=REDUCE_INTO)
    check(fn(0), torch.randint(-3, 4, (6,)), torch.randint(0, 6, (9,)), torch.randint(-3, 4, (9,)),
          generated=REDUCE_INTO)
    check(fn(0), torch.randn(()), torch.tensor(0), torch.randn(()), generated=REDUCE_INTO)


@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_prod(include_self):
    def fn(dim):
        return lambda a, i, b: a.index_reduce(dim, i, b, "prod", include_self=include_self)
    check(fn(1), torch.randn(4, 6), torch.tensor([2, 0, 2, 5]), torch.randn(4, 4),
          generated=REDUCE_INTO)
    check(fn(0), torch.randn(5, 3, dtype=torch.float64), torch.tensor([4, 0, 3, 4]),
          torch.randn(4, 3, dtype=torch.float64), generated=REDUCE_INTO, dtype=torch.float64)
    check(fn(0), torch.randn(()), torch.tensor([0]), torch.randn(()), generated=REDUCE_INTO)


@pytest.mark.parametrize("case", ["scatter", "index"])
def test_reduce_prod_out_of_range_index_raises(case):
    # eager refuses an index below 0 or past the end; the kernel's bounds check does too
    x, src = torch.randn(3), torch.randn(2)
    idx = torch.tensor([1, -1])
    fn = {"scatter": lambda a, i, b: torch.scatter_reduce(a, 0, i, b, "prod"),
          "index": lambda a, i, b: a.index_reduce(0, i, b, "prod")}[case]
    with pytest.raises(Exception):
        fn(x, idx, src)
    torch._dynamo.reset()
    with pytest.raises(Exception, match="out of bounds"):
        torch.compile(fn, backend="tuner")(x, idx, src)


# -- allocations with a layout: empty_permuted, new_empty_strided ----------------------------

@pytest.mark.parametrize("case", ["empty_permuted", "new_empty_strided"])
def test_empty_with_layout(case):
    # the values are uninitialized: shape, dtype and strides compared, then a fill through it
    fn = {"empty_permuted": lambda x: torch.empty_permuted((2, 3, 4), (2, 0, 1)),
          "new_empty_strided": lambda x: x.new_empty_strided((2, 3, 4), (1, 2, 6))}[case]
    x = torch.randn(2, 3, 4)
    stats.reset()
    torch._dynamo.reset()
    out, ref = torch.compile(fn, backend="tuner")(x), fn(x)
    assert (out.shape, out.stride(), out.dtype) == (ref.shape, ref.stride(), ref.dtype)
    assert f"aten.{case}.default" not in stats.last().fallbacks
    check(lambda t: fn(t).fill_(1.5) * t, x, generated=(f"aten.{case}.default",))


# -- decompositions into lowered ops (compiler/decompositions.py, torch_compat's table) ------

DECOMPOSED = {
    "ldexp": ("aten.ldexp.Tensor",),
    "frexp": ("aten.frexp.Tensor",),
    "angle": ("aten.angle.default",),
    "addmv": ("aten.addmv.default",),
    "addbmm": ("aten.addbmm.default",),
    "dist": ("aten.dist.default",),
    "as_strided_copy": ("aten.as_strided_copy.default",),
    "as_strided_scatter": ("aten.as_strided_scatter.default", "prims.as_strided_scatter.default"),
}


@pytest.mark.parametrize("name", sorted(DECOMPOSED))
def test_decomposed_opinfo(name):
    check_opinfo(name, "", DECOMPOSED[name])


SPECIAL_FLOATS = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-45, 1.2e-38, 3e38,
                  0.5, 1.0, -0.75, 2.0 ** 20, -(2.0 ** -20), 0.9999999, 1.0000001, -3.0]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_frexp_edges(dtype):
    x = torch.cat([torch.tensor(SPECIAL_FLOATS).to(dtype), torch.randn(200, dtype=dtype) * 1e3])
    if dtype == torch.float64:
        x = torch.cat([x, torch.tensor([5e-324, 1.7e308, 2.0 ** -1022], dtype=dtype)])
    check(lambda t: torch.frexp(t), x, generated=DECOMPOSED["frexp"], dtype=dtype)


def test_angle_and_ldexp_edges():
    x = torch.tensor(SPECIAL_FLOATS)
    check(torch.angle, x, generated=DECOMPOSED["angle"])
    check(torch.angle, torch.tensor([3, -2, 0]), generated=DECOMPOSED["angle"])
    check(torch.angle, x.double(), generated=DECOMPOSED["angle"], dtype=torch.float64)
    check(torch.angle, x.half(), generated=DECOMPOSED["angle"], dtype=torch.float16)
    torch._dynamo.reset()                 # a half input's angle is half (was float32)
    assert torch.compile(torch.angle, backend="tuner")(x.half()).dtype == torch.float16
    # exact scaling (2^200 alone overflows float32), 0 * 2^big, NaN, inf, subnormals
    e = torch.tensor([0, 1, -1, 127, -149, 200, -200, 3, 5, -7, 2, 0, 1, 1, 4, -2])
    check(torch.ldexp, x, e, generated=DECOMPOSED["ldexp"])
    check(torch.ldexp, x, e * 40, generated=DECOMPOSED["ldexp"])
    check(torch.ldexp, x.double(), e * 70, generated=DECOMPOSED["ldexp"], dtype=torch.float64)
    check(torch.ldexp, x.half(), e, generated=DECOMPOSED["ldexp"], dtype=torch.float16)
    check(torch.ldexp, torch.tensor([3, -5, 7]), torch.tensor([2, -1, 30], dtype=torch.int32),
          generated=DECOMPOSED["ldexp"])
    check(torch.ldexp, x, torch.linspace(-3, 3, 16), generated=DECOMPOSED["ldexp"])


def test_addmv_addbmm_dist():
    check(lambda s, a, v: torch.addmv(s, a, v, beta=0.5, alpha=-2.0), torch.randn(7),
          torch.randn(7, 33), torch.randn(33), generated=DECOMPOSED["addmv"])
    check(lambda s, a, b: torch.addbmm(s, a, b, beta=0.0, alpha=1.5),
          torch.full((4, 6), float("nan")), torch.randn(3, 4, 5), torch.randn(3, 5, 6),
          generated=DECOMPOSED["addbmm"])   # beta=0 ignores self (its NaNs too)
    for p in (0, 1, 2, 3.5, float("inf"), float("-inf")):
        check(lambda a, b: torch.dist(a, b, p), torch.randn(4, 5), torch.randn(5),
              generated=DECOMPOSED["dist"])


def test_as_strided_copy_and_scatter():
    x = torch.randn(4, 5)
    check(lambda t: torch.as_strided_copy(t * 2, (2, 3), (1, 4), 2),
          x, generated=DECOMPOSED["as_strided_copy"])
    check(lambda t, s: torch.as_strided_scatter(t + 1, s, (2, 3), (5, 2), 1), x, torch.randn(2, 3),
          generated=DECOMPOSED["as_strided_scatter"])
    check(lambda t, s: torch.as_strided_scatter(t, s, (3,), (6,)), x, torch.randn(3),
          generated=DECOMPOSED["as_strided_scatter"])


# -- Bessel I0/I1 (scaled too) and erfcx (runtime helpers th.bessel_i, th.erfcx) ------------

SPECIAL = {
    "i0": (torch.i0, "aten.i0.default"),
    "special.i0e": (torch.special.i0e, "aten.special_i0e.default"),
    "special.i1": (torch.special.i1, "aten.special_i1.default"),
    "special.i1e": (torch.special.i1e, "aten.special_i1e.default"),
    "special.modified_bessel_i0": (torch.special.modified_bessel_i0,
                                   "aten.special_modified_bessel_i0.default"),
    "special.modified_bessel_i1": (torch.special.modified_bessel_i1,
                                   "aten.special_modified_bessel_i1.default"),
    "special.erfcx": (torch.special.erfcx, "aten.special_erfcx.default"),
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_opinfo(name):
    check_opinfo(name, "", (SPECIAL[name][1],))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_range_and_edges(name, dtype):
    # both sides of the series/asymptotic switch (20; erfcx's 25), eager's overflow of e^|x|
    # (88.7 in float32, 709.8 in float64), infinities, NaN, zeros
    fn, aten_name = SPECIAL[name]
    x = torch.cat([torch.linspace(-40, 40, 801), torch.linspace(-750, 750, 61),
                   torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 19.999,
                                 20.0, 20.001, 25.0, 25.001, 88.5, 89.0, 91.0, -9.3, 1e-30])])
    check(fn, x.to(dtype), generated=(aten_name,), dtype=dtype)


# -- kthvalue and nanmedian as ranks (compiler/lowerings/selection.py) -----------------------

SELECTION = ("aten.kthvalue.default", "aten.nanmedian.dim", "aten.nanmedian.default")


@pytest.mark.parametrize("name", ["kthvalue", "nanmedian"])
def test_selection_opinfo(name):
    check_opinfo(name, "", SELECTION)


def test_kthvalue_and_nanmedian_without_ties():
    x = torch.randn(5, 7, 3)
    check(lambda t: torch.kthvalue(t, 3, 1), x, generated=SELECTION)
    check(lambda t: torch.kthvalue(t, 2, -1, keepdim=True), x, generated=SELECTION)
    check(lambda t: torch.kthvalue(t, 5, 0), x.double(), generated=SELECTION, dtype=torch.float64)
    check(lambda t: torch.kthvalue(t, 1, 0), torch.randn(()), generated=SELECTION)
    check(lambda t: torch.nanmedian(t, 1), x, generated=SELECTION)
    check(lambda t: torch.nanmedian(t), x, generated=SELECTION)


def test_kthvalue_and_nanmedian_with_nans():
    # NaN sorts last (nanmedian leaves it out); among equal values (NaNs) eager's quickselect
    # returns some index of the value, so the index is checked to hold the value
    y = torch.randn(5, 7, 3)
    y[0, 2, 1] = float("nan")
    y[1, :, 0] = float("nan")
    y[2, 1:5, 2] = float("nan")
    cases = [lambda t: torch.kthvalue(t, 7, 1), lambda t: torch.kthvalue(t, 2, 1),
             lambda t: torch.nanmedian(t, 1), lambda t: torch.nanmedian(t, 0, keepdim=True)]
    for fn in cases:
        stats.reset()
        torch._dynamo.reset()
        (v, i), (rv, _) = torch.compile(fn, backend="tuner")(y), fn(y)
        torch.testing.assert_close(v, rv, equal_nan=True)
        dim = 1 if v.dim() == 2 else 0
        picked = torch.gather(y, dim, i if v.dim() == 3 else i.unsqueeze(dim)).squeeze(dim)
        torch.testing.assert_close(picked, v.squeeze(dim) if v.dim() == 3 else v, equal_nan=True)
        assert not set(SELECTION) & set(stats.last().fallbacks)
    check(lambda t: torch.nanmedian(t), y, generated=SELECTION)
    check(lambda t: torch.nanmedian(t), torch.full((4,), float("nan")), generated=SELECTION)


def test_kthvalue_out_of_range_raises_as_eager():
    with pytest.raises(Exception):
        torch.kthvalue(torch.randn(3), 4)
    torch._dynamo.reset()
    with pytest.raises(Exception):
        torch.compile(lambda t: torch.kthvalue(t, 4), backend="tuner")(torch.randn(3))


MEDIAN = ("aten.median.dim", "aten.median.default")


def test_median():
    check_opinfo("median", "", MEDIAN)
    x = torch.randn(5, 7, 3)
    check(lambda t: torch.median(t, 1), x, generated=MEDIAN)
    check(lambda t: torch.median(t, 0, keepdim=True), x, generated=MEDIAN)
    check(lambda t: torch.median(t), x, generated=MEDIAN)
    check(lambda t: torch.median(t, 0), torch.randn(()), generated=MEDIAN)
    # a NaN in the row makes the median NaN, indexed at the row's first NaN (as eager's)
    y = torch.tensor([[1.0, float("nan"), 0.0, float("nan")], [3.0, 1.0, 2.0, 5.0],
                      [float("nan")] * 4])
    check(lambda t: torch.median(t, 1), y, generated=MEDIAN)
    check(lambda t: torch.median(t), y, generated=MEDIAN)


# -- the same helpers through Triton's compiler on a GPU (libdevice, float64 inside) ---------

_GRID = torch.cat([torch.linspace(-30.3, 40.7, 511), torch.tensor(EDGES)])
GPU_CASES = {
    "digamma": lambda: (torch.digamma, (_GRID,)),
    "trigamma": lambda: (lambda t: torch.polygamma(1, t), (_GRID,)),
    "polygamma_3_f64": lambda: (lambda t: torch.polygamma(3, t), (_GRID.double(),)),
    "i0": lambda: (torch.i0, (torch.linspace(-95, 95, 381),)),
    "i1e_f64": lambda: (torch.special.i1e, (torch.linspace(-750, 750, 301).double(),)),
    "erfcx": lambda: (torch.special.erfcx, (torch.linspace(-10, 40, 501),)),
    "frexp": lambda: (torch.frexp, (torch.tensor(SPECIAL_FLOATS),)),
    "ldexp": lambda: (torch.ldexp, (torch.tensor(SPECIAL_FLOATS), torch.arange(-75, 85, 10))),
    "kthvalue": lambda: (lambda t: torch.kthvalue(t, 3, 1), (torch.randn(6, 9, 2),)),
    "scatter_reduce_prod": lambda: (lambda a, i, b: torch.scatter_reduce(a, 0, i, b, "prod"),
                                    (torch.randn(6, 5), torch.randint(0, 6, (9, 5)), torch.randn(9, 5))),
    # runtime/special.py: float64 inside, while loops over a block's largest n or iteration
    "bessel_y1": lambda: (torch.special.bessel_y1, (torch.linspace(0.01, 40, 401),)),
    "bessel_j0": lambda: (torch.special.bessel_j0, (torch.linspace(-40, 40, 401),)),
    "airy_ai": lambda: (torch.special.airy_ai, (torch.linspace(-12, 12, 481),)),
    "k1e_f64": lambda: (torch.special.scaled_modified_bessel_k1,
                        (torch.linspace(0.01, 60, 300).double(),)),
    "ndtri": lambda: (torch.special.ndtri, (torch.linspace(0, 1, 501),)),
    "chebyshev_t_tensor_n": lambda: (torch.special.chebyshev_polynomial_t,
                                     (torch.linspace(-1.5, 1.5, 64), torch.arange(64) % 7)),
    "igammac": lambda: (torch.igammac, (torch.linspace(0.1, 20, 200), torch.linspace(0.05, 30, 200))),
    "zeta_f64": lambda: (torch.special.zeta, (torch.linspace(1.5, 10, 200).double(),
                                              torch.linspace(0.1, 20, 200).double())),
    # compiler/decompositions_nn.py and PyTorch's decompositions: atomics (index_add,
    # index_reduce, scatter_add) and gathers
    "embedding_bag_mean": lambda: (lambda w, i, o: torch.nn.functional.embedding_bag(i, w, o, mode="mean",
                                                                                     padding_idx=2),
                                   (torch.randn(10, 3), torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]),
                                    torch.tensor([0, 2, 2, 5]))),
    "embedding_bag_max": lambda: (lambda w, i, o: torch.nn.functional.embedding_bag(i, w, o, mode="max"),
                                  (torch.randn(10, 3), torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]),
                                   torch.tensor([0, 2, 2, 5]))),
    "max_pool2d_backward": lambda: (lambda g, t: torch.ops.aten.max_pool2d_with_indices_backward(
        g, t, [3, 3], [2, 2], [1, 1], [1, 1], False,
        torch.nn.functional.max_pool2d(t, 3, 2, 1, return_indices=True)[1]),
        (torch.randn(2, 3, 4, 4), torch.randn(2, 3, 8, 7))),
    "grid_sample_3d": lambda: (lambda t, g: torch.nn.functional.grid_sample(t, g, padding_mode="reflection",
                                                                             align_corners=False),
                               (torch.randn(2, 3, 4, 5, 6), torch.rand(2, 3, 4, 5, 3) * 2.6 - 1.3)),
    "adaptive_max_pool2d": lambda: (lambda t: torch.nn.functional.adaptive_max_pool2d(t, (4, 5), True),
                                    (torch.randn(2, 3, 7, 9),)),
}


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GPU_CASES))
def test_on_gpu(name):
    fn, args = GPU_CASES[name]()
    dtype = args[0].dtype
    check(fn, *[a.cuda() for a in args], dtype=dtype)
