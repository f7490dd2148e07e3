"""Matmul templates (options={"mm": "template"} / TUNER_MM=template): mm, addmm and bmm as
generated Triton kernels with their pointwise epilogue fused, against eager on odd sizes,
layouts and dtypes (the interpreter runs them on CPU). bf16 runs on the GPU only: Triton's
interpreter computes tl.dot on bf16 operands wrongly on CPU."""
import time

import pytest
import torch
import torch.nn.functional as F

import triton
import triton.language as tl

import tuner.compiler.stats as stats
from tuner.compiler.runtime import helpers as th
from tuner.points import kernel_device, kernel_kinds as kinds
from helpers import assert_close


def _check(fn, *args, dtype=None, mode=None):
    torch._dynamo.reset()
    stats.reset()
    opts = {"mm": "template"}
    cf = torch.compile(fn, backend="tuner", options=opts) if mode is None else None
    if mode is not None:   # a mode and options cannot both be given: the setting carries it
        import os
        os.environ["TUNER_MM"] = "template"
        try:
            cf = torch.compile(fn, backend="tuner", mode=mode)
            out = cf(*args)
        finally:
            del os.environ["TUNER_MM"]
    else:
        out = cf(*args)
    ref = fn(*args)
    assert_close(out, ref, dtype)
    return stats.last()


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (7, 33, 100), (33, 7, 1), (100, 64, 33)])
def test_mm_any_size_is_one_template_kernel(m, k, n):
    s = _check(lambda a, b: a @ b, torch.randn(m, k), torch.randn(k, n))
    assert s.kernel_kinds == ["template"] and not s.externs


@pytest.mark.parametrize("layout", ["nn", "nt", "tn", "tt"])
def test_operand_layouts(layout):
    a = torch.randn(17, 9) if layout[0] == "n" else torch.randn(9, 17).t()
    b = torch.randn(9, 23) if layout[1] == "n" else torch.randn(23, 9).t()
    s = _check(lambda a, b: a @ b, a, b)
    assert s.kernel_kinds == ["template"]


def test_linear_bias_gelu_is_one_kernel_with_the_epilogue():
    x, w, b = torch.randn(33, 7), torch.randn(100, 7), torch.randn(100)
    s = _check(lambda x, w, b: F.gelu(F.linear(x, w, b)), x, w, b)
    assert s.kernel_kinds == ["template"] and not s.externs


def test_epilogue_operands_narrower_than_the_tile_load_in_their_own_shape(tmp_path, monkeypatch):
    # a bias over the columns, a vector over the rows, a 0-d scalar and a per-batch bias are
    # loaded as [1, BLOCK_N], [BLOCK_M, 1], a scalar and a row, never as a full tile through a
    # pointer broadcast to the block (35x slower for fp32 addmm 8014 x 1024 x 3 + ReLU,
    # docs/PERF_NOTES.md)
    monkeypatch.setenv("TUNER_DEBUG_DIR", str(tmp_path))
    x, w, bias = torch.randn(37, 3), torch.randn(3, 21), torch.randn(21)
    rows, scale = torch.randn(37, 1), torch.tensor(1.5)
    s = _check(lambda x, w, bias, rows, scale: torch.relu(torch.addmm(bias, x, w)) * rows + scale,
               x, w, bias, rows, scale)
    assert s.kernel_kinds == ["template"] and not s.externs and not s.graph_fallback
    a, b, pb = torch.randn(3, 9, 5), torch.randn(3, 5, 13), torch.randn(3, 1, 13)
    s = _check(lambda a, b, pb: torch.bmm(a, b) - pb, a, b, pb)
    assert s.kernel_kinds == ["template"] and not s.graph_fallback
    sources = [f.read_text() for f in tmp_path.glob("k_*.py")]
    templates = [src for src in sources if "tl.dot(" in src]
    assert len(templates) == 2
    for src in templates:
        assert "tl.zeros_like(x)" not in src, src
    assert any("mask=(rn < 21)" in src and "mask=(rm < 37)" in src for src in templates)


def test_a_gather_in_the_epilogue_keeps_the_tile_mask():
    # a gathered operand's index variable spans the whole tile: its load and bounds check keep
    # xmask (lanes past the tile compute indices from masked zeros: here 0 + 5, out of range)
    a, b, t = torch.randn(37, 3), torch.randn(3, 21), torch.randn(3)
    i = torch.randint(-8, -5, (37, 21))
    s = _check(lambda a, b, t, i: a @ b + t[i + 5], a, b, t, i)
    assert s.kernel_kinds == ["template"] and not s.externs and not s.graph_fallback, s.graph_fallback


def _split_k(fn, *args, splits=4, dtype=None):
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(fn, backend="tuner", options={"mm": "splitk", "mm_split_k": splits,
                                                       "pad_mm": "never"})(*args)
    assert_close(out, fn(*args), dtype)
    return stats.last()


@pytest.mark.parametrize("layout", ["nn", "nt", "tn", "tt"])
def test_split_k_is_a_template_over_k_slices_then_a_reduction_taking_the_epilogue(layout):
    # mm="splitk": fp32 partials of 4 K slices (the operands' strided views), summed by a
    # reduction kernel into which the bias and GELU fuse
    x = torch.randn(33, 256) if layout[0] == "n" else torch.randn(256, 33).t()
    w = torch.randn(256, 20) if layout[1] == "n" else torch.randn(20, 256).t()
    b = torch.randn(20)
    s = _split_k(lambda x, w, b: F.gelu(torch.addmm(b, x, w)), x, w, b)
    assert s.kernel_kinds == ["template", "persistent_reduction"] and not s.externs
    s = _split_k(lambda x, w: x @ w, x, w, splits=8)
    assert s.kernel_kinds == ["template", "persistent_reduction"]


