"""Multi-user lazy values: cheap ones are recomputed by each consumer kernel instead of being
stored and read back (GraphLowering._recompute); expensive ones, ones a consumer stores anyway,
and ones reading an input the graph writes in place are still stored. Window ops (pooling)
recompute a single-user producer at every tap: one that costs more than a store per output
is stored first (GraphLowering.window_input). Each case compares with eager on fresh random
inputs and pins the kernel (and IR node) counts."""
import pytest
import torch
import torch.nn.functional as F

import tuner.compiler.stats as stats
from helpers import assert_close, check_forward_and_backward, compile_and_check


def _grn(x, gamma, beta):
    # ConvNeXt-V2's GlobalResponseNorm on a channels-last activation (N, H, W, C): the GELU
    # output y has three users (sum of squares, y * n, the residual)
    y = F.gelu(x)
    g = y.pow(2).sum(dim=(1, 2), keepdim=True).sqrt()
    n = g / (g.mean(dim=-1, keepdim=True) + 1e-6)
    return gamma * (y * n) + beta + y


def test_grn_recomputes_gelu_in_each_consumer():
    # stored, the GELU was its own kernel (4: GELU, sum of squares, channel mean, apply);
    # recomputed, the sum of squares and the apply each read x: 3 kernels, as stock
    for n, h, c in ((2, 6, 16), (3, 5, 24)):
        # timm's GRN input: a channels-last NCHW activation permuted to NHWC (C innermost)
        x = torch.randn(n, c, h, h).to(memory_format=torch.channels_last).permute(0, 2, 3, 1)
        assert x.is_contiguous()
        s = compile_and_check(_grn, x, torch.randn(c), torch.randn(c))
        assert s.kernels == 3, s.kernel_kinds
        assert s.recomputed >= 1


def _bn_gelu_tanh(x, mean, var, w, b):
    y = F.batch_norm(x, mean, var, w, b, training=False, eps=1e-5)
    return F.gelu(y, approximate="tanh")


def test_batchnorm_tanh_gelu_is_one_node():
    # the tanh-GELU decomposition gives the BatchNorm output 4 FX users, all inside the GELU:
    # one consumer, so BN is not stored (one IR node, not two)
    c = 8
    args = (torch.randn(2, c, 5, 5), torch.randn(c), torch.rand(c) + 0.5, torch.randn(c), torch.randn(c))
    s = compile_and_check(_bn_gelu_tanh, *args)
    assert s.kernels == 1 and s.nodes == 1 and s.recomputed >= 1


def test_batchnorm_tanh_gelu_before_a_pad_is_one_kernel():
    # MaxViT's stride-2 depthwise convs pad their input ('same'): the pad reads the GELU at
    # shifted indices, so a stored BN output could not fuse with it (2 kernels before)
    c = 8
    w = torch.randn(c, 1, 3, 3)

    def f(x, mean, var, g, b):
        y = F.pad(_bn_gelu_tanh(x, mean, var, g, b), (0, 1, 0, 1))
        return F.conv2d(y, w, stride=2, groups=c)
    args = (torch.randn(2, c, 6, 6), torch.randn(c), torch.rand(c) + 0.5, torch.randn(c), torch.randn(c))
    s = compile_and_check(f, *args)
    assert s.kernels == 1 and sum(s.externs.values()) == 1


def test_se_gate_input_recomputed_in_mean_and_scale():
    # squeeze-excite on a BN + GELU output: the spatial mean and the gating multiply both
    # recompute it (one read of x each) instead of a stored copy read twice
    c = 8
    w1, w2 = torch.randn(4, c), torch.randn(c, 4)

    def f(x, mean, var, g, b):
        y = _bn_gelu_tanh(x, mean, var, g, b)
        gate = torch.sigmoid(F.linear(F.relu(F.linear(y.mean((2, 3)), w1)), w2))
        return y * gate[:, :, None, None]
    args = (torch.randn(2, c, 5, 5), torch.randn(c), torch.rand(c) + 0.5, torch.randn(c), torch.randn(c))
    s = compile_and_check(f, *args)
    assert s.recomputed >= 2
    assert not any(k == "pointwise" for k in s.kernel_kinds[:1]), s.kernel_kinds   # no stored GELU


def test_expensive_value_is_stored():
    # three full-size sources and three consumer kernels: storing reads less (3 + 1 + 2 passes
    # against 9); a tree of more than RECOMPUTE_MAX_OPS ops; an op that is slow on a GPU
    a, b, c = (torch.randn(6, 10) for _ in range(3))
    s = compile_and_check(lambda a, b, c: _three(a * b + c), a, b, c)
    assert s.recomputed == 0

    def y_of(x):
        y = x
        for i in range(30):
            y = (y * 1.01 + 0.1).sin() if i % 2 else y.cos()
        return y
    s = compile_and_check(lambda x: _two(y_of(x)), torch.randn(6, 10))
    assert s.recomputed == 0 and s.nodes == 3   # y stored by a node of its own
    s = compile_and_check(lambda x: _two(x.abs().pow(2.5)), torch.randn(6, 10))
    assert s.recomputed == 0


