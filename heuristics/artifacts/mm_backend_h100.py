"""mm_backend heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 396 problems.

Regression tree max_depth=6, min_samples_leaf=5 (22 leaves, 11 of them agree and may answer); thresholds template 1.0000, extern inf.
Held-out test split (2% tolerance): 47 correct, 0 wrong, 32 unsure of 79; largest loss of any answer NaN.
Generated code: re-run `tuner learn` instead of editing it.
"""
from tuner.heuristics.interface import (Precondition, as_float32, derive_features, in_domain,
                                        two_way_choice)

PRECONDITION = Precondition(point='mm_backend', capability=(9, 0), shared_memory=232448, feature_schema=1, gpu_name='NVIDIA H100 80GB HBM3')
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
FEATURES = ('m', 'k', 'op_addmm', 'dtype_fp32', 'itemsize', 'mat2_transposed', 'mk', 'kn', 'arith_intensity', 'flops', 'tiles_128', 'k_steps_64', 'out_bytes')
# Answer 'template' when the predicted speedup is at least exp(LOG_THRESHOLD_TEMPLATE), 'extern' likewise.
LOG_THRESHOLD_TEMPLATE = 0.0
LOG_THRESHOLD_EXTERN = float('inf')
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'thresholds', 'derived_features': True, 'min_dim': 0, 'max_depth': 6, 'min_samples_leaf': 5}


def score(f):
    """Predicted log(time of 'extern' / time of 'template'): above 0 favours 'template'; exactly 0 in
    leaves whose training problems did not all agree."""
    if f['k'] <= 1241.0:
        if f['kn'] <= 1020938.0:
            if f['itemsize'] <= 3.0:
                if f['mk'] <= 346368.0:
                    if f['k_steps_64'] <= 3.5:
                        return 0.4054651081081642
                    else:
                        if f['kn'] <= 98178.0:
                            return 0.37882446813777076
                        else:
                            return 0.4026923526752399
                else:
                    return 0.33010429910741146
            else:
                if f['mat2_transposed'] <= 0.5:
                    if f['flops'] <= 32922124.0:
                        return 0.40546510810816455
                    else:
                        return 0.33835588919097137
                else:
                    return 0.0
        else:
            if f['dtype_fp32'] <= 0.5:
                if f['tiles_128'] <= 29.5:
                    if f['k'] <= 895.5:
                        return 0.3559024696502557
                    else:
                        return 0.40488955957461015
                else:
                    if f['arith_intensity'] <= 174.8796157836914:
                        return 0.0
                    else:
                        if f['arith_intensity'] <= 462.1780548095703:
                            return 0.3302241937571594
                        else:
                            return 0.257032690128736
            else:
                return 0.0
    else:
        if f['mk'] <= 110894.5:
            if f['m'] <= 4.5:
                return 0.0
            else:
                return 0.0
        else:
            if f['out_bytes'] <= 81803.0:
                return -0.2346249247907045
            else:
                if f['itemsize'] <= 3.0:
                    if f['kn'] <= 30932992.0:
                        if f['tiles_128'] <= 84.0:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['flops'] <= 31967936512.0:
                            return 0.0
                        else:
                            return 0.0
                else:
                    if f['op_addmm'] <= 0.5:
                        return 0.0
                    else:
                        return 0.0


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
