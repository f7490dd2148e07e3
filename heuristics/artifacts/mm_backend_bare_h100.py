"""mm_backend.bare heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 642 problems.

Regression tree max_depth=8, min_samples_leaf=10 (26 leaves, 11 of them agree and may answer); thresholds template 1.0000, extern 1.0000. Leaves of near-ties answer extern (no training problem won by template by more than 2%).
Held-out test split (2% tolerance): 45 correct, 0 wrong, 84 unsure of 129; largest loss of any answer NaN.
Generated code: re-run `tuner learn` instead of editing it.
"""
from tuner.heuristics.interface import (Precondition, as_float32, derive_features, in_domain,
                                        inside, two_way_choice)

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
FEATURES = ('m', 'k', 'n', 'batch', 'op_bmm', 'op_addmm', 'dtype_fp16', 'dtype_bf16', 'dtype_fp32', 'itemsize', 'mat1_transposed', 'mat2_transposed', 'mk', 'kn', 'mn', 'arith_intensity', 'epilogue', 'costly_epilogue', 'flops', 'tiles_128', 'tiles_64', 'k_steps_64', 'out_bytes', 'epilogue_per_flop', 'aligned_16b')
# Answer 'template' when the predicted speedup is at least exp(LOG_THRESHOLD_TEMPLATE), 'extern' likewise.
LOG_THRESHOLD_TEMPLATE = 0.0
LOG_THRESHOLD_EXTERN = 0.0
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'default_tie': 0.02, 'leaf_ranges': True, 'open_above': ['m', 'k', 'n', 'batch', 'mk', 'kn', 'mn', 'arith_intensity', 'flops', 'tiles_128', 'tiles_64', 'k_steps_64', 'out_bytes'], 'open_below': ['epilogue_per_flop'], 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'thresholds', 'derived_features': True, 'min_dim': 0, 'max_depth': 8, 'min_samples_leaf': 10}
# per answering leaf (node id): each FEATURES value's (minimum, maximum) over the leaf's
# training problems (an infinite bound: a leaf of the first choice left open toward
# larger problems, TRAINING['open_above'] / ['open_below']); outside them the leaf is unsure
RANGES = {
    5: ((1.0, 1.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 5.0, 4.0, 20.0, 0.8315473794937134, 0.0, 0.0, 80.0, 1.0, 1.0, 1.0, 40.0, 0.03125, 0.0,),
        (13.0, 64.0, 8191.0, 62.0, 1.0, 1.0, 0.0, 1.0, 1.0, 4.0, 1.0, 1.0, 512.0, 73719.0, 32764.0, 8.588295936584473, 0.0, 0.0, 1906728.0, 636.0, 1272.0, 1.0, 317788.0, 2.0, 1.0,)),
    6: ((16.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 39.0, 2.0, 16.0, 0.6554622054100037, 0.0, 0.0, 156.0, 1.0, 1.0, 1.0, 32.0, 0.03125, 0.0,),
        (8192.0, 64.0, 1600.0, 45.0, 1.0, 1.0, 0.0, 1.0, 1.0, 4.0, 1.0, 0.0, 491520.0, 32768.0, 30299.0, 18.684185028076172, 0.0, 0.0, 44236800.0, 2880.0, 5760.0, 1.0, 921600.0, 2.0, 1.0,)),
    7: ((2.0, 65.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 455.0, 142.0, 46.0, 1.7935200929641724, 0.0, 0.0, 6532.0, 1.0, 1.0, 2.0, 92.0, 0.003913894295692444, 0.0,),
        (5885.0, 511.0, 2047.0, 28.0, 1.0, 1.0, 0.0, 1.0, 1.0, 4.0, 1.0, 1.0, 2093056.0, 198559.0, 37269.0, 51.96718978881836, 0.0, 0.0, 41643000.0, 728.0, 1456.0, 8.0, 555240.0, 0.04444444552063942, 1.0,)),
    8: ((1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2.0, 2.0, 1.0, 0.4000000059604645, 0.0, 0.0, 4.0, 1.0, 1.0, 1.0, 2.0, 0.012345679104328156, 0.0,),
        (93.0, 162.0, 5401.0, 44.0, 1.0, 1.0, 1.0, 0.0, 0.0, 2.0, 1.0, 1.0, 5184.0, 691328.0, 37807.0, 25.600000381469727, 0.0, 0.0, 46137344.0, 176.0, 352.0, 3.0, 360448.0, 2.0, 1.0,)),
    16: ((4.0, 512.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 3336.0, 3778.0, 14.0, 1.554275631904602, 0.0, 0.0, 52892.0, 1.0, 1.0, 8.0, 28.0, 0.0007262164144776762, 0.0,),
        (610.0, 2754.0, 8192.0, 8.0, 1.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, 476410.0, 6397952.0, 4997120.0, 328.7500915527344, 0.0, 0.0, 7805501440.0, 320.0, 1280.0, 44.0, 9994240.0, 0.00390625, 0.0,)),
    27: ((17.0, 683.0, 519.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 4.0, 0.0, 0.0, 117861.0, 1721552.0, 90542.0, 16.904592514038086, 0.0, 0.0, 1255455360.0, 40.0, 84.0, 11.0, 362168.0, float('-inf'), 0.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 0.0, 0.0, 1.0, 4.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.005856515374034643, 0.0,)),
    40: ((512.0, 512.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 524288.0, 262144.0, 524288.0, 227.55555725097656, 0.0, 0.0, 4294967296.0, 192.0, 768.0, 8.0, 11272192.0, float('-inf'), 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0078125, 1.0,)),
    46: ((64.0, 2048.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 196608.0, 1048576.0, 49152.0, 57.96226501464844, 0.0, 0.0, 301989888.0, 6.0, 12.0, 32.0, 98304.0, float('-inf'), 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0009765625, 1.0,)),
    48: ((128.0, 768.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 1409024.0, 589824.0, 524288.0, 122.7372817993164, 0.0, 0.0, 9663676416.0, 32.0, 128.0, 12.0, 1048576.0, float('-inf'), 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 0.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0026041667442768812, 1.0,)),
    49: ((1024.0, 512.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 1048576.0, 262144.0, 1048576.0, 227.55555725097656, 0.0, 0.0, 14495514624.0, 512.0, 2048.0, 8.0, 16777216.0, float('-inf'), 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.00390625, 1.0,)),
    50: ((256.0, 512.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 4.0, 0.0, 1.0, 131072.0, 262144.0, 524288.0, 157.53846740722656, 0.0, 0.0, 2147483648.0, 128.0, 512.0, 8.0, 8388608.0, float('-inf'), 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 0.0, 0.0, 1.0, 4.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0078125, 1.0,)),
}


