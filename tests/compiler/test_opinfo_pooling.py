"""Pooling, sampling and structural OpInfo ops that ran in ATen (issue 45) and now run as
generated kernels through decompositions (PyTorch's, in torch_compat's table, and ours in
compiler/decompositions_nn.py): OpInfo samples and edge inputs, compared with eager, with no
ATen call for the op (CPU, interpreter)."""
import math

import pytest
import torch

from helpers import check_generated
from test_opinfo_coverage import check, check_opinfo, opinfo_samples

torch.manual_seed(0)

# OpInfo key -> the ATen ops that must not run in ATen
OPINFO = {
    "nn.functional.max_pool3d": ("aten.max_pool3d_with_indices.default",),
    "nn.functional.adaptive_max_pool1d": ("aten.adaptive_max_pool2d.default",),
    "nn.functional.adaptive_max_pool2d": ("aten.adaptive_max_pool2d.default",),
    "nn.functional.adaptive_max_pool3d": ("aten.adaptive_max_pool3d.default",),
    "max_pool2d_with_indices_backward": ("aten.max_pool2d_with_indices_backward.default",),
    "grid_sampler_2d": ("aten.grid_sampler_2d.default",),
    "nn.functional.grid_sample": ("aten.grid_sampler_2d.default",),
    "narrow_copy": ("aten.narrow_copy.default",),
    "nn.functional.avg_pool3d": ("aten.avg_pool3d.default",),
    "nn.functional.adaptive_avg_pool3d": ("aten._adaptive_avg_pool3d.default",),
    "nn.functional.bilinear": ("aten._trilinear.default",),
    "cdist": ("aten._cdist_forward.default",),
    "nn.functional.pdist": ("aten._pdist_forward.default",),
    "nn.functional.embedding_bag": ("aten._embedding_bag_forward_only.default",),
    "grid_sampler_3d": ("aten.grid_sampler_3d.default",),
    "_upsample_bilinear2d_aa": ("aten._upsample_bilinear2d_aa.default",),
}


@pytest.mark.parametrize("name", sorted(OPINFO))
def test_pool_misc_opinfo(name):
    if name == "nn.functional.pdist":   # its first samples have one row: no pairs, no kernel
        for op, s in opinfo_samples(name):
            check_generated(lambda x: op.op(x, *s.args, **s.kwargs), s.input, generated=OPINFO[name])
        return
    check_opinfo(name, "", OPINFO[name])


# -- PyTorch's decompositions now in the table ----------------------------------------------

def test_max_pool3d_with_indices():
    x = torch.randn(2, 3, 7, 6, 9)
    x[0, 0, 1, 1, 1] = float("inf")
    x[1, 2, 3] = float("-inf")
    gen = OPINFO["nn.functional.max_pool3d"]
    for kw in (dict(kernel_size=2), dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), padding=1),
               dict(kernel_size=3, stride=2, dilation=(1, 2, 1), ceil_mode=True)):
        check(lambda t: torch.nn.functional.max_pool3d(t, return_indices=True, **kw), x, generated=gen)
    check(lambda t: torch.nn.functional.max_pool3d(t, 2, return_indices=True), x[0], generated=gen)


