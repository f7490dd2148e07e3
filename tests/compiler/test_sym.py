"""Index expressions (compiler/sym.py): nested floor divisions fold into one, in the
expression and in the kernels generated from it."""
import re

import torch

import tuner.compiler.stats as stats
from helpers import assert_close
from tuner.compiler.sym import FloorDiv, ModIdx, linear, sym, texpr, unflatten


def test_a_floor_division_of_a_floor_division_is_one_division():
    x, s = sym("x"), sym("s0")
    assert FloorDiv(FloorDiv(FloorDiv(x, 1280), 14), 14) == FloorDiv(x, 250880)
    assert texpr(FloorDiv(FloorDiv(x, 1280), 14)) == "(x // 17920)"
    assert FloorDiv(FloorDiv(x, s), 3) == FloorDiv(x, 3 * s)
    for v in range(-40, 40):   # floored (and truncated) alike, either sign
        assert (v // 3) // 4 == v // 12 and int(int(v / 3) / 4) == int(v / 12)


def test_unflatten_then_linearise_is_still_the_flat_index():
    # (the simplifier's fold c*k*(a//k) + c*(a%k) -> c*a meets the folded divisions)
    x = sym("x")
    sizes = (2, 14, 14, 1280)
    idx = unflatten(x, sizes)
    assert idx[0] == FloorDiv(x, 250880) and idx[3] == ModIdx(x, 1280)
    assert linear(idx, (250880, 17920, 1280, 1)) == x


def test_channels_last_kernel_indexes_the_image_with_one_division():
    # a per-image value broadcast over a channels-last map: the image index is x // (H*W*C)
    def f(a, s):
        return a * s + 1
    a = torch.randn(2, 8, 6, 6).to(memory_format=torch.channels_last)
    s = torch.randn(2, 1, 1, 1)
    torch._dynamo.reset()
    with torch.no_grad():
        out = torch.compile(f, backend="tuner")(a, s)
    assert_close(out, f(a, s))
    src = stats.last().source
    assert not re.search(r"\) // \d+\) // \d+", src), src
    assert "// 288)" in src, src
