"""What generated code imports at run time: Triton helper functions."""
