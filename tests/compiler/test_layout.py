"""Layouts: pointwise outputs follow their main input's memory order (channels-last stays
channels-last, as in eager), and transposed accesses get 2-D tiled kernels."""
import copy
import re

import pytest
import torch

import tuner.compiler.stats as stats
from helpers import compile_and_check

CL = torch.channels_last


def _same_strides(out, ref):
    """Strides equal on every dim of size > 1 (a size-1 dim's stride is arbitrary)."""
    assert out.shape == ref.shape
    for n, a, b in zip(out.shape, out.stride(), ref.stride()):
        if n > 1:
            assert a == b, (out.stride(), ref.stride())


def _allocations(source):
    """(size, stride) of every buffer the wrapper allocates, or puts in a dead buffer's storage
    (`as_strided(old, size, stride, 0)`, or `name = old` for the same layout, `# reuse in place,
    size stride` where a kernel writes it over its dying input: memory plan)."""
    out, layout = [], {}
    for m in re.finditer(r"(\w+) = (?:empty_strided(?:_fast)?\(|as_strided\(\w+, )(\([^)]*\)), "
                         r"(\([^)]*\))|(\w+) = (\w+)  # reuse(?: in place, (\([^)]*\)) (\([^)]*\)))?",
                         source):
        if m.group(6):   # written in place over a buffer dying in its kernel (an extern's result)
            layout[m.group(4)] = (eval(m.group(6)), eval(m.group(7)))
        elif m.group(4):
            layout[m.group(4)] = layout[m.group(5)]
        else:
            layout[m.group(1)] = (eval(m.group(2)), eval(m.group(3)))
        out.append(layout[m.group(1) or m.group(4)])
    return out


def _conv_bn_relu(c_in, c):
    return [torch.nn.Conv2d(c_in, c, 3, padding=1), torch.nn.BatchNorm2d(c), torch.nn.ReLU()]


def _random_bn_stats(m):
    """Non-trivial running statistics for eval-mode batch norm."""
    for mod in m.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.5, 0.5)
            mod.running_var.uniform_(0.5, 2.0)
    return m


def _cl_net():
    torch.manual_seed(0)
    m = torch.nn.Sequential(*_conv_bn_relu(3, 8), *_conv_bn_relu(8, 8))
    return _random_bn_stats(m).to(memory_format=CL)


def _compile_no_grad_matches_eager(m, x):
    """Compile m, check it against eager (values and strides); the stats of its graph."""
    stats.reset()
    with torch.no_grad():
        out = torch.compile(m, backend="tuner")(x)
        ref = m(x)
    torch.testing.assert_close(out, ref, atol=1e-4, rtol=1e-4)
    _same_strides(out, ref)
    return stats.last()


def test_channels_last_conv_bn_relu_chain_keeps_channels_last():
    m = _cl_net().eval()
    x = torch.randn(2, 3, 9, 11).to(memory_format=CL)
    s = _compile_no_grad_matches_eager(m, x)
    # The batch norm + relu between the convolutions is written channels-last (what the next
    # conv reads without a layout change), by a 1-D kernel whose loads and store are contiguous.
    allocs = [a for a in _allocations(s.source) if len(a[0]) == 4]
    assert allocs and all(st == torch.empty(sz).to(memory_format=CL).stride() for sz, st in allocs), allocs
    assert s.kernel_kinds == ["pointwise", "pointwise"]
    assert "in_ptr0 + x," in s.source


def test_pointwise_output_follows_largest_dense_input():
    # The main input is the largest one read densely: a per-channel bias (broadcast) does not
    # decide; a channels-last activation does, even as the second operand.
    x = torch.randn(2, 5, 3, 7).to(memory_format=CL)
    b = torch.randn(5, 1, 1)
    big = torch.randn(2, 5, 3, 7)
    w = torch.randn(4, 5, 1, 1)

    def f(b, x, big, w):
        y = (b + x).relu()
        return (torch.nn.functional.conv2d(y, w), torch.mm(y.flatten(1).t(), y.flatten(1)),
                (big.sin() + x).sum())

    s = compile_and_check(f, b, x, big, w)
    # y feeds an extern (the conv), so it is a buffer, not recomputed by its other users (the
    # mm's contiguous copies): computed channels-last, like x
    allocs = [a for a in _allocations(s.source) if len(a[0]) == 4]
    assert allocs == [((2, 5, 3, 7), x.stride())], allocs


