"""Autotuning points outside kernels: each module answers one recurring choice (pad a matmul
or not, ...) through tuner.engine.decide, so heuristics, cache and measurement apply alike."""