def _three(y):
    return y.sum(0), y.amax(1), y * 2


def _two(y):
    return y.sum(0), y.amax(1)


def test_cheap_value_with_reductions_over_different_dims_is_recomputed():
    # the counterpart of the above: one source, two consumer kernels
    s = compile_and_check(lambda x: _two(F.gelu(x) * 2), torch.randn(6, 10))
    assert s.recomputed == 1 and s.kernels == 2 and s.nodes == 2


def test_gathered_value_is_stored():
    # a value read through an index (a gather) is stored: its reads are not elementwise
    idx = torch.randint(0, 7, (9,))
    s = compile_and_check(lambda x, i: _two(x[i] * 2 + 1), torch.randn(7, 5), idx)
    assert s.recomputed == 0


def _loss(logits, target):
    # a language model's loss: its logits upcast, the log-softmax's shifted logits read by the
    # exp-sum reduction and by the gather of each row's target
    return F.cross_entropy(logits.float(), target, ignore_index=-100)


def test_cross_entropy_does_not_store_the_full_log_softmax():
    # the shifted fp32 logits feed a reduction and a gather of one element per row: both
    # recompute it from the bf16 logits, so no (rows, vocab) fp32 buffer is allocated (at
    # GPT-2's 4096 rows x 50257 words that buffer was 785 MiB of the training step's peak)
    torch.manual_seed(0)
    rows, vocab = 16, 1000
    logits = torch.randn(rows, vocab).to(torch.bfloat16)
    target = torch.randint(0, vocab, (rows,))
    target[3] = -100
    s = compile_and_check(_loss, logits, target)
    assert s.recomputed >= 1
    assert s.planned_peak_bytes < rows * vocab * 4, s.planned_peak_bytes
    # and the gradient through the recomputed value matches eager
    leaf = logits.float().requires_grad_()
    ref_leaf = leaf.detach().clone().requires_grad_()
    torch._dynamo.reset()
    torch.compile(_loss, backend="tuner")(leaf, target).backward()
    _loss(ref_leaf, target).backward()
    assert_close(leaf.grad, ref_leaf.grad)


def test_a_value_gathered_with_repeats_beyond_its_size_is_stored():
    # a gather with more outputs than the value has elements would compute some elements
    # several times: the value is stored
    idx = torch.randint(0, 7, (40,))
    s = compile_and_check(lambda x, i: (torch.exp(x - 1).sum(), (torch.exp(x - 1) * 3)[i]),
                          torch.randn(7), idx)
    assert s.recomputed == 0


def test_value_stored_by_a_consumer_is_not_recomputed():
    # an output (and an ATen call) store the value anyway: others read that copy
    w = torch.randn(5, 5)
    s = compile_and_check(lambda x: (F.gelu(x), F.gelu(x).sum(0)), torch.randn(6, 5))
    assert s.recomputed == 0
    s = compile_and_check(lambda x: (F.gelu(x) @ w).sum(0) + F.gelu(x).sum(0), torch.randn(6, 5))
    assert s.recomputed == 0


def test_value_reading_an_input_written_in_place_is_stored():
    # y reads s's old contents; s is then updated in place: y must not be recomputed after the
    # write (its two consumers read the stored old-value copy)
    def f(x, s):
        y = s * 2 + 1
        a = y.sum(0)
        s.mul_(0.5).add_(x)
        return a, (y * x).amax(1), s * 3

    for _ in range(2):
        x, s0 = torch.randn(6, 10), torch.randn(6, 10)
        torch._dynamo.reset()
        ref_s = s0.clone()
        ref = f(x, ref_s)
        got_s = s0.clone()
        out = torch.compile(f, backend="tuner")(x, got_s)
        assert_close(out, ref)
        assert_close(got_s, ref_s)
    assert stats.last().recomputed == 0


def test_value_reading_an_input_written_mid_graph_is_stored():
    # the write is not the graph's epilogue (more work follows it): still the old contents
    def f(x, s):
        y = torch.exp(s) + 1
        s.copy_(x * 3)
        z = s + 1
        return y.sum(0) + z.sum(0), y.amax(1) * 2

    x, s0 = torch.randn(6, 10), torch.randn(6, 10)
    ref_s, got_s = s0.clone(), s0.clone()
    ref = f(x, ref_s)
    torch._dynamo.reset()
    out = torch.compile(f, backend="tuner")(x, got_s)
    assert_close(out, ref)
    assert_close(got_s, ref_s)


