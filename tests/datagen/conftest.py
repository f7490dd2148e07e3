"""Collectors compile and run our generated Triton kernels (the mm point's runners): on CPU in
Triton's interpreter. Triton picks interpreter or compiler when a @triton.jit function is
decorated, our helpers' at import, so the setting must precede any import of triton (run
alone, or after a test folder that imported them without it, the kernels could not call
them). An explicit TRITON_INTERPRET=0 (GPU runs) is kept."""
import os

os.environ.setdefault("TRITON_INTERPRET", "1")
