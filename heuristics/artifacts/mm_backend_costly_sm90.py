"""mm_backend.costly heuristic for NVIDIA H200 + NVIDIA H100 80GB HBM3, learned by `tuner learn` from 1554 problems.

Regression tree max_depth=6, min_samples_leaf=10 (41 leaves, 16 of them agree and may answer); thresholds template 1.4872, extern 1.1640. Leaves of near-ties answer extern (no training problem won by template by more than 5%).
Held-out test split (2% tolerance): 86 correct, 1 wrong, 224 unsure of 311; largest loss of any answer 1.471875.
Generated code: re-run `tuner learn` instead of editing it.
"""
from tuner.heuristics.interface import (Precondition, as_float32, derive_features, in_domain,
                                        two_way_choice)

PRECONDITION = Precondition(point='mm_backend.costly', capability=(9, 0), shared_memory=232448, feature_schema=1, gpu_name='NVIDIA H200 + NVIDIA H100 80GB HBM3')
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
    ('lead_aligned_16b', '(((mat1_transposed * m + (1 - mat1_transposed) * k) * itemsize) % 16 == 0) * (((mat2_transposed * k + (1 - mat2_transposed) * n) * itemsize) % 16 == 0) * ((n * itemsize) % 16 == 0) * 1.0'),
)
FEATURES = ('m', 'k', 'n', 'dtype_fp16', 'dtype_fp32', 'itemsize', 'mat2_transposed', 'mk', 'kn', 'mn', 'arith_intensity', 'flops', 'tiles_128', 'k_steps_64', 'out_bytes', 'epilogue_per_flop', 'aligned_16b', 'lead_aligned_16b')
# Answer 'template' when the predicted speedup is at least exp(LOG_THRESHOLD_TEMPLATE), 'extern' likewise.
LOG_THRESHOLD_TEMPLATE = 0.396863008775585
LOG_THRESHOLD_EXTERN = 0.15182235351761905
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.2, 'default_tie': 0.05, 'leaf_ranges': False, 'open_above': [], 'open_below': [], 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'thresholds', 'derived_features': True, 'min_dim': 0, 'max_depth': 6, 'min_samples_leaf': 10, 'keep': ['mm_costly_h200_s[12]*:dtype=float32', 'mm_costly_large_h100_s0*:dtype=float32']}


def score(f):
    """Predicted log(time of 'extern' / time of 'template'): above 0 favours 'template'; exactly 0 in
    leaves whose training problems did not all agree (learned with a default tie, a leaf of
    near-ties scores just below 0: it answers 'extern')."""
    if f['k'] <= 474.5:
        if f['itemsize'] <= 3.0:
            if f['arith_intensity'] <= 91.54262924194336:
                if f['epilogue_per_flop'] <= 0.00764843518845737:
                    return 0.35973549002345395
                else:
                    if f['arith_intensity'] <= 14.237861156463623:
                        if f['mn'] <= 12084.0:
                            return 0.40533319653756844
                        else:
                            return 0.396863008775585
                    else:
                        if f['flops'] <= 6488670.0:
                            return 0.35704495283669757
                        else:
                            return 0.393713966272943
            else:
                return 0.0
        else:
            if f['mn'] <= 59392.0:
                if f['m'] <= 32.5:
                    if f['mat2_transposed'] <= 0.5:
                        if f['flops'] <= 786432.0:
                            return 0.40546510810816433
                        else:
                            return 0.0
                    else:
                        return 0.0
                else:
                    if f['kn'] <= 195.0:
                        if f['m'] <= 1877.0:
                            return 0.40546510810816455
                        else:
                            return 0.0
                    else:
                        if f['out_bytes'] <= 47572.0:
                            return 0.0
                        else:
                            return 0.0
            else:
                if f['out_bytes'] <= 1065398.0:
                    return 0.0
                else:
                    if f['mat2_transposed'] <= 0.5:
                        if f['n'] <= 715.0:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        return -0.15182235351761905
    else:
        if f['dtype_fp32'] <= 0.5:
            if f['k_steps_64'] <= 45.0:
                if f['out_bytes'] <= 850326.0:
                    if f['epilogue_per_flop'] <= 0.0020523350685834885:
                        if f['tiles_128'] <= 12.5:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['k_steps_64'] <= 9.5:
                            return 0.37606526255531414
                        else:
                            return 0.0
                else:
                    if f['lead_aligned_16b'] <= 0.5:
                        return 0.0
                    else:
                        if f['epilogue_per_flop'] <= 0.0037647192366421223:
                            return 0.0
                        else:
                            return 0.0
            else:
                if f['out_bytes'] <= 11245.0:
                    return 0.0
                else:
                    if f['dtype_fp16'] <= 0.5:
                        if f['mn'] <= 31352.0:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['k'] <= 4099.5:
                            return 0.0
                        else:
                            return -0.012936254280162686
        else:
            if f['mat2_transposed'] <= 0.5:
                if f['epilogue_per_flop'] <= 0.0019526483956724405:
                    if f['mk'] <= 39869.0:
                        return 0.0
                    else:
                        if f['lead_aligned_16b'] <= 0.5:
                            return 0.0
                        else:
                            return -0.06272962357929227
                else:
                    if f['aligned_16b'] <= 0.5:
                        if f['kn'] <= 594240.5:
                            return -0.02243433206885698
                        else:
                            return 0.0
                    else:
                        if f['arith_intensity'] <= 7.866953611373901:
                            return 0.0
                        else:
                            return 0.0
            else:
                if f['mk'] <= 41438.5:
                    if f['mk'] <= 5695.5:
                        return -0.4054651081081645
                    else:
                        return 0.0
                else:
                    if f['out_bytes'] <= 557056.0:
                        return -0.39366533984892227
                    else:
                        if f['out_bytes'] <= 1490944.0:
                            return -0.4054651081081645
                        else:
                            return -0.40546510810816416


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
