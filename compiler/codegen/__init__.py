"""Source generation: Triton kernels per fused group, and the Python wrapper per graph."""
