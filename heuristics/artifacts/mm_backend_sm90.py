"""mm_backend heuristic for NVIDIA H200 + NVIDIA H100 80GB HBM3, learned by `tuner learn` from 817 problems.

Regression tree max_depth=4, min_samples_leaf=20 (12 leaves, 4 of them agree and may answer); thresholds template 1.0000, extern 1.0000. Leaves of near-ties answer extern (no training problem won by template by more than 5%).
Held-out test split (2% tolerance): 63 correct, 1 wrong, 100 unsure of 164; largest loss of any answer 1.052296.
Generated code: re-run `tuner learn` instead of editing it.
"""
from tuner.heuristics.interface import (Precondition, as_float32, derive_features, in_domain,
                                        inside, two_way_choice)

PRECONDITION = Precondition(point='mm_backend', capability=(9, 0), shared_memory=232448, feature_schema=1, gpu_name='NVIDIA H200 + NVIDIA H100 80GB HBM3')
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
FEATURES = ('m', 'k', 'n', 'batch', 'op_bmm', 'op_addmm', 'dtype_fp16', 'dtype_bf16', 'dtype_fp32', 'itemsize', 'mat1_transposed', 'mat2_transposed', 'mk', 'kn', 'mn', 'arith_intensity', 'epilogue', 'costly_epilogue', 'flops', 'tiles_128', 'tiles_64', 'k_steps_64', 'out_bytes', 'epilogue_per_flop', 'aligned_16b', 'lead_aligned_16b')
# Answer 'template' when the predicted speedup is at least exp(LOG_THRESHOLD_TEMPLATE), 'extern' likewise.
LOG_THRESHOLD_TEMPLATE = 0.0
LOG_THRESHOLD_EXTERN = 0.0
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'default_tie': 0.05, 'leaf_ranges': True, 'open_above': ['m', 'k', 'n', 'batch', 'mk', 'kn', 'mn', 'arith_intensity', 'flops', 'tiles_128', 'tiles_64', 'k_steps_64', 'out_bytes'], 'open_below': ['epilogue_per_flop'], 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'thresholds', 'derived_features': True, 'min_dim': 0, 'max_depth': 4, 'min_samples_leaf': 20}
# per answering leaf (node id): each FEATURES value's (minimum, maximum) over the leaf's
# training problems (an infinite bound: a leaf of the first choice left open toward
# larger problems, TRAINING['open_above'] / ['open_below']); outside them the leaf is unsure
RANGES = {
    4: ((3.0, 141.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 588.0, 512.0, 16.0, 0.9979290962219238, 1.0, 0.0, 114688.0, 1.0, 1.0, 3.0, 224.0, 0.0031298904214054346, 0.0, 0.0,),
        (16384.0, 639.0, 14336.0, 256.0, 1.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, 8388608.0, 5636096.0, 176160768.0, 437.04217529296875, 1.0, 0.0, 90194313216.0, 10752.0, 43008.0, 10.0, 352321536.0, 0.014184396713972092, 1.0, 1.0,)),
    5: ((1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 4.0, 4.0, 3.0, 0.6315789222717285, 1.0, 0.0, 24.0, 1.0, 1.0, 1.0, 6.0, 0.014388489536941051, 0.0, 0.0,),
        (8192.0, 139.0, 8192.0, 384.0, 1.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, 704438.0, 455064.0, 7155712.0, 108.60100555419922, 1.0, 0.0, 25769803776.0, 11440.0, 45760.0, 3.0, 362024960.0, 2.0, 1.0, 1.0,)),
    19: ((512.0, 2048.0, 768.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 1572864.0, 1572864.0, 1310720.0, 374.6341552734375, 1.0, 0.0, 6442450944.0, 80.0, 320.0, 32.0, 2621440.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 1.0, 4.0, 0.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.001953125, 1.0, 1.0,)),
    21: ((8.0, 8101.0, 27.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 88064.0, 221184.0, 837.0, 7.978618144989014, 1.0, 0.0, 13713408.0, 1.0, 1.0, 127.0, 3348.0, float('-inf'), 0.0, 0.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.00048828125, 1.0, 1.0,)),
}


def score(f):
    """Predicted log(time of 'extern' / time of 'template'): above 0 favours 'template'; exactly 0 in
    leaves whose training problems did not all agree or outside the leaf's training ranges (RANGES) (learned with a default tie, a leaf of
    near-ties scores just below 0: it answers 'extern')."""
    if f['k'] <= 1792.0:
        if f['k_steps_64'] <= 10.5:
            if f['dtype_fp32'] <= 0.5:
                if f['epilogue_per_flop'] <= 0.014286443125456572:
                    return 0.3394815133666912 if inside(f, FEATURES, RANGES[4]) else 0.0
                else:
                    return 0.4035040381600266 if inside(f, FEATURES, RANGES[5]) else 0.0
            else:
                return 0.0
        else:
            if f['epilogue_per_flop'] <= 0.002056265715509653:
                if f['tiles_128'] <= 75.0:
                    return 0.0
                else:
                    return 0.0
            else:
                return 0.0
    else:
        if f['k_steps_64'] <= 122.5:
            if f['mat2_transposed'] <= 0.5:
                if f['tiles_128'] <= 216.0:
                    return 0.0
                else:
                    return 0.0
            else:
                if f['arith_intensity'] <= 363.8688049316406:
                    return 0.0
                else:
                    return -0.0207181066855074 if inside(f, FEATURES, RANGES[19]) else 0.0
        else:
            if f['tiles_128'] <= 170.0:
                return -0.10424546752352665 if inside(f, FEATURES, RANGES[21]) else 0.0
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
