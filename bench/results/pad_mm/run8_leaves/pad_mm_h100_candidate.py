"""pad_mm heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 89028 problems.

Regression tree max_depth=12, min_samples_leaf=50 (446 leaves, 11 of them agree and may answer); thresholds pad 1.0000, orig 1.0000.
Per-leaf validation: leaves that answered wrong on the validation split (or saw fewer than 80 of its problems) are silenced.
Held-out test split (2% tolerance): 6169 correct, 2 wrong, 11634 unsure of 17805; largest loss of any answer 1.188859.
Generated code: re-run `tuner learn` instead of editing it.
"""
from tuner.heuristics.interface import (Precondition, as_float32, derive_features, in_domain,
                                        two_way_choice)

PRECONDITION = Precondition(point='pad_mm', capability=(9, 0), shared_memory=232448, feature_schema=1, gpu_name='NVIDIA H100 80GB HBM3')
CHOICES = ('orig', 'pad')
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
    'tf32',
    'mat1_transposed',
    'mat2_transposed',
    'mat1_prepadded',
    'mat2_prepadded',
    'mat1_stride0',
    'mat1_stride1',
    'mat2_stride0',
    'mat2_stride1',
    'mk',
    'kn',
    'mn',
    'arith_intensity',
    'pad_frac_m',
    'pad_frac_k',
    'pad_frac_n',
    'align_m',
    'align_k',
    'align_n',
)
# computed from RAW, in order (see tuner.heuristics.contexts)
DERIVED = (
    ('align', '16.0 / itemsize'),
    ('pm', 'm + (-m) % align'),
    ('pk', 'k + (-k) % align'),
    ('pn', 'n + (-n) % align'),
    ('lda_aligned', '((mat1_stride0 if mat1_stride1 == 1 else mat1_stride1) % align == 0) * 1.0'),
    ('ldb_aligned', '((mat2_stride0 if mat2_stride1 == 1 else mat2_stride1) % align == 0) * 1.0'),
    ('ldc_aligned', '(n % align == 0) * 1.0'),
    ('unaligned_lds', '3.0 - lda_aligned - ldb_aligned - ldc_aligned'),
    ('unaligned_dims', '(pm != m) + (pk != k) + (pn != n) * 1.0'),
    ('copy_a', '((pm != m) + (pk != k) > 0) * (1.0 - mat1_prepadded)'),
    ('copy_b', '((pk != k) + (pn != n) > 0) * (1.0 - mat2_prepadded)'),
    ('flops', '2.0 * batch * m * n * k'),
    ('io_bytes', 'itemsize * batch * (m * k + k * n + m * n)'),
    ('copy_a_bytes', 'itemsize * batch * copy_a * pm * pk'),
    ('copy_b_bytes', 'itemsize * batch * copy_b * pk * pn'),
    ('copy_per_io', '(copy_a_bytes + copy_b_bytes) / io_bytes'),
    ('copy_a_per_io', 'copy_a_bytes / io_bytes'),
    ('copy_b_per_io', 'copy_b_bytes / io_bytes'),
    ('copy_per_flop', '(copy_a_bytes + copy_b_bytes) / flops'),
    ('padded_flops_ratio', 'pm * pk * pn / (m * k * n)'),
)
FEATURES = ('m', 'k', 'n', 'batch', 'op_bmm', 'op_addmm', 'dtype_bf16', 'dtype_fp32', 'itemsize', 'tf32', 'mat1_prepadded', 'mat2_prepadded', 'mat1_stride0', 'mat1_stride1', 'mat2_stride0', 'mat2_stride1', 'mk', 'kn', 'mn', 'arith_intensity', 'pad_frac_m', 'pad_frac_k', 'pad_frac_n', 'align_m', 'align_k', 'align_n', 'align', 'pm', 'pk', 'pn', 'lda_aligned', 'ldb_aligned', 'unaligned_lds', 'unaligned_dims', 'copy_a', 'copy_b', 'flops', 'io_bytes', 'copy_a_bytes', 'copy_b_bytes', 'copy_per_io', 'copy_a_per_io', 'copy_b_per_io', 'copy_per_flop', 'padded_flops_ratio')
# Answer 'pad' when the predicted speedup is at least exp(LOG_THRESHOLD_PAD), 'orig' likewise.
LOG_THRESHOLD_PAD = 0.0
LOG_THRESHOLD_ORIG = 0.0
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'leaves', 'leaf_min_val': 40, 'derived_features': True, 'min_dim': 0, 'max_depth': 12, 'min_samples_leaf': 50}