def test_split_k_addmm_rounds_once_after_the_bias_as_aten_does():
    # fp16: the slices' fp32 sum takes the scaled bias before the one rounding (rounding the
    # product first, then again after the bias, differed from ATen on ~30% of the elements)
    torch.manual_seed(0)
    x, w, b = torch.randn(64, 256).half(), torch.randn(256, 64).half(), (torch.randn(64) * 3).half()
    fn = lambda b, x, w: torch.addmm(b, x, w, alpha=0.3)  # noqa: E731
    s = _split_k(fn, b, x, w, dtype=torch.float16)
    assert s.kernel_kinds == ["template", "persistent_reduction"]
    torch._dynamo.reset()
    out = torch.compile(fn, backend="tuner", options={"mm": "splitk", "pad_mm": "never"})(b, x, w)
    want = torch.addmm(b.float(), x.float(), w.float(), alpha=0.3).half()
    assert (out != want).float().mean() < 0.01


@pytest.mark.parametrize("alpha,beta", [(1, 1), (0.3, 2)])
def test_template_addmm_rounds_once_after_the_bias_as_aten_does(alpha, beta):
    # fp16: the accumulator takes the (scaled) bias before the one rounding to fp16; the
    # product rounded first, then again after the bias, differed from ATen on ~15% of elements
    torch.manual_seed(0)
    x, w, b = torch.randn(64, 256).half(), torch.randn(256, 48).half(), (torch.randn(48) * 3).half()
    fn = lambda b, x, w: torch.addmm(b, x, w, alpha=alpha, beta=beta)  # noqa: E731
    s = _check(fn, b, x, w, dtype=torch.float16)
    assert s.kernel_kinds == ["template"]
    torch._dynamo.reset()
    out = torch.compile(fn, backend="tuner", options={"mm": "template", "pad_mm": "never"})(b, x, w)
    want = torch.addmm(b.float(), x.float(), w.float(), alpha=alpha, beta=beta).half()
    assert (out != want).float().mean() < 0.01


def test_split_k_falls_back_to_one_k_loop_where_it_does_not_apply():
    # a K the count does not divide, slices under 16, a bmm: the plain template
    a, b = torch.randn(9, 30), torch.randn(30, 7)
    assert _split_k(lambda a, b: a @ b, a, b).kernel_kinds == ["template"]           # 30 % 4
    assert _split_k(lambda a, b: a @ b, a, b, splits=2).kernel_kinds == ["template"]  # 15 < 16
    a3, b3 = torch.randn(2, 9, 64), torch.randn(2, 64, 7)
    assert _split_k(torch.bmm, a3, b3).kernel_kinds == ["template"]


@pytest.mark.parametrize("options, message", [
    ({"mm": "splitK"}, "options['mm']='splitK'; expected one of auto, template, extern, splitk"),
    ({"mm": "splitk", "mm_split_k": 0}, "options['mm_split_k']=0; expected an int >= 1"),
    ({"mm": "splitk", "mm_split_k": "4"}, "options['mm_split_k']='4'"),
])
def test_bad_mm_options_fail_naming_the_valid_ones(options, message):
    torch._dynamo.reset()
    with pytest.raises(Exception, match=message.replace("[", r"\[").replace("]", r"\]")):
        torch.compile(lambda a, b: a @ b, backend="tuner", options=options)(torch.randn(4, 4), torch.randn(4, 4))


def test_unset_mm_options_mean_the_settings():
    # None (e.g. {"mm": null} in TUNER_COMPILE_OPTIONS) leaves TUNER_MM and the default slices
    torch._dynamo.reset()
    a, b = torch.randn(4, 4), torch.randn(4, 4)
    out = torch.compile(lambda a, b: a @ b, backend="tuner", options={"mm": None, "mm_split_k": None})(a, b)
    assert_close(out, a @ b)


def test_addmm_with_scales_and_full_bias():
    x, w, c = torch.randn(9, 5), torch.randn(5, 11), torch.randn(9, 11)
    s = _check(lambda c, x, w: torch.addmm(c, x, w, beta=0.5, alpha=2.0), c, x, w)
    assert s.kernel_kinds == ["template"]


def test_bmm_with_residual_and_scale():
    a, b, r = torch.randn(3, 17, 9), torch.randn(3, 9, 5), torch.randn(3, 17, 5)
    s = _check(lambda a, b, r: torch.bmm(a, b) * 0.5 + r, a, b, r)
    assert s.kernel_kinds == ["template"]


def test_fp16_operands_and_cast_epilogue():
    x, w = torch.randn(20, 40).half(), torch.randn(40, 24).half()
    s = _check(lambda x, w: (x @ w).relu().float(), x, w, dtype=torch.float16)
    assert s.kernel_kinds == ["template"]


def test_result_used_outside_the_epilogue_is_stored_too():
    x, w = torch.randn(8, 6), torch.randn(6, 10)
    _check(lambda x, w: ((x @ w).sigmoid(), (x @ w).sum(-1)), x, w)


