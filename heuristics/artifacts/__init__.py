"""Generated heuristic modules (written by `tuner learn`); discovered by name at run time."""