def test_max_pool2d_backward_and_narrow_copy():
    x = torch.randn(2, 3, 8, 7)
    out, idx = torch.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True)
    check(lambda g, t, i: torch.ops.aten.max_pool2d_with_indices_backward(g, t, [3, 3], [2, 2], [1, 1],
                                                                          [1, 1], False, i),
          torch.randn_like(out), x, idx, generated=OPINFO["max_pool2d_with_indices_backward"])
    check(lambda t: torch.narrow_copy(t * 2, 2, 1, 5), x, generated=OPINFO["narrow_copy"])


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_2d(mode, padding_mode, align_corners):
    # grid points inside, on the edge, outside and far outside [-1, 1] (padding decides
    # those); an inf or NaN in the input that only an outside tap lands on adds nothing
    x, grid = torch.randn(2, 3, 5, 7), torch.rand(2, 4, 6, 2) * 2.6 - 1.3
    grid[0, 0, 0] = torch.tensor([1.0, -1.0])
    grid[1, :2] = torch.rand(2, 6, 2) * 8 - 4
    x[0, 0, 0, 0], x[1, 2, 4, 6] = float("inf"), float("nan")
    check(lambda t, g: torch.nn.functional.grid_sample(t, g, mode, padding_mode, align_corners),
          x, grid, generated=OPINFO["grid_sampler_2d"])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_grid_sample_of_half_inputs_is_computed_in_float32(dtype):
    # as eager's GPU kernel: positions and weights in float32, the result rounded once (with
    # them rounded to half on the way it was 2.5 float16 ulps off: the float16 OpInfo sweep)
    x, grid = torch.randn(2, 3, 5, 20) * 4, torch.rand(2, 13, 10, 2) * 2.4 - 1.2
    fn = lambda t, g: torch.nn.functional.grid_sample(t, g, "bilinear", "zeros", False)  # noqa: E731
    torch._dynamo.reset()
    got = torch.compile(fn, backend="tuner")(x.to(dtype), grid.to(dtype))
    want = fn(x.to(dtype).float(), grid.to(dtype).float()).to(dtype)
    assert got.dtype == dtype
    # (bfloat16: within the interpreter's truncating cast, one ulp; a GPU rounds to nearest)
    torch.testing.assert_close(got, want, rtol=0 if dtype == torch.float16 else 2 ** -7, atol=0)


HALF_IN_FLOAT32 = {   # ours rounded half sums or means twice (the float16 OpInfo sweep: 1 ulp)
    "adaptive_avg_pool3d": (lambda t: torch.nn.functional.adaptive_avg_pool3d(t, [5, 7, 4]),
                            lambda: (torch.randn(2, 8, 8, 8, 8) * 4,)),
    "embedding_bag_sum": (lambda w, i, o, p: torch.nn.functional.embedding_bag(
                              i, w, o, mode="sum", per_sample_weights=p),
                          lambda: (torch.randn(10, 5) * 4, torch.randint(0, 10, (40,)),
                                   torch.tensor([0, 7, 30]), torch.randn(40))),
    "embedding_bag_mean": (lambda w, i, o: torch.nn.functional.embedding_bag(i, w, o, mode="mean"),
                           lambda: (torch.randn(10, 5) * 4, torch.randint(0, 10, (40,)),
                                    torch.tensor([0, 7, 30]))),
}


@pytest.mark.parametrize("case", sorted(HALF_IN_FLOAT32))
def test_half_means_and_bag_sums_are_computed_in_float32(case):
    # as eager's kernels: accumulated in float32, the result rounded once
    fn, make = HALF_IN_FLOAT32[case]
    torch.manual_seed(0)
    args = [a.half() if a.is_floating_point() else a for a in make()]
    torch._dynamo.reset()
    got = torch.compile(fn, backend="tuner")(*args)
    want = fn(*[a.float() if a.is_floating_point() else a for a in args]).half()
    torch.testing.assert_close(got, want, rtol=0, atol=0)


# -- ours: compiler/decompositions_nn.py ------------------------------------------------------

@pytest.mark.parametrize("kw", [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), padding=(1, 1, 0), ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(2, 3, 2), stride=1, padding=1, divisor_override=5),
])
def test_avg_pool3d(kw):
    x = torch.randn(2, 3, 7, 6, 9)
    gen = OPINFO["nn.functional.avg_pool3d"]
    check(lambda t: torch.nn.functional.avg_pool3d(t, **kw), x, generated=gen)
    check(lambda t: torch.nn.functional.avg_pool3d(t, **kw), x[0], generated=gen)


