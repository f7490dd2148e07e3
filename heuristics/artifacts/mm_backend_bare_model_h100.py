"""mm_backend.bare heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 1519 problems.

Regression tree max_depth=8, min_samples_leaf=10 (41 leaves, 22 of them agree and may answer); thresholds template 1.4000, extern 1.0000. Leaves of near-ties answer extern (no training problem won by template by more than 5%).
Held-out test split (2% tolerance): 85 correct, 1 wrong, 218 unsure of 304; largest loss of any answer 1.094118.
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
    ('lead_aligned_16b', '(((mat1_transposed * m + (1 - mat1_transposed) * k) * itemsize) % 16 == 0) * (((mat2_transposed * k + (1 - mat2_transposed) * n) * itemsize) % 16 == 0) * ((n * itemsize) % 16 == 0) * 1.0'),
)
FEATURES = ('m', 'k', 'n', 'batch', 'op_bmm', 'op_addmm', 'dtype_fp16', 'dtype_bf16', 'dtype_fp32', 'itemsize', 'mat1_transposed', 'mat2_transposed', 'mk', 'kn', 'mn', 'arith_intensity', 'epilogue', 'costly_epilogue', 'flops', 'tiles_128', 'tiles_64', 'k_steps_64', 'out_bytes', 'epilogue_per_flop', 'aligned_16b', 'lead_aligned_16b')
# Answer 'template' when the predicted speedup is at least exp(LOG_THRESHOLD_TEMPLATE), 'extern' likewise.
LOG_THRESHOLD_TEMPLATE = 0.3364576550732012
LOG_THRESHOLD_EXTERN = 0.0
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'default_tie': 0.05, 'leaf_ranges': True, 'open_above': ['m', 'k', 'n', 'batch', 'mk', 'kn', 'mn', 'arith_intensity', 'flops', 'tiles_128', 'tiles_64', 'k_steps_64', 'out_bytes'], 'open_below': ['epilogue_per_flop'], 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'thresholds', 'derived_features': True, 'min_dim': 0, 'max_depth': 8, 'min_samples_leaf': 10}
# per answering leaf (node id): each FEATURES value's (minimum, maximum) over the leaf's
# training problems (an infinite bound: a leaf of the first choice left open toward
# larger problems, TRAINING['open_above'] / ['open_below']); outside them the leaf is unsure
RANGES = {
    7: ((5.0, 3.0, 4.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 40.0, 12.0, 165.0, 1.7085762023925781, 0.0, 0.0, 44880.0, 6.0, 12.0, 1.0, 11220.0, 0.0009732359903864563, 0.0, 0.0,),
        (1174.0, 2286.0, 5401.0, 384.0, 1.0, 1.0, 1.0, 0.0, 1.0, 4.0, 1.0, 1.0, 2683764.0, 691328.0, 37807.0, 44.14565658569336, 0.0, 0.0, 2384424960.0, 768.0, 3072.0, 36.0, 12103680.0, 0.6666666865348816, 0.0, 0.0,)),
    11: ((2.0, 65.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 256.0, 142.0, 8.0, 0.8881179690361023, 0.0, 0.0, 6532.0, 1.0, 1.0, 2.0, 16.0, 0.0019512195140123367, 0.0, 0.0,),
        (4096.0, 1025.0, 2220.0, 256.0, 1.0, 1.0, 0.0, 1.0, 0.0, 2.0, 1.0, 0.0, 2093056.0, 284160.0, 37269.0, 55.664459228515625, 0.0, 0.0, 2543386624.0, 512.0, 2048.0, 17.0, 12910592.0, 0.03076923079788685, 0.0, 0.0,)),
    13: ((2.0, 5.0, 4.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 20.0, 324.0, 78.0, 1.8927333354949951, 0.0, 0.0, 57876.0, 1.0, 1.0, 1.0, 156.0, 0.0023980815894901752, 0.0, 0.0,),
        (3487.0, 834.0, 2459.0, 192.0, 1.0, 1.0, 0.0, 1.0, 0.0, 2.0, 1.0, 1.0, 449823.0, 427008.0, 52305.0, 44.14565658569336, 0.0, 0.0, 1192212480.0, 768.0, 3072.0, 14.0, 14902656.0, 0.4000000059604645, 0.0, 0.0,)),
    16: ((8.0, 16.0, 4.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 512.0, 1024.0, 512.0, 3.9358274936676025, 0.0, 0.0, 131072.0, 1.0, 1.0, 1.0, 1024.0, 0.001953125, 1.0, 1.0,),
        (5885.0, 1024.0, 2048.0, 44.0, 1.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0, 1506560.0, 65536.0, 387072.0, 51.20000076293945, 0.0, 0.0, 134217728.0, 176.0, 352.0, 16.0, 774144.0, 0.125, 1.0, 1.0,)),
    26: ((75.0, 128.0, 128.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 60160.0, 130820.0, 70875.0, 64.21711730957031, 0.0, 0.0, 68811320.0, 8.0, 25.0, 2.0, 141750.0, 0.0006325110443867743, 0.0, 0.0,),
        (1024.0, 3162.0, 8192.0, 62.0, 1.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, 1644398.0, 15351808.0, 5980160.0, 524.51220703125, 0.0, 0.0, 115992199168.0, 4960.0, 18848.0, 50.0, 151228416.0, 0.015625, 1.0, 0.0,)),
    39: ((64.0, 80.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 40960.0, 40960.0, 262144.0, 60.9523811340332, 0.0, 0.0, 402653184.0, 24.0, 64.0, 2.0, 524288.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.02500000037252903, 1.0, 1.0,)),
    43: ((256.0, 512.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 393216.0, 262144.0, 327680.0, 200.3478240966797, 0.0, 0.0, 536870912.0, 20.0, 80.0, 8.0, 655360.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.00390625, 1.0, 1.0,)),
    44: ((512.0, 2048.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 1572864.0, 1048576.0, 524288.0, 292.5714416503906, 0.0, 0.0, 2147483648.0, 32.0, 128.0, 32.0, 1048576.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0009765625, 1.0, 1.0,)),
    48: ((512.0, 512.0, 512.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 393216.0, 262144.0, 1048576.0, 240.94117736816406, 0.0, 0.0, 1610612736.0, 64.0, 256.0, 8.0, 2097152.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 0.0, 1.0, 0.0, 2.0, 1.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.00390625, 1.0, 1.0,)),
    52: ((512.0, 768.0, 768.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 655360.0, 1769472.0, 2359296.0, 341.3333435058594, 0.0, 0.0, 3623878656.0, 144.0, 576.0, 12.0, 4718592.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0026041667442768812, 1.0, 1.0,)),
    61: ((256.0, 512.0, 1536.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 251392.0, 1179648.0, 524288.0, 186.18182373046875, 0.0, 0.0, 1073741824.0, 32.0, 128.0, 8.0, 1048576.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.00390625, 1.0, 1.0,)),
    64: ((512.0, 64.0, 512.0, 12.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 40960.0, 40960.0, 262144.0, 56.88888931274414, 0.0, 0.0, 1342177280.0, 512.0, 2048.0, 1.0, 16777216.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 0.0, 1.0, 1.0, 0.0, 2.0, 0.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.03125, 1.0, 1.0,)),
    65: ((512.0, 80.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 163840.0, 163840.0, 4194304.0, 74.20289611816406, 0.0, 0.0, 5368709120.0, 320.0, 1280.0, 2.0, 10485760.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 1.0, 1.0, 0.0, 2.0, 0.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.02500000037252903, 1.0, 1.0,)),
    67: ((1024.0, 1024.0, 1024.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 1048576.0, 1048576.0, 8388608.0, 481.8823547363281, 0.0, 0.0, 17179869184.0, 512.0, 2048.0, 16.0, 16777216.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 0.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.001953125, 1.0, 1.0,)),
    68: ((1024.0, 512.0, 1024.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 524288.0, 524288.0, 8388608.0, 327.67999267578125, 0.0, 0.0, 8589934592.0, 512.0, 2048.0, 8.0, 16777216.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.00390625, 1.0, 1.0,)),
    71: ((64.0, 1536.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 196608.0, 1572864.0, 49152.0, 57.96226501464844, 0.0, 0.0, 301989888.0, 6.0, 12.0, 24.0, 98304.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0013020833721384406, 1.0, 1.0,)),
    73: ((256.0, 3072.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 2097152.0, 2359296.0, 131072.0, 168.65882873535156, 0.0, 0.0, 3758096384.0, 8.0, 32.0, 48.0, 262144.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 0.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0006510416860692203, 1.0, 1.0,)),
    74: ((256.0, 1536.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 2097152.0, 1048576.0, 1048576.0, 236.3076934814453, 0.0, 0.0, 6442450944.0, 64.0, 256.0, 24.0, 2097152.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 0.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0013020833721384406, 1.0, 1.0,)),
    76: ((256.0, 1536.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 393216.0, 1048576.0, 2818048.0, 215.57894897460938, 0.0, 0.0, 9663676416.0, 172.0, 688.0, 24.0, 5636096.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0013020833721384406, 1.0, 1.0,)),
    78: ((512.0, 1536.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 1572864.0, 1179648.0, 4718592.0, 408.4653625488281, 0.0, 0.0, 14495514624.0, 288.0, 1152.0, 24.0, 9437184.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 0.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0013020833721384406, 1.0, 1.0,)),
    79: ((1024.0, 1536.0, 1024.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 2097152.0, 1572864.0, 11272192.0, 592.1927490234375, 0.0, 0.0, 46170898432.0, 688.0, 2752.0, 24.0, 22544384.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0013020833721384406, 1.0, 1.0,)),
    80: ((256.0, 512.0, 512.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 4.0, 0.0, 1.0, 131072.0, 262144.0, 393216.0, 157.53846740722656, 0.0, 0.0, 1610612736.0, 24.0, 96.0, 8.0, 1572864.0, float('-inf'), 1.0, 1.0,),
        (float('inf'), float('inf'), float('inf'), float('inf'), 1.0, 1.0, 0.0, 0.0, 1.0, 4.0, 1.0, 1.0, float('inf'), float('inf'), float('inf'), float('inf'), 0.0, 0.0, float('inf'), float('inf'), float('inf'), float('inf'), float('inf'), 0.0078125, 1.0, 1.0,)),
}


def score(f):
    """Predicted log(time of 'extern' / time of 'template'): above 0 favours 'template'; exactly 0 in
    leaves whose training problems did not all agree or outside the leaf's training ranges (RANGES) (learned with a default tie, a leaf of
    near-ties scores just below 0: it answers 'extern')."""
    if f['arith_intensity'] <= 56.49923896789551:
        if f['k_steps_64'] <= 46.0:
            if f['aligned_16b'] <= 0.5:
                if f['dtype_bf16'] <= 0.5:
                    if f['mn'] <= 38308.0:
                        if f['out_bytes'] <= 10095.0:
                            return 0.0
                        else:
                            return 0.31465329731825226 if inside(f, FEATURES, RANGES[7]) else 0.0
                    else:
                        return 0.0
                else:
                    if f['mat2_transposed'] <= 0.5:
                        if f['epilogue_per_flop'] <= 0.031009615398943424:
                            return 0.3364576550732012 if inside(f, FEATURES, RANGES[11]) else 0.0
                        else:
                            return 0.0
                    else:
                        return 0.39184362555965246 if inside(f, FEATURES, RANGES[13]) else 0.0
            else:
                if f['out_bytes'] <= 780288.0:
                    if f['kn'] <= 327680.0:
                        return 0.24097254964209885 if inside(f, FEATURES, RANGES[16]) else 0.0
                    else:
                        return 0.0
                else:
                    if f['batch'] <= 96.0:
                        return 0.0
                    else:
                        return 0.0
        else:
            return 0.0
    else:
        if f['lead_aligned_16b'] <= 0.5:
            if f['dtype_fp32'] <= 0.5:
                if f['k'] <= 4096.5:
                    if f['m'] <= 1024.5:
                        return 0.29228469876141144 if inside(f, FEATURES, RANGES[26]) else 0.0
                    else:
                        if f['m'] <= 2878.0:
                            return 0.0
                        else:
                            return 0.0
                else:
                    return 0.0
            else:
                return 0.0
        else:
            if f['mat2_transposed'] <= 0.5:
                if f['arith_intensity'] <= 196.7776870727539:
                    if f['mn'] <= 106496.0:
                        return 0.0
                    else:
                        if f['mn'] <= 1359872.0:
                            if f['mn'] <= 229376.0:
                                return 0.0
                            else:
                                return -0.021978911182210622 if inside(f, FEATURES, RANGES[39]) else 0.0
                        else:
                            return 0.0
                else:
                    if f['out_bytes'] <= 1835008.0:
                        if f['arith_intensity'] <= 285.9220886230469:
                            return -0.05523488740843349 if inside(f, FEATURES, RANGES[43]) else 0.0
                        else:
                            return -0.3444175262725827 if inside(f, FEATURES, RANGES[44]) else 0.0
                    else:
                        if f['flops'] <= 2550136832.0:
                            if f['dtype_bf16'] <= 0.5:
                                return 0.0
                            else:
                                return -0.014332260578996288 if inside(f, FEATURES, RANGES[48]) else 0.0
                        else:
                            if f['out_bytes'] <= 5439488.0:
                                if f['mn'] <= 2228224.0:
                                    return 0.0
                                else:
                                    return -0.25711949732233447 if inside(f, FEATURES, RANGES[52]) else 0.0
                            else:
                                if f['out_bytes'] <= 8912896.0:
                                    return 0.0
                                else:
                                    return 0.0
            else:
                if f['itemsize'] <= 3.0:
                    if f['k'] <= 1408.0:
                        if f['tiles_64'] <= 1152.0:
                            if f['kn'] <= 1114112.0:
                                return 0.0
                            else:
                                return -0.03720252812887255 if inside(f, FEATURES, RANGES[61]) else 0.0
                        else:
                            if f['mn'] <= 7340032.0:
                                if f['mn'] <= 2621440.0:
                                    return -0.007173781077134629 if inside(f, FEATURES, RANGES[64]) else 0.0
                                else:
                                    return -0.1625835673605647 if inside(f, FEATURES, RANGES[65]) else 0.0
                            else:
                                if f['epilogue_per_flop'] <= 0.0022786458721384406:
                                    return -0.06761259029067855 if inside(f, FEATURES, RANGES[67]) else 0.0
                                else:
                                    return -0.1210749121415856 if inside(f, FEATURES, RANGES[68]) else 0.0
                    else:
                        if f['tiles_64'] <= 664.0:
                            if f['mk'] <= 1835008.0:
                                return -0.055791311124672845 if inside(f, FEATURES, RANGES[71]) else 0.0
                            else:
                                if f['tiles_64'] <= 224.0:
                                    return -0.3676957541646243 if inside(f, FEATURES, RANGES[73]) else 0.0
                                else:
                                    return -0.2701947618823656 if inside(f, FEATURES, RANGES[74]) else 0.0
                        else:
                            if f['mn'] <= 4456960.0:
                                return -0.04672189533579743 if inside(f, FEATURES, RANGES[76]) else 0.0
                            else:
                                if f['out_bytes'] <= 21757952.0:
                                    return -0.2694303161809936 if inside(f, FEATURES, RANGES[78]) else 0.0
                                else:
                                    return -0.06015720231349844 if inside(f, FEATURES, RANGES[79]) else 0.0
                else:
                    return -0.4054651081081643 if inside(f, FEATURES, RANGES[80]) else 0.0


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
