"""The shipped learning recipe's parameters (`tuner learn` defaults); see learn.py."""

BASE_COLUMNS = ("max_depth", "min_samples_leaf", "dataset", "correct", "wrong", "unsure", "total",
                "max_wrong_speedup", "gmean_wrong_speedup")
DEFAULT_DEPTHS = (6, 8, 12, 16)
DEFAULT_LEAVES = (10, 20, 50, 100, 200)
DEFAULT_TOLERANCE = 0.02
DEFAULT_CLIP = 1.5
DEFAULT_LEAF_MARGIN = 0.10  # a leaf answers only if each training problem was won by more than this
DEFAULT_ENSEMBLE = 1        # trees that must agree (1: the main tree alone)
LEAF_RULES = ("margin", "no-loss")
DEFAULT_LEAF_RULE = "margin"
DEFAULT_LEAF_MIN_CLEAR = 0.0  # no-loss rule: share of a leaf's problems its choice must win clearly
CALIBRATIONS = ("thresholds", "leaves")
DEFAULT_CALIBRATION = "thresholds"
# calibration "leaves": candidates for the fewest validation problems a leaf needs in one half
# of the validation split to keep answering (K), chosen per tree by the two-fold estimate
DEFAULT_LEAF_MIN_VAL = (0, 2, 5, 10, 20, 40)
OUTLIER_LOSS = 1.10     # an answer this much slower than the other choice is an outlier