@pytest.mark.parametrize("size", [(3, 4, 5), (7, 6, 9), (1, 1, 1), (5, 2, 3), (2, 6, None)])
def test_adaptive_pool3d(size):
    x = torch.randn(2, 3, 7, 6, 9)
    check(lambda t: torch.nn.functional.adaptive_avg_pool3d(t, size), x,
          generated=OPINFO["nn.functional.adaptive_avg_pool3d"])
    check(lambda t: torch.nn.functional.adaptive_max_pool3d(t, size, return_indices=True), x[0],
          generated=OPINFO["nn.functional.adaptive_max_pool3d"])


def test_adaptive_avg_pool3d_empty_batch():
    check_generated(lambda t: torch.nn.functional.adaptive_avg_pool3d(t, (2, 3, 1)) + 1,
                    torch.randn(0, 2, 4, 5, 6), generated=OPINFO["nn.functional.adaptive_avg_pool3d"])


@pytest.mark.parametrize("size", [(3, 4), (5, 3), (4, 7), (1, 2), (6, 7)])
def test_adaptive_max_pool2d_uneven_windows(size):
    # windows of different widths overlap; infinities and ties keep eager's first maximum
    x = torch.randn(2, 3, 6, 7).round()
    x[0, 0, 2, 3] = float("inf")
    x[1, 1, :, 2] = float("-inf")
    check(lambda t: torch.nn.functional.adaptive_max_pool2d(t, size, return_indices=True), x,
          generated=OPINFO["nn.functional.adaptive_max_pool2d"])
    check(lambda t: torch.nn.functional.adaptive_max_pool1d(t, size[0], return_indices=True), x[0],
          generated=OPINFO["nn.functional.adaptive_max_pool1d"])


def test_bilinear():
    w, b = torch.randn(5, 4, 6), torch.randn(5)
    gen = OPINFO["nn.functional.bilinear"]
    check(lambda x1, x2: torch.nn.functional.bilinear(x1, x2, w, b), torch.randn(3, 4), torch.randn(3, 6),
          generated=gen)
    check(lambda x1, x2: torch.nn.functional.bilinear(x1, x2, w), torch.randn(2, 3, 4), torch.randn(2, 3, 6),
          generated=gen)


@pytest.mark.parametrize("p", [0, 1, 2, 3.5, 0.5, math.inf])
def test_cdist_and_pdist(p):
    # more than 25 rows: eager's p = 2 takes a matmul route, the values still agree (but for
    # a zero distance, where its cancellation leaves ~1e-3: planted in the small case only)
    torch.manual_seed(1)
    x1, x2 = torch.randn(2, 30, 5), torch.randn(2, 27, 5)
    check(lambda a, b: torch.cdist(a, b, p), x1, x2, generated=OPINFO["cdist"])
    x1, x2 = torch.randn(3, 5), torch.randn(4, 5)
    x2[3] = x1[1]   # a zero distance
    check(lambda a, b: torch.cdist(a, b, p), x1, x2, generated=OPINFO["cdist"])
    for n in (2, 3, 9, 40):
        check(lambda t: torch.nn.functional.pdist(t, p), torch.randn(n, 4), generated=OPINFO["nn.functional.pdist"])


def test_pdist_one_row():
    check_generated(lambda t: torch.nn.functional.pdist(t) + 1, torch.randn(1, 4),
                    generated=OPINFO["nn.functional.pdist"])


