"""mm_backend.costly heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 419 problems.

Regression tree max_depth=8, min_samples_leaf=10 (19 leaves, 12 of them agree and may answer); thresholds template 1.4311, extern 1.0000. Leaves of near-ties answer extern (no training problem won by template by more than 2%).
Held-out test split (2% tolerance): 33 correct, 2 wrong, 49 unsure of 84; largest loss of any answer 1.045576.
Generated code: re-run `tuner learn` instead of editing it.
"""
from tuner.heuristics.interface import (Precondition, as_float32, derive_features, in_domain,
                                        inside, two_way_choice)

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
FEATURES = ('m', 'k', 'n', 'batch', 'op_bmm', 'op_addmm', 'dtype_fp16', 'dtype_bf16', 'dtype_fp32', 'itemsize', 'mat1_transposed', 'mat2_transposed', 'mk', 'kn', 'mn', 'arith_intensity', 'epilogue', 'costly_epilogue', 'flops', 'tiles_128', 'tiles_64', 'k_steps_64', 'out_bytes', 'epilogue_per_flop', 'aligned_16b')
# Answer 'template' when the predicted speedup is at least exp(LOG_THRESHOLD_TEMPLATE), 'extern' likewise.
LOG_THRESHOLD_TEMPLATE = 0.35842024316895266
LOG_THRESHOLD_EXTERN = 0.0
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'default_tie': 0.02, 'leaf_ranges': True, 'open_above': ['m', 'k', 'n', 'batch', 'mk', 'kn', 'mn', 'arith_intensity', 'flops', 'tiles_128', 'tiles_64', 'k_steps_64', 'out_bytes'], 'open_below': ['epilogue_per_flop'], 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'thresholds', 'derived_features': True, 'min_dim': 0, 'max_depth': 8, 'min_samples_leaf': 10}
# per answering leaf (node id): each FEATURES value's (minimum, maximum) over the leaf's
# training problems (an infinite bound: a leaf of the first choice left open toward
# larger problems, TRAINING['open_above'] / ['open_below']); outside them the leaf is unsure
RANGES = {
    5: ((1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 3.0, 33.0, 8.0, 0.7333333492279053, 1.0, 1.0, 198.0, 1.0, 1.0, 1.0, 16.0, 0.001953125, 0.0,),
        (9.0, 1024.0, 512.0, 44.0, 1.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0, 8192.0, 65536.0, 4096.0, 7.420289993286133, 1.0, 1.0, 46137344.0, 176.0, 352.0, 16.0, 360448.0, 2.0, 1.0,)),
    6: ((10.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 20.0, 1.0, 16.0, 0.4965035021305084, 1.0, 1.0, 80.0, 1.0, 1.0, 1.0, 32.0, 0.00390625, 0.0,),
        (8192.0, 512.0, 2047.0, 54.0, 1.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0, 32829.0, 65536.0, 262144.0, 56.88888931274414, 1.0, 1.0, 42446592.0, 864.0, 1728.0, 8.0, 28297728.0, 2.0, 1.0,)),
    7: ((1.0, 21.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 325.0, 74815.0, 1024.0, 0.9980506896972656, 1.0, 1.0, 1047410.0, 4.0, 8.0, 1.0, 2048.0, 0.001953125, 0.0,),
        (128.0, 1024.0, 8192.0, 40.0, 1.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0, 32768.0, 2359296.0, 865536.0, 51.20000076293945, 1.0, 1.0, 1454100480.0, 2120.0, 8480.0, 16.0, 69242880.0, 0.1599999964237213, 1.0,)),
    9: ((64.0, 8.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 65536.0, 60.0, 1032.0, 0.9834885001182556, 1.0, 1.0, 1281744.0, 1.0, 1.0, 1.0, 2064.0, 0.0019512195140123367, 0.0,),
        (8192.0, 1025.0, 128.0, 45.0, 1.0, 1.0, 0.0, 1.0, 1.0, 4.0, 1.0, 1.0, 1161216.0, 65536.0, 1048576.0, 42.445594787597656, 1.0, 1.0, 4966055936.0, 2880.0, 9472.0, 17.0, 155189248.0, 0.5, 1.0,)),
    18: ((730.0, 512.0, 1979.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 1368020.0, 2493440.0, 5465196.0, 426.75360107421875, 1.0, 1.0, 22396372992.0, 363.0, 1365.0, 8.0, 10930392.0, 0.0002441704273223877, 0.0,),
        (8192.0, 8191.0, 8192.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, 16834560.0, 67100672.0, 34164660.0, 999.5473022460938, 1.0, 1.0, 102932430848.0, 2112.0, 8448.0, 128.0, 68329320.0, 0.00390625, 0.0,)),
    19: ((513.0, 519.0, 519.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 4.0, 0.0, 0.0, 1333311.0, 531456.0, 347211.0, 262.4115905761719, 1.0, 1.0, 5275777536.0, 40.0, 144.0, 9.0, 2066364.0, float('-inf'), 0.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 0.0, 0.0, 1.0, 4.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.00770712923258543, 0.0,)),
    24: ((256.0, 512.0, 768.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 131072.0, 589824.0, 393216.0, 157.53846740722656, 1.0, 1.0, 4294967296.0, 32.0, 128.0, 8.0, 1048576.0, float('-inf'), 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0078125, 1.0,)),
    30: ((512.0, 512.0, 512.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 524288.0, 262144.0, 786432.0, 227.55555725097656, 1.0, 1.0, 4294967296.0, 48.0, 192.0, 8.0, 1572864.0, float('-inf'), 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 0.0, 1.0, 0.0, 2.0, 1.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.00390625, 1.0,)),
    32: ((2048.0, 512.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 1048576.0, 262144.0, 1048576.0, 227.55555725097656, 1.0, 1.0, 4294967296.0, 128.0, 512.0, 8.0, 4194304.0, float('-inf'), 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.00390625, 1.0,)),
    33: ((1024.0, 512.0, 2048.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 524288.0, 1048576.0, 2097152.0, 292.5714416503906, 1.0, 1.0, 4831838208.0, 192.0, 768.0, 8.0, 6291456.0, float('-inf'), 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0078125, 1.0,)),
    35: ((128.0, 4096.0, 1024.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 524288.0, 8388608.0, 524288.0, 122.7372817993164, 1.0, 1.0, 8589934592.0, 32.0, 128.0, 64.0, 1048576.0, float('-inf'), 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.00048828125, 1.0,)),
    36: ((512.0, 2048.0, 1024.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2097152.0, 8388608.0, 4194304.0, 437.04217529296875, 1.0, 1.0, 34359738368.0, 256.0, 1024.0, 32.0, 11272192.0, float('-inf'), 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0009765625, 1.0,)),
}


