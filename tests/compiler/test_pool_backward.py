"""avg_pool2d's, adaptive_avg_pool2d's, max_pool2d's and replication padding's gradients as generated kernels (compiler/lowerings/pool_backward.py): each input
element sums the output gradients of the windows covering it over eager's divisor; no ATen
avg_pool2d_backward call, values equal eager's (CPU, interpreter; one GPU case)."""
import pytest
import torch
import torch.nn.functional as F

import tuner.compiler.stats as stats
from helpers import assert_close

BACKWARD = "aten.avg_pool2d_backward.default"
CASES = {
    "k3_s2_p1": dict(kernel_size=3, stride=2, padding=1),
    "k2_s2": dict(kernel_size=2, stride=2),
    "k3_s1_p1_exclude_pad": dict(kernel_size=3, stride=1, padding=1, count_include_pad=False),
    "k3_s2_p1_ceil_exclude_pad": dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                      count_include_pad=False),
    # stride above the kernel along h: rows no window covers get 0
    "k2x3_s3x1_divisor": dict(kernel_size=(2, 3), stride=(3, 1), divisor_override=5),
    "k4_s1_p2": dict(kernel_size=4, stride=1, padding=2),
}


def _check(kw, x, pool=F.avg_pool2d, backward=BACKWARD):
    fn = lambda x: pool(x, **kw).sin()   # noqa: E731
    x2 = x.detach().clone().requires_grad_()
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(fn, backend="tuner")(x)
    out.square().sum().backward()
    ref = fn(x2)
    ref.square().sum().backward()
    assert_close(out, ref)
    assert_close(x.grad, x2.grad)
    for g in stats.graphs():
        assert not g.graph_fallback and backward not in g.fallbacks and backward not in g.lowering_errors, \
            (g.graph_fallback, dict(g.fallbacks), g.lowering_errors)


@pytest.mark.parametrize("case", CASES)
def test_avg_pool2d_gradient_matches_eager_without_aten(case):
    _check(CASES[case], torch.randn(2, 3, 9, 7, requires_grad=True))


def test_unbatched_channels_last_input():
    x = torch.randn(2, 4, 8, 8).to(memory_format=torch.channels_last)[0].requires_grad_()
    _check(CASES["k3_s2_p1"], x)
    x = torch.randn(2, 4, 8, 8).to(memory_format=torch.channels_last).requires_grad_()
    _check(CASES["k3_s1_p1_exclude_pad"], x)


@pytest.mark.parametrize("shape, out", [((2, 3, 9, 7), (4, 5)), ((3, 8, 8), (5, 3)),
                                        ((2, 3, 4, 5), (7, 9)), ((2, 3, 10, 10), (3, 1))])
def test_adaptive_avg_pool2d_gradient_matches_eager_without_aten(shape, out):
    # windows of uneven length, overlapping ones, and outputs larger than the input
    _check(dict(output_size=out), torch.randn(*shape, requires_grad=True), F.adaptive_avg_pool2d,
           "aten._adaptive_avg_pool2d_backward.default")


@pytest.mark.parametrize("shape, pad", [((2, 3, 7), (2, 1)), ((2, 3, 6, 5), (1, 2, 0, 3)),
                                        ((2, 3, 1, 5), (1, 1, 2, 2)), ((1, 2, 4, 5, 3), (1, 1, 0, 2, 1, 0))])
def test_replication_pad_gradient_matches_eager_without_aten(shape, pad):
    # an edge element also takes the gradients of the positions that copied it (a size-1 dim:
    # both edges at once)
    nd = len(pad) // 2
    _check(dict(pad=pad, mode="replicate"), torch.randn(*shape, requires_grad=True), F.pad,
           f"aten.replication_pad{nd}d_backward.default")


@pytest.mark.parametrize("case", ["k3_s2_p1", "k2_s2", "k3_s2_p1_ceil", "k2x3_s3x1"])
def test_max_pool2d_gradient_is_a_gather_matching_eager(case):
    # each input element sums the gradients of the covering windows whose argmax it is (no
    # atomics); a NaN is the argmax of every window holding it
    kw = {"k3_s2_p1": dict(kernel_size=3, stride=2, padding=1), "k2_s2": dict(kernel_size=2, stride=2),
          "k3_s2_p1_ceil": dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
          "k2x3_s3x1": dict(kernel_size=(2, 3), stride=(3, 1))}[case]
    x = torch.randn(2, 3, 9, 7)
    x[0, 1, 4, 3] = float("nan")
    _check(kw, x.requires_grad_(), F.max_pool2d, "aten.max_pool2d_with_indices_backward.default")


