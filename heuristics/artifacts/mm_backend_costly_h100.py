"""mm_backend.costly heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 419 problems.

Regression tree max_depth=6, min_samples_leaf=10 (16 leaves, 10 of them agree and may answer); thresholds template 1.4311, extern 1.0989. Leaves of near-ties answer extern (no training problem won by template by more than 2%).
Held-out test split (2% tolerance): 37 correct, 1 wrong, 46 unsure of 84; largest loss of any answer 1.045576.
Generated code: re-run `tuner learn` instead of editing it.
"""
from tuner.heuristics.interface import (Precondition, as_float32, derive_features, in_domain,
                                        two_way_choice)

PRECONDITION = Precondition(point='mm_backend.costly', capability=(9, 0), shared_memory=232448, feature_schema=1, gpu_name='NVIDIA H100 80GB HBM3')
CHOICES = ('extern', 'template')
# outside this domain (minimum per feature) the heuristic is unsure
DOMAIN = {}
RAW = (
    'm',
    'k',
    'n',
    'batch',
    'op_bmm',
    'op_addmm',
    'dtype_fp16',
    'dtype_bf16',
    'dtype_fp32',
    'itemsize',
    'mat1_transposed',
    'mat2_transposed',
    'mk',
    'kn',
    'mn',
    'arith_intensity',
    'epilogue',
    'costly_epilogue',
)
# computed from RAW, in order (see tuner.heuristics.contexts)
DERIVED = (
    ('flops', '2.0 * batch * m * n * k'),
    ('tiles_128', 'batch * ((m + (-m) % 128) / 128) * ((n + (-n) % 128) / 128)'),
    ('tiles_64', 'batch * ((m + (-m) % 64) / 64) * ((n + (-n) % 64) / 64)'),
    ('k_steps_64', '(k + (-k) % 64) / 64'),
    ('out_bytes', 'itemsize * batch * m * n'),
    ('epilogue_per_flop', '2.0 * itemsize * batch * m * n / flops'),
    ('aligned_16b', '((k * itemsize) % 16 == 0) * ((n * itemsize) % 16 == 0) * 1.0'),
)
FEATURES = ('m', 'k', 'n', 'dtype_fp32', 'mat2_transposed', 'mk', 'kn', 'mn', 'arith_intensity', 'flops', 'out_bytes', 'aligned_16b')
# Answer 'template' when the predicted speedup is at least exp(LOG_THRESHOLD_TEMPLATE), 'extern' likewise.
LOG_THRESHOLD_TEMPLATE = 0.35842024316895266
LOG_THRESHOLD_EXTERN = 0.09432532687886146
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'default_tie': 0.02, 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'thresholds', 'derived_features': True, 'min_dim': 0, 'max_depth': 6, 'min_samples_leaf': 10}


def score(f):
    """Predicted log(time of 'extern' / time of 'template'): above 0 favours 'template'; exactly 0 in
    leaves whose training problems did not all agree (learned with a default tie, a leaf of
    near-ties scores just below 0: it answers 'extern')."""
    if f['arith_intensity'] <= 114.48961639404297:
        if f['k'] <= 1731.0:
            if f['mk'] <= 32926.5:
                if f['kn'] <= 70175.5:
                    if f['m'] <= 9.5:
                        return 0.4013688222920326
                    else:
                        return 0.40546510810816433
                else:
                    return 0.3822669514810762
            else:
                if f['arith_intensity'] <= 43.70843505859375:
                    return 0.35842024316895266
                else:
                    return 0.0
        else:
            return 0.0
    else:
        if f['aligned_16b'] <= 0.5:
            if f['dtype_fp32'] <= 0.5:
                if f['n'] <= 1713.0:
                    return 0.0
                else:
                    if f['flops'] <= 21017128960.0:
                        return 0.0
                    else:
                        return 0.31840629886943833
            else:
                return -0.042965417241888224
        else:
            if f['flops'] <= 3959422976.0:
                return 0.0
            else:
                if f['kn'] <= 6291456.0:
                    if f['mn'] <= 655360.0:
                        return -0.30563945544116844
                    else:
                        if f['mat2_transposed'] <= 0.5:
                            return 0.0
                        else:
                            return -0.09676367757829288
                else:
                    if f['out_bytes'] <= 9831424.0:
                        return -0.002735738185697875
                    else:
                        return -0.09432532687886146


def features_of(features):
    """The tree's inputs from the point's feature dict, rounded as the tree saw them."""
    f = derive_features(features, RAW, DERIVED)
    return {name: as_float32(f[name]) for name in FEATURES}


def decide(features):
    """'template', 'extern', or None when unsure. `features`: the point's feature dict."""
    if not in_domain(features, DOMAIN):
        return None
    return two_way_choice(score(features_of(features)), LOG_THRESHOLD_TEMPLATE, positive='template',
                          negative='extern', log_threshold_negative=LOG_THRESHOLD_EXTERN)
