"""Our torch.compile backend: capture, IR, lowering, passes, scheduler, Triton and wrapper codegen, runtime."""