def test_cat_and_strided_slice_of_channels_last_stay_channels_last():
    # Inputs read in a definite order but not densely (each part of a cat, a slice with a
    # step) still give the output their memory order, as eager does.
    x = torch.randn(2, 6, 5, 7).to(memory_format=CL)
    y = torch.randn(2, 4, 5, 7).to(memory_format=CL)
    w = torch.randn(3, 10, 1, 1).to(memory_format=CL)
    w2 = torch.randn(3, 6, 1, 1).to(memory_format=CL)
    F = torch.nn.functional

    def f(x, y, w, w2):
        return F.conv2d(torch.cat([x.relu(), y.relu()], 1), w), F.conv2d(x[:, :, ::2].exp(), w2)

    s = compile_and_check(f, x, y, w, w2, dtype=torch.float16)   # conv on CPU: loose tolerance
    allocs = [a for a in _allocations(s.source) if len(a[0]) == 4]
    assert sorted(allocs) == [((2, 6, 3, 7), (126, 1, 42, 6)), ((2, 10, 5, 7), (350, 1, 70, 10))], allocs


def test_eager_strides_from_fx_meta_win_over_the_input_order():
    # ViT's patch embedding: conv -> flatten -> transpose -> cat with a class token -> + pos.
    # The largest input is the transposed conv output, but eager's cat is contiguous, and so is
    # the residual stream after it (FX's meta value says so): following the transposed input
    # instead would make every layer norm read rows with a stride and split its fusions.
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 16, 4, 4)
    cls, pos = torch.randn(1, 1, 16), torch.randn(1, 10, 16)
    ln, fc = torch.nn.LayerNorm(16), torch.nn.Linear(16, 16)

    def f(img):
        x = conv(img).flatten(2).transpose(1, 2)
        x = torch.cat([cls.expand(x.shape[0], -1, -1), x], 1) + pos
        x = x + fc(ln(x))
        return ln(x)

    stats.reset()
    with torch.no_grad():
        out = torch.compile(f, backend="tuner")(torch.randn(2, 3, 12, 12))
    s = stats.last()
    assert out.is_contiguous()
    assert s.kernel_kinds == ["persistent_reduction", "persistent_reduction"]
    assert all(st == torch.empty(sz).stride() for sz, st in _allocations(s.source))
    torch._dynamo.reset()
    img = torch.randn(2, 3, 12, 12)
    with torch.no_grad():
        torch.testing.assert_close(torch.compile(f, backend="tuner")(img), f(img), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_transpose_add_is_a_tiled_kernel(dtype):
    x = torch.randn(67, 70).to(dtype)
    y = torch.randn(70, 67).to(dtype)
    for f in (lambda x, y: x.t() + y, lambda x, y: y + x.t()):
        ref = f(x, y)
        s = compile_and_check(f, x, y, dtype=dtype)
        out = torch.compile(f, backend="tuner")(x, y)
        _same_strides(out, ref)
        assert s.kernel_kinds == ["pointwise_tiled"]
        assert "YBLOCK: tl.constexpr" in s.source and "XBLOCK: tl.constexpr" in s.source


def test_permute_contiguous_is_a_tiled_kernel_odd_sizes():
    x = torch.randn(2, 37, 5, 9)      # 90 x 37 tiles of 64 x 64: partial tiles on both axes
    f = lambda x: x.permute(0, 2, 3, 1).contiguous()  # noqa: E731
    s = compile_and_check(f, x)
    assert s.kernel_kinds == ["pointwise_tiled"]
    out = torch.compile(f, backend="tuner")(x)
    assert out.is_contiguous()
    # and back: channels-last storage to a contiguous NCHW copy, fused with a pointwise op
    xc = torch.randn(3, 11, 6, 5).to(memory_format=CL)
    g = lambda x: x.contiguous() * 2 + 1  # noqa: E731
    s = compile_and_check(g, xc)
    assert s.kernel_kinds == ["pointwise_tiled"]
    assert torch.compile(g, backend="tuner")(xc).is_contiguous()


def test_tiled_kernel_tunables_and_every_config_correct():
    # The tiled kernel exposes XBLOCK and YBLOCK: the kernel-config point's candidates
    # (exhaustive search) and a ConfigSpace over both; small and lopsided tiles give the same
    # values (masks, grid).
    from tuner.compiler.codegen.triton import TritonKernel
    from tuner.compiler.compile_graph import compile_graph  # noqa: F401
    from tuner.compiler.graph import GraphLowering
    from tuner.compiler.scheduler import Scheduler
    from tuner.compiler.runtime.launch import Launcher
    from tuner.compiler.compile_graph import KERNEL_PRELUDE, load_source
    from tuner.points import triton_kernel as point
    from tuner.points import kernel_kinds as kinds

    x = torch.randn(13, 21)
    gm = torch.fx.symbolic_trace(lambda x: torch.ops.aten.mul.Tensor(torch.ops.aten.t.default(x), 3.0))
    for node in gm.graph.nodes:   # an output FX promises contiguous: x is read transposed
        if node.target is torch.ops.aten.mul.Tensor:
            node.meta["val"] = torch.empty(21, 13)
    g = GraphLowering(gm, [x], stats.new()).lower()
    sched = Scheduler(g)
    grp, = sched.fuse()
    k = TritonKernel(grp, sched)
    src = k.codegen()
    assert k.tile == (21, 13)     # (YN, XN)
    meta = k.meta(src)
    assert (meta.kind, meta.xnumel, meta.ynumel) == ("pointwise_tiled", 13, 21)
    assert set(point.default_config(meta)) == {"XBLOCK", "YBLOCK", "num_warps", "num_stages"}
    cands = kinds.candidate_configs(meta)
    assert len({(c["XBLOCK"], c["YBLOCK"]) for c in cands}) > 1
    space = point.config_space(meta)
    assert {"XBLOCK", "YBLOCK"} <= set(space.tunable_fields)
    mod = load_source(KERNEL_PRELUDE + src, "k")
    ref = x.t() * 3
    for cfg in ({"XBLOCK": 4, "YBLOCK": 2}, {"XBLOCK": 1, "YBLOCK": 16}, {"XBLOCK": 32, "YBLOCK": 1}):
        out = torch.empty(21, 13)
        Launcher(mod.kernel, meta, [1], False, config=dict(cfg, num_warps=1, num_stages=1))(x, out)
        torch.testing.assert_close(out, ref)
    # max-autotune: the tuner searches XBLOCK x YBLOCK (coordinate descent over the space)
    tuned = Launcher(mod.kernel, meta, [1], True)
    out = torch.empty(21, 13)
    tuned(x, out)
    torch.testing.assert_close(out, ref)
    assert tuned.decision is not None and tuned.decision.source == "coordinate_descent"
    assert {"XBLOCK", "YBLOCK"} <= set(tuned.config)


def _train_check_strides(model, x, atol=5e-4):
    ref_model = copy.deepcopy(model)
    cm = torch.compile(model, backend="tuner")
    out = cm(x)
    ref = ref_model(x)
    torch.testing.assert_close(out, ref, atol=atol, rtol=1e-4)
    _same_strides(out, ref)
    out.square().mean().backward()
    ref.square().mean().backward()
    for (n, p), (_, q) in zip(model.named_parameters(), ref_model.named_parameters()):
        torch.testing.assert_close(p.grad, q.grad, atol=atol, rtol=1e-3, msg=n)
        _same_strides(p.grad, q.grad)


def test_small_channels_last_conv_net_training_matches_eager():
    torch.manual_seed(0)
    m = torch.nn.Sequential(*_conv_bn_relu(3, 8), *_conv_bn_relu(8, 6)).to(memory_format=CL)
    x = torch.randn(2, 3, 7, 9).to(memory_format=CL)
    stats.reset()
    _train_check_strides(m, x)
    # the forward's intermediates between convolutions are channels-last too
    fwd = stats.graphs()[0]
    allocs = [a for a in _allocations(fwd.source) if len(a[0]) == 4 and a[0][2:] == (7, 9)]
    assert allocs and all(st == torch.empty(sz).to(memory_format=CL).stride() for sz, st in allocs), allocs


class _Bottleneck(torch.nn.Module):
    """ResNet-50's block in miniature: 1x1, 3x3 (strided), 1x1, optional downsample, residual."""

    def __init__(self, cin, mid, cout, stride=1):
        super().__init__()
        nn = torch.nn
        self.body = nn.Sequential(nn.Conv2d(cin, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(),
                                  nn.Conv2d(mid, mid, 3, stride, 1, bias=False), nn.BatchNorm2d(mid),
                                  nn.ReLU(), nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)) \
            if stride != 1 or cin != cout else nn.Identity()

    def forward(self, x):
        return torch.relu(self.body(x) + self.down(x))


def test_resnet_like_channels_last_inference_matches_eager_without_layout_changes():
    torch.manual_seed(0)
    nn = torch.nn
    m = nn.Sequential(nn.Conv2d(3, 8, 7, 2, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(3, 2, 1),
                      _Bottleneck(8, 4, 16), _Bottleneck(16, 4, 16), _Bottleneck(16, 8, 24, 2),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(24, 5))
    m = _random_bn_stats(m).eval().to(memory_format=CL)
    x = torch.randn(2, 3, 20, 18).to(memory_format=CL)
    s = _compile_no_grad_matches_eager(m, x)
    # every activation stays channels-last and every kernel is a plain coalesced one: no
    # layout change anywhere between the convolutions (ResNet-50's 2x slowdown)
    allocs = [a for a in _allocations(s.source) if len(a[0]) == 4 and a[0][2] > 1]
    assert len(allocs) >= 9
    assert all(st == torch.empty(sz).to(memory_format=CL).stride() for sz, st in allocs), allocs
    assert "pointwise_tiled" not in s.kernel_kinds and s.kernel_kinds.count("pointwise") >= 9



class _ConvSE(torch.nn.Module):
    """RegNetY's conv -> batch norm -> SiLU, then its squeeze-excite: the spatial mean, 1x1 conv
    -> ReLU -> 1x1 conv -> sigmoid gate, multiplied back into the activation."""

    def __init__(self, c=8, mid=4):
        super().__init__()
        self.conv, self.bn = torch.nn.Conv2d(3, c, 3, padding=1), torch.nn.BatchNorm2d(c)
        self.fc1, self.fc2 = torch.nn.Conv2d(c, mid, 1), torch.nn.Conv2d(mid, c, 1)

    def forward(self, x):
        y = torch.nn.functional.silu(self.bn(self.conv(x)))
        g = self.fc2(self.fc1(y.mean((2, 3), keepdim=True)).relu()).sigmoid()
        return y * g


@pytest.mark.parametrize("hw", [(5, 7), (12, 12)])
@pytest.mark.parametrize("fmt", ["channels_last", "nchw"])
def test_squeeze_excite_spatial_mean_fuses_with_its_producer(fmt, hw):
    # The BN + SiLU output y is read by the mean and again by the gate multiply (after the
    # 1x1 convs). Its kernel is the mean's: y is computed, stored once and reduced in one pass.
    # Channels-last y loops (N, H, W, C) in memory order, which does not split into the mean's
    # (N, C) x (H, W): it is indexed by its logical dims instead (4 kernels before, as NCHW's 3).
    torch.manual_seed(0)
    m = _random_bn_stats(_ConvSE()).eval()
    x = torch.randn(2, 3, *hw)
    if fmt == "channels_last":
        m, x = m.to(memory_format=CL), x.to(memory_format=CL)
    s = _compile_no_grad_matches_eager(m, x)    # values and strides (channels-last out) as eager
    # an outer (channels-last) reduction is persistent up to R = 64, an inner one further
    looped = fmt == "channels_last" and hw == (12, 12)
    assert s.kernel_kinds == ["reduction" if looped else "persistent_reduction",
                              "pointwise", "pointwise"], s.kernel_kinds
    assert s.externs["aten.convolution.default"] == 3
    # the output and at most y (stored once by the mean's kernel, or recomputed by the gate
    # multiply from the conv output: compiler/recompute.py _recompute), no more
    big = [a for a in _allocations(s.source) if a[0][2:] == hw]
    assert 1 <= len(big) <= 2 and all(st == torch.empty(sz, memory_format=CL if fmt == "channels_last"
                                                   else torch.contiguous_format).stride()
                                 for sz, st in big), big


@pytest.mark.parametrize("fmt", ["channels_last", "nchw"])
def test_spatial_mean_gate_of_a_multi_user_producer_is_one_kernel(fmt):
    # The producer feeds the mean and the gate multiply after it: one kernel, y never stored
    # (a second loop over R recomputes it); channels-last or not, and the output keeps x's layout
    scale, shift = torch.randn(1, 8, 1, 1), torch.randn(1, 8, 1, 1)

    def f(x):
        y = torch.nn.functional.silu(x * scale + shift)
        return y * torch.sigmoid(y.mean((2, 3), keepdim=True))

    x = torch.randn(2, 8, 12, 12)
    if fmt == "channels_last":
        x = x.to(memory_format=CL)
    s = compile_and_check(f, x)
    assert s.kernel_kinds == ["reduction" if fmt == "channels_last" else "persistent_reduction"]
    with torch.no_grad():
        _same_strides(torch.compile(f, backend="tuner")(x), f(x))


def test_channels_last_spatial_mean_kernel_is_outer_and_coalesced():
    # x.float().mean((2, 3)) of a channels-last half tensor whose pointwise producer is also an
    # output: one kernel that loads x, stores y and reduces, with x-major (outer) tiles, x
    # running over (N, C) with C innermost: every load and store is contiguous along x.
    from torch.fx.experimental.proxy_tensor import make_fx

    from tuner.compiler.codegen.triton import TritonKernel
    from tuner.compiler.graph import GraphLowering
    from tuner.compiler.scheduler import Scheduler

    def f(x):
        y = torch.sigmoid(x) * x
        return y, y.float().mean((2, 3))

    x = torch.randn(2, 8, 12, 12, dtype=torch.float16).to(memory_format=CL)
    s = compile_and_check(f, x, dtype=torch.float16)   # the mean sums y before its rounding
    assert s.kernel_kinds == ["reduction"]
    g = GraphLowering(make_fx(f)(x), [x], stats.new()).lower()
    sched = Scheduler(g)
    grp, = sched.fuse()
    k = TritonKernel(grp, sched)
    src = k.codegen()
    assert k.space == (16, 144) and k.outer
    accesses = re.findall(r"tl\.(?:load|store)\(\w+ \+ (.*?), ", src)
    assert len(accesses) == 3, src   # x, y, the mean
    assert accesses[:2] == ["((1152 * (x // 8)) + (8 * r) + (x % 8))"] * 2, accesses

@pytest.mark.gpu
def test_gpu_tiled_transpose_and_channels_last_bn_relu():
    # Real-sized layouts on the GPU: the tiled transpose (coalescing both sides is the point)
    # and the channels-last batch norm + relu between two convolutions, in bf16.
    x = torch.randn(1000, 1537, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(1537, 1000, device="cuda", dtype=torch.bfloat16)
    s = compile_and_check(lambda x, y: x.t() + y * 2, x, y, dtype=torch.bfloat16)
    assert s.kernel_kinds == ["pointwise_tiled"]
    a = torch.randn(8, 64, 28, 30, device="cuda", dtype=torch.bfloat16)   # NCHW -> NHWC copy
    s = compile_and_check(lambda a: a.permute(0, 2, 3, 1).contiguous(), a, dtype=torch.bfloat16)
    assert s.kernel_kinds == ["pointwise_tiled"]
    m = _cl_net().eval().cuda().to(torch.bfloat16)
    xi = torch.randn(4, 3, 32, 33, device="cuda", dtype=torch.bfloat16).to(memory_format=CL)
    with torch.no_grad():
        out = torch.compile(m, backend="tuner")(xi)
        ref = m(xi)
    torch.testing.assert_close(out, ref, atol=5e-2, rtol=5e-2)
    _same_strides(out, ref)
    assert stats.last().kernel_kinds == ["pointwise", "pointwise"]


def test_attention_bias_strides_are_padded_to_the_fused_kernels_alignment():
    from tuner.compiler.attn_bias import ATTN_BIAS_ALIGN, aligned_strides
    st = aligned_strides((2, 3, 49, 49), ATTN_BIAS_ALIGN)
    assert st == (3 * 49 * 56, 49 * 56, 56, 1)
    assert all(s % ATTN_BIAS_ALIGN == 0 for s in st[:-1])
    assert aligned_strides((4, 16), 8) == (16, 1)      # already aligned: no padding


@pytest.mark.parametrize("groups", [1, 8], ids=["dense", "depthwise"])
@pytest.mark.parametrize("fmt", ["channels_last", "nchw"])
def test_convolution_bias_is_added_in_the_consumer_kernel(fmt, groups):
    # ATen adds a convolution's bias in an elementwise kernel of its own after cuDNN's
    # (ConvNeXt-V2 on the H100: 46 of them, 1.46 of 4.94 ms); the convolution runs without
    # it and the add fuses into the next kernel (here GELU): one Triton kernel, no bias pass
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Conv2d(8, 8, 7, padding=3, groups=groups), torch.nn.GELU()).eval()
    x = torch.randn(2, 8, 9, 11)
    if fmt == "channels_last":
        m, x = m.to(memory_format=CL), x.to(memory_format=CL)
    s = _compile_no_grad_matches_eager(m, x)
    assert s.kernels == 1 and s.externs["aten.convolution.default"] == 1
    call = [ln for ln in s.source.splitlines() if "op0_op(" in ln]
    assert len(call) == 1 and ", None, " in call[0], call     # the bias argument is None


def test_channels_last_reduction_over_w_alone_does_not_fuse_its_producer():
    # indexing a channels-last producer by its logical dims fuses it with a mean over H, W
    # (C stays the contiguous x dim); over W alone x lanes would be W apart in memory (every
    # load and store uncoalesced): the producer keeps its own kernel
    torch.manual_seed(0)
    x, y0 = (torch.randn(2, 16, 4, 8).to(memory_format=CL) for _ in range(2))

    def fn(x, y0):
        y = (x * 2 + y0).sigmoid()
        return y, y.sum(3)
    stats.reset()
    out = torch.compile(fn, backend="tuner")(x, y0)
    for o, r in zip(out, fn(x, y0)):
        torch.testing.assert_close(o, r)
    assert stats.last().kernels == 2, stats.last().kernel_kinds


@pytest.mark.parametrize("fmt", ["channels_last", "nchw"])
def test_split_spatial_mean_fuses_its_stored_producer(fmt):
    # A squeeze-excite whose activation y is also returned (as a training forward saves it for
    # the backward): y is stored, not recomputed by its consumers. Its mean is split in two
    # (split_factor: 32 outputs of 64 x 64 channels-last, 32 rows of 192 x 192 in NCHW, where
    # rows of 64 x 64 are too short to split), the first stage over x = (chunk, N, C)
    # channels-last, (N, C, chunk) in NCHW, r within a chunk of H*W: y is indexed where that
    # stage reads it and stored from its kernel (5 kernels before: y had its own)
    F = torch.nn.functional
    torch.manual_seed(0)
    w1, w2 = torch.randn(4, 16, 1, 1), torch.randn(16, 4, 1, 1)

    def f(x):
        y = F.hardswish(x)
        gate = torch.sigmoid(F.conv2d(F.relu(F.conv2d(y.mean((2, 3), keepdim=True), w1)), w2))
        return y * gate, y

    if fmt == "channels_last":
        x = torch.randn(2, 16, 64, 64).to(memory_format=CL)
    else:
        x = torch.randn(2, 16, 192, 192)
    s = compile_and_check(f, x)
    # an outer (channels-last) first stage is looped over its chunk of 256, an inner one not
    first = "reduction" if fmt == "channels_last" else "persistent_reduction"
    assert s.kernel_kinds == [first, "persistent_reduction", "pointwise", "pointwise"], s.kernel_kinds
    # the split's first stage: 16 chunks of 256, or 32 of 1152
    assert ("reduction over (512, 256)" if fmt == "channels_last" else "reduction over (1024, 1152)") in s.source


def test_channels_last_producer_fuses_with_spatial_mean_when_c_equals_h():
    # NHWC loops (N, H, W, C) = (2, 16, 16, 16) split by size at N*H as if it were the mean's
    # N*C: the wrong dims, so y kept a kernel of its own; indexed where the mean reads it, y
    # is stored from the mean's kernel
    def f(x):
        y = torch.nn.functional.hardswish(x)
        return y, y.mean((2, 3))

    s = compile_and_check(f, torch.randn(2, 16, 16, 16).to(memory_format=CL))
    assert s.kernels == 1, s.kernel_kinds


@pytest.mark.parametrize("shape", [(4, 4, 4, 8), (4, 6, 4, 8)])
def test_producer_of_the_reduced_shape_read_transposed_keeps_its_shape_split(shape):
    # p is (A, B, C, D) stored in x's (B, A, C, D) memory order; the softmax reads it
    # transposed, as (B, A, C, D). With A == B, p's shape equals the softmax input's by
    # coincidence: indexing p where the softmax reads its input would compute p at the
    # transposed element (neither that read nor the size split), so p got a kernel of its
    # own. The softmax does not read p where that index stores it: p keeps the size split
    def f(x):
        p = torch.sin(x) * 2 + x
        return torch.softmax(p.transpose(0, 1), -1), p

    s = compile_and_check(f, torch.randn(*shape).transpose(0, 1))
    assert s.kernels == 1, s.kernel_kinds


def test_an_attention_bias_broadcast_over_heads_stays_broadcast_when_aligned():
    # efficient attention wants bias strides in multiples of 8 elements; a (2, 1, 197, 197)
    # mask expanded over 12 heads is stored once per batch (last dim padded to 200), not 12 times
    from tuner.compiler.attn_bias import ATTN_BIAS_ALIGN
    q, k, v = (torch.randn(2, 12, 197, 64) for _ in range(3))
    mask = torch.randn(2, 1, 197, 197)

    def fn(q, k, v, mask):
        return torch.ops.aten._scaled_dot_product_efficient_attention(
            q, k, v, (mask * 2).expand(2, 12, 197, 197), False)[0]
    stats.reset()
    try:   # no CPU kernel for the op: the call fails, the compiled source is what is checked
        torch.compile(fn, backend="tuner")(q, k, v, mask)
    except Exception:
        pass
    src = stats.graphs()[0].source
    assert "(2, 1, 197, 197), (39400, 39400, 200, 1)" in src, src
    assert ATTN_BIAS_ALIGN == 8


def _saved_slice_grads(fn, *args):
    """The output and every argument's gradient of out.square().sum(), compiled vs eager."""
    ours = [a.detach().clone().requires_grad_() for a in args]
    ref = [a.detach().clone().requires_grad_() for a in args]
    torch._dynamo.reset()
    out = torch.compile(fn, backend="tuner")(*ours)
    want = fn(*ref)
    torch.testing.assert_close(out, want, rtol=1e-4, atol=1e-5)
    out.square().sum().backward()
    want.square().sum().backward()
    for a, b in zip(ours, ref):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5)


def test_saved_slice_of_a_longer_output_keeps_its_gapped_strides():
    """Mamba's causal conv1d: conv1d(padding=k-1)[..., :L] then SiLU, which saves its input for
    backward, a slice of the longer convolution output (strides with gaps). The backward graph
    was lowered reading it in those strides while the forward stored it contiguous: wrong
    gradients. The forward now stores it in the promised strides."""
    c, n = 8, 6
    def fn(h, w, b):
        return torch.nn.functional.silu(torch.nn.functional.conv1d(h, w, b, padding=3, groups=c)[:, :, :n])
    stats.reset()
    _saved_slice_grads(fn, torch.randn(2, c, n), torch.randn(c, 1, 4), torch.randn(c))
    assert len(stats.graphs()) == 2 and not any(g.graph_fallback for g in stats.graphs())


def test_repeat_of_a_permuted_value_is_contiguous_as_in_eager():
    # WavLM's position bias: permute, unsqueeze, repeat, then a .view that needs repeat's
    # contiguous result (the decomposition alone kept the permuted layout: tracing failed)
    fn = lambda e: e.permute(2, 0, 1).unsqueeze(0).repeat(2, 1, 1, 1).view(8, 31, 31) * 2   # noqa: E731
    s = compile_and_check(fn, torch.randn(31, 31, 4))
    assert not s.fallbacks and not s.graph_fallback


def test_reduction_order_reads_the_innermost_dims_of_size_above_one():
    # a sum over the leading dim whose kept dims end in a size-1 dim (x.unsqueeze(-1).sum(0)):
    # the loads run along the kept dim of size 64, so the tiles are x-major; the size-1 dim's
    # index (always 0) says nothing of the order
    from tuner.compiler.lowerings.reductions import is_outer
    from tuner.compiler.ops import ops

    def body(xs, rs):
        return ops.load("x", xs[0] + 64 * rs[0])
    assert is_outer((64, 1), (128,), body)
    assert is_outer((64,), (128,), body)
    assert not is_outer((64, 1), (128,), lambda xs, rs: ops.load("x", 128 * xs[0] + rs[0]))
