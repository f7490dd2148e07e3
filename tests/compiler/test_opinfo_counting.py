"""put, masked_scatter, nonzero_static and histc (compiler/lowerings/counting.py) as generated
kernels: compared with eager, no ATen call for the op (CPU, interpreter)."""
import pytest
import torch

from helpers import check_generated
from test_opinfo_sorting import check_opinfo

torch.manual_seed(0)

PUT, MASKED, NONZERO, HISTC = ("aten.put.default",), ("aten.masked_scatter.default",), \
    ("aten.nonzero_static.default",), ("aten.histc.default",)


def check(fn, *args, generated=(), kernels=1):
    return check_generated(fn, *args, generated=generated, min_kernels=kernels)


@pytest.mark.parametrize("name,generated", [("put", PUT), ("masked_scatter", MASKED),
                                            ("nonzero_static", NONZERO), ("histc", HISTC)])
def test_counting_opinfo(name, generated):
    check_opinfo(name, generated, kernels=int(name != "nonzero_static"))   # (its samples are 0-d)


def test_put():
    # negative positions count from the end; repeated ones add up with accumulate
    check(lambda x, i, s: torch.put(x, i, s), torch.randn(3, 3), torch.tensor([0, -1, 4]),
          torch.randn(3), generated=PUT)
    check(lambda x, i, s: torch.put(x, i, s, accumulate=True), torch.randn(3, 3),
          torch.tensor([[0, 4], [4, 8]]), torch.randn(4), generated=PUT)
    check(lambda x, i, s: torch.put(x.t(), i, s), torch.randn(3, 4), torch.tensor([1, 5, 11]),
          torch.randn(3), generated=PUT)


def test_masked_scatter():
    m = torch.rand(5, 5) > 0.5
    check(lambda x, m, s: x.masked_scatter(m, s), torch.randn(5, 5), m, torch.randn(5, 5),
          generated=MASKED)
    check(lambda x, m, s: x.masked_scatter(m, s), torch.randn(5, 5), m[0], torch.randn(30),
          generated=MASKED)   # (a mask broadcast over rows; more source than needed)


def test_nonzero_static():
    x = torch.tensor([[0.0, 1, float("nan")], [0, 0, -0.0], [3, 0, 2]])
    for size in (0, 2, 4, 9):
        check(lambda t: torch.nonzero_static(t, size=size, fill_value=-3), x, generated=NONZERO,
              kernels=int(size > 0))
    check(lambda t: torch.nonzero_static(t, size=3), torch.tensor(1.0), generated=NONZERO, kernels=0)
    check(lambda t: torch.nonzero_static(t > 0, size=5), torch.randn(2, 3, 4), generated=NONZERO)


def test_histc():
    edgy = torch.tensor([-1.0, -0.8, -0.6, 0, 0.2, 0.4, 1, 1.5, float("nan"), float("inf"), 0.6,
                         0.8, -0.2, -1.0001])
    check(lambda t: torch.histc(t, bins=10, min=-1, max=1), edgy, generated=HISTC)
    check(lambda t: torch.histc(t, bins=7), torch.randn(50), generated=HISTC)   # the data's range
    check(lambda t: torch.histc(t, bins=3), torch.tensor([2.0, 2.0, 2.0]), generated=HISTC)
    check(lambda t: torch.histc(t, min=-3, max=3), torch.linspace(-3, 3, 1001), generated=HISTC)
    check(lambda t: torch.histc(t, bins=4, min=2, max=2), torch.tensor([1.0, 2.0, 2.5, 3.0]),
          generated=HISTC)


@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_with_reduce(reduce):
    # scatter's reduce= (aten.scatter.reduce / value_reduce): scatter_reduce's sum / prod
    gen = ("aten.scatter.reduce", "aten.scatter.value_reduce")
    i = torch.randint(0, 10, (5, 5))
    check(lambda a, j, b: torch.scatter(a, 0, j, b, reduce=reduce), torch.randn(10, 5), i,
          torch.randn(5, 5), generated=gen)
    check(lambda a, j: torch.scatter(a, 1, j, 1.5, reduce=reduce), torch.randn(5, 10), i,
          generated=gen)


SEGMENT = ("aten.segment_reduce.default",)


def test_segment_reduce_opinfo():
    check_opinfo("_segment_reduce", SEGMENT, variant="lengths")
    check_opinfo("_segment_reduce", SEGMENT, variant="offsets")


@pytest.mark.parametrize("reduce", ["max", "min", "sum", "mean", "prod"])
@pytest.mark.parametrize("initial", [None, 2.0])
def test_segment_reduce(reduce, initial):
    # an empty segment, a NaN (propagated), initial folded into every segment
    d = torch.tensor([1.0, float("nan"), 3.0, 4.0, 5.0])
    check(lambda x, n: torch.segment_reduce(x, reduce, lengths=n, initial=initial), d,
          torch.tensor([1, 0, 2, 2]), generated=SEGMENT)
    check(lambda x, o: torch.segment_reduce(x, reduce, offsets=o, initial=initial), d,
          torch.tensor([0, 1, 1, 3, 5]), generated=SEGMENT)
    check(lambda x, n: torch.segment_reduce(x, reduce, lengths=n, initial=initial),
          torch.randn(6, 3, 2), torch.tensor([2, 0, 3, 1]), generated=SEGMENT)


HISTOGRAM = ("aten.histogram.bin_ct", "aten.histogram.bins_tensor")


def test_histogram_opinfo():
    check_opinfo("histogram", HISTOGRAM)


