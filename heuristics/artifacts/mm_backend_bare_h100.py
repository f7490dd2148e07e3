"""mm_backend.bare heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 642 problems.

Regression tree max_depth=8, min_samples_leaf=10 (26 leaves, 11 of them agree and may answer); thresholds template 1.4399, extern 1.0000. Leaves of near-ties answer extern (no training problem won by template by more than 2%).
Held-out test split (2% tolerance): 51 correct, 0 wrong, 78 unsure of 129; largest loss of any answer NaN.
Generated code: re-run `tuner learn` instead of editing it.
"""
from tuner.heuristics.interface import (Precondition, as_float32, derive_features, in_domain,
                                        two_way_choice)

PRECONDITION = Precondition(point='mm_backend.bare', capability=(9, 0), shared_memory=232448, feature_schema=1, gpu_name='NVIDIA H100 80GB HBM3')
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
FEATURES = ('m', 'k', 'n', 'dtype_fp16', 'dtype_fp32', 'itemsize', 'mat2_transposed', 'mk', 'kn', 'mn', 'arith_intensity', 'flops', 'tiles_64', 'k_steps_64', 'out_bytes', 'aligned_16b')
# Answer 'template' when the predicted speedup is at least exp(LOG_THRESHOLD_TEMPLATE), 'extern' likewise.
LOG_THRESHOLD_TEMPLATE = 0.3645568296892948
LOG_THRESHOLD_EXTERN = 0.0
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'default_tie': 0.02, 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'thresholds', 'derived_features': True, 'min_dim': 0, 'max_depth': 8, 'min_samples_leaf': 10}


def score(f):
    """Predicted log(time of 'extern' / time of 'template'): above 0 favours 'template'; exactly 0 in
    leaves whose training problems did not all agree (learned with a default tie, a leaf of
    near-ties scores just below 0: it answers 'extern')."""
    if f['k'] <= 511.5:
        if f['mn'] <= 39680.0:
            if f['dtype_fp16'] <= 0.5:
                if f['k_steps_64'] <= 1.5:
                    if f['m'] <= 14.5:
                        return 0.2693022972756083
                    else:
                        return 0.3645568296892948
                else:
                    return 0.3882836768999637
            else:
                return 0.24394162118112264
        else:
            if f['mn'] <= 369664.0:
                return 0.0
            else:
                return 0.0
    else:
        if f['aligned_16b'] <= 0.5:
            if f['dtype_fp32'] <= 0.5:
                if f['k'] <= 2947.0:
                    if f['mk'] <= 476750.0:
                        return 0.3483131928494967
                    else:
                        if f['n'] <= 1023.5:
                            return 0.0
                        else:
                            if f['mk'] <= 1217433.0:
                                return 0.0
                            else:
                                return 0.0
                else:
                    if f['out_bytes'] <= 2041401.0:
                        return 0.0
                    else:
                        return 0.0
            else:
                if f['kn'] <= 1712935.0:
                    return 0.0
                else:
                    return -0.352447681398659
        else:
            if f['flops'] <= 247463936.0:
                return 0.0
            else:
                if f['mat2_transposed'] <= 0.5:
                    if f['flops'] <= 3019898880.0:
                        if f['out_bytes'] <= 1310720.0:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['tiles_64'] <= 300.0:
                            return 0.0
                        else:
                            if f['arith_intensity'] <= 758.8435974121094:
                                if f['out_bytes'] <= 9830400.0:
                                    return 0.0
                                else:
                                    return -0.03063263468219858
                            else:
                                return 0.0
                else:
                    if f['itemsize'] <= 3.0:
                        if f['flops'] <= 9126805504.0:
                            if f['k_steps_64'] <= 24.0:
                                return 0.0
                            else:
                                return -0.026803774251420553
                        else:
                            if f['tiles_64'] <= 1856.0:
                                return -0.02700639735360175
                            else:
                                return -0.031169665440246144
                    else:
                        return -0.40546510810816455


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
