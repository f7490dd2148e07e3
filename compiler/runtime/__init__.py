"""What generated code calls at run time: kernel launching and tuning (launch), the Triton
helper functions kernels call as `th.<name>` (helpers)."""