def test_two_sources_two_consumers_recomputed():
    # a residual add read by a reduction and by a transposing copy (MaxViT between its conv
    # and attention sections): recomputing reads 2 x 2 passes, no more than the store fused
    # into the reduction (2 + 1 + 1) did, and there is no store (2 IR nodes, not 3)
    def f(a, b):
        y = a + b
        return y.sum(1), y.t().contiguous() * 2

    s = compile_and_check(f, torch.randn(12, 20), torch.randn(12, 20))
    assert s.recomputed == 1 and s.kernels == 2 and s.nodes == 2, s.kernel_kinds


def test_value_into_a_convolution_input_counts_once():
    # y * 2 + 1 is stored for the convolution (an ATen call): that store recomputes y, one
    # consumer like a matmul's operand, instead of y stored as a node of its own (4 nodes)
    w = torch.randn(4, 3, 3, 3)

    def f(x):
        y = F.gelu(x)
        return F.conv2d(y * 2 + 1, w), y.sum((2, 3))

    s = compile_and_check(f, torch.randn(2, 3, 6, 6))
    assert s.recomputed == 1 and s.nodes == 3, s.kernel_kinds


def _kernels_source(s):
    """The generated kernels (the commented block before the wrapper's call)."""
    return s.source.split("def call")[0]


def test_value_padded_into_a_pooling_window_is_stored():
    # a pad (or cat) reads each element once, but a 3x3 pool after it reads each element 9
    # times (MaxViT's 'same'-padded pools): recomputed, the GELU's tanh ran once per tap (9 in
    # the pool's kernel, 10 in all); stored, once, in the kernel that writes it
    def pad_max(x):
        y = F.gelu(x, approximate="tanh")
        return F.max_pool2d(F.pad(y, (0, 1, 0, 1), value=float("-inf")), 3, stride=1), y.sum((2, 3))

    def pad_avg(x):
        y = F.gelu(x, approximate="tanh")
        return F.avg_pool2d(F.pad(y, (1, 1, 1, 1)), 3, stride=2), y.sum((2, 3))

    def cat_max(x):
        y = F.gelu(x, approximate="tanh")
        return F.max_pool2d(torch.cat([y, x], 1), 3, stride=1, padding=1), y.sum((2, 3))

    for f in (pad_max, pad_avg, cat_max):
        s = compile_and_check(f, torch.randn(2, 3, 6, 6))
        assert s.recomputed == 0, f.__name__
        assert _kernels_source(s).count("tanh(") == 1, f.__name__


def test_padded_value_into_pointwise_is_recomputed():
    # past the pad the chain goes on: a pointwise op and a reduction over the padded (larger)
    # value read each element once, so the GELU is still recomputed in both kernels (its
    # members are checked for broadcasts against the padded size, not the value's)
    def f(x):
        y = F.gelu(x, approximate="tanh")
        return (F.pad(y, (1, 1, 1, 1)) * 2 + 1).amax(1), y.sum((2, 3))

    s = compile_and_check(f, torch.randn(2, 3, 6, 6))
    assert s.recomputed == 1 and s.kernels == 2 and s.nodes == 2, s.kernel_kinds
    assert _kernels_source(s).count("tanh(") == 2


def test_shifted_pads_into_one_kernel_count_once():
    # two pads of y summed (a 2-tap filter along W) end in one kernel: one consumer, not two.
    # With the reduction that is 2 consumers of 2 sources (2 x 2 passes, no more than storing:
    # 2 + 1 + 1), so y = a + b is recomputed; counted as 3 it was stored (3 nodes)
    def f(a, b):
        y = a + b
        return F.pad(y, (1, 0)) + F.pad(y, (0, 1)), y.sum(1)

    s = compile_and_check(f, torch.randn(6, 10), torch.randn(6, 10))
    assert s.recomputed == 1 and s.kernels == 2 and s.nodes == 2, s.kernel_kinds


# -- a window op's single-user producer: stored when recomputing it at every tap costs more --

WINDOWS = {   # 3x3 stride-2 windows: each output reads 9 inputs, each input is read up to 4 times
    "pad_max": lambda y: F.max_pool2d(F.pad(y, (1, 1, 1, 1)), 3, stride=2),
    "max": lambda y: F.max_pool2d(y, 3, 2, 1),
    "avg": lambda y: F.avg_pool2d(y, 3, 2, 1),
    "pad_avg": lambda y: F.avg_pool2d(F.pad(y, (1, 1, 1, 1)), 3, stride=2, ceil_mode=True),
}
TRANSCENDENTAL_PRODUCERS = {   # producer, the special function its kernel calls
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), "tanh("),
    "silu": (F.silu, "sigmoid("),
    "sigmoid_x": (lambda x: torch.sigmoid(x) * x, "sigmoid("),
}