@pytest.mark.parametrize("kw", [dict(bins=7), dict(bins=10, range=(-1.0, 0.5)), dict(bins=6, density=True),
                                dict(bins=5, range=(0.3, 0.3)), dict(bins=3, range=(-2.0, 2.0), density=True)])
def test_histogram(kw):
    # torch.histogram with a bin count: edges (the data's range, or a given one; a single
    # value widened), counts with the maximum in the last bin and values outside not counted,
    # weights, density; both outputs equal eager's
    x = torch.randn(37, 5)
    x[0, 0], x[0, 1] = x.max() + 1, x.min() - 1
    check(lambda t: torch.histogram(t, **kw), x, generated=HISTOGRAM)
    check(lambda t, w: torch.histogram(t, weight=w, **kw), x, torch.rand(37, 5), generated=HISTOGRAM)
    check(lambda t: torch.histogram(t, 3), torch.full((4,), 2.0), generated=HISTOGRAM)
    edges = torch.tensor([-1.5, -0.2, 0.0, 0.7, 2.0])   # given edges, uneven
    check(lambda t, e: torch.histogram(t, e, density=kw.get("density", False)), x, edges,
          generated=HISTOGRAM)


HISTOGRAMDD = ("aten._histogramdd_bin_edges.default", "aten._histogramdd_from_bin_cts.default",
               "aten._histogramdd_from_bin_tensors.default")


def test_histogramdd_opinfo():
    check_opinfo("histogramdd", HISTOGRAMDD)


@pytest.mark.parametrize("kw", [dict(bins=[3, 4, 2]), dict(bins=[2, 2, 5], range=[-1.0, 1.0, 0.0, 0.0, -2.0, 0.5]),
                                dict(bins=[3, 3, 3], density=True)])
def test_histogramdd(kw):
    # per coordinate: edges over its range (or the given one), a point counted in the bin of
    # each of its coordinates when all lie inside; weights, density; given edges per dim
    x = torch.randn(40, 3)
    check(lambda t: torch.histogramdd(t, **kw), x, generated=HISTOGRAMDD)
    check(lambda t, w: torch.histogramdd(t, weight=w, **kw), x, torch.rand(40), generated=HISTOGRAMDD)
    edges = [torch.tensor([-2.0, 0.0, 1.0]), torch.tensor([-1.0, 1.0]), torch.tensor([-3.0, -1.0, 0.0, 3.0])]
    check(lambda t, a, b, c: torch.histogramdd(t, bins=[a, b, c], density=kw.get("density", False)), x,
          *edges, generated=HISTOGRAMDD)


# -- on a GPU: float atomics (histc, put's accumulate) and the scan of a mask --------------

GPU_CASES = {
    "histc": lambda: (lambda t: torch.histc(t, bins=13, min=-2, max=2), (torch.randn(5000),)),
    "histc_data_range": lambda: (lambda t: torch.histc(t, bins=50), (torch.randn(3000),)),
    "put_accumulate": lambda: (lambda x, i, s: torch.put(x, i, s, accumulate=True),
                               (torch.randn(4, 5), torch.randint(-20, 20, (300,)), torch.randn(300))),
    "masked_scatter": lambda: (lambda x, m, s: x.masked_scatter(m, s),
                               (torch.randn(40, 70), torch.rand(40, 70) > 0.3, torch.randn(2800))),
    "nonzero_static": lambda: (lambda t: torch.nonzero_static(t > 0.5, size=900), (torch.randn(30, 40),)),
    "segment_reduce": lambda: (lambda x, n: torch.segment_reduce(x, "mean", lengths=n, initial=1.0),
                               (torch.randn(20, 3), torch.tensor([4, 0, 7, 9]))),
}


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GPU_CASES))
def test_on_gpu(name):
    fn, args = GPU_CASES[name]()
    check(fn, *[a.cuda() for a in args])


def check_gradient(fn, x, generated):
    """fn and x's gradient compiled against eager; no graph in ATen, no named op an ATen call."""
    from helpers import check_forward_and_backward
    import tuner.compiler.stats as stats
    stats.reset()
    check_forward_and_backward(fn, x)
    for g in stats.graphs():
        assert not g.graph_fallback, g.graph_fallback
        for name in generated:
            assert name not in g.fallbacks and name not in g.lowering_errors, (name, dict(g.fallbacks))


def test_masked_scatter_backward():
    # the source's gradient: grad where the mask is true, in order, then zeros
    base, m = torch.randn(5, 5), torch.rand(5, 5) > 0.5
    for mask in (m, m[0]):
        check_gradient(lambda s: base.masked_scatter(mask, s), torch.randn(30, requires_grad=True),
                       ("aten.masked_scatter_backward.default",))


@pytest.mark.parametrize("reduce", ["max", "min", "sum", "mean"])
@pytest.mark.parametrize("initial", [None, 3.0])
@pytest.mark.parametrize("kind", ["lengths", "offsets"])
def test_segment_reduce_backward(reduce, initial, kind):
    # ties share a max's gradient; an initial that wins takes it from the data; an empty segment
    b = torch.tensor([3, 0, 1, 2]) if kind == "lengths" else torch.tensor([0, 3, 3, 4, 6])
    x = torch.tensor([1.0, 3.0, 3.0, 2.0, 5.0, 0.0], requires_grad=True)
    check_gradient(lambda d: torch.segment_reduce(d, reduce, initial=initial, **{kind: b}), x,
                   ("aten._segment_reduce_backward.default",))
