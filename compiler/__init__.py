"""Our torch.compile backend (`backend="tuner"`). The pipeline by module: backend (capture),
graph + lowering + lowerings/ (FX -> IR), ir + sym (the IR and its index expressions),
scheduler (fusion), codegen/ (Triton kernels, the Python wrapper), compile_graph (ties them
together), runtime/ (what generated code calls at run time), cudagraphs, stats."""