def score(f):
    """Predicted log(time of 'extern' / time of 'template'): above 0 favours 'template'; exactly 0 in
    leaves whose training problems did not all agree or outside the leaf's training ranges (RANGES) (learned with a default tie, a leaf of
    near-ties scores just below 0: it answers 'extern')."""
    if f['k'] <= 511.5:
        if f['mn'] <= 39680.0:
            if f['dtype_fp16'] <= 0.5:
                if f['k_steps_64'] <= 1.5:
                    if f['m'] <= 14.5:
                        return 0.2693022972756083 if inside(f, FEATURES, RANGES[5]) else 0.0
                    else:
                        return 0.3645568296892948 if inside(f, FEATURES, RANGES[6]) else 0.0
                else:
                    return 0.3882836768999637 if inside(f, FEATURES, RANGES[7]) else 0.0
            else:
                return 0.24394162118112264 if inside(f, FEATURES, RANGES[8]) else 0.0
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
                        return 0.3483131928494967 if inside(f, FEATURES, RANGES[16]) else 0.0
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
                    return -0.352447681398659 if inside(f, FEATURES, RANGES[27]) else 0.0
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
                                    return -0.03063263468219858 if inside(f, FEATURES, RANGES[40]) else 0.0
                            else:
                                return 0.0
                else:
                    if f['itemsize'] <= 3.0:
                        if f['flops'] <= 9126805504.0:
                            if f['k_steps_64'] <= 24.0:
                                return 0.0
                            else:
                                return -0.026803774251420553 if inside(f, FEATURES, RANGES[46]) else 0.0
                        else:
                            if f['tiles_64'] <= 1856.0:
                                return -0.02700639735360175 if inside(f, FEATURES, RANGES[48]) else 0.0
                            else:
                                return -0.031169665440246144 if inside(f, FEATURES, RANGES[49]) else 0.0
                    else:
                        return -0.40546510810816455 if inside(f, FEATURES, RANGES[50]) else 0.0


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
