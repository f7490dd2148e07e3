"""The shipped learning recipe's parameters (`tuner learn` defaults); see learn.py."""

BASE_COLUMNS = ("max_depth", "min_samples_leaf", "dataset", "correct", "wrong", "unsure", "total",
                "max_wrong_speedup", "gmean_wrong_speedup")
DEFAULT_DEPTHS = (6, 8, 12, 16)
DEFAULT_LEAVES = (10, 20, 50, 100, 200)
DEFAULT_TOLERANCE = 0.02
DEFAULT_CLIP = 1.5
DEFAULT_LEAF_MARGIN = 0.10  # a leaf answers only if each training problem was won by more than this
OUTLIER_LOSS = 1.10     # an answer this much slower than the other choice is an outlier
# Recorded in each module's TRAINING and report settings: the rules the recipe fixes, under the
# names the alternatives tried were compared by (heuristics/README.md, "Alternatives tried"), so
# the record of a module learned now reads key for key like those in git history.
FIXED_RULES = {"leaf_rule": "margin", "leaf_min_clear": 0.0, "ensemble": 1, "calibration": "thresholds"}
