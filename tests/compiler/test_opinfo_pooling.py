"""Pooling, sampling and structural OpInfo ops that ran in ATen (issue 45) and now run as
generated kernels through decompositions (PyTorch's, in torch_compat's table): OpInfo
samples and edge inputs, compared with eager, with no ATen call for the op (CPU, interpreter)."""
import pytest
import torch

from test_opinfo_coverage import check, check_opinfo

torch.manual_seed(0)

# OpInfo key -> the ATen ops that must not run in ATen
OPINFO = {
    "nn.functional.max_pool3d": ("aten.max_pool3d_with_indices.default",),
    "nn.functional.adaptive_max_pool3d": ("aten.adaptive_max_pool3d.default",),
    "max_pool2d_with_indices_backward": ("aten.max_pool2d_with_indices_backward.default",),
    "grid_sampler_2d": ("aten.grid_sampler_2d.default",),
    "nn.functional.grid_sample": ("aten.grid_sampler_2d.default",),
    "narrow_copy": ("aten.narrow_copy.default",),
}


@pytest.mark.parametrize("name", sorted(OPINFO))
def test_pool_misc_opinfo(name):
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
    # grid points inside, on the edge and outside [-1, 1] (padding decides those)
    x, grid = torch.randn(2, 3, 5, 7), torch.rand(2, 4, 6, 2) * 2.6 - 1.3
    grid[0, 0, 0] = torch.tensor([1.0, -1.0])
    check(lambda t, g: torch.nn.functional.grid_sample(t, g, mode, padding_mode, align_corners),
          x, grid, generated=OPINFO["grid_sampler_2d"])