EMBED_BAG = ("aten._embedding_bag_forward_only.default",)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
@pytest.mark.parametrize("include_last_offset", [False, True])
def test_embedding_bag(mode, padding_idx, include_last_offset):
    # empty bags (repeated offsets and one at the end), padding rows, a bag of padding only
    w = torch.randn(10, 3)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 2, 7])
    # (the last offset is the number of indices: with include_last_offset it ends the last
    # bag, without it it starts an empty one)
    offsets = torch.tensor([0, 2, 2, 5, 8, 10])
    kw = dict(mode=mode, padding_idx=padding_idx, include_last_offset=include_last_offset)
    check(lambda i, o, t: torch.nn.functional.embedding_bag(i, t, o, **kw), idx, offsets, w,
          generated=EMBED_BAG)
    if mode == "sum":
        psw = torch.randn(idx.numel())
        check(lambda i, o, t, s: torch.nn.functional.embedding_bag(i, t, o, per_sample_weights=s, **kw),
              idx, offsets, w, psw, generated=EMBED_BAG)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_embedding_bag_all_outputs(mode):
    # every output of the forward-only op, as eager's kernel returns them
    w, idx, offsets = torch.randn(10, 3), torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 2, 2, 5])
    check(lambda t, i, o: torch.ops.aten._embedding_bag_forward_only(t, i, o, False, mode), w, idx, offsets,
          generated=EMBED_BAG)
    check(lambda t, i, o: torch.ops.aten._embedding_bag_forward_only(t, i, o, False, mode, False, None,
                                                                     False, 2), w, idx, offsets,
          generated=EMBED_BAG)


def test_embedding_bag_2d_input():
    w = torch.randn(12, 4, dtype=torch.float64)
    check(lambda i, t: torch.nn.functional.embedding_bag(i, t, mode="mean"), torch.randint(0, 12, (5, 3)), w,
          generated=EMBED_BAG, dtype=torch.float64)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_3d(mode, padding_mode, align_corners):
    # points inside, outside and far outside [-1, 1] (reflected several times); an inf in the
    # input that only an outside tap lands on must not turn the output into NaN
    x, grid = torch.randn(2, 3, 4, 5, 6), torch.rand(2, 3, 4, 5, 3) * 2.6 - 1.3
    grid[1] = torch.rand(3, 4, 5, 3) * 8 - 4
    x[0, 0, 0, 0, 0] = float("inf")
    check(lambda t, g: torch.nn.functional.grid_sample(t, g, mode, padding_mode, align_corners),
          x, grid, generated=OPINFO["grid_sampler_3d"])