@pytest.mark.parametrize("window", list(WINDOWS))
@pytest.mark.parametrize("producer", list(TRANSCENDENTAL_PRODUCERS))
def test_window_stores_a_transcendental_producer(producer, window):
    # inlined, the window evaluated the producer at each of its 9 taps (tanh 9 times per output
    # element, one kernel); stored, its kernel evaluates it once per element and the window
    # reads the stored values (2 kernels)
    fn, call = TRANSCENDENTAL_PRODUCERS[producer]
    pool = WINDOWS[window]
    s = compile_and_check(lambda x: pool(fn(x)), torch.randn(2, 3, 9, 8))
    assert _kernels_source(s).count(call) == 1, _kernels_source(s).count(call)
    assert s.kernels == 2 and s.nodes == 2 and s.window_stored == 1, (s.kernels, s.nodes)


def test_window_stores_a_producer_in_bf16_and_channels_last():
    # the stored producer keeps the activation's dtype and layout (as eager's pool input)
    x = torch.randn(2, 8, 10, 10, dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    f = lambda x: F.max_pool2d(F.gelu(x, approximate="tanh"), 3, 2, 1)   # noqa: E731
    s = compile_and_check(f, x, dtype=torch.bfloat16)
    assert _kernels_source(s).count("tanh(") == 1 and s.kernels == 2
    torch._dynamo.reset()
    assert torch.compile(f, backend="tuner")(x).stride() == f(x).stride()


def test_window_stored_producer_trains():
    # forward and backward (max pool indices, GELU's gradient) match eager
    f = lambda t: F.max_pool2d(F.gelu(t, approximate="tanh"), 3, 2, 1)   # noqa: E731
    check_forward_and_backward(f, torch.randn(2, 3, 9, 9, requires_grad=True))


def _bn_relu(x, mean, var, w, b):
    return torch.relu(F.batch_norm(x, mean, var, w, b, training=False, eps=1e-5))


CHEAP_PRODUCERS = {   # a few ops per tap, no special function: inlined into every tap
    "bn_relu": lambda x, *bn: _bn_relu(x, *bn),
    "add": lambda x, *bn: x + bn[0][None, :, None, None],
    "cast": lambda x, *bn: x.to(torch.float16).float(),
    "pad_inf": lambda x, *bn: F.pad(x, (1, 1, 1, 1), value=float("-inf")),   # timm's 'same' max pool
}


@pytest.mark.parametrize("producer", list(CHEAP_PRODUCERS))
def test_window_keeps_a_cheap_producer_fused(producer):
    # ResNet's stem: BatchNorm + ReLU into a 3x3 stride-2 max pool is one kernel (5 ops per tap;
    # its per-channel scale is shared by the taps); so are an add, a cast and a pad
    c = 4
    bn = (torch.randn(c), torch.rand(c) + 0.5, torch.randn(c), torch.randn(c))
    fn = CHEAP_PRODUCERS[producer]
    s = compile_and_check(lambda x, *bn: F.max_pool2d(fn(x, *bn), 3, 2, 1), torch.randn(2, c, 9, 8),
                          *bn, dtype=torch.float16 if producer == "cast" else None)
    assert s.kernels == 1 and s.nodes == 1 and s.window_stored == 0, (s.kernels, s.nodes)


def test_resnet_stem_is_one_kernel_after_its_convolution():
    torch.manual_seed(0)
    nn = torch.nn
    m = nn.Sequential(nn.Conv2d(3, 8, 7, 2, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                      nn.MaxPool2d(3, 2, 1))
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.5, 0.5)
            mod.running_var.uniform_(0.5, 2.0)
    m.eval()
    x = torch.randn(2, 3, 20, 18)
    torch._dynamo.reset()
    with torch.no_grad():
        assert_close(torch.compile(m, backend="tuner")(x), m(x))
    s = stats.last()
    assert s.kernels == 1 and sum(s.externs.values()) == 1 and s.window_stored == 0, (s.kernels, s.externs)


def test_non_overlapping_window_keeps_any_producer_fused():
    # a 2x2 stride-2 window reads each element once: the producer is computed once either way
    f = lambda x: F.max_pool2d(F.gelu(x, approximate="tanh"), 2, 2)   # noqa: E731
    s = compile_and_check(f, torch.randn(2, 3, 8, 8))
    assert s.kernels == 1 and s.window_stored == 0
