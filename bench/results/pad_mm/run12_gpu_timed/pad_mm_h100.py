"""pad_mm heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 36085 problems.

Regression tree max_depth=16, min_samples_leaf=20 (608 leaves, 271 of them agree and may answer); thresholds pad 1.4856, orig 1.5000.
Held-out test split (2% tolerance): 1390 correct, 0 wrong, 5827 unsure of 7217; largest loss of any answer NaN.
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
FEATURES = ('m', 'k', 'n', 'batch', 'op_bmm', 'op_addmm', 'dtype_fp16', 'dtype_bf16', 'dtype_fp32', 'tf32', 'mat1_prepadded', 'mat2_prepadded', 'mat1_stride0', 'mat1_stride1', 'mat2_stride0', 'mat2_stride1', 'mk', 'kn', 'mn', 'arith_intensity', 'pad_frac_m', 'pad_frac_k', 'pad_frac_n', 'align_m', 'align_k', 'align_n', 'align', 'pm', 'pk', 'pn', 'lda_aligned', 'unaligned_lds', 'unaligned_dims', 'flops', 'io_bytes', 'copy_a_bytes', 'copy_b_bytes', 'copy_per_io', 'copy_a_per_io', 'copy_b_per_io', 'copy_per_flop', 'padded_flops_ratio')
# Answer 'pad' when the predicted speedup is at least exp(LOG_THRESHOLD_PAD), 'orig' likewise.
LOG_THRESHOLD_PAD = 0.39581833904818614
LOG_THRESHOLD_ORIG = 0.405448732378148
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'thresholds', 'derived_features': True, 'min_dim': 0, 'max_depth': 16, 'min_samples_leaf': 20}


def score(f):
    """Predicted log(time of 'orig' / time of 'pad'): above 0 favours 'pad'; exactly 0 in
    leaves whose training problems did not all agree."""
    if f['copy_per_flop'] <= 0.0041890612337738276:
        if f['flops'] <= 1204611712.0:
            if f['k'] <= 345.0:
                if f['copy_per_io'] <= 0.0006517621222883463:
                    if f['op_addmm'] <= 0.5:
                        if f['flops'] <= 35009176.0:
                            if f['unaligned_lds'] <= 1.5:
                                return 0.0
                            else:
                                if f['pad_frac_n'] <= 0.006828374927863479:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['align'] <= 6.0:
                                return 0.0
                            else:
                                if f['mat2_stride0'] <= 1037.0:
                                    return 0.0
                                else:
                                    return 0.3438906625576534
                    else:
                        if f['flops'] <= 183786520.0:
                            return 0.0
                        else:
                            return 0.0
                else:
                    if f['flops'] <= 481897936.0:
                        if f['k'] <= 199.5:
                            if f['io_bytes'] <= 16168127.0:
                                if f['pk'] <= 134.0:
                                    if f['io_bytes'] <= 9119375.0:
                                        if f['mat2_stride1'] <= 101.5:
                                            if f['op_addmm'] <= 0.5:
                                                if f['copy_per_flop'] <= 0.001087591634131968:
                                                    if f['flops'] <= 96471000.0:
                                                        if f['mn'] <= 92633.5:
                                                            return 0.0
                                                        else:
                                                            if f['flops'] <= 67115712.0:
                                                                if f['mat1_stride0'] <= 38.5:
                                                                    return -0.40476977878009285
                                                                else:
                                                                    return -0.3839158581692585
                                                            else:
                                                                return -0.3582146512814079
                                                    else:
                                                        if f['mn'] <= 1491648.0:
                                                            return -0.279078609894996
                                                        else:
                                                            return -0.33955884784546564
                                                else:
                                                    if f['mk'] <= 232246.0:
                                                        if f['copy_a_bytes'] <= 19072.0:
                                                            if f['unaligned_lds'] <= 1.5:
                                                                return 0.0
                                                            else:
                                                                if f['arith_intensity'] <= 43.167789459228516:
                                                                    return -0.4011489716360574
                                                                else:
                                                                    return -0.37189656693559947
                                                        else:
                                                            if f['mat2_prepadded'] <= 0.5:
                                                                if f['copy_a_bytes'] <= 34496.0:
                                                                    return -0.3977924290576481
                                                                else:
                                                                    return -0.4048539167897264
                                                            else:
                                                                return -0.3747037600011462
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['pad_frac_k'] <= 0.24696356803178787:
                                                    if f['flops'] <= 349690912.0:
                                                        if f['padded_flops_ratio'] <= 1.0182760953903198:
                                                            if f['n'] <= 915.5:
                                                                return -0.3920645753601561
                                                            else:
                                                                return -0.4054651081081644
                                                        else:
                                                            if f['mn'] <= 32426.0:
                                                                return -0.4019081582063473
                                                            else:
                                                                if f['io_bytes'] <= 6518286.0:
                                                                    return -0.40546510810816455
                                                                else:
                                                                    return -0.404958633801197
                                                    else:
                                                        return -0.385407015913124
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['mat2_prepadded'] <= 0.5:
                                            if f['copy_a_per_io'] <= 0.0014334250008687377:
                                                return 0.0
                                            else:
                                                if f['flops'] <= 334005984.0:
                                                    if f['dtype_bf16'] <= 0.5:
                                                        if f['copy_b_bytes'] <= 115872.0:
                                                            return -0.40222282399485054
                                                        else:
                                                            return -0.4054651081081642
                                                    else:
                                                        return -0.3912724077379423
                                                else:
                                                    return -0.37460314219848134
                                        else:
                                            return 0.0
                                else:
                                    if f['op_addmm'] <= 0.5:
                                        if f['mat1_stride0'] <= 147.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['copy_per_io'] <= 0.015733008738607168:
                                    if f['tf32'] <= 0.5:
                                        if f['flops'] <= 350748000.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['op_addmm'] <= 0.5:
                                        if f['flops'] <= 358866656.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return -0.36754160709559325
                        else:
                            if f['flops'] <= 265167168.0:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['flops'] <= 108299928.0:
                                        return -0.3605972081441893
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0010392068652436137:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                return 0.0
                    else:
                        if f['copy_per_flop'] <= 0.0010535597684793174:
                            if f['copy_per_flop'] <= 0.000590086099691689:
                                if f['align'] <= 6.0:
                                    if f['k'] <= 58.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['mn'] <= 14492215.0:
                                        if f['align_k'] <= 1.5:
                                            return 0.0
                                        else:
                                            if f['pn'] <= 2468.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.00906183198094368:
                                            if f['dtype_fp16'] <= 0.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['tf32'] <= 0.5:
                                    if f['kn'] <= 249674.0:
                                        if f['copy_b_per_io'] <= 0.006325338268652558:
                                            if f['pad_frac_n'] <= 0.0010390669922344387:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['flops'] <= 681496768.0:
                                                if f['copy_a_bytes'] <= 139968.0:
                                                    return 0.0
                                                else:
                                                    return -0.32504176523054235
                                            else:
                                                if f['align_n'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['io_bytes'] <= 18456944.0:
                                if f['mat2_prepadded'] <= 0.5:
                                    if f['flops'] <= 873063424.0:
                                        if f['k'] <= 192.0:
                                            if f['copy_a_per_io'] <= 0.008427042979747057:
                                                return 0.0
                                            else:
                                                if f['io_bytes'] <= 9856506.0:
                                                    if f['mk'] <= 84626.5:
                                                        return -0.3417718895801257
                                                    else:
                                                        if f['pad_frac_k'] <= 0.0289129838347435:
                                                            return -0.373170896741067
                                                        else:
                                                            return -0.40141696861308634
                                                else:
                                                    return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.002471903106197715:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['op_addmm'] <= 0.5:
                                            if f['io_bytes'] <= 9584843.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['mn'] <= 8385533.0:
                                        if f['batch'] <= 2.0:
                                            return -0.2707207996124553
                                        else:
                                            return 0.0
                                    else:
                                        if f['mn'] <= 11264989.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
            else:
                if f['copy_per_flop'] <= 0.0019461274496279657:
                    if f['dtype_fp32'] <= 0.5:
                        if f['flops'] <= 231121592.0:
                            if f['copy_per_flop'] <= 7.411524711642414e-05:
                                if f['op_addmm'] <= 0.5:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['flops'] <= 92653224.0:
                                    return 0.0
                                else:
                                    if f['mat2_stride0'] <= 23.5:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['lda_aligned'] <= 0.5:
                                if f['copy_per_flop'] <= 0.0001317720816587098:
                                    if f['arith_intensity'] <= 49.36408233642578:
                                        return 0.33972094519412205
                                    else:
                                        return 0.405083629946616
                                else:
                                    if f['flops'] <= 590003264.0:
                                        if f['align_n'] <= 1.5:
                                            if f['mat1_stride0'] <= 1296.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_b_bytes'] <= 115648.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['align_n'] <= 3.0:
                                            if f['k'] <= 2880.0:
                                                if f['dtype_fp16'] <= 0.5:
                                                    return 0.380247950619551
                                                else:
                                                    return 0.32581192154331584
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['align_n'] <= 3.0:
                                    return 0.0
                                else:
                                    return 0.0
                    else:
                        if f['tf32'] <= 0.5:
                            if f['copy_per_flop'] <= 0.00012605423398781568:
                                return 0.0
                            else:
                                if f['io_bytes'] <= 18019356.0:
                                    return -0.2587620909386693
                                else:
                                    return 0.0
                        else:
                            if f['flops'] <= 401608448.0:
                                if f['k'] <= 1127.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['unaligned_dims'] <= 1.5:
                                    return 0.0
                                else:
                                    if f['mat1_stride0'] <= 514.0:
                                        return 0.0
                                    else:
                                        return 0.0
                else:
                    if f['flops'] <= 101031216.0:
                        if f['flops'] <= 37900296.0:
                            return -0.3155862386320085
                        else:
                            return 0.0
                    else:
                        if f['align_n'] <= 1.5:
                            if f['dtype_fp32'] <= 0.5:
                                if f['io_bytes'] <= 3058343.0:
                                    return 0.0
                                else:
                                    if f['padded_flops_ratio'] <= 1.0245954394340515:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                return 0.0
                        else:
                            if f['k'] <= 752.5:
                                if f['copy_a_bytes'] <= 893120.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['flops'] <= 741483136.0:
                                    if f['copy_per_flop'] <= 0.0024357005022466183:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
        else:
            if f['flops'] <= 9957164032.0:
                if f['align'] <= 6.0:
                    if f['tf32'] <= 0.5:
                        if f['copy_per_flop'] <= 0.0009953523403964937:
                            if f['copy_per_io'] <= 0.002169313025660813:
                                return 0.0
                            else:
                                if f['op_addmm'] <= 0.5:
                                    if f['io_bytes'] <= 112344504.0:
                                        if f['copy_per_flop'] <= 0.000766792829381302:
                                            if f['flops'] <= 3479730432.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_a_per_io'] <= 0.0027311922749504447:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['io_bytes'] <= 99160424.0:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.0028613063041120768:
                                if f['io_bytes'] <= 69227040.0:
                                    if f['flops'] <= 3152057856.0:
                                        if f['copy_per_flop'] <= 0.0015320182428695261:
                                            return 0.0
                                        else:
                                            return -0.18693136856642753
                                    else:
                                        if f['pk'] <= 528.0:
                                            if f['flops'] <= 5033491200.0:
                                                return -0.1572082705713861
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['k'] <= 637.5:
                                    return -0.2389871756779099
                                else:
                                    return 0.0
                    else:
                        if f['unaligned_lds'] <= 0.5:
                            return 0.0
                        else:
                            if f['flops'] <= 4321286912.0:
                                if f['k'] <= 898.0:
                                    if f['copy_b_per_io'] <= 0.003394323051907122:
                                        return 0.0
                                    else:
                                        if f['flops'] <= 2121962176.0:
                                            if f['copy_a_per_io'] <= 0.004914053482934833:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_a_per_io'] <= 0.006945308530703187:
                                                return 0.0
                                            else:
                                                if f['copy_b_per_io'] <= 0.036897413432598114:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                else:
                                    if f['op_addmm'] <= 0.5:
                                        if f['copy_per_flop'] <= 0.0005253758863545954:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.0021995017305016518:
                                    if f['arith_intensity'] <= 90.29899215698242:
                                        return 0.0
                                    else:
                                        if f['mat1_stride0'] <= 592.5:
                                            if f['copy_per_flop'] <= 0.0011108375038020313:
                                                if f['flops'] <= 6421913856.0:
                                                    return 0.28854087517612875
                                                else:
                                                    return 0.3795787200702668
                                            else:
                                                return 0.0
                                        else:
                                            return 0.38556431706758654
                                else:
                                    return 0.0
                else:
                    if f['copy_per_flop'] <= 0.002081977901980281:
                        if f['flops'] <= 2907412096.0:
                            if f['copy_a_per_io'] <= 0.003225329448468983:
                                if f['mn'] <= 2676824.0:
                                    if f['align_n'] <= 1.5:
                                        if f['copy_per_flop'] <= 0.00025359162827953696:
                                            if f['padded_flops_ratio'] <= 1.037179172039032:
                                                return 0.4054651081081645
                                            else:
                                                return 0.4004567224454851
                                        else:
                                            return 0.3599776803401754
                                    else:
                                        if f['align_k'] <= 1.5:
                                            if f['mat1_stride0'] <= 1277.0:
                                                return 0.0
                                            else:
                                                return 0.4025942722237518
                                        else:
                                            if f['flops'] <= 2210602624.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['align_n'] <= 3.0:
                                        if f['mat2_stride1'] <= 16.5:
                                            if f['pad_frac_m'] <= 0.0007915267487987876:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.3455186204075468
                                    else:
                                        return 0.0
                            else:
                                if f['mat2_prepadded'] <= 0.5:
                                    if f['align_n'] <= 1.5:
                                        if f['flops'] <= 2169366656.0:
                                            if f['op_addmm'] <= 0.5:
                                                if f['copy_b_bytes'] <= 483520.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_b_per_io'] <= 0.030934907495975494:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['align_k'] <= 1.5:
                                            if f['n'] <= 4226.0:
                                                if f['flops'] <= 2056258048.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['mat1_stride0'] <= 42.0:
                                                if f['flops'] <= 1910702080.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['kn'] <= 750240.0:
                                                    if f['kn'] <= 295542.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return -0.31149707448424213
                                else:
                                    if f['kn'] <= 406368.0:
                                        if f['align_n'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['pad_frac_n'] <= 0.00025554021704010665:
                                            return 0.0
                                        else:
                                            if f['copy_a_bytes'] <= 534528.0:
                                                return 0.0
                                            else:
                                                if f['mn'] <= 258361.5:
                                                    return 0.34413811559861096
                                                else:
                                                    return 0.39581264220078194
                        else:
                            if f['unaligned_lds'] <= 0.5:
                                return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    if f['flops'] <= 4132465024.0:
                                        if f['copy_a_per_io'] <= 0.008706537541002035:
                                            if f['pk'] <= 132.0:
                                                return 0.0
                                            else:
                                                return 0.40470542355182804
                                        else:
                                            if f['pad_frac_k'] <= 0.0036050225608050823:
                                                return 0.36680070478118576
                                            else:
                                                if f['op_addmm'] <= 0.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['k'] <= 62.5:
                                            return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.0014407437993213534:
                                                if f['flops'] <= 5145121536.0:
                                                    if f['mat2_stride0'] <= 1998.0:
                                                        return 0.4021108505861771
                                                    else:
                                                        return 0.37098302079173584
                                                else:
                                                    if f['padded_flops_ratio'] <= 1.045695185661316:
                                                        if f['copy_per_flop'] <= 0.0011339139309711754:
                                                            if f['pad_frac_n'] <= 0.00038301190943457186:
                                                                return 0.4029798911051522
                                                            else:
                                                                if f['padded_flops_ratio'] <= 1.0316293239593506:
                                                                    return 0.4054651081081652
                                                                else:
                                                                    return 0.40519250205265384
                                                        else:
                                                            return 0.3902601299407641
                                                    else:
                                                        return 0.3851274101973254
                                            else:
                                                if f['flops'] <= 7622307072.0:
                                                    if f['arith_intensity'] <= 381.7669372558594:
                                                        return 0.3610474923153902
                                                    else:
                                                        return 0.31492979198536425
                                                else:
                                                    return 0.387714709633182
                                else:
                                    if f['align_k'] <= 1.5:
                                        if f['mat1_stride0'] <= 33.0:
                                            if f['mat2_stride0'] <= 2687.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['kn'] <= 481895.0:
                                                if f['kn'] <= 330522.0:
                                                    if f['copy_b_bytes'] <= 630528.0:
                                                        return 0.3329618049351043
                                                    else:
                                                        return 0.39084606467339944
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_per_flop'] <= 0.0010264583979733288:
                                                    if f['flops'] <= 3796422144.0:
                                                        return 0.3920745437697725
                                                    else:
                                                        return 0.4054651081081643
                                                else:
                                                    if f['pad_frac_n'] <= 0.0018100138986483216:
                                                        return 0.3840047637911803
                                                    else:
                                                        return 0.3296321444591765
                                    else:
                                        if f['copy_per_flop'] <= 0.00038399890763685107:
                                            if f['arith_intensity'] <= 99.56281280517578:
                                                return 0.0
                                            else:
                                                if f['flops'] <= 6046670848.0:
                                                    return 0.3558334857229851
                                                else:
                                                    return 0.38954536588265243
                                        else:
                                            if f['flops'] <= 4169222016.0:
                                                if f['copy_b_per_io'] <= 0.029095975682139397:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['mat1_stride0'] <= 31.0:
                                                    return 0.0
                                                else:
                                                    if f['copy_per_flop'] <= 0.0010327731724828482:
                                                        if f['k'] <= 509.0:
                                                            if f['flops'] <= 5883639552.0:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                    else:
                        if f['align_n'] <= 1.5:
                            if f['flops'] <= 3673292288.0:
                                if f['mat1_stride0'] <= 648.5:
                                    if f['copy_a_bytes'] <= 3106048.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['op_addmm'] <= 0.5:
                                        if f['copy_per_io'] <= 0.8365770578384399:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.004072340903803706:
                                    if f['mat1_stride0'] <= 151.5:
                                        return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.8210812211036682:
                                            if f['pad_frac_k'] <= 0.0044653816148638725:
                                                return 0.37781638638170134
                                            else:
                                                return 0.0
                                        else:
                                            if f['unaligned_dims'] <= 2.5:
                                                return 0.0
                                            else:
                                                if f['pad_frac_k'] <= 0.0006510712264571339:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['align_k'] <= 1.5:
                                if f['flops'] <= 3083114368.0:
                                    if f['pad_frac_m'] <= 0.00310902192723006:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0024880004348233342:
                                        return 0.0
                                    else:
                                        if f['pad_frac_m'] <= 0.0026152515783905983:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['arith_intensity'] <= 330.9208679199219:
                                    if f['batch'] <= 1.5:
                                        if f['padded_flops_ratio'] <= 1.0144383907318115:
                                            if f['copy_per_flop'] <= 0.003771356074139476:
                                                if f['mn'] <= 1186271.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return -0.34325715193731676
                                        else:
                                            if f['flops'] <= 2564218368.0:
                                                return 0.0
                                            else:
                                                if f['align_m'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
            else:
                if f['unaligned_lds'] <= 0.5:
                    if f['copy_per_io'] <= 0.2710149735212326:
                        if f['copy_per_io'] <= 0.08097957447171211:
                            return 0.0
                        else:
                            return -0.2320922840646075
                    else:
                        return -0.38897109007571573
                else:
                    if f['copy_per_flop'] <= 0.002590552787296474:
                        if f['copy_per_flop'] <= 0.0016570923035033047:
                            if f['copy_per_flop'] <= 0.0012175303418189287:
                                if f['arith_intensity'] <= 61.74158477783203:
                                    return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0009566937806084752:
                                        if f['arith_intensity'] <= 126.94661331176758:
                                            if f['pad_frac_k'] <= 0.0003938323206966743:
                                                return 0.34413428764921
                                            else:
                                                if f['copy_per_flop'] <= 0.000493745319545269:
                                                    if f['copy_a_bytes'] <= 3471360.0:
                                                        return 0.40546510810816416
                                                    else:
                                                        return 0.39581833904818614
                                                else:
                                                    return 0.0
                                        else:
                                            if f['flops'] <= 11760358400.0:
                                                if f['align_k'] <= 3.0:
                                                    if f['pk'] <= 320.0:
                                                        return 0.3978093636602586
                                                    else:
                                                        return 0.40546510810816416
                                                else:
                                                    return 0.36256424396913206
                                            else:
                                                if f['io_bytes'] <= 27093329.0:
                                                    return 0.39265589886028696
                                                else:
                                                    if f['copy_b_per_io'] <= 0.48463912308216095:
                                                        if f['flops'] <= 22441533440.0:
                                                            if f['align_n'] <= 1.5:
                                                                return 0.4054651081081649
                                                            else:
                                                                if f['align_k'] <= 1.5:
                                                                    return 0.4048962178300692
                                                                else:
                                                                    return 0.39562220182700875
                                                        else:
                                                            if f['copy_a_bytes'] <= 33353152.0:
                                                                if f['mk'] <= 27450426.0:
                                                                    return 0.4053765000006137
                                                                else:
                                                                    return 0.4034301364344646
                                                            else:
                                                                return 0.40289972159719506
                                                    else:
                                                        if f['io_bytes'] <= 62727788.0:
                                                            return 0.388070075293074
                                                        else:
                                                            return 0.40533251313444724
                                    else:
                                        if f['align_n'] <= 1.5:
                                            if f['kn'] <= 1506396.0:
                                                return 0.3993551808801373
                                            else:
                                                return 0.4054651081081652
                                        else:
                                            if f['flops'] <= 16665308672.0:
                                                return 0.0
                                            else:
                                                if f['align_k'] <= 1.5:
                                                    if f['mat1_stride0'] <= 1024.0:
                                                        return 0.3806301654124958
                                                    else:
                                                        return 0.40546510810816416
                                                else:
                                                    if f['copy_per_io'] <= 0.7099400460720062:
                                                        return 0.38864541911202627
                                                    else:
                                                        return 0.3470060089193484
                            else:
                                if f['align_n'] <= 1.5:
                                    if f['align'] <= 6.0:
                                        return 0.3565086293067667
                                    else:
                                        if f['mn'] <= 2045932.0:
                                            return 0.3939015932500825
                                        else:
                                            return 0.40546510810816494
                                else:
                                    if f['align_k'] <= 1.5:
                                        if f['mat1_stride0'] <= 419.0:
                                            return 0.0
                                        else:
                                            if f['pad_frac_m'] <= 0.0009267299610655755:
                                                return 0.40490412369733236
                                            else:
                                                return 0.4054651081081641
                                    else:
                                        if f['io_bytes'] <= 34784050.0:
                                            return 0.0
                                        else:
                                            if f['pad_frac_m'] <= 0.0015802369453012943:
                                                if f['align_m'] <= 1.5:
                                                    return 0.3746532344942068
                                                else:
                                                    return 0.3041285986303881
                                            else:
                                                return 0.0
                        else:
                            if f['align_n'] <= 1.5:
                                if f['tf32'] <= 0.5:
                                    if f['copy_per_flop'] <= 0.0022014169953763485:
                                        if f['flops'] <= 20115522560.0:
                                            if f['copy_a_per_io'] <= 0.4535669535398483:
                                                return 0.36120921353028707
                                            else:
                                                return 0.3944394117508087
                                        else:
                                            if f['copy_per_io'] <= 0.8787634968757629:
                                                return 0.39225450405885814
                                            else:
                                                if f['padded_flops_ratio'] <= 1.007324993610382:
                                                    return 0.4016953295732208
                                                else:
                                                    return 0.4054651081081644
                                    else:
                                        if f['pad_frac_m'] <= 0.0010343226604163647:
                                            return 0.31961907995836364
                                        else:
                                            if f['align_k'] <= 1.5:
                                                return 0.3439275303350527
                                            else:
                                                return 0.3825859535493688
                                else:
                                    return 0.2948794752527601
                            else:
                                if f['align_k'] <= 1.5:
                                    if f['mat1_stride1'] <= 509.5:
                                        if f['copy_per_flop'] <= 0.0022051623091101646:
                                            if f['copy_per_flop'] <= 0.0019598195794969797:
                                                return 0.40360114942135966
                                            else:
                                                return 0.37895749963596626
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['unaligned_dims'] <= 2.5:
                                        if f['pn'] <= 630.0:
                                            return 0.0
                                        else:
                                            if f['copy_b_bytes'] <= 38633472.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['mat1_stride0'] <= 4093.0:
                                            return 0.0
                                        else:
                                            return 0.0
                    else:
                        if f['align_n'] <= 1.5:
                            if f['copy_per_flop'] <= 0.0032620488200336695:
                                if f['pad_frac_n'] <= 0.0030631967820227146:
                                    return 0.0
                                else:
                                    return 0.34360686999888373
                            else:
                                if f['arith_intensity'] <= 275.94830322265625:
                                    if f['mat2_stride1'] <= 1325.5:
                                        if f['copy_per_flop'] <= 0.003910757834091783:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['align_k'] <= 1.5:
                                if f['copy_per_flop'] <= 0.003924196236766875:
                                    if f['copy_per_flop'] <= 0.0032142774434760213:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['arith_intensity'] <= 236.11640167236328:
                                    return 0.0
                                else:
                                    if f['kn'] <= 15524000.0:
                                        if f['padded_flops_ratio'] <= 1.008430540561676:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
    else:
        if f['arith_intensity'] <= 97.12032318115234:
            if f['batch'] <= 1.5:
                if f['pk'] <= 518.0:
                    if f['mat1_prepadded'] <= 0.5:
                        if f['mat2_prepadded'] <= 0.5:
                            if f['arith_intensity'] <= 90.59027481079102:
                                if f['kn'] <= 1068908.0:
                                    if f['pm'] <= 22.0:
                                        if f['pad_frac_k'] <= 0.01515499409288168:
                                            if f['op_addmm'] <= 0.5:
                                                if f['mat2_stride0'] <= 41.5:
                                                    return -0.39473500794021754
                                                else:
                                                    return 0.0
                                            else:
                                                return -0.4023616442862847
                                        else:
                                            return -0.40546510810816394
                                    else:
                                        if f['flops'] <= 193152584.0:
                                            if f['align_n'] <= 96.0:
                                                if f['mat2_stride1'] <= 459.5:
                                                    if f['copy_b_per_io'] <= 0.0006433798698708415:
                                                        if f['copy_per_io'] <= 0.5063855648040771:
                                                            return -0.40489861972834845
                                                        else:
                                                            return -0.39663049117853716
                                                    else:
                                                        if f['mat1_stride0'] <= 231.5:
                                                            if f['kn'] <= 559.0:
                                                                if f['pad_frac_m'] <= 0.0004992318572476506:
                                                                    return -0.3928061541914958
                                                                else:
                                                                    return -0.4054651081081641
                                                            else:
                                                                if f['flops'] <= 152574800.0:
                                                                    return -0.4054172671180736
                                                                else:
                                                                    return -0.40432561871614464
                                                        else:
                                                            if f['copy_per_io'] <= 0.7955683171749115:
                                                                return -0.39616741971935754
                                                            else:
                                                                if f['copy_per_io'] <= 0.9892025887966156:
                                                                    return -0.4047845460039731
                                                                else:
                                                                    return -0.3997194964467469
                                                else:
                                                    return -0.3910658011838731
                                            else:
                                                if f['io_bytes'] <= 492265.0:
                                                    return 0.0
                                                else:
                                                    return -0.40546510810816416
                                        else:
                                            if f['mat1_stride0'] <= 254.5:
                                                if f['copy_per_io'] <= 0.2049160972237587:
                                                    return 0.0
                                                else:
                                                    if f['mat1_stride0'] <= 141.5:
                                                        if f['k'] <= 136.5:
                                                            if f['io_bytes'] <= 4091586.0:
                                                                return -0.4054651081081645
                                                            else:
                                                                if f['copy_a_per_io'] <= 0.020340852439403534:
                                                                    return -0.4054651081081645
                                                                else:
                                                                    return -0.40546510810816444
                                                        else:
                                                            return -0.40471424198753353
                                                    else:
                                                        return -0.4002274383382848
                                            else:
                                                return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.016035739332437515:
                                        return -0.3561396691498504
                                    else:
                                        if f['mat1_stride0'] <= 415.5:
                                            if f['mat2_stride0'] <= 6539.0:
                                                return -0.40546510810816416
                                            else:
                                                return -0.3960979139658778
                                        else:
                                            return 0.0
                            else:
                                if f['padded_flops_ratio'] <= 1.0274773836135864:
                                    return -0.39142054161163803
                                else:
                                    return 0.0
                        else:
                            if f['arith_intensity'] <= 54.67836380004883:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['mat2_stride1'] <= 39.0:
                                        if f['kn'] <= 13224.5:
                                            if f['mat1_stride1'] <= 329.5:
                                                if f['copy_per_io'] <= 0.8014594912528992:
                                                    return -0.40546510810816405
                                                else:
                                                    return -0.40447888298420526
                                            else:
                                                return -0.3950507958747364
                                        else:
                                            return -0.3876718872309438
                                    else:
                                        return -0.3796152914981575
                                else:
                                    if f['mn'] <= 26454.5:
                                        return 0.0
                                    else:
                                        if f['mn'] <= 83779.5:
                                            return -0.3655077261347823
                                        else:
                                            return -0.40546510810816433
                            else:
                                return 0.0
                    else:
                        if f['dtype_bf16'] <= 0.5:
                            if f['arith_intensity'] <= 63.78948211669922:
                                if f['tf32'] <= 0.5:
                                    if f['mat1_stride0'] <= 258.5:
                                        if f['arith_intensity'] <= 34.885629653930664:
                                            return -0.40546510810816466
                                        else:
                                            return -0.3990916204675778
                                    else:
                                        return -0.3883549580094149
                                else:
                                    if f['mn'] <= 88925.5:
                                        return -0.40485682396820916
                                    else:
                                        return 0.0
                            else:
                                return -0.34395035132717955
                        else:
                            if f['k'] <= 133.0:
                                if f['op_addmm'] <= 0.5:
                                    return -0.32406530956506974
                                else:
                                    return -0.4054651081081643
                            else:
                                return 0.0
                else:
                    if f['copy_per_io'] <= 0.8956830501556396:
                        if f['dtype_bf16'] <= 0.5:
                            if f['kn'] <= 534396.0:
                                if f['pm'] <= 22.0:
                                    return 0.0
                                else:
                                    if f['flops'] <= 47337672.0:
                                        if f['copy_per_io'] <= 0.7274957597255707:
                                            if f['mat2_stride1'] <= 906.5:
                                                if f['mn'] <= 4443.0:
                                                    if f['m'] <= 57.5:
                                                        return -0.3583738756636874
                                                    else:
                                                        return 0.0
                                                else:
                                                    return -0.3784547698299698
                                            else:
                                                return -0.28923719095988093
                                        else:
                                            return -0.38035210708748163
                                    else:
                                        if f['copy_per_flop'] <= 0.015517069026827812:
                                            return 0.0
                                        else:
                                            return -0.3470200777766055
                            else:
                                if f['mk'] <= 533753.5:
                                    if f['mat1_stride0'] <= 5662.0:
                                        if f['mat1_prepadded'] <= 0.5:
                                            return -0.33361093181758966
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['kn'] <= 537895.0:
                                if f['align_n'] <= 1.5:
                                    if f['pad_frac_k'] <= 0.0007683009607717395:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['flops'] <= 8886560.0:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                return 0.0
                    else:
                        if f['op_addmm'] <= 0.5:
                            if f['arith_intensity'] <= 10.76064920425415:
                                return 0.0
                            else:
                                if f['copy_per_io'] <= 0.9750536978244781:
                                    if f['align'] <= 6.0:
                                        if f['align_m'] <= 12.0:
                                            if f['pk'] <= 846.0:
                                                return -0.4029519766775027
                                            else:
                                                if f['copy_per_io'] <= 0.9333402216434479:
                                                    return -0.40497789659306277
                                                else:
                                                    return -0.4054651081081645
                                        else:
                                            return -0.39503812101754726
                                    else:
                                        if f['copy_a_bytes'] <= 16640.0:
                                            if f['mat2_stride0'] <= 541.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['flops'] <= 419182384.0:
                                                if f['copy_b_per_io'] <= 0.005593105684965849:
                                                    return 0.0
                                                else:
                                                    if f['copy_b_bytes'] <= 1678400.0:
                                                        if f['flops'] <= 195230976.0:
                                                            if f['mn'] <= 58409.5:
                                                                if f['mn'] <= 34493.0:
                                                                    return -0.4054651081081642
                                                                else:
                                                                    return -0.4049565398339121
                                                            else:
                                                                return -0.40186766323438744
                                                        else:
                                                            return -0.39514999767111864
                                                    else:
                                                        return -0.37799815698393074
                                            else:
                                                if f['copy_per_flop'] <= 0.014986835420131683:
                                                    return -0.3819934379828744
                                                else:
                                                    if f['arith_intensity'] <= 59.03715515136719:
                                                        return -0.3516923845756901
                                                    else:
                                                        return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.027485857717692852:
                                        if f['pad_frac_m'] <= 0.073898795992136:
                                            if f['mat1_stride0'] <= 7918.0:
                                                if f['copy_b_bytes'] <= 229824.0:
                                                    return -0.359524605683065
                                                else:
                                                    if f['mat1_stride0'] <= 5675.0:
                                                        if f['copy_per_flop'] <= 0.018019656650722027:
                                                            if f['pad_frac_k'] <= 0.0008728731772862375:
                                                                if f['flops'] <= 421779424.0:
                                                                    return -0.38411335162031157
                                                                else:
                                                                    return -0.4007124787887362
                                                            else:
                                                                if f['pad_frac_n'] <= 0.00182644760934636:
                                                                    return -0.4021820764920287
                                                                else:
                                                                    return -0.40546510810816405
                                                        else:
                                                            if f['arith_intensity'] <= 54.88446044921875:
                                                                return -0.405465108108164
                                                            else:
                                                                return -0.4049996337305769
                                                    else:
                                                        if f['mn'] <= 103719.5:
                                                            return 0.0
                                                        else:
                                                            return -0.4051130162313329
                                            else:
                                                return 0.0
                                        else:
                                            if f['dtype_bf16'] <= 0.5:
                                                return -0.3996443058898241
                                            else:
                                                return 0.0
                                    else:
                                        if f['flops'] <= 3237572.0:
                                            return 0.0
                                        else:
                                            if f['copy_a_per_io'] <= 0.0009538335725665092:
                                                if f['copy_b_bytes'] <= 21704192.0:
                                                    return -0.3599933094958011
                                                else:
                                                    if f['m'] <= 22.5:
                                                        return -0.40546510810816444
                                                    else:
                                                        return -0.4039919123940585
                                            else:
                                                if f['k'] <= 7628.5:
                                                    if f['align_k'] <= 12.0:
                                                        if f['copy_per_flop'] <= 0.028926631435751915:
                                                            return -0.3963688558328759
                                                        else:
                                                            if f['kn'] <= 28806.0:
                                                                if f['copy_b_per_io'] <= 0.0040340793784707785:
                                                                    return -0.39197007441987475
                                                                else:
                                                                    return -0.4054651081081641
                                                            else:
                                                                if f['copy_per_flop'] <= 0.1359509527683258:
                                                                    return -0.40504909707322645
                                                                else:
                                                                    return -0.3988102086952069
                                                    else:
                                                        if f['flops'] <= 603407040.0:
                                                            return -0.40447565553384385
                                                        else:
                                                            return -0.37534613209903495
                                                else:
                                                    if f['copy_per_flop'] <= 0.032004836946725845:
                                                        return -0.3738100407117229
                                                    else:
                                                        if f['mk'] <= 187940.0:
                                                            return 0.0
                                                        else:
                                                            if f['padded_flops_ratio'] <= 1.129093050956726:
                                                                if f['pad_frac_n'] <= 0.04481605440378189:
                                                                    return -0.40546510810816416
                                                                else:
                                                                    return -0.405448732378148
                                                            else:
                                                                return -0.4014301848978148
                        else:
                            if f['copy_per_flop'] <= 0.01695667766034603:
                                if f['io_bytes'] <= 3159722.0:
                                    return 0.0
                                else:
                                    if f['mn'] <= 259068.0:
                                        if f['m'] <= 1944.5:
                                            if f['io_bytes'] <= 9354528.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['flops'] <= 3849421056.0:
                                            if f['arith_intensity'] <= 61.68387413024902:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return -0.38696915291443557
                            else:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['copy_per_flop'] <= 0.029529519379138947:
                                        if f['pad_frac_k'] <= 0.0013123563257977366:
                                            if f['flops'] <= 1270094656.0:
                                                if f['flops'] <= 252719096.0:
                                                    return -0.3656967554900472
                                                else:
                                                    if f['arith_intensity'] <= 57.02874755859375:
                                                        return 0.0
                                                    else:
                                                        return -0.31796216242583436
                                            else:
                                                return -0.38736772583327417
                                        else:
                                            if f['flops'] <= 303343184.0:
                                                return -0.4054651081081643
                                            else:
                                                return -0.36845114433436993
                                    else:
                                        if f['mat2_stride1'] <= 6753.0:
                                            if f['mat1_stride0'] <= 5213.0:
                                                if f['mn'] <= 1286.5:
                                                    return 0.0
                                                else:
                                                    if f['mat1_prepadded'] <= 0.5:
                                                        if f['copy_per_flop'] <= 0.03164946287870407:
                                                            return -0.38944480350495175
                                                        else:
                                                            if f['mat2_stride1'] <= 3915.5:
                                                                if f['copy_per_flop'] <= 0.033399052917957306:
                                                                    return -0.39811646162917114
                                                                else:
                                                                    return -0.40465704920082385
                                                            else:
                                                                return -0.3948230826447584
                                                    else:
                                                        return -0.3822030063225545
                                            else:
                                                if f['io_bytes'] <= 30303816.0:
                                                    if f['tf32'] <= 0.5:
                                                        if f['m'] <= 142.0:
                                                            return -0.31334886554622593
                                                        else:
                                                            return -0.36584179088581703
                                                    else:
                                                        return -0.3781081494188092
                                                else:
                                                    if f['k'] <= 6037.0:
                                                        return -0.3994785859032536
                                                    else:
                                                        if f['copy_per_flop'] <= 0.05068985000252724:
                                                            return -0.4054651081081645
                                                        else:
                                                            return -0.4054651081081645
                                        else:
                                            return 0.0
                                else:
                                    if f['align_k'] <= 1.5:
                                        if f['io_bytes'] <= 5283861.0:
                                            if f['copy_per_flop'] <= 0.06122489273548126:
                                                if f['k'] <= 2050.0:
                                                    return -0.38084686157236597
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['flops'] <= 530833536.0:
                                                if f['arith_intensity'] <= 26.044432640075684:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['io_bytes'] <= 36012420.0:
                                                    return 0.0
                                                else:
                                                    return -0.39101885636875744
                                    else:
                                        if f['align_n'] <= 1.5:
                                            if f['copy_b_per_io'] <= 0.9539023339748383:
                                                if f['copy_per_io'] <= 1.0189858078956604:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['mat1_stride1'] <= 30.5:
                                                if f['pad_frac_k'] <= 0.00035740896419156343:
                                                    return -0.4027816079495423
                                                else:
                                                    if f['pad_frac_n'] <= 0.0006000995927024633:
                                                        return -0.4054651081081645
                                                    else:
                                                        return -0.4054651081081642
                                            else:
                                                return -0.3781901656614818
            else:
                if f['pk'] <= 1598.0:
                    if f['k'] <= 508.5:
                        if f['mn'] <= 545032.5:
                            if f['arith_intensity'] <= 71.6358642578125:
                                if f['pk'] <= 320.0:
                                    if f['copy_a_per_io'] <= 0.0008339332416653633:
                                        if f['pk'] <= 82.0:
                                            if f['copy_b_bytes'] <= 456096.0:
                                                return -0.4054651081081642
                                            else:
                                                return -0.3874265769535325
                                        else:
                                            return 0.0
                                    else:
                                        if f['arith_intensity'] <= 42.88431167602539:
                                            if f['io_bytes'] <= 13261668.0:
                                                if f['mat2_prepadded'] <= 0.5:
                                                    if f['copy_per_flop'] <= 0.014603746123611927:
                                                        return -0.405465108108164
                                                    else:
                                                        if f['mn'] <= 7499.5:
                                                            return -0.405465108108164
                                                        else:
                                                            if f['pad_frac_k'] <= 0.0038334436248987913:
                                                                return -0.4054651081081641
                                                            else:
                                                                if f['kn'] <= 610.5:
                                                                    return -0.4054651081081645
                                                                else:
                                                                    return -0.4054651081081634
                                                else:
                                                    if f['n'] <= 62.0:
                                                        return -0.4054651081081643
                                                    else:
                                                        return -0.4031742939667221
                                            else:
                                                return -0.39490135395396075
                                        else:
                                            if f['copy_b_bytes'] <= 132928.0:
                                                return -0.376916122926284
                                            else:
                                                if f['pad_frac_n'] <= 0.0010212399065494537:
                                                    return -0.38785013031881516
                                                else:
                                                    if f['pad_frac_n'] <= 0.005495384568348527:
                                                        return -0.4054651081081645
                                                    else:
                                                        return -0.40546510810816444
                                else:
                                    if f['mat2_stride0'] <= 63.0:
                                        return -0.3945690921419533
                                    else:
                                        return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.009559332858771086:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['flops'] <= 374406176.0:
                                if f['copy_per_io'] <= 0.16802216321229935:
                                    return 0.0
                                else:
                                    return -0.40157178611286815
                            else:
                                if f['copy_per_flop'] <= 0.00879719341173768:
                                    if f['padded_flops_ratio'] <= 1.0438324213027954:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return -0.3724481563001918
                    else:
                        if f['io_bytes'] <= 18189755.0:
                            if f['dtype_bf16'] <= 0.5:
                                if f['copy_per_flop'] <= 0.016243684105575085:
                                    return 0.0
                                else:
                                    if f['mn'] <= 11603.5:
                                        if f['k'] <= 802.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_per_flop'] <= 0.03134203143417835:
                                            return 0.0
                                        else:
                                            return -0.38174937936219755
                            else:
                                if f['k'] <= 559.0:
                                    return 0.0
                                else:
                                    if f['copy_b_per_io'] <= 0.47122687101364136:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.01675640419125557:
                                return 0.0
                            else:
                                if f['io_bytes'] <= 32438668.0:
                                    return -0.39709260006780417
                                else:
                                    if f['dtype_bf16'] <= 0.5:
                                        return -0.40546510810816394
                                    else:
                                        return -0.4050807391267138
                else:
                    if f['io_bytes'] <= 33648082.0:
                        if f['dtype_bf16'] <= 0.5:
                            if f['io_bytes'] <= 19663452.0:
                                if f['pk'] <= 3068.0:
                                    if f['copy_per_flop'] <= 0.03122775722295046:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['lda_aligned'] <= 0.5:
                                        if f['mat2_stride0'] <= 41.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['pk'] <= 5540.0:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['align_n'] <= 1.5:
                                if f['mn'] <= 15250.5:
                                    return 0.40546510810816416
                                else:
                                    return 0.0
                            else:
                                if f['k'] <= 3842.0:
                                    return 0.0
                                else:
                                    return 0.0
                    else:
                        if f['io_bytes'] <= 82317216.0:
                            if f['copy_per_flop'] <= 0.021014094352722168:
                                if f['align_n'] <= 1.5:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['arith_intensity'] <= 33.51146125793457:
                                        if f['pad_frac_m'] <= 0.00302512408234179:
                                            return -0.4017038854815495
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['arith_intensity'] <= 69.48600387573242:
                                if f['pk'] <= 5024.0:
                                    if f['mat2_stride1'] <= 2444.5:
                                        if f['mat2_stride0'] <= 6569.5:
                                            return -0.4054651081081647
                                        else:
                                            return -0.3981594498970341
                                    else:
                                        return -0.38976745260151574
                                else:
                                    if f['copy_a_bytes'] <= 2343936.0:
                                        return 0.0
                                    else:
                                        if f['pad_frac_m'] <= 0.0031131121795624495:
                                            if f['io_bytes'] <= 199953312.0:
                                                return -0.39089278550676493
                                            else:
                                                return -0.40546510810816416
                                        else:
                                            return -0.3470246553355709
                            else:
                                return 0.0
        else:
            if f['copy_per_flop'] <= 0.008047759532928467:
                if f['k'] <= 677.5:
                    if f['pk'] <= 276.0:
                        if f['batch'] <= 1.5:
                            if f['mk'] <= 966458.5:
                                if f['align_k'] <= 1.5:
                                    return -0.36277191493521443
                                else:
                                    if f['mat1_stride0'] <= 242.0:
                                        return -0.3883675677821383
                                    else:
                                        return -0.39998569705255893
                            else:
                                return -0.323251408783676
                        else:
                            return 0.0
                    else:
                        if f['flops'] <= 301381072.0:
                            if f['copy_per_flop'] <= 0.005982237169519067:
                                return 0.0
                            else:
                                return -0.3588275305880227
                        else:
                            if f['align_n'] <= 1.5:
                                if f['pad_frac_k'] <= 0.008138688746839762:
                                    if f['arith_intensity'] <= 168.65109252929688:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['align_k'] <= 1.5:
                                    if f['mat1_stride0'] <= 506.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                else:
                    if f['align_n'] <= 1.5:
                        if f['op_bmm'] <= 0.5:
                            if f['op_addmm'] <= 0.5:
                                if f['copy_per_flop'] <= 0.004704420454800129:
                                    if f['copy_per_flop'] <= 0.0043405171018093824:
                                        return 0.0
                                    else:
                                        if f['mat2_stride0'] <= 514.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['padded_flops_ratio'] <= 1.0198237895965576:
                                        if f['mat2_stride0'] <= 221.0:
                                            return 0.0
                                        else:
                                            if f['pad_frac_n'] <= 0.0015603736392222345:
                                                return 0.0
                                            else:
                                                if f['copy_b_per_io'] <= 0.30951792001724243:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['align_k'] <= 3.0:
                                            if f['copy_per_io'] <= 0.9548646509647369:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['mn'] <= 861327.5:
                                    if f['k'] <= 2050.5:
                                        if f['dtype_bf16'] <= 0.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['io_bytes'] <= 40177616.0:
                                            if f['dtype_bf16'] <= 0.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.005129439756274223:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['mn'] <= 259840.0:
                                return 0.3297697289554771
                            else:
                                if f['copy_per_flop'] <= 0.0049572656862437725:
                                    return 0.0
                                else:
                                    if f['padded_flops_ratio'] <= 1.0141112208366394:
                                        return 0.0
                                    else:
                                        return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            if f['op_bmm'] <= 0.5:
                                if f['op_addmm'] <= 0.5:
                                    if f['mn'] <= 257807.0:
                                        return -0.2867079754561164
                                    else:
                                        if f['pad_frac_m'] <= 0.01622380129992962:
                                            if f['copy_per_flop'] <= 0.004558974178507924:
                                                return 0.0
                                            else:
                                                if f['mat2_stride0'] <= 198.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['mk'] <= 1118800.5:
                                        return 0.0
                                    else:
                                        if f['mn'] <= 558115.0:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['pad_frac_n'] <= 0.0014306619996204972:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['arith_intensity'] <= 297.1464538574219:
                                if f['align_n'] <= 12.0:
                                    if f['mat2_stride1'] <= 4515.0:
                                        if f['arith_intensity'] <= 188.05426025390625:
                                            if f['mn'] <= 169759.0:
                                                return -0.3085701169449439
                                            else:
                                                if f['copy_per_io'] <= 0.9106126129627228:
                                                    return -0.33531959817029344
                                                else:
                                                    if f['pad_frac_m'] <= 0.0011234305566176772:
                                                        return -0.40185066266883696
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['mk'] <= 1804295.0:
                                                return -0.3196903413972233
                                            else:
                                                if f['mk'] <= 7850802.0:
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
                if f['batch'] <= 1.5:
                    if f['op_addmm'] <= 0.5:
                        if f['copy_per_flop'] <= 0.008352816104888916:
                            if f['tf32'] <= 0.5:
                                if f['flops'] <= 2158536192.0:
                                    return 0.0
                                else:
                                    if f['arith_intensity'] <= 120.40365219116211:
                                        return -0.3873494252273129
                                    else:
                                        return -0.3414986158795726
                            else:
                                return 0.0
                        else:
                            if f['copy_per_io'] <= 0.9111905694007874:
                                if f['flops'] <= 499056976.0:
                                    if f['copy_per_flop'] <= 0.011059217620640993:
                                        return -0.36126168738589776
                                    else:
                                        return -0.3934379571593583
                                else:
                                    if f['tf32'] <= 0.5:
                                        return -0.36850525793166516
                                    else:
                                        return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.010147943161427975:
                                    if f['k'] <= 2945.5:
                                        return -0.3371240862162754
                                    else:
                                        if f['pad_frac_k'] <= 0.0002219563684775494:
                                            return 0.0
                                        else:
                                            if f['copy_per_io'] <= 0.9742220938205719:
                                                return -0.3726466919302416
                                            else:
                                                if f['mk'] <= 1078873.5:
                                                    return -0.4045477946061974
                                                else:
                                                    return -0.3966216051787896
                                else:
                                    if f['copy_per_flop'] <= 0.01857460755854845:
                                        if f['copy_per_io'] <= 0.9417173862457275:
                                            return -0.39469734161570363
                                        else:
                                            if f['copy_per_flop'] <= 0.012733807321637869:
                                                return -0.399600657114527
                                            else:
                                                if f['tf32'] <= 0.5:
                                                    return -0.4049825650594663
                                                else:
                                                    return -0.4054651081081641
                                    else:
                                        return -0.3786695515358021
                    else:
                        if f['align'] <= 6.0:
                            if f['arith_intensity'] <= 128.41313934326172:
                                if f['mn'] <= 180317.0:
                                    return 0.0
                                else:
                                    if f['pad_frac_m'] <= 0.0007479850028175861:
                                        if f['mn'] <= 569811.0:
                                            return -0.39562983608287194
                                        else:
                                            return -0.4053423472749506
                                    else:
                                        return 0.0
                            else:
                                if f['mn'] <= 891778.5:
                                    if f['tf32'] <= 0.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return -0.3518991016320534
                        else:
                            if f['io_bytes'] <= 31659211.0:
                                if f['align_n'] <= 1.5:
                                    if f['pad_frac_k'] <= 0.000747276731999591:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['arith_intensity'] <= 108.93444061279297:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                return -0.3494355476819777
                else:
                    if f['mn'] <= 146947.5:
                        if f['copy_per_flop'] <= 0.01104812417179346:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['io_bytes'] <= 110609092.0:
                            if f['pk'] <= 2734.0:
                                if f['pad_frac_m'] <= 0.0017392145819030702:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            if f['arith_intensity'] <= 120.37348175048828:
                                return -0.38809009537284517
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