def test_producer_of_an_operand_is_not_fused_into_the_template():
    x, w = torch.randn(8, 6), torch.randn(6, 10)
    s = _check(lambda x, w: (x.sin() @ w).cos(), x, w)
    assert s.kernel_kinds == ["pointwise", "template"]


def test_default_mode_keeps_the_aten_call():
    torch._dynamo.reset()
    stats.reset()
    x, w = torch.randn(8, 6), torch.randn(6, 10)
    out = torch.compile(lambda x, w: (x @ w).relu(), backend="tuner")(x, w)
    assert_close(out, (x @ w).relu())
    assert stats.last().externs == {"aten.mm.default": 1}


def test_template_tunes_in_max_autotune():
    x, w, b = torch.randn(40, 24), torch.randn(24, 36), torch.randn(36)
    s = _check(lambda x, w, b: (x @ w + b).tanh(), x, w, b, mode="max-autotune-no-cudagraphs")
    assert s.kernel_kinds == ["template"]


def test_a_matmul_tuned_once_serves_its_other_epilogues(monkeypatch):
    # The same matmul with another fused epilogue (the mm point's probe, then the model's
    # graph; a repeated layer) takes the config already measured: no second search. Another
    # operand layout or size is a new matmul and searches.
    x, w = torch.randn(40, 24), torch.randn(24, 36)
    s = _check(lambda x, w: (x @ w).tanh(), x, w, mode="max-autotune-no-cudagraphs")
    assert s.kernel_kinds == ["template"] and s.decisions_measured == 1
    s = _check(lambda x, w: (x @ w).relu() * 3, x, w, mode="max-autotune-no-cudagraphs")
    assert s.decisions_measured == 0 and s.decisions_heuristic == 1
    s = _check(lambda x, w: (x @ w).relu() * 3, x, w.t().contiguous().t(), mode="max-autotune-no-cudagraphs")
    assert s.decisions_measured == 1
    # a new process (nothing remembered): the config the second graph took is in the cache
    import tuner.points.triton_kernel as point
    point.forget_templates()
    s = _check(lambda x, w: (x @ w).relu() * 3, x, w, mode="max-autotune-no-cudagraphs")
    assert s.decisions_measured == 0 and s.decisions_heuristic == 0 and s.decisions_cache == 1


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_tanh_in_a_16_bit_epilogue_takes_the_sigmoid_form(dtype, tmp_path, monkeypatch):
    # libdevice's tanhf cost a tanh-GELU epilogue 55% of the matmul's time on the H200: where
    # every stored result is 16-bit, tanh is 2 sigmoid(2x) - 1 (within 2 ulp of them); fp32
    # results keep the accurate one
    monkeypatch.setenv("TUNER_DEBUG_DIR", str(tmp_path))
    x, w, b = torch.randn(37, 24).to(dtype), torch.randn(40, 24).to(dtype), torch.randn(40).to(dtype)
    s = _check(lambda x, w, b: torch.tanh(F.gelu(F.linear(x, w, b), approximate="tanh") * 1e-3),
               x, w, b, dtype=dtype)
    assert s.kernel_kinds == ["template"]
    src = _template_source(tmp_path)
    assert ("th.tanh_sigmoid(" in src) == (dtype == torch.float16)
    assert ("th.tanh(" in src) == (dtype == torch.float32)


def _template_source(debug_dir):
    """The source of the template kernel TUNER_DEBUG_DIR dumped (the one with a tl.dot)."""
    return next(src for src in (f.read_text() for f in debug_dir.glob("k_*.py")) if "tl.dot(" in src)


def _force_tma(monkeypatch, min_tiles=1):
    """Hopper's variant (TMA descriptors, a persistent loop) on small CPU problems: applies from
    `min_tiles` tiles of 128 x 128 and is the default config's; returns the list the launcher's
    allocator hook appends to on each launch of a TMA config."""
    import tuner.compiler.runtime.launch as launch
    import tuner.points.triton_kernel as point
    monkeypatch.setattr(kinds, "TMA_MIN_TILES", min_tiles)
    default = kinds.Template.default
    small = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "num_warps": 4} if min_tiles == 1 else {}
    monkeypatch.setattr(kinds.Template, "default",
                        lambda self, meta: dict(default(self, meta), TMA=1, **small) if meta.tma
                        else default(self, meta))
    if min_tiles == 1:   # one program: it loops over every tile
        monkeypatch.setattr(kernel_device, "sm_count", lambda: 1)
    launches = []
    real = launch.Launcher._launch

    def launched(self, cfg, args):
        out = real(self, cfg, args)
        if cfg.get("TMA"):
            launches.append(kinds.template_grid(self.meta.mm, cfg))
        return out
    monkeypatch.setattr(launch.Launcher, "_launch", launched)
    return launches


