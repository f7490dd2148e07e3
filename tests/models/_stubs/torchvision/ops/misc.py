"""FrozenBatchNorm2d: batch norm over NCHW with fixed statistics and affine parameters.

Written for the tests (not torchvision's code); it has torchvision's interface: buffers
``weight``, ``bias``, ``running_mean``, ``running_var`` of size ``num_features`` and ``eps``.
The buffers are never updated, in train mode as in eval mode.
"""
import torch
from torch import nn


class FrozenBatchNorm2d(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.register_buffer("weight", torch.ones(num_features))
        self.register_buffer("bias", torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # A BatchNorm2d state dict carries num_batches_tracked, which has no place here.
        state_dict.pop(prefix + "num_batches_tracked", None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = self.weight * (self.running_var + self.eps).rsqrt()
        shift = self.bias - self.running_mean * scale
        return x * scale.reshape(1, -1, 1, 1) + shift.reshape(1, -1, 1, 1)

    def extra_repr(self) -> str:
        return f"{self.num_features}, eps={self.eps}"