@pytest.mark.parametrize("size", [(5, 7), (17, 23), (30, 40), (1, 1), (8, 50), (3, 23)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_upsample_bilinear2d_antialias(size, align_corners):
    # down (wide triangle windows), same size, up, a single pixel, mixed per axis; an inf and
    # a NaN spread only over their windows (an unchanged axis is not resampled, as eager)
    x = torch.randn(2, 3, 17, 23)
    x[0, 0, 0, 0], x[1, 1, 16, 22] = float("inf"), float("nan")
    check(lambda t: torch.nn.functional.interpolate(t, size=size, mode="bilinear",
                                                    align_corners=align_corners, antialias=True),
          x, generated=OPINFO["_upsample_bilinear2d_aa"])


def test_upsample_bilinear2d_antialias_scale_factor():
    # the given scales (not the sizes' ratio) place the windows, as eager
    check(lambda t: torch.nn.functional.interpolate(t, scale_factor=(0.3, 0.45), mode="bilinear",
                                                    antialias=True, recompute_scale_factor=False),
          torch.randn(1, 2, 17, 23), generated=OPINFO["_upsample_bilinear2d_aa"])


MAX_POOLS = {
    "max_pool2d": lambda t: torch.nn.functional.max_pool2d(t, 2, return_indices=True),
    "max_pool2d_padded": lambda t: torch.nn.functional.max_pool2d(t, 3, 2, 1, return_indices=True),
    "max_pool3d": lambda t: torch.nn.functional.max_pool3d(t.unsqueeze(0), (1, 2, 2), return_indices=True),
    "max_pool3d_padded": lambda t: torch.nn.functional.max_pool3d(t.unsqueeze(0), (2, 3, 2), 1, 1,
                                                                  return_indices=True),
    "adaptive_max_pool2d": lambda t: torch.nn.functional.adaptive_max_pool2d(t, (4, 5), True),
    "adaptive_max_pool2d_global": lambda t: torch.nn.functional.adaptive_max_pool2d(t, 1, True),
    "adaptive_max_pool3d": lambda t: torch.nn.functional.adaptive_max_pool3d(t.unsqueeze(0), (2, 4, 5), True),
}


@pytest.mark.parametrize("name", sorted(MAX_POOLS))
def test_max_pool_indices_of_nan_and_inf(name):
    # eager's kernels pick the last NaN of a window (`val > max || isnan(val)`), the first of
    # equal maxima, and an input (never the padding) in a window of -inf
    x = torch.randn(2, 3, 6, 7).round()
    x[0, 0, :2, :2] = float("nan")
    x[0, 1, 1, 1] = x[0, 1, 4, 5] = float("nan")
    x[1, 1] = float("-inf")
    x[1, 2, 2, 3] = float("inf")
    gen = ("aten.max_pool2d_with_indices.default", "aten.max_pool3d_with_indices.default",
           "aten.adaptive_max_pool2d.default", "aten.adaptive_max_pool3d.default")
    check(MAX_POOLS[name], x, generated=gen)


POOL_GRADS = {
    "max_pool3d": (lambda t: torch.nn.functional.max_pool3d(t, 3, (1, 2, 1), 1), (2, 3, 5, 6, 7),
                   "aten.max_pool3d_with_indices_backward.default"),
    "adaptive_max_pool2d": (lambda t: torch.nn.functional.adaptive_max_pool2d(t, (4, 5)), (2, 3, 6, 7),
                            "aten.adaptive_max_pool2d_backward.default"),
    "adaptive_max_pool3d": (lambda t: torch.nn.functional.adaptive_max_pool3d(t, (2, 4, 5)), (1, 2, 5, 6, 7),
                            "aten.adaptive_max_pool3d_backward.default"),
}


@pytest.mark.parametrize("name", sorted(POOL_GRADS))
def test_max_pool_gradients_scatter_into_the_input(name):
    # overlapping windows add their gradients at the picked inputs (scatter_add), as eager
    import tuner.compiler.stats as stats
    fn, shape, backward = POOL_GRADS[name]
    x = torch.randn(*shape).round(decimals=1)   # (ties: the indices decide where it goes)
    x1, x2 = x.clone().requires_grad_(), x.clone().requires_grad_()
    stats.reset()
    torch._dynamo.reset()
    out = torch.compile(fn, backend="tuner")(x1)
    ref = fn(x2)
    w = torch.randn(ref.shape)
    (out * w).sum().backward()
    (ref * w).sum().backward()
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(x1.grad, x2.grad, rtol=1e-5, atol=1e-5)
    for g in stats.graphs():
        assert not g.graph_fallback and backward not in g.fallbacks, (g.graph_fallback, dict(g.fallbacks))


@pytest.mark.parametrize("n, shape, kernel, out", [
    (2, (2, 3, 9, 11), (3, 2), (4, 5)), (2, (3, 8, 7), (2, 2), (5, 3)), (2, (2, 5, 5), (2, 2), (1, 4)),
    (3, (2, 2, 6, 7, 8), (2, 3, 2), (3, 4, 5))])
def test_fractional_max_pool_with_its_samples_and_gradient(n, shape, kernel, out):
    # each plane's windows come from its own random sample: given explicitly, the values,
    # indices (a NaN and an infinity among the inputs) and the input gradient equal eager's
    x = torch.randn(shape)
    x.view(-1)[5], x.view(-1)[17] = float("nan"), float("inf")
    samples = torch.rand(shape[0] if len(shape) == n + 2 else 1, shape[-n - 1], n)
    pool = torch.nn.functional.fractional_max_pool2d if n == 2 else torch.nn.functional.fractional_max_pool3d
    op = f"aten.fractional_max_pool{n}d"
    check(lambda t: pool(t, kernel, output_size=out, return_indices=True, _random_samples=samples), x,
          generated=(f"{op}.default",))
    g = torch.randn(shape[:-n] + out)
    check(lambda t: torch.autograd.grad(pool(t, kernel, output_size=out, _random_samples=samples), t, g)[0],
          torch.randn(shape).requires_grad_(), generated=(f"{op}.default", f"{op}_backward.default"))