@pytest.mark.parametrize("layout", ["nn", "nt", "tn", "tt"])
def test_tma_variant_loads_through_descriptors_in_a_persistent_loop(layout, monkeypatch, tmp_path):
    # 200 x 136 output in tiles of 32 and one program, which loops over all 35; every layout
    # reads through its own descriptor shape (K 96: a tail of a 64 step reads zeros)
    launches = _force_tma(monkeypatch)
    monkeypatch.setenv("TUNER_DEBUG_DIR", str(tmp_path))
    m, k, n = 200, 96, 136
    a = torch.randn(m, k) if layout[0] == "n" else torch.randn(k, m).t()
    b = torch.randn(k, n) if layout[1] == "n" else torch.randn(n, k).t()
    a, b, bias = a.half(), b.half(), torch.randn(n).half()
    s = _check(lambda a, b, bias: F.gelu(a @ b + bias), a, b, bias, dtype=torch.float16)
    assert s.kernel_kinds == ["template"] and not s.graph_fallback, s.graph_fallback
    assert launches == [1]   # one program over 7 x 5 tiles of 32
    src = _template_source(tmp_path)
    assert src.count("tl.make_tensor_descriptor(") == 2 and "tl.num_programs(0)" in src
    assert ("a_desc.load([k0, pid_m * BLOCK_M]).T" in src) == (layout[0] == "t")
    assert ("b_desc.load([pid_n * BLOCK_N, k0]).T" in src) == (layout[1] == "t")


def test_tma_variant_reads_a_misaligned_operand_through_pointers(monkeypatch):
    # an input view 2 bytes past a 16-byte boundary: strides qualify at compile time, the base
    # pointer does not at run time; the kernel's branch for it loads through masked pointers
    launches = _force_tma(monkeypatch)
    m, k, n = 130, 64, 72
    a = torch.randn(m * k + 1).half()[1:].view(m, k)
    assert a.data_ptr() % 16
    b = torch.randn(k, n).half()
    s = _check(lambda a, b: torch.relu(a @ b), a, b, dtype=torch.float16)
    assert s.kernel_kinds == ["template"] and not s.graph_fallback, s.graph_fallback
    assert launches == [1]


@pytest.mark.parametrize("case", ["fp32", "bmm", "small", "odd_stride", "expanded"])
def test_tma_variant_is_left_out_where_it_does_not_apply(case, monkeypatch, tmp_path):
    import tuner.points.triton_kernel as point
    if case != "small":
        monkeypatch.setattr(kinds, "TMA_MIN_TILES", 1)
    monkeypatch.setenv("TUNER_DEBUG_DIR", str(tmp_path))
    a, b = {"fp32": (torch.randn(64, 64), torch.randn(64, 64)),
            "bmm": (torch.randn(2, 64, 64).half(), torch.randn(2, 64, 64).half()),
            "small": (torch.randn(256, 64).half(), torch.randn(64, 256).half()),
            # a row of 68 fp16 elements: 136 bytes, not a multiple of 16
            "odd_stride": (torch.randn(64, 68).half(), torch.randn(68, 64).half()),
            # a row repeated (stride 0): no descriptor
            "expanded": (torch.randn(1, 64).half().expand(64, 64), torch.randn(64, 64).half())}[case]
    _check(lambda a, b: a @ b, a, b, dtype=a.dtype)
    src = _template_source(tmp_path)
    assert "TMA" not in src and "make_tensor_descriptor" not in src


def test_a_16_bit_addmm_before_a_reduction_stores_no_fp32_product(tmp_path, monkeypatch):
    # the product stays fp32 until the bias (rounded once): the bias add is the template's own
    # epilogue node, so a LayerNorm after the projection reads the fp16 result, never a stored
    # fp32 product at twice the bytes
    monkeypatch.setenv("TUNER_DEBUG_DIR", str(tmp_path))
    x, w, b, g = torch.randn(37, 24).half(), torch.randn(40, 24).half(), torch.randn(40).half(), torch.randn(40).half()
    s = _check(lambda x, w, b, g: F.layer_norm(F.linear(x, w, b), (40,), g), x, w, b, g, dtype=torch.float16)
    assert s.kernel_kinds == ["template", "persistent_reduction"] and not s.graph_fallback
    src = _template_source(tmp_path)
    stores = [line for line in src.splitlines() if "tl.store(" in line]
    assert len(stores) == 1 and ".to(tl.float16)" in stores[0], stores


@triton.jit
def _tanh_sigmoid_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(out_ptr + i, th.tanh_sigmoid(tl.load(x_ptr + i, mask=i < n)), mask=i < n)


def test_tanh_sigmoid_is_within_an_ulp_of_16_bit_tanh_at_every_scale():
    kernel = _tanh_sigmoid_kernel
    mag = torch.logspace(-30, 1.5, 500)
    x = torch.cat([mag, -mag, torch.zeros(1)])
    out = torch.empty_like(x)
    kernel[(1,)](x, out, x.numel(), BLOCK=1024)
    for dt in (torch.float16, torch.bfloat16):
        want, got = torch.tanh(x.double()).to(dt), out.to(dt)
        ulp = (torch.nextafter(want.float(), torch.tensor(float("inf"))) - want.float()).abs().to(torch.float64)
        err = (got.double() - want.double()).abs()
        assert (err <= ulp + 1e-45).all(), x[err > ulp][:5]


def test_a_template_with_hoppers_variant_counts_its_body_once():
    from tuner.points.kernel_body import body_counts
    plain = "def k():\n    acc = tl.dot(a, b)\n    t1 = tl.load(p)\n    tl.store(q, th.tanh(t1))\n"
    tma = ("def k(TMA: tl.constexpr = 0):\n    if TMA:\n        if aligned:\n            tl.store(q, th.tanh(tl.load(p)))\n"
           "        else:\n            tl.store(q, th.tanh(tl.load(p)))\n    else:\n"
           "        acc = tl.dot(a, b)\n        t1 = tl.load(p)\n        tl.store(q, th.tanh(t1))\n")
    assert body_counts(tma) == body_counts(plain) == {"loads": 1, "stores": 1, "special": 1}


