"""Learned heuristics: feature contexts, training, evaluation, tree-to-Python rendering, runtime registry."""
