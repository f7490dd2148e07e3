"""Sized kernels (a graph compiled with symbolic sizes) launched directly on the GPU: the grid
is computed from the call's sizes, and a call at the sizes of the launcher's last direct launch
reuses that launch's grid without computing extents again."""
import pytest
import torch

pytestmark = pytest.mark.gpu


def test_a_sized_kernel_reuses_its_grid_only_at_the_sizes_it_last_launched(monkeypatch):
    from tuner.compiler.runtime import launch

    computed = []   # the sizes each extents computation was made for
    to_bucket = launch.Launcher._to_bucket

    def counting(self, args):
        computed.append(tuple(args[-self.nsizes:]))
        return to_bucket(self, args)
    monkeypatch.setattr(launch.Launcher, "_to_bucket", counting)

    def f(x):
        return torch.sigmoid(x) * 2 + 1
    cf = torch.compile(f, backend="tuner", dynamic=True)
    # 2,100 and 4,000 share a size bucket (4,096) but not a grid; 9,000 is another bucket
    sizes = (2100, 2100, 2100, 4000, 4000, 9000, 2100, 2100)
    for n in sizes:
        x = torch.randn(n, device="cuda")
        x[-1] = 5.0   # the last block's last element: a grid one block short leaves it unwritten
        out = cf(x)
        torch.testing.assert_close(out, f(x))
    # the first call at a size (and the one after a call that compiled or took the JIT path)
    # computes extents; the third 2,100, the second 4,000 and the last 2,100 reuse the grid
    assert computed.count((2100,)) == 3, computed
    assert computed.count((4000,)) == 1, computed
    assert computed[-1] == (2100,) and len(computed) == len(sizes) - 3, computed