def score(f):
    """Predicted log(time of 'orig' / time of 'pad'): above 0 favours 'pad'; exactly 0 in
    leaves whose training problems did not all agree."""
    if f['flops'] <= 4394664192.0:
        if f['copy_per_flop'] <= 0.00012279235670575872:
            if f['op_addmm'] <= 0.5:
                if f['flops'] <= 354461280.0:
                    if f['m'] <= 511.5:
                        if f['itemsize'] <= 3.0:
                            if f['mat1_stride0'] <= 1736.0:
                                if f['flops'] <= 25413912.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            if f['k'] <= 1027.5:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        if f['batch'] <= 1.5:
                            if f['arith_intensity'] <= 23.31162452697754:
                                if f['dtype_bf16'] <= 0.5:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['pad_frac_m'] <= 0.0012589608086273074:
                                    return 0.0
                                else:
                                    if f['kn'] <= 83618.0:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            return 0.0
                else:
                    if f['flops'] <= 1148159232.0:
                        if f['padded_flops_ratio'] <= 1.0953064560890198:
                            if f['arith_intensity'] <= 23.729755401611328:
                                return 0.0
                            else:
                                if f['pk'] <= 146.0:
                                    return 0.0
                                else:
                                    if f['dtype_bf16'] <= 0.5:
                                        if f['align_k'] <= 3.0:
                                            if f['pad_frac_k'] <= 0.001980477594770491:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['flops'] <= 748638144.0:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        if f['align'] <= 6.0:
                            if f['tf32'] <= 0.5:
                                if f['k'] <= 1004.5:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            if f['io_bytes'] <= 16705887.0:
                                if f['pad_frac_k'] <= 0.0006988993845880032:
                                    return 0.0
                                else:
                                    if f['pad_frac_m'] <= 0.001465560751967132:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['unaligned_dims'] <= 1.5:
                                    return 0.0
                                else:
                                    if f['pk'] <= 752.0:
                                        if f['flops'] <= 2502689152.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['kn'] <= 150960.0:
                                            return 0.0
                                        else:
                                            if f['io_bytes'] <= 33950584.0:
                                                return 0.0
                                            else:
                                                return 0.0
            else:
                if f['flops'] <= 1010661312.0:
                    if f['io_bytes'] <= 7813872.0:
                        if f['flops'] <= 263713392.0:
                            if f['pk'] <= 1308.0:
                                if f['padded_flops_ratio'] <= 1.0323482751846313:
                                    return 0.0
                                else:
                                    if f['pad_frac_k'] <= 0.004731365013867617:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                return 0.0
                        else:
                            if f['k'] <= 990.0:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        if f['k'] <= 2387.0:
                            if f['flops'] <= 457272352.0:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
                else:
                    if f['k'] <= 2220.0:
                        if f['io_bytes'] <= 23890765.0:
                            if f['align_m'] <= 1.5:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
                    else:
                        if f['align_n'] <= 1.5:
                            return 0.0
                        else:
                            return 0.0
        else:
            if f['flops'] <= 1360179648.0:
                if f['op_bmm'] <= 0.5:
                    if f['copy_per_flop'] <= 0.0010111049050465226:
                        if f['io_bytes'] <= 41926650.0:
                            if f['k'] <= 1026.5:
                                if f['flops'] <= 569164736.0:
                                    if f['io_bytes'] <= 17701268.0:
                                        if f['mk'] <= 1992568.0:
                                            if f['mat1_stride0'] <= 256.5:
                                                if f['io_bytes'] <= 14803462.0:
                                                    return -0.40432831450907963
                                                else:
                                                    return 0.0
                                            else:
                                                if f['io_bytes'] <= 4479662.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.007960409857332706:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['itemsize'] <= 3.0:
                                        if f['mat1_stride0'] <= 256.5:
                                            if f['copy_per_flop'] <= 0.0004897676990367472:
                                                if f['op_addmm'] <= 0.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['mn'] <= 14686169.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['pad_frac_m'] <= 0.0005100759444758296:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['io_bytes'] <= 24962608.0:
                                    if f['flops'] <= 1038634560.0:
                                        if f['mat2_stride0'] <= 8.5:
                                            if f['mn'] <= 87109.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['io_bytes'] <= 14717792.0:
                                                if f['flops'] <= 369582656.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['op_addmm'] <= 0.5:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['copy_per_io'] <= 0.0058222003281116486:
                                if f['flops'] <= 1052102368.0:
                                    if f['kn'] <= 96952.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['k'] <= 31.5:
                                    if f['align_m'] <= 1.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                    else:
                        if f['flops'] <= 534620176.0:
                            if f['io_bytes'] <= 9385044.0:
                                if f['mn'] <= 321.5:
                                    return 0.0
                                else:
                                    if f['flops'] <= 423785856.0:
                                        if f['copy_a_bytes'] <= 384.0:
                                            if f['copy_per_flop'] <= 0.12503975629806519:
                                                if f['pk'] <= 1124.0:
                                                    return -0.40406464705437267
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_b_per_io'] <= 0.0005988561897538602:
                                                if f['flops'] <= 253721280.0:
                                                    return -0.4034252037453672
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_b_per_io'] <= 0.9785159826278687:
                                                    return -0.40540897839904577
                                                else:
                                                    return 0.0
                                    else:
                                        if f['mat1_prepadded'] <= 0.5:
                                            if f['mat2_prepadded'] <= 0.5:
                                                if f['pk'] <= 3570.0:
                                                    return -0.4054651081081628
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['copy_a'] <= 0.5:
                                    if f['pad_frac_n'] <= 0.002932562492787838:
                                        if f['mat2_stride0'] <= 2504.5:
                                            if f['pad_frac_n'] <= 0.0006683313986286521:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_b'] <= 0.5:
                                        if f['kn'] <= 321024.0:
                                            if f['pn'] <= 178.0:
                                                if f['mat1_stride0'] <= 3650.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_b_per_io'] <= 0.9904606342315674:
                                            if f['copy_per_io'] <= 1.0051400661468506:
                                                if f['mn'] <= 7981895.0:
                                                    return -0.40378039833310647
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                        else:
                            if f['copy_b_per_io'] <= 0.0009675867622718215:
                                if f['copy_per_flop'] <= 0.015408796723932028:
                                    if f['io_bytes'] <= 15357043.0:
                                        if f['mat1_stride1'] <= 243.0:
                                            if f['io_bytes'] <= 6509179.0:
                                                return 0.0
                                            else:
                                                if f['pad_frac_n'] <= 0.009055870119482279:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['align_m'] <= 1.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['pad_frac_m'] <= 0.0011763594229705632:
                                        if f['io_bytes'] <= 33646960.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['copy_a_per_io'] <= 0.0019363485625945032:
                                    if f['mk'] <= 201738.0:
                                        if f['copy_b_bytes'] <= 5783488.0:
                                            return 0.0
                                        else:
                                            if f['pad_frac_k'] <= 0.0001708021663944237:
                                                return 0.0
                                            else:
                                                if f['copy_b_bytes'] <= 25366400.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['flops'] <= 1074044864.0:
                                            if f['mat1_stride1'] <= 28.0:
                                                if f['mat1_stride0'] <= 4094.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['mn'] <= 10408983.0:
                                        if f['copy_per_io'] <= 0.9994886517524719:
                                            if f['flops'] <= 1091432576.0:
                                                if f['k'] <= 2710.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['padded_flops_ratio'] <= 1.0479753613471985:
                                                    return -0.3940220814131795
                                                else:
                                                    return 0.0
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                if f['pm'] <= 152.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        return 0.0
                else:
                    if f['k'] <= 2947.5:
                        if f['k'] <= 1021.5:
                            if f['copy_per_flop'] <= 0.0014621646841987967:
                                if f['flops'] <= 646208480.0:
                                    if f['io_bytes'] <= 16372818.0:
                                        if f['flops'] <= 241865296.0:
                                            if f['pad_frac_k'] <= 0.02347624860703945:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['io_bytes'] <= 42658536.0:
                                        if f['pk'] <= 114.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['flops'] <= 784324352.0:
                                    if f['pk'] <= 710.0:
                                        if f['io_bytes'] <= 32508124.0:
                                            if f['copy_a_bytes'] <= 768.0:
                                                if f['k'] <= 255.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_b_per_io'] <= 0.0007680596900172532:
                                                    return 0.0
                                                else:
                                                    return -0.40468319009697334
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.9752991795539856:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['copy_a_per_io'] <= 0.004662983817979693:
                                        return 0.0
                                    else:
                                        if f['copy_per_flop'] <= 0.01168838469311595:
                                            if f['copy_b_per_io'] <= 0.01806730031967163:
                                                return 0.0
                                            else:
                                                if f['padded_flops_ratio'] <= 1.030534565448761:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                        else:
                            if f['copy_per_io'] <= 0.8395695090293884:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['pk'] <= 1704.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['io_bytes'] <= 23132672.0:
                                        if f['itemsize'] <= 3.0:
                                            if f['flops'] <= 386995264.0:
                                                if f['pk'] <= 1756.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['io_bytes'] <= 39265392.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['pk'] <= 1428.0:
                                        return 0.0
                                    else:
                                        return 0.0
                    else:
                        if f['dtype_bf16'] <= 0.5:
                            if f['io_bytes'] <= 24213975.0:
                                if f['pk'] <= 5944.0:
                                    if f['copy_per_io'] <= 0.9494550228118896:
                                        return 0.0
                                    else:
                                        if f['copy_a_per_io'] <= 0.6115804314613342:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['copy_per_io'] <= 0.9786142110824585:
                                    return 0.0
                                else:
                                    if f['io_bytes'] <= 42178340.0:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['align_n'] <= 1.5:
                                if f['k'] <= 5112.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['pk'] <= 5276.0:
                                    return 0.0
                                else:
                                    return 0.0
            else:
                if f['copy_per_io'] <= 0.07410835474729538:
                    if f['op_bmm'] <= 0.5:
                        if f['pk'] <= 2054.0:
                            if f['io_bytes'] <= 59457240.0:
                                if f['flops'] <= 2052671232.0:
                                    if f['copy_per_io'] <= 0.03800566308200359:
                                        if f['mat1_stride0'] <= 63.5:
                                            if f['io_bytes'] <= 34772868.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['padded_flops_ratio'] <= 1.0312435030937195:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['mat2_prepadded'] <= 0.5:
                                        if f['op_addmm'] <= 0.5:
                                            if f['copy_a_per_io'] <= 0.008532213978469372:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['pm'] <= 4272.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['align_n'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['copy_b_per_io'] <= 0.006366448476910591:
                                    if f['mat2_stride0'] <= 6666.5:
                                        if f['op_addmm'] <= 0.5:
                                            if f['align_n'] <= 1.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['flops'] <= 3308590976.0:
                                        if f['kn'] <= 237520.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.0002502978459233418:
                                if f['pad_frac_n'] <= 0.0011324929655529559:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['flops'] <= 2231538176.0:
                                    if f['copy_b_per_io'] <= 0.007731488207355142:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['unaligned_lds'] <= 2.5:
                                        return 0.0
                                    else:
                                        return 0.0
                    else:
                        if f['pk'] <= 2476.0:
                            if f['io_bytes'] <= 106946024.0:
                                if f['mat1_stride1'] <= 513.5:
                                    if f['copy_per_flop'] <= 0.000580028718104586:
                                        if f['align_m'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['align'] <= 6.0:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            return 0.0
                else:
                    if f['copy_per_flop'] <= 0.015594263561069965:
                        if f['mn'] <= 96084.0:
                            if f['unaligned_dims'] <= 2.5:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            if f['flops'] <= 2803618560.0:
                                if f['copy_a_per_io'] <= 0.006870101438835263:
                                    if f['n'] <= 260.5:
                                        return 0.0
                                    else:
                                        if f['flops'] <= 2374230912.0:
                                            if f['pad_frac_m'] <= 0.0004013859143014997:
                                                return 0.0
                                            else:
                                                if f['align_m'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['mat2_prepadded'] <= 0.5:
                                        if f['op_bmm'] <= 0.5:
                                            if f['mat1_stride0'] <= 581.5:
                                                if f['itemsize'] <= 3.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['align_n'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['k'] <= 1023.5:
                                                if f['io_bytes'] <= 15668844.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['pad_frac_m'] <= 0.007763993926346302:
                                            if f['flops'] <= 2172676608.0:
                                                if f['arith_intensity'] <= 117.7457275390625:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['align_n'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.007744597969576716:
                                    if f['mn'] <= 461376.5:
                                        if f['batch'] <= 1.5:
                                            if f['copy_per_io'] <= 0.8737633228302002:
                                                return 0.0
                                            else:
                                                if f['align_n'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['op_addmm'] <= 0.5:
                                            if f['align_k'] <= 1.5:
                                                if f['mat1_stride0'] <= 256.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_per_io'] <= 0.16012046486139297:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['pad_frac_k'] <= 0.0019538929918780923:
                                                if f['mat1_stride0'] <= 1997.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['flops'] <= 3651314688.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                else:
                                    if f['batch'] <= 1.5:
                                        if f['op_addmm'] <= 0.5:
                                            if f['copy_per_flop'] <= 0.008321367669850588:
                                                return 0.0
                                            else:
                                                if f['unaligned_lds'] <= 2.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['arith_intensity'] <= 119.09746551513672:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['k'] <= 1385.5:
                                            return 0.0
                                        else:
                                            return 0.0
                    else:
                        if f['mn'] <= 85682.0:
                            if f['copy_per_flop'] <= 0.03376949205994606:
                                if f['pad_frac_m'] <= 0.00679104239679873:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['io_bytes'] <= 134092336.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.020281517878174782:
                                if f['batch'] <= 1.5:
                                    if f['op_addmm'] <= 0.5:
                                        if f['dtype_bf16'] <= 0.5:
                                            if f['n'] <= 64.5:
                                                return 0.0
                                            else:
                                                if f['arith_intensity'] <= 114.30031204223633:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['flops'] <= 2952046464.0:
                                            if f['padded_flops_ratio'] <= 1.0327320098876953:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['k'] <= 1236.5:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['align'] <= 6.0:
                                    if f['io_bytes'] <= 50585108.0:
                                        return 0.0
                                    else:
                                        if f['mat2_stride1'] <= 6322.0:
                                            if f['mn'] <= 127750.5:
                                                return 0.0
                                            else:
                                                if f['io_bytes'] <= 61314186.0:
                                                    return 0.0
                                                else:
                                                    return -0.40546510810816233
                                        else:
                                            return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.031267598271369934:
                                        if f['arith_intensity'] <= 34.681257247924805:
                                            if f['padded_flops_ratio'] <= 1.153221607208252:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['mat2_stride1'] <= 750.0:
                                                if f['mn'] <= 192056.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['mn'] <= 104912.0:
                                            return 0.0
                                        else:
                                            if f['arith_intensity'] <= 30.603758811950684:
                                                if f['unaligned_dims'] <= 2.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
    else:
        if f['copy_per_flop'] <= 0.00403056270442903:
            if f['flops'] <= 10157907456.0:
                if f['copy_per_flop'] <= 0.00022313487716019154:
                    if f['op_addmm'] <= 0.5:
                        if f['dtype_fp32'] <= 0.5:
                            if f['copy_per_io'] <= 0.0076766833662986755:
                                if f['ldb_aligned'] <= 0.5:
                                    if f['align_n'] <= 1.5:
                                        if f['mat1_stride1'] <= 450.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['m'] <= 3980.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['align_k'] <= 1.5:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['tf32'] <= 0.5:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        if f['align_n'] <= 1.5:
                            return 0.0
                        else:
                            if f['io_bytes'] <= 38987996.0:
                                return 0.0
                            else:
                                return 0.0
                else:
                    if f['align_n'] <= 1.5:
                        if f['dtype_fp32'] <= 0.5:
                            if f['copy_b_per_io'] <= 0.01494213193655014:
                                if f['mat1_stride0'] <= 24.0:
                                    return 0.0
                                else:
                                    if f['flops'] <= 6101060608.0:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['copy_a_per_io'] <= 0.011194455903023481:
                                    if f['flops'] <= 5924120320.0:
                                        return 0.0
                                    else:
                                        if f['padded_flops_ratio'] <= 1.0137847661972046:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['flops'] <= 7613604608.0:
                                        if f['mat1_stride1'] <= 278.5:
                                            if f['pad_frac_k'] <= 0.0007294008100870997:
                                                return 0.0
                                            else:
                                                if f['op_addmm'] <= 0.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['mat1_stride1'] <= 319.0:
                                            if f['mk'] <= 1281782.5:
                                                return 0.0
                                            else:
                                                if f['copy_b_per_io'] <= 0.1686609461903572:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                        else:
                            if f['tf32'] <= 0.5:
                                if f['copy_per_flop'] <= 0.0019734498346224427:
                                    if f['copy_per_flop'] <= 0.000697787560056895:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.0010460269986651838:
                                    if f['flops'] <= 6952646912.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['mat1_stride0'] <= 219.5:
                                        return 0.0
                                    else:
                                        return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            if f['op_addmm'] <= 0.5:
                                if f['align'] <= 6.0:
                                    if f['tf32'] <= 0.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['flops'] <= 6415260160.0:
                                        if f['copy_b_per_io'] <= 0.020225776359438896:
                                            return 0.0
                                        else:
                                            if f['copy_a_bytes'] <= 2009344.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['mat1_stride1'] <= 509.0:
                                            if f['pad_frac_k'] <= 0.0072802414651960135:
                                                if f['io_bytes'] <= 23524889.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['mat1_stride0'] <= 37.0:
                                    return 0.0
                                else:
                                    if f['copy_b_bytes'] <= 2023872.0:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['copy_a_per_io'] <= 0.01431566895917058:
                                if f['pn'] <= 310.0:
                                    return 0.0
                                else:
                                    if f['mat2_stride1'] <= 56.0:
                                        if f['flops'] <= 6675691520.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['flops'] <= 6168541184.0:
                                    if f['mat1_stride0'] <= 204.0:
                                        return 0.0
                                    else:
                                        if f['io_bytes'] <= 24281040.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['copy_a_per_io'] <= 0.4475613683462143:
                                        if f['mat2_prepadded'] <= 0.5:
                                            if f['op_addmm'] <= 0.5:
                                                if f['pad_frac_m'] <= 0.0021159786265343428:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
            else:
                if f['unaligned_lds'] <= 0.5:
                    if f['copy_per_io'] <= 0.08332712575793266:
                        return 0.0
                    else:
                        return 0.0
                else:
                    if f['copy_per_flop'] <= 0.0021224942756816745:
                        if f['flops'] <= 18425571328.0:
                            if f['op_addmm'] <= 0.5:
                                if f['copy_per_flop'] <= 0.0012277384521439672:
                                    if f['align_n'] <= 1.5:
                                        if f['flops'] <= 10981533696.0:
                                            return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.00022837439610157162:
                                                if f['copy_per_io'] <= 0.01066126162186265:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['mat1_stride0'] <= 54.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['copy_per_flop'] <= 0.0002618754660943523:
                                            if f['copy_per_io'] <= 0.0042068543843925:
                                                if f['arith_intensity'] <= 187.04911041259766:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['flops'] <= 13925492224.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['align_k'] <= 1.5:
                                                if f['mat1_stride0'] <= 62.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_per_io'] <= 0.2186664193868637:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                else:
                                    if f['align_n'] <= 1.5:
                                        if f['mat2_stride0'] <= 1014.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['align_m'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['flops'] <= 13311911936.0:
                                    if f['copy_a_per_io'] <= 0.046375228092074394:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['align_n'] <= 1.5:
                                        if f['mat1_stride0'] <= 509.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['align_k'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.001298651157412678:
                                if f['flops'] <= 25404297216.0:
                                    if f['align_n'] <= 1.5:
                                        if f['padded_flops_ratio'] <= 1.0030982494354248:
                                            return 0.0
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                if f['copy_b_bytes'] <= 9056640.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.37731024622917175:
                                            if f['align_k'] <= 1.5:
                                                if f['copy_per_flop'] <= 0.00030968134524300694:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_per_flop'] <= 0.00024396589287789539:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0009775012149475515:
                                        if f['mk'] <= 524628.0:
                                            return 0.0
                                        else:
                                            if f['kn'] <= 760448.0:
                                                return 0.0
                                            else:
                                                if f['pad_frac_k'] <= 0.004609520314261317:
                                                    return 0.40470778212478514
                                                else:
                                                    return 0.40238007587586316
                                    else:
                                        if f['align_n'] <= 1.5:
                                            if f['flops'] <= 32024355840.0:
                                                return 0.0
                                            else:
                                                if f['pad_frac_k'] <= 0.0003013113309862092:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['align_k'] <= 1.5:
                                                if f['mat1_stride0'] <= 2059.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['mat2_stride0'] <= 1243.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    if f['tf32'] <= 0.5:
                                        if f['io_bytes'] <= 45066752.0:
                                            return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.001959205255843699:
                                                if f['mat1_stride1'] <= 554.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['align_k'] <= 1.5:
                                        if f['mat1_stride0'] <= 839.0:
                                            return 0.0
                                        else:
                                            if f['copy_per_io'] <= 0.8352461457252502:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['arith_intensity'] <= 451.42083740234375:
                                            return 0.0
                                        else:
                                            if f['mn'] <= 3069473.0:
                                                return 0.0
                                            else:
                                                return 0.0
                    else:
                        if f['align_n'] <= 1.5:
                            if f['copy_per_flop'] <= 0.0028006979264318943:
                                if f['flops'] <= 20679407616.0:
                                    if f['padded_flops_ratio'] <= 1.006792664527893:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['mat1_stride0'] <= 816.5:
                                        return 0.0
                                    else:
                                        if f['flops'] <= 32738216960.0:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['batch'] <= 1.5:
                                    if f['mat1_stride0'] <= 1645.0:
                                        return 0.0
                                    else:
                                        if f['padded_flops_ratio'] <= 1.0069131255149841:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['align_k'] <= 1.5:
                                if f['copy_per_flop'] <= 0.0030806910945102572:
                                    if f['mat1_stride0'] <= 563.0:
                                        return 0.0
                                    else:
                                        if f['flops'] <= 23759027200.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['mat1_stride0'] <= 3017.0:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['arith_intensity'] <= 412.62159729003906:
                                    if f['mat1_stride1'] <= 340.5:
                                        if f['arith_intensity'] <= 312.90162658691406:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
        else:
            if f['copy_per_flop'] <= 0.007813684642314911:
                if f['batch'] <= 1.5:
                    if f['align_n'] <= 1.5:
                        if f['copy_per_flop'] <= 0.00416777073405683:
                            if f['padded_flops_ratio'] <= 1.013875663280487:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            if f['itemsize'] <= 3.0:
                                if f['mat1_stride0'] <= 4778.5:
                                    if f['mat2_stride0'] <= 2881.0:
                                        if f['pad_frac_n'] <= 0.018645049072802067:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['align_k'] <= 1.5:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['flops'] <= 10129935872.0:
                                    return 0.0
                                else:
                                    return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            if f['mat1_stride0'] <= 1417.0:
                                return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.005581744248047471:
                                    if f['copy_per_io'] <= 0.922053337097168:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['arith_intensity'] <= 236.02556610107422:
                                if f['mat1_stride0'] <= 1551.0:
                                    return 0.0
                                else:
                                    if f['io_bytes'] <= 40669570.0:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                return 0.0
                else:
                    if f['align_n'] <= 1.5:
                        if f['k'] <= 2309.0:
                            if f['copy_per_flop'] <= 0.004672876326367259:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            if f['io_bytes'] <= 100299760.0:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            if f['k'] <= 3073.0:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            if f['m'] <= 2004.5:
                                return 0.0
                            else:
                                return 0.0
            else:
                if f['copy_per_flop'] <= 0.015052227303385735:
                    if f['mn'] <= 261888.0:
                        if f['batch'] <= 5.5:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['copy_per_flop'] <= 0.00807102071121335:
                            if f['padded_flops_ratio'] <= 1.0320969820022583:
                                if f['arith_intensity'] <= 123.98112487792969:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            if f['op_bmm'] <= 0.5:
                                if f['arith_intensity'] <= 215.6457061767578:
                                    if f['op_addmm'] <= 0.5:
                                        if f['lda_aligned'] <= 0.5:
                                            if f['arith_intensity'] <= 121.65617752075195:
                                                if f['copy_per_flop'] <= 0.008354812860488892:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['io_bytes'] <= 62800106.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['pad_frac_n'] <= 0.0006173579022288322:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['mn'] <= 391375.0:
                                    return 0.0
                                else:
                                    if f['arith_intensity'] <= 117.69625091552734:
                                        return 0.0
                                    else:
                                        return 0.0
                else:
                    if f['pad_frac_m'] <= 0.047667087987065315:
                        if f['copy_per_flop'] <= 0.01766098663210869:
                            if f['mn'] <= 220663.0:
                                return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.016027310863137245:
                                    if f['mn'] <= 486788.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['mn'] <= 415204.5:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['mn'] <= 106461.0:
                                return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.029446424916386604:
                                    if f['mn'] <= 295886.0:
                                        return 0.0
                                    else:
                                        if f['pm'] <= 3846.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['pk'] <= 6340.0:
                                        return 0.0
                                    else:
                                        return 0.0
                    else:
                        if f['n'] <= 4093.5:
                            return 0.0
                        else:
                            if f['dtype_bf16'] <= 0.5:
                                return 0.0
                            else:
                                return 0.0


def features_of(features):
    """The tree's inputs from the point's feature dict, rounded as the tree saw them."""
    f = derive_features(features, RAW, DERIVED)
    return {name: as_float32(f[name]) for name in FEATURES}


def decide(features):
    """'pad', 'orig', or None when unsure. `features`: the point's feature dict."""
    if not in_domain(features, DOMAIN):
        return None
    return two_way_choice(score(features_of(features)), LOG_THRESHOLD_PAD, positive='pad',
                          negative='orig', log_threshold_negative=LOG_THRESHOLD_ORIG)
