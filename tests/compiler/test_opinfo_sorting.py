"""sort/argsort/msort, searchsorted/bucketize (compiler/lowerings/sorting.py) and the OpInfo
ops built on them (quantile, isin) as generated kernels: compared with eager, no ATen call for
the op (CPU, interpreter), on OpInfo samples and on ties, NaNs, infinities and -0.0."""
import pytest
import torch

from helpers import check_generated
from test_opinfo_coverage import opinfo_samples

torch.manual_seed(0)

SORT = ("aten.sort.default", "aten.sort.stable")
SEARCH = ("aten.searchsorted.Tensor", "aten.bucketize.Tensor")


def check(fn, *args, generated=(), **kw):
    return check_generated(fn, *args, generated=generated, min_kernels=1, **kw)


def check_opinfo(name, generated, n=3, kernels=1, variant=""):
    """The op's first n OpInfo samples, but those of more than 1000 elements (sort's row of
    8000 takes the interpreter a minute: the sweep runs it)."""
    for op, s in opinfo_samples(name, n, variant):
        if s.input.numel() <= 1000:
            check_generated(lambda x, *a: op.op(x, *a, **s.kwargs), s.input, *s.args,
                            generated=generated, min_kernels=kernels)


EDGY = torch.tensor([3.0, float("nan"), -0.0, 1.0, 0.0, float("-inf"), 1.0, float("nan"),
                     float("inf"), -2.5, 1.0, 0.0])


@pytest.mark.parametrize("name", ["sort", "argsort", "msort", "quantile", "nanquantile"])
def test_sort_opinfo(name):
    check_opinfo(name, SORT)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_ties_nans_stable(descending):
    # ties keep their order, NaNs last (first descending), -0.0 equal to 0.0: eager's stable sort
    x = torch.stack([EDGY, EDGY.flip(0), torch.randn(12)])
    check(lambda t: torch.sort(t, dim=1, descending=descending, stable=True), x, generated=SORT)
    check(lambda t: torch.sort(t, 0, descending=descending), x.T.contiguous(), generated=SORT)
    check(lambda t: torch.argsort(t, dim=-1, descending=descending, stable=True), x, generated=SORT)


def test_sort_integers_bool_and_small():
    check(lambda t: torch.sort(t, 1), torch.randint(-4, 4, (5, 9)), generated=SORT)
    check(lambda t: torch.sort(t, dim=0, stable=True), torch.rand(9, 3) > 0.5, generated=SORT)
    check(lambda t: torch.sort(t) [0] * 2, torch.randn(()), generated=())
    check(lambda t: torch.sort(t, 1)[0] * 2, torch.randn(4, 1, 3), generated=SORT)


def test_topk_is_the_head_of_a_stable_sort():
    # largest (NaN first) and smallest, one result read or both; sorted=False keeps eager's own
    # order through ATen's topk
    x = torch.randn(5, 10, 5)
    x[1, 3, 2] = float("nan")
    check_opinfo("topk", ("aten.topk.default",))
    for args in [(3,), (3, 1), (2, 0, False), (1, 2)]:
        check(lambda t: torch.topk(t, *args), x, generated=("aten.topk.default",))
        check(lambda t: torch.topk(t, *args)[1] * 2, x, generated=("aten.topk.default",))
    check_generated(lambda t: torch.topk(t, 4, -1, True, False), x)


def test_sort_consumed_and_quantile():
    x = torch.randn(6, 40)
    check(lambda t: torch.sort(t * 2, 1)[0] + 1, x, generated=SORT)
    check(lambda t: torch.quantile(t, torch.tensor([0.1, 0.5, 0.9]), dim=1), x, generated=SORT)
    y = x.clone()
    y[1, 3] = float("nan")
    check(lambda t: torch.nanquantile(t, 0.3, dim=1), y, generated=SORT)


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_and_bucketize(right):
    b = torch.tensor([-1.0, 0.0, 0.0, 1.5, 2.0, 2.0, 7.0])
    v = torch.tensor([[-3.0, -1.0, 0.0, 0.1, 2.0, 7.0, 8.0, float("nan"), float("inf"), -0.0]])
    check(lambda a, c: torch.searchsorted(a, c, right=right), b, v, generated=SEARCH)
    check(lambda a, c: torch.searchsorted(a, c, side="right" if right else "left", out_int32=True),
          b, v, generated=SEARCH)
    check(lambda c, a: torch.bucketize(c, a, right=right), v, b, generated=SEARCH)
    # one sorted row per row of values, a sorter, integer values against float boundaries
    rows = torch.randn(3, 8).sort(1)[0]
    check(lambda a, c: torch.searchsorted(a, c, right=right), rows, torch.randn(3, 5), generated=SEARCH)
    raw = torch.randn(9)
    check(lambda a, c, s: torch.searchsorted(a, c, sorter=s, right=right), raw, torch.randn(4, 3),
          raw.argsort(), generated=SEARCH)
    check(lambda c, a: torch.bucketize(c, a, right=right), torch.randint(-2, 9, (6,)), b,
          generated=SEARCH)


@pytest.mark.parametrize("name", ["searchsorted", "bucketize", "isin"])
def test_search_opinfo(name):
    check_opinfo(name, SEARCH + SORT)


MODE = ("aten.mode.default",)


def test_mode():
    check_opinfo("mode", MODE)
    check(lambda t: torch.mode(t, 0, True), torch.randn(4, 6), generated=MODE)
    check(lambda t: torch.mode(t, 0), torch.randn(()), generated=MODE)
    # ties in frequency: the smallest value; its index is the last occurrence (eager's may be
    # another occurrence among repeats, so only the values are compared there)
    check(lambda t: torch.mode(t)[0], torch.randint(0, 4, (6, 30)).float(), generated=MODE)
    check(lambda t: torch.mode(t), torch.tensor([[1.0, 2, 2, 1], [0.0, -0.0, 1, 1], [5, 4, 3, 3],
                                                 [float("inf"), 1, float("inf"), 2]]), generated=MODE)


# -- on a GPU: the rank scatter (each position stored once) and tl compares of NaNs ---------

_EDGY_ROWS = lambda: torch.cat([EDGY.repeat(3, 1), torch.randn(3, 12)], 1)
GPU_CASES = {
    "sort": lambda: (lambda t: torch.sort(t, dim=1, stable=True), (_EDGY_ROWS(),)),
    "sort_descending_long": lambda: (lambda t: torch.sort(t, descending=True), (torch.randn(2, 3000),)),
    "argsort_ints": lambda: (lambda t: torch.argsort(t, dim=0, stable=True), (torch.randint(0, 5, (40, 3)),)),
    "searchsorted_sorter": lambda: (lambda a, c, s: torch.searchsorted(a, c, sorter=s, right=True),
                                    (torch.tensor([3.0, -1, 2, 0]), torch.randn(7),
                                     torch.tensor([1, 3, 2, 0]))),
    "mode": lambda: (torch.mode, (torch.randn(4, 50),)),
}


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GPU_CASES))
def test_on_gpu(name):
    fn, args = GPU_CASES[name]()
    check(fn, *[a.cuda() for a in args])