def score(f):
    """Predicted log(time of 'extern' / time of 'template'): above 0 favours 'template'; exactly 0 in
    leaves whose training problems did not all agree or outside the leaf's training ranges (RANGES) (learned with a default tie, a leaf of
    near-ties scores just below 0: it answers 'extern')."""
    if f['arith_intensity'] <= 114.48961639404297:
        if f['k'] <= 1731.0:
            if f['mk'] <= 32926.5:
                if f['kn'] <= 70175.5:
                    if f['m'] <= 9.5:
                        return 0.4013688222920326 if inside(f, FEATURES, RANGES[5]) else 0.0
                    else:
                        return 0.40546510810816433 if inside(f, FEATURES, RANGES[6]) else 0.0
                else:
                    return 0.3822669514810762 if inside(f, FEATURES, RANGES[7]) else 0.0
            else:
                if f['arith_intensity'] <= 43.70843505859375:
                    return 0.35842024316895266 if inside(f, FEATURES, RANGES[9]) else 0.0
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
                        return 0.31840629886943833 if inside(f, FEATURES, RANGES[18]) else 0.0
            else:
                return -0.042965417241888224 if inside(f, FEATURES, RANGES[19]) else 0.0
        else:
            if f['flops'] <= 3959422976.0:
                return 0.0
            else:
                if f['kn'] <= 6291456.0:
                    if f['mn'] <= 655360.0:
                        return -0.30563945544116844 if inside(f, FEATURES, RANGES[24]) else 0.0
                    else:
                        if f['mat2_transposed'] <= 0.5:
                            if f['dtype_bf16'] <= 0.5:
                                if f['epilogue_per_flop'] <= 0.0032552083721384406:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return -0.037346968301735076 if inside(f, FEATURES, RANGES[30]) else 0.0
                        else:
                            if f['n'] <= 1536.0:
                                return -0.09676367757829288 if inside(f, FEATURES, RANGES[32]) else 0.0
                            else:
                                return -0.26132847992379266 if inside(f, FEATURES, RANGES[33]) else 0.0
                else:
                    if f['out_bytes'] <= 9831424.0:
                        return -0.002735738185697875 if inside(f, FEATURES, RANGES[35]) else 0.0
                    else:
                        return -0.09432532687886146 if inside(f, FEATURES, RANGES[36]) else 0.0


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