@pytest.mark.gpu
def test_avg_pool2d_gradient_on_gpu():
    for kw in (CASES["k3_s2_p1"], CASES["k3_s2_p1_ceil_exclude_pad"]):
        _check(kw, torch.randn(4, 16, 30, 30, device="cuda", requires_grad=True))
    _check(CASES["k3_s2_p1"], torch.randn(4, 16, 30, 30, device="cuda", requires_grad=True), F.max_pool2d,
           "aten.max_pool2d_with_indices_backward.default")


@pytest.mark.parametrize("which", ["avg", "max", "replicate"])
def test_window_gradients_stay_kernels_under_symbolic_sizes(which):
    # one symbolic compile of forward and backward serves every image size; the gradient is
    # our kernel, not the ATen call (they refused any symbolic size before)
    fn, backward = {
        "avg": (lambda x: F.avg_pool2d(x, 3, 2, 1).sin(), BACKWARD),
        "max": (lambda x: F.max_pool2d(x, 3, 2, 1).sin(), "aten.max_pool2d_with_indices_backward.default"),
        "replicate": (lambda x: F.pad(x, (1, 2, 2, 0), mode="replicate").sin(),
                      "aten.replication_pad2d_backward.default"),
    }[which]
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for n in (7, 9, 12):
        x = torch.randn(2, 3, n, n + 2, requires_grad=True)
        x2 = x.detach().clone().requires_grad_()
        cf(x).square().sum().backward()
        fn(x2).square().sum().backward()
        assert_close(x.grad, x2.grad)
    graphs = stats.graphs()
    assert len(graphs) == 2 and all(g.symbolic for g in graphs), [g.guards for g in graphs]
    assert not any(backward in g.fallbacks or backward in g.lowering_errors for g in graphs)


@pytest.mark.parametrize("nd", [1, 2])
def test_replication_pad_gradient_over_symbolic_pad_amounts(nd):
    # dynamic=True makes the pad amounts symbols: the unrolled taps needed their values, so
    # the backward compiled per shape ("a concrete value of the size s is needed"); now a
    # decomposition sums the strips, one symbolic compile for every size and amount
    pads = (lambda s: (s, s + 1)) if nd == 1 else (lambda s: (s, 1, 0, s + 2))

    def fn(x, s):
        return F.pad(x, pads(s), mode="replicate").sin()
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for shape, s in (((2, 3, 1, 5), 2), ((1, 2, 4, 7), 3), ((2, 2, 3, 1), 1)):
        x = torch.randn(shape[4 - nd - 1:] if nd == 1 else shape, requires_grad=True)
        x2 = x.detach().clone().requires_grad_()
        cf(x, s).square().sum().backward()
        fn(x2, s).square().sum().backward()
        assert_close(x.grad, x2.grad)
    assert not stats.symbolic_fallbacks, stats.symbolic_fallbacks
    graphs = stats.graphs()
    assert graphs and all(g.symbolic and not g.graph_fallback and not g.fallbacks for g in graphs), \
        [(g.symbolic, dict(g.fallbacks)) for g in graphs]


def test_a_negative_symbolic_pad_amount_leaves_the_gradient_to_aten():
    # a negative amount crops: the decomposition declines it (ATen's op, counted), the rest of
    # the graph stays compiled; narrow() refused the negative strip before (graph fallback)
    def fn(x, s):
        return F.pad(x, (-s, 2), mode="replicate").sin()
    cf = torch.compile(fn, backend="tuner", dynamic=True)
    stats.reset()
    for n, s in ((7, 2), (9, 3)):
        x = torch.randn(2, 3, n, requires_grad=True)
        x2 = x.detach().clone().requires_grad_()
        cf(x, s).square().sum().backward()
        fn(x2, s).square().sum().backward()
        assert_close(x.grad, x2.grad)
    assert not any(g.graph_fallback for g in stats.graphs())