def test_attention_shapes_get_their_extra_configs_and_other_matmuls_none():
    import tuner.points.triton_kernel as point

    def extras(b, m, n, k):
        meta = point.KernelMeta("template", xnumel=b * m * n, mm=(b, m, n, k), mm_dtype="bfloat16")
        return {(c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"], c["num_warps"], c["num_stages"])
                for c in point.template_extras(meta)}
    assert extras(96, 512, 512, 64) == set(kinds._TEMPLATE_SMALL_K)          # q @ k^T
    assert extras(96, 512, 64, 512) == set(kinds._TEMPLATE_LONG_K_NARROW)    # p @ v
    assert extras(1, 16, 11008, 4096) == set(kinds._TEMPLATE_SKINNY_M)       # decode, m = 16
    assert extras(1, 1024, 1024, 1024) == extras(1, 64, 4096, 4096) == set()  # a projection, m = 64
    meta = point.KernelMeta("template", xnumel=16 * 11008, mm=(1, 16, 11008, 4096), mm_dtype="bfloat16")
    assert all(point.answer_fits(meta, point.to_config(c)) for c in point.template_extras(meta))


def test_tma_configs_are_offered_beside_the_shortlist_and_seeds_and_launch_one_program_per_sm():
    import tuner.points.triton_kernel as point
    meta = point.KernelMeta("template", xnumel=4096 * 4096, mm=(1, 4096, 4096, 4096),
                            mm_dtype="bfloat16", tma=True)
    plain = point.KernelMeta("template", xnumel=4096 * 4096, mm=(1, 4096, 4096, 4096), mm_dtype="bfloat16")
    tma = [c for c in point.template_extras(meta) if c.get("TMA")]
    assert tma and all(c["BLOCK_K"] == 64 for c in tma)
    assert [c for c in kinds.template_seeds(meta) if c.get("TMA")] == tma
    assert not [c for c in point.template_extras(plain) + kinds.template_seeds(plain) if c.get("TMA")]
    cfg = tma[0]
    tiles = 4096 // cfg["BLOCK_M"] * (4096 // cfg["BLOCK_N"])
    assert kinds.template_grid(meta.mm, cfg) == min(tiles, kernel_device.sm_count()) < tiles
    assert kinds.template_grid(meta.mm, dict(cfg, TMA=0)) == tiles
    assert kinds.tma_applies(4096, 4096, 64) and not kinds.tma_applies(4096, 4096, 32)
    assert not kinds.tma_applies(512, 512, 4096)   # 16 tiles


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("m,k,n", [(4096, 768, 3072), (4095, 4093, 4097), (1, 4096, 4096), (8192, 1023, 1024)])
def test_template_at_real_sizes_on_cuda(m, k, n, dtype):
    torch.manual_seed(0)
    x = torch.randn(m, k, device="cuda", dtype=dtype)
    w = torch.randn(n, k, device="cuda", dtype=dtype) / k ** 0.5
    b = torch.randn(n, device="cuda", dtype=dtype)
    fn = lambda x, w, b: F.gelu(F.linear(x, w, b))  # noqa: E731
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(fn, backend="tuner", options={"mm": "template"})(x, w, b)
    ref = fn(x.float(), w.float(), b.float())
    tol = 1e-2 if dtype == torch.float32 else 3e-2
    torch.testing.assert_close(out.float(), ref, rtol=tol, atol=tol)
    assert stats.last().kernel_kinds == ["template"]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_split_k_at_a_weight_gradients_size_on_cuda(dtype):
    # a training step's weight gradient: 768 x 768 over K = 4096 (tokens), the first operand
    # column-major; 8 slices of 512
    torch.manual_seed(0)
    x = torch.randn(4096, 768, device="cuda", dtype=dtype)
    g = torch.randn(4096, 768, device="cuda", dtype=dtype) / 64
    fn = lambda x, g: x.t() @ g  # noqa: E731
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(fn, backend="tuner", options={"mm": "splitk", "mm_split_k": 8})(x, g)
    ref = fn(x.float(), g.float())
    tol = 1e-2 if dtype == torch.float32 else 3e-2
    torch.testing.assert_close(out.float(), ref, rtol=tol, atol=tol)
    assert stats.last().kernel_kinds == ["template", "persistent_reduction"]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", ["nn", "nt", "tn", "tt"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_tma_variant_at_real_sizes_on_cuda(layout, dtype, monkeypatch):
    import tuner.points.triton_kernel as point
    if not kinds.tma_applies(2048, 3072, 768):
        pytest.skip("no TMA variant on this GPU or Triton")
    launches = _force_tma(monkeypatch, min_tiles=kinds.TMA_MIN_TILES)
    torch.manual_seed(0)
    m, k, n = 2048 + 7, 768, 3072
    # a transposed operand's rows padded to 2056 elements (16-byte multiples; m is odd)
    a = torch.randn(m, k, device="cuda", dtype=dtype) if layout[0] == "n" else \
        torch.randn(k, 2056, device="cuda", dtype=dtype)[:, :m].t()
    b = torch.randn(k, n, device="cuda", dtype=dtype) / k ** 0.5 if layout[1] == "n" else \
        (torch.randn(n, k, device="cuda", dtype=dtype) / k ** 0.5).t()
    bias = torch.randn(n, device="cuda", dtype=dtype)
    fn = lambda a, b, bias: F.gelu(a @ b + bias, approximate="tanh")  # noqa: E731
    torch._dynamo.reset()
    stats.reset()
    cf = torch.compile(fn, backend="tuner", options={"mm": "template"})
    for _ in range(2):   # the second call takes the launcher's direct path
        out = cf(a, b, bias)
        torch.testing.assert_close(out.float(), fn(a.float(), b.float(), bias.float()), rtol=3e-2, atol=3e-2)
    s = stats.last()
    assert s.kernel_kinds == ["template"] and not s.graph_fallback and launches
    # a misaligned base pointer takes the kernel's pointer branch
    a2 = torch.randn(m * k + 1, device="cuda", dtype=dtype)[1:].view(m, k)
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(fn, backend="tuner", options={"mm": "template"})(a2, b, bias)
    torch.testing.assert_close(out.float(), fn(a2.float(), b.float(), bias.float()), rtol=3e-2, atol=3e-2)
    assert not stats.last().graph_fallback


@pytest.mark.gpu
def test_bmm_template_attention_shapes_on_cuda():
    q = torch.randn(8 * 12, 512, 64, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(8 * 12, 64, 512, device="cuda", dtype=torch.bfloat16)
    fn = lambda q, k: torch.bmm(q, k) * 0.125  # noqa: E731
    torch._dynamo.reset()
    out = torch.compile(fn, backend="tuner", options={"mm": "template"})(q, k)
    torch.testing.assert_close(out.float(), fn(q.float(), k.float()), rtol=3e-2, atol=3e-2)


def _mm_point_runs(monkeypatch):
    """Counts the mm point's measurements (each builds its runners once)."""
    import tuner.compiler.compile_graph as cg
    calls = []
    real = cg.mm_runners

    def counted(problem, device):
        calls.append(problem.signature())
        return real(problem, device)
    monkeypatch.setattr(cg, "mm_runners", counted)
    return calls


def test_mm_point_measures_in_max_autotune_then_answers_from_the_cache(monkeypatch):
    monkeypatch.setenv("TUNER_MM", "auto")
    calls = _mm_point_runs(monkeypatch)
    a, b = torch.randn(16, 24), torch.randn(24, 8)
    f = lambda a, b: torch.relu(a @ b) * 2   # noqa: E731
    stats.reset()
    out = torch.compile(f, backend="tuner", mode="max-autotune-no-cudagraphs")(a, b)
    assert_close(out, f(a, b))
    first = dict(stats.last().mm_backend)
    assert calls == ["mm:b1:m16:n8:k24:float32:t00"] and sum(first.values()) == 1
    # both variants ran: the probe compiles left no graphs in the stats
    assert len(stats.graphs()) == 1
    for mode, want in (("max-autotune-no-cudagraphs", first), ("default", {"extern": 1})):
        # max-autotune answers from the cache; default mode keeps ATen (the cached answer
        # was measured against the tuned template, and default mode's would be untuned)
        torch._dynamo.reset()
        stats.reset()
        out = torch.compile(f, backend="tuner", mode=mode)(a, b)
        assert_close(out, f(a, b))
        assert dict(stats.last().mm_backend) == want and len(calls) == 1


@pytest.mark.parametrize("case, want", [
    ("linear", (False, False, False)),            # the output (through a view): the addmm alone
    ("relu_transposed", (True, False, False)),
    ("cube_and_scale", (True, False, False)),      # pow by a small integer is multiplies
    ("gelu", (True, True, False)),
    ("tanh_gelu_chain", (True, True, False)),      # GPT-2's NewGELU: the tanh is further down
    ("sqrt_by_pow", (True, False, False)),         # pow(x, 0.5) is a square root
    ("softmax", (True, False, True)),       # the exp reads the max: the scale fuses into the softmax
    ("layer_norm_exp", (False, False, False)),     # every pointwise consumer reads its statistics
    ("residual_layer_norm", (True, False, True)),  # ViT's proj: the residual add fuses into the norm
    ("bias_then_copy", (True, False, True)),       # ViT's qkv: the bias fuses into the head copy
    ("relu_into_matmul", (True, False, False)),    # an MLP's up: the next matmul is ATen
    ("bias_split_to_matmuls", (True, False, False)),  # a split launches nothing: the bias is a kernel
    ("residual_fold", (False, False, False)),      # mm + r folds into addmm's C: nothing after it
    ("late_residual", (False, False, False)),      # r made after the matmul: no fold, and the add
    #                                                reads a later value (not an epilogue)
])
def test_mm_point_poses_the_matmul_with_its_epilogue_class(monkeypatch, case, want):
    # the problem says whether a pointwise consumer follows, whether it evaluates a special
    # function per element, and whether a kernel launched anyway takes it in on the extern
    # side; the probe times that class of epilogue (none, ReLU, tanh-GELU; + a row sum)
    monkeypatch.setenv("TUNER_MM", "auto")
    import tuner.compiler.compile_graph as cg
    from tuner.compiler import mm_probes
    problems = []
    real = cg.mm_runners

    def seen(problem, device):
        problems.append(problem)
        return real(problem, device)
    monkeypatch.setattr(cg, "mm_runners", seen)
    # the probes built ahead (mm_probes.prebuild, after lowering; on CUDA only) are those of
    # the problems the lowering posed
    predicted = []
    monkeypatch.setattr(mm_probes, "prebuild", lambda problems, compile_fn: predicted.extend(
        p.signature() for p, _ in problems) or 0)
    x, w, b = torch.randn(2, 8, 24), torch.randn(16, 24), torch.randn(16)
    if case == "residual_fold":   # (a residual folds into addmm from 64 rows: matmul.py)
        x = torch.randn(8, 8, 24)
    f = {"linear": lambda x, w, b: F.linear(x, w, b),
         "relu_transposed": lambda x, w, b: F.linear(x, w, b).transpose(0, 1).relu(),
         "cube_and_scale": lambda x, w, b: torch.pow(F.linear(x, w, b), 3) * 0.5,
         "gelu": lambda x, w, b: F.gelu(F.linear(x, w, b)),
         "tanh_gelu_chain": lambda x, w, b: (lambda h: 0.5 * h * (1 + torch.tanh(
             0.79788456 * (h + 0.044715 * torch.pow(h, 3)))))(F.linear(x, w, b)),
         "sqrt_by_pow": lambda x, w, b: torch.pow(F.linear(x, w, b).abs(), 0.5),
         "softmax": lambda x, w, b: torch.softmax(F.linear(x, w, b) * 0.1, -1),
         "layer_norm_exp": lambda x, w, b: F.layer_norm(F.linear(x, w, b), (16,)).exp(),
         "residual_layer_norm": lambda x, w, b: (lambda h: (h, F.layer_norm(h, (16,))))(
             x[..., :16] + F.linear(x, w, b)),
         "bias_then_copy": lambda x, w, b: (F.linear(x, w, None) + b).transpose(0, 1).contiguous(),
         "relu_into_matmul": lambda x, w, b: torch.relu(F.linear(x, w, b)) @ w,
         "bias_split_to_matmuls": lambda x, w, b: (lambda h: h[0] @ h[1].transpose(-1, -2))(
             (F.linear(x, w, None) + b).split(8, -1)),
         "residual_fold": lambda x, w, b: (lambda r: F.linear(x, w, None) + r)(x[..., :16].contiguous()),
         "late_residual": lambda x, w, b: torch.relu(F.linear(x, w, None) + x[..., :16] * 2),
         }[case]
    torch._dynamo.reset()
    out = torch.compile(f, backend="tuner", mode="max-autotune-no-cudagraphs")(x, w, b)
    assert_close(out, f(x, w, b))
    p = problems[0]
    assert (p.epilogue, p.costly_epilogue, p.absorbed) == want
    assert p.signature().endswith(":bare") is (not want[0])
    assert (":costly" in p.signature()) is want[1]
    assert p.signature().endswith(":absorbed") is want[2]
    assert predicted == [q.signature() for q in problems]


def test_mm_point_in_default_mode_never_measures_and_keeps_aten(monkeypatch):
    monkeypatch.setenv("TUNER_MM", "auto")
    calls = _mm_point_runs(monkeypatch)
    a, b = torch.randn(16, 24), torch.randn(24, 8)
    stats.reset()
    out = torch.compile(lambda a, b: a @ b + 1, backend="tuner")(a, b)
    assert_close(out, a @ b + 1)
    s = stats.last()
    assert not calls and dict(s.mm_backend) == {"extern": 1} and s.externs["aten.mm.default"] == 1


def test_mm_point_template_answer_fuses_the_epilogue(monkeypatch):
    # a measurement where the template wins (its runner is made the faster one) is stored;
    # max-autotune compiles that problem as one template kernel with its epilogue: the graph
    # that measured it (lowered again with the answer, nothing asked twice) and a later one
    import time

    import tuner.compiler.compile_graph as cg
    from tuner import engine
    monkeypatch.setenv("TUNER_MM", "auto")
    monkeypatch.setattr(cg, "mm_runners", lambda problem, device: {
        "extern": lambda: time.sleep(0.002), "template": lambda: None})
    x, w, bias = torch.randn(33, 7), torch.randn(100, 7), torch.randn(100)
    f = lambda x, w, bias: F.gelu(F.linear(x, w, bias))   # noqa: E731
    for source in ("exhaustive", "cache"):
        torch._dynamo.reset()
        stats.reset()
        engine.HISTORY.clear()
        out = torch.compile(f, backend="tuner", mode="max-autotune-no-cudagraphs")(x, w, bias)
        assert_close(out, f(x, w, bias))
        s = stats.last()
        assert dict(s.mm_backend) == {"template": 1} and s.kernel_kinds == ["template"] and not s.externs
        assert [d.source for d in engine.HISTORY if d.namespace == "mm_backend"] == [source]


def test_a_graph_lowered_again_replays_its_other_answers(monkeypatch):
    # the mm point's measured "template" lowers the graph again: the pad_mm point's answer and
    # the mm point's are replayed, not asked again, and the stats count the last lowering only
    import time

    import tuner.compiler.compile_graph as cg
    import tuner.compiler.lowerings.matmul as mm_lowering
    from tuner import engine
    monkeypatch.setenv("TUNER_MM", "auto")
    monkeypatch.setenv("TUNER_PAD_MM", "auto")
    monkeypatch.setenv("TUNER_MM_PADDED", "measure")
    pads, asked = [], []
    monkeypatch.setattr(mm_lowering, "decide_pad_mm", lambda ctx, device: pads.append(ctx.signature()) or "pad")
    real_ask = mm_lowering._ask_mm
    monkeypatch.setattr(mm_lowering, "_ask_mm", lambda p, d: asked.append(p.signature()) or real_ask(p, d))
    # the padded matmul's template wins, the aligned one's ATen call
    monkeypatch.setattr(cg, "mm_runners", lambda problem, device: {
        "extern": lambda: time.sleep(0.002) if problem.padded else None,
        "template": lambda: None if problem.padded else time.sleep(0.002)})
    a, b, x, y = torch.randn(33, 19), torch.randn(19, 37), torch.randn(16, 24), torch.randn(24, 8)
    f = lambda a, b, x, y: (torch.relu(a @ b), torch.relu(x @ y))   # noqa: E731
    engine.HISTORY.clear()
    stats.reset()
    out = torch.compile(f, backend="tuner", mode="max-autotune-no-cudagraphs")(a, b, x, y)
    assert_close(out, f(a, b, x, y))
    s = stats.last()
    assert len(pads) == 1 and len(asked) == 2 and len(set(asked)) == 2
    assert dict(s.pad_mm) == {"template": 1} and dict(s.mm_backend) == {"template": 1, "extern": 1}
    assert s.kernel_kinds.count("template") == 1 and s.externs["aten.mm.default"] == 1
    assert [d.source for d in engine.HISTORY if d.namespace == "mm_backend"] == ["exhaustive"] * 2


def test_template_search_is_a_seed_set_then_one_field_at_a_time():
    # the seed set (default + hand-written configs that fit) compiles as one batch; the descent
    # then moves one field at a time: no pair moves or plateau walks (those made one GPT-2
    # matmul tune for over 100 s on the H100)
    from tuner import engine
    from tuner.points import triton_kernel as point
    engine.HISTORY.clear()
    x, w = torch.randn(64, 64), torch.randn(64, 64)
    _check(lambda x, w: (x @ w).tanh(), x, w, mode="max-autotune-no-cudagraphs")
    (d,) = [d for d in engine.HISTORY if d.namespace.endswith("template")]
    meta_space = point.search_options(point.KernelMeta("template", xnumel=1, mm=(1, 64, 64, 64),
                                                       mm_dtype="float32"), None)
    assert meta_space == {"check_all_directions": False, "check_pairs": False, "max_plateau_walks": 0}
    # 6 fields, one step each way per sweep from each better point: far fewer than the
    # 60 pair moves a single sweep end used to add
    assert 2 <= d.n_measured <= 40, d.n_measured


def test_attention_projections_are_posed_as_the_extern_side_runs_them(monkeypatch):
    # torch's MultiheadAttention (torchvision's ViT): the qkv bias fuses into the copy that
    # splits heads (absorbed: no kernel of its own on the extern side), and the output
    # projection's copy back to batch-first order reads the addmm alone (bare). Posed as a
    # bias in its own kernel, the mm point's module answered "template" for both and
    # ViT-B/16 ran 5% slower than with cuBLAS
    monkeypatch.setenv("TUNER_MM", "auto")
    import tuner.compiler.compile_graph as cg
    problems = []
    monkeypatch.setattr(cg, "mm_runners", lambda p, d: problems.append(p) or {})

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = torch.nn.LayerNorm(32)
            self.attn = torch.nn.MultiheadAttention(32, 4, batch_first=True)

        def forward(self, x):
            y = self.norm(x)
            return x + self.attn(y, y, y, need_weights=False)[0]
    m, x = Block().eval(), torch.randn(2, 5, 32)
    with torch.no_grad():
        out = torch.compile(m, backend="tuner", mode="max-autotune-no-cudagraphs")(x)
        assert_close(out, m(x))
    assert [(p.op, p.n, p.epilogue, p.absorbed) for p in problems] == [
        ("mm", 96, True, True), ("addmm", 32, False, False)]


def test_the_mm_points_probe_tunes_its_template_and_nothing_beside_it():
    # the probe's other kernels (the extern side's ReLU + row sum, the template side's row
    # sum) are alike on both sides: they launch default mode's config, untimed
    from tuner import engine
    from tuner.compiler.compile_graph import mm_runners
    from tuner.points.mm import MMProblem
    problem = MMProblem("mm", 1, 16, 8, 24, "float32", absorbed=True)
    engine.HISTORY.clear()
    fns = mm_runners(problem, "cpu")
    assert set(fns) == {"extern", "template"}
    tuned = [d.namespace for d in engine.HISTORY]
    assert tuned == ["triton.template"]


def test_the_probe_plan_asks_the_point_quietly_and_a_cached_answer_needs_no_probe(monkeypatch):
    # the lowering leaves to measure only what the mm point cannot answer otherwise: it plans
    # the point (heuristic, cache; tuner.engine.plan) and records nothing (no decision in
    # HISTORY, no runner built)
    from tuner import engine
    from tuner.points.mm import MMProblem, measures, mm_decision
    p = MMProblem("mm", 1, 16, 8, 24, "float32", epilogue=False)
    engine.HISTORY.clear()
    assert measures(p, "cpu") and not engine.HISTORY and not engine._quiet_now()
    built = []
    d = mm_decision(p, lambda: built.append(1) or {"extern": lambda: None,
                                                   "template": lambda: time.sleep(0.002)}, device="cpu")
    assert d.source == "exhaustive" and built == [1]
    assert not measures(p, "cpu") and len(engine.HISTORY) == 1   # cached: no probe

