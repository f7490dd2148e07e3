"""pad_mm heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 122791 problems.

Regression tree max_depth=16, min_samples_leaf=50 (900 leaves, 360 of them agree and may answer); thresholds pad 1.4804, orig 1.4963.
Held-out test split (5% tolerance): 8420 correct, 1 wrong, 16137 unsure of 24558; largest loss of any answer 1.077906.
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
FEATURES = ('m', 'k', 'n', 'batch', 'op_bmm', 'op_addmm', 'dtype_fp16', 'dtype_bf16', 'dtype_fp32', 'itemsize', 'tf32', 'mat1_transposed', 'mat1_prepadded', 'mat2_prepadded', 'mat1_stride0', 'mat1_stride1', 'mat2_stride0', 'mat2_stride1', 'mk', 'kn', 'mn', 'arith_intensity', 'pad_frac_m', 'pad_frac_k', 'pad_frac_n', 'align_m', 'align_k', 'align_n', 'align', 'pm', 'pk', 'pn', 'lda_aligned', 'ldb_aligned', 'ldc_aligned', 'unaligned_lds', 'unaligned_dims', 'copy_a', 'copy_b', 'flops', 'io_bytes', 'copy_a_bytes', 'copy_b_bytes', 'copy_per_io', 'copy_a_per_io', 'copy_b_per_io', 'copy_per_flop', 'padded_flops_ratio')
# Answer 'pad' when the predicted speedup is at least exp(LOG_THRESHOLD_PAD), 'orig' likewise.
LOG_THRESHOLD_PAD = 0.39229784347307417
LOG_THRESHOLD_ORIG = 0.40300099361952135
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.05, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'leaf_rule': 'no-loss', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'thresholds', 'derived_features': True, 'min_dim': 0, 'max_depth': 16, 'min_samples_leaf': 50}


def score(f):
    """Predicted log(time of 'orig' / time of 'pad'): above 0 favours 'pad'; exactly 0 in
    leaves whose training problems did not all agree."""
    if f['flops'] <= 2681965440.0:
        if f['copy_per_io'] <= 0.0019637749064713717:
            if f['op_addmm'] <= 0.5:
                if f['flops'] <= 620657792.0:
                    if f['flops'] <= 325237648.0:
                        if f['k'] <= 2044.5:
                            if f['flops'] <= 161651200.0:
                                if f['mk'] <= 458533.5:
                                    if f['n'] <= 511.0:
                                        if f['align_m'] <= 3.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['unaligned_lds'] <= 1.5:
                                            return 0.0
                                        else:
                                            if f['kn'] <= 224591.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['align_m'] <= 1.5:
                                    if f['pad_frac_m'] <= 0.0030779720982536674:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['dtype_fp32'] <= 0.5:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['mk'] <= 2096123.5:
                                if f['arith_intensity'] <= 31.642054557800293:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                    else:
                        if f['arith_intensity'] <= 34.89942741394043:
                            if f['lda_aligned'] <= 0.5:
                                if f['mat2_stride0'] <= 32.5:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            if f['align_n'] <= 3.0:
                                if f['tf32'] <= 0.5:
                                    if f['mat1_stride1'] <= 130.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                else:
                    if f['unaligned_lds'] <= 0.5:
                        if f['io_bytes'] <= 28009400.0:
                            return 0.0
                        else:
                            return -0.0393204034862259
                    else:
                        if f['flops'] <= 1123705856.0:
                            if f['batch'] <= 1.5:
                                if f['mk'] <= 7750206.0:
                                    if f['m'] <= 52.5:
                                        return 0.0
                                    else:
                                        if f['align_k'] <= 3.0:
                                            if f['io_bytes'] <= 17908720.0:
                                                if f['pad_frac_m'] <= 0.0008877140353433788:
                                                    return 0.0
                                                else:
                                                    if f['m'] <= 1025.5:
                                                        if f['io_bytes'] <= 7597818.0:
                                                            return 0.0
                                                        else:
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
                                    return 0.0
                            else:
                                if f['itemsize'] <= 3.0:
                                    if f['pk'] <= 656.0:
                                        if f['align_m'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['pk'] <= 2060.0:
                                            return 0.0
                                        else:
                                            return 0.39391274656118325
                                else:
                                    return 0.0
                        else:
                            if f['batch'] <= 2.5:
                                if f['flops'] <= 1725077248.0:
                                    if f['align_m'] <= 1.5:
                                        if f['padded_flops_ratio'] <= 1.0656824707984924:
                                            if f['padded_flops_ratio'] <= 1.0196317434310913:
                                                return 0.0
                                            else:
                                                if f['align_n'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['arith_intensity'] <= 49.77577018737793:
                                            return 0.0
                                        else:
                                            if f['pad_frac_k'] <= 0.0001387219163007103:
                                                return 0.0
                                            else:
                                                if f['arith_intensity'] <= 117.32501220703125:
                                                    return 0.0
                                                else:
                                                    if f['io_bytes'] <= 8010609.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                else:
                                    if f['dtype_fp32'] <= 0.5:
                                        if f['align_n'] <= 1.5:
                                            if f['kn'] <= 687295.5:
                                                if f['arith_intensity'] <= 112.50325775146484:
                                                    return 0.0
                                                else:
                                                    return 0.3897102839501362
                                            else:
                                                return 0.0
                                        else:
                                            if f['align_k'] <= 1.5:
                                                if f['io_bytes'] <= 17026384.0:
                                                    return 0.0
                                                else:
                                                    return 0.37112816242848695
                                            else:
                                                if f['k'] <= 638.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['itemsize'] <= 3.0:
                                    if f['mn'] <= 417036.0:
                                        if f['pm'] <= 1064.0:
                                            if f['batch'] <= 6.5:
                                                if f['pad_frac_k'] <= 0.0013643190613947809:
                                                    return 0.405465108108164
                                                else:
                                                    return 0.39519135574731923
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['padded_flops_ratio'] <= 1.0238190293312073:
                                            return 0.0
                                        else:
                                            if f['mat1_stride0'] <= 48.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                else:
                                    return 0.0
            else:
                if f['flops'] <= 521772384.0:
                    if f['k'] <= 2192.5:
                        if f['flops'] <= 276306944.0:
                            if f['io_bytes'] <= 7415363.0:
                                if f['k'] <= 402.0:
                                    if f['n'] <= 578.5:
                                        return -0.40546510810816394
                                    else:
                                        return -0.40532888224867664
                                else:
                                    if f['pad_frac_n'] <= 0.010952552314847708:
                                        return 0.0
                                    else:
                                        return -0.40101210552909244
                            else:
                                return 0.0
                        else:
                            if f['k'] <= 497.5:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        if f['pad_frac_n'] <= 0.00471737957559526:
                            return 0.0
                        else:
                            return 0.0
                else:
                    if f['pk'] <= 1188.0:
                        if f['flops'] <= 1755597504.0:
                            if f['ldc_aligned'] <= 0.5:
                                if f['k'] <= 627.5:
                                    if f['io_bytes'] <= 18171886.0:
                                        if f['flops'] <= 1048705504.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['arith_intensity'] <= 151.2677001953125:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['pad_frac_k'] <= 0.00042698546894825995:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['mn'] <= 7318454.0:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        if f['align_n'] <= 1.5:
                            if f['dtype_fp32'] <= 0.5:
                                if f['io_bytes'] <= 19228591.0:
                                    if f['arith_intensity'] <= 146.60546875:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            if f['align_k'] <= 1.5:
                                if f['mat2_stride0'] <= 48.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['mat1_stride0'] <= 1628.0:
                                    if f['ldb_aligned'] <= 0.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
        else:
            if f['op_bmm'] <= 0.5:
                if f['flops'] <= 1139161856.0:
                    if f['flops'] <= 543920384.0:
                        if f['io_bytes'] <= 18664160.0:
                            if f['io_bytes'] <= 5276936.0:
                                if f['mn'] <= 321.5:
                                    return 0.0
                                else:
                                    if f['flops'] <= 243883104.0:
                                        if f['pm'] <= 22.0:
                                            if f['copy_a_per_io'] <= 0.0006935714627616107:
                                                if f['pk'] <= 250.0:
                                                    return -0.405465108108164
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_a_bytes'] <= 165280.0:
                                                    if f['k'] <= 1116.0:
                                                        if f['pn'] <= 270.0:
                                                            return -0.4054651081081649
                                                        else:
                                                            if f['pad_frac_n'] <= 0.00014574769011233002:
                                                                return -0.40546510810816405
                                                            else:
                                                                if f['mat2_stride0'] <= 407.0:
                                                                    return -0.40546510810816405
                                                                else:
                                                                    return -0.4054651081081649
                                                    else:
                                                        return -0.4039685295555782
                                                else:
                                                    return -0.39573032845493344
                                        else:
                                            if f['flops'] <= 134894408.0:
                                                if f['mn'] <= 478.0:
                                                    return -0.39990085710352463
                                                else:
                                                    if f['io_bytes'] <= 3187803.0:
                                                        if f['mk'] <= 1325397.0:
                                                            if f['padded_flops_ratio'] <= 1.6371793746948242:
                                                                if f['pk'] <= 8136.0:
                                                                    return -0.4054564018313204
                                                                else:
                                                                    return -0.404538301076488
                                                            else:
                                                                return -0.40429045887141846
                                                        else:
                                                            return -0.4038894506103852
                                                    else:
                                                        if f['k'] <= 1493.5:
                                                            if f['pad_frac_m'] <= 0.04481605440378189:
                                                                if f['io_bytes'] <= 3274764.0:
                                                                    return -0.404620572879136
                                                                else:
                                                                    return -0.4054420029265204
                                                            else:
                                                                if f['copy_b_per_io'] <= 0.9087027311325073:
                                                                    return -0.40288758049980816
                                                                else:
                                                                    return -0.405465108108164
                                                        else:
                                                            if f['copy_per_io'] <= 0.9482949674129486:
                                                                if f['pk'] <= 4094.0:
                                                                    return -0.3936156917667738
                                                                else:
                                                                    return -0.40397802085845713
                                                            else:
                                                                if f['pn'] <= 60.0:
                                                                    return -0.4054651081081648
                                                                else:
                                                                    return -0.40546510810816516
                                            else:
                                                if f['copy_a_bytes'] <= 9216.0:
                                                    if f['copy_b_per_io'] <= 0.5721247792243958:
                                                        if f['pad_frac_n'] <= 0.011831045616418123:
                                                            return -0.4051174347882439
                                                        else:
                                                            return -0.39645308211757063
                                                    else:
                                                        return -0.3810848743622766
                                                else:
                                                    if f['unaligned_dims'] <= 1.5:
                                                        return -0.3923259814746326
                                                    else:
                                                        if f['mat1_stride0'] <= 4088.5:
                                                            if f['copy_a_bytes'] <= 3569216.0:
                                                                if f['io_bytes'] <= 1440906.0:
                                                                    return -0.4053130156996895
                                                                else:
                                                                    return -0.40545539754883086
                                                            else:
                                                                return -0.4048272409228744
                                                        else:
                                                            return -0.403858931053963
                                    else:
                                        if f['mat2_prepadded'] <= 0.5:
                                            if f['mat1_prepadded'] <= 0.5:
                                                if f['k'] <= 4317.0:
                                                    if f['dtype_fp32'] <= 0.5:
                                                        if f['mk'] <= 67011.0:
                                                            return -0.4054651081081647
                                                        else:
                                                            if f['copy_b_per_io'] <= 0.01944112218916416:
                                                                return -0.405465108108164
                                                            else:
                                                                if f['mk'] <= 125725.5:
                                                                    return -0.40546510810816405
                                                                else:
                                                                    return -0.4054651081081622
                                                    else:
                                                        return -0.40501569444227126
                                                else:
                                                    return -0.3995780662960107
                                            else:
                                                if f['op_addmm'] <= 0.5:
                                                    if f['kn'] <= 308115.0:
                                                        return -0.40275445860770864
                                                    else:
                                                        return -0.37529898135260753
                                                else:
                                                    if f['copy_per_io'] <= 0.17654825001955032:
                                                        return -0.40546510810816405
                                                    else:
                                                        return -0.405465108108164
                                        else:
                                            if f['mat1_stride0'] <= 277.5:
                                                if f['mn'] <= 296107.5:
                                                    return -0.39839719076532704
                                                else:
                                                    return -0.40533326818070153
                                            else:
                                                return 0.0
                            else:
                                if f['copy_a'] <= 0.5:
                                    if f['pk'] <= 2978.0:
                                        if f['pad_frac_n'] <= 0.10074374824762344:
                                            if f['padded_flops_ratio'] <= 1.0192411541938782:
                                                if f['mk'] <= 111856.0:
                                                    if f['mk'] <= 29264.0:
                                                        return -0.38214281967888614
                                                    else:
                                                        return -0.40388038010082383
                                                else:
                                                    if f['mat2_stride0'] <= 22.0:
                                                        return -0.3880587272517018
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['mat2_stride0'] <= 20.5:
                                                    if f['io_bytes'] <= 10446529.0:
                                                        if f['pm'] <= 1848.0:
                                                            return -0.405465108108164
                                                        else:
                                                            return -0.4051334252735587
                                                    else:
                                                        return -0.40175573563591216
                                                else:
                                                    if f['op_addmm'] <= 0.5:
                                                        if f['arith_intensity'] <= 46.93196105957031:
                                                            if f['io_bytes'] <= 9874268.0:
                                                                return -0.4023291250946125
                                                            else:
                                                                return -0.38888592407613176
                                                        else:
                                                            return -0.3769426670652191
                                                    else:
                                                        return -0.40335602661313696
                                        else:
                                            return 0.0
                                    else:
                                        if f['io_bytes'] <= 14882756.0:
                                            if f['pad_frac_m'] <= 0.02521720714867115:
                                                if f['mat2_stride0'] <= 41.5:
                                                    if f['pad_frac_m'] <= 0.0026739671593531966:
                                                        return -0.39048590126686283
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return -0.3959462153889338
                                        else:
                                            return 0.0
                                else:
                                    if f['mat2_prepadded'] <= 0.5:
                                        if f['k'] <= 4700.5:
                                            if f['copy_b_per_io'] <= 0.0009392491192556918:
                                                return -0.3990895415979032
                                            else:
                                                if f['m'] <= 16.5:
                                                    return -0.40044924980450186
                                                else:
                                                    if f['mk'] <= 5417126.0:
                                                        if f['arith_intensity'] <= 110.31103134155273:
                                                            if f['kn'] <= 4120082.0:
                                                                if f['n'] <= 37.5:
                                                                    return -0.4054651081081631
                                                                else:
                                                                    return -0.40546510810816083
                                                            else:
                                                                if f['copy_per_flop'] <= 0.03141683153808117:
                                                                    return -0.40415732464867415
                                                                else:
                                                                    return -0.4054651081081652
                                                        else:
                                                            return -0.40300099361952135
                                                    else:
                                                        if f['align_k'] <= 1.5:
                                                            return -0.40104649219649136
                                                        else:
                                                            return -0.40546510810816405
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                if f['mat1_stride0'] <= 6573.0:
                                                    if f['kn'] <= 283575.0:
                                                        return -0.4049268795535972
                                                    else:
                                                        return -0.4054651081081646
                                                else:
                                                    return -0.39882731138279676
                                            else:
                                                if f['dtype_fp16'] <= 0.5:
                                                    return 0.0
                                                else:
                                                    return -0.405465108108164
                                    else:
                                        if f['kn'] <= 3479127.0:
                                            if f['pk'] <= 4078.0:
                                                if f['mat1_stride0'] <= 32.5:
                                                    if f['io_bytes'] <= 14539808.0:
                                                        if f['pk'] <= 2002.0:
                                                            if f['mat2_stride1'] <= 95.5:
                                                                return -0.40546510810816494
                                                            else:
                                                                return -0.40505441566380024
                                                        else:
                                                            return -0.3977568057132459
                                                    else:
                                                        return -0.39516410495572396
                                                else:
                                                    if f['op_addmm'] <= 0.5:
                                                        if f['mat2_stride0'] <= 64.0:
                                                            if f['pad_frac_m'] <= 0.0008387007692363113:
                                                                return -0.376700874903634
                                                            else:
                                                                return -0.40186922882924014
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['mn'] <= 138066.0:
                                                            return -0.3932284927202334
                                                        else:
                                                            return -0.40522246172561593
                                            else:
                                                if f['mn'] <= 27453.5:
                                                    return -0.38364902820049
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                        else:
                            if f['copy_per_io'] <= 0.007953354623168707:
                                if f['io_bytes'] <= 30392584.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.001520539284683764:
                                    if f['k'] <= 31.0:
                                        if f['op_addmm'] <= 0.5:
                                            return 0.0
                                        else:
                                            return -0.39565840781698497
                                    else:
                                        return 0.0
                                else:
                                    if f['dtype_bf16'] <= 0.5:
                                        if f['copy_per_flop'] <= 0.003155759652145207:
                                            if f['pn'] <= 1564.0:
                                                return 0.0
                                            else:
                                                return -0.4034159381438576
                                        else:
                                            if f['mat2_stride1'] <= 2698.5:
                                                if f['io_bytes'] <= 20673330.0:
                                                    return -0.4013991003463353
                                                else:
                                                    if f['op_addmm'] <= 0.5:
                                                        return -0.4054651081081641
                                                    else:
                                                        if f['kn'] <= 202957.0:
                                                            return -0.405465108108164
                                                        else:
                                                            return -0.4028502782949592
                                            else:
                                                return -0.3951606483991841
                                    else:
                                        if f['copy_a_per_io'] <= 0.9848099052906036:
                                            return -0.34169357177248993
                                        else:
                                            return -0.3886068231333967
                    else:
                        if f['copy_per_io'] <= 0.020586625672876835:
                            if f['k'] <= 1142.5:
                                if f['io_bytes'] <= 51492942.0:
                                    if f['op_addmm'] <= 0.5:
                                        if f['io_bytes'] <= 17470705.0:
                                            if f['k'] <= 258.0:
                                                return -0.3741811542088047
                                            else:
                                                return 0.0
                                        else:
                                            if f['dtype_fp32'] <= 0.5:
                                                if f['align_n'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['io_bytes'] <= 34228744.0:
                                            if f['k'] <= 390.5:
                                                if f['padded_flops_ratio'] <= 1.0937288999557495:
                                                    if f['pad_frac_n'] <= 0.0011239468003623188:
                                                        return -0.40546510810816405
                                                    else:
                                                        return -0.40464256206935156
                                                else:
                                                    return -0.39371717847150434
                                            else:
                                                return -0.37976390243041847
                                        else:
                                            return -0.35351672246514193
                                else:
                                    if f['copy_per_flop'] <= 0.0004885277594439685:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['op_addmm'] <= 0.5:
                                    if f['copy_per_io'] <= 0.009938945528119802:
                                        if f['mat2_stride0'] <= 29.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['k'] <= 2329.5:
                                        return -0.32771446673341154
                                    else:
                                        return 0.0
                        else:
                            if f['copy_b'] <= 0.5:
                                if f['kn'] <= 1905031.5:
                                    if f['mat1_stride1'] <= 217.0:
                                        if f['op_addmm'] <= 0.5:
                                            if f['copy_a_bytes'] <= 20434368.0:
                                                if f['pad_frac_m'] <= 0.00029575642838608474:
                                                    return 0.0
                                                else:
                                                    if f['padded_flops_ratio'] <= 1.0171616673469543:
                                                        if f['io_bytes'] <= 8074656.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['pad_frac_m'] <= 0.004038577200844884:
                                                            return -0.36177080843848725
                                                        else:
                                                            return 0.0
                                            else:
                                                return -0.3932190901808876
                                        else:
                                            if f['k'] <= 1093.5:
                                                if f['flops'] <= 988985760.0:
                                                    if f['m'] <= 3831.5:
                                                        return -0.40546510810816433
                                                    else:
                                                        return -0.3999343092437269
                                                else:
                                                    return -0.3926917897481508
                                            else:
                                                if f['flops'] <= 808858176.0:
                                                    return -0.37397251146493865
                                                else:
                                                    return 0.0
                                    else:
                                        if f['pad_frac_n'] <= 0.07986638322472572:
                                            if f['padded_flops_ratio'] <= 1.0022238492965698:
                                                return -0.34617124560233975
                                            else:
                                                if f['mat2_stride1'] <= 1847.0:
                                                    if f['itemsize'] <= 3.0:
                                                        if f['pad_frac_n'] <= 0.0038612340576946735:
                                                            if f['flops'] <= 925348544.0:
                                                                return -0.40465029359739535
                                                            else:
                                                                return -0.3973907555505506
                                                        else:
                                                            if f['io_bytes'] <= 9424260.0:
                                                                if f['mat2_stride0'] <= 225.5:
                                                                    return -0.38813329139273584
                                                                else:
                                                                    return -0.4004976863193027
                                                            else:
                                                                return -0.3736591136013252
                                                    else:
                                                        return 0.0
                                                else:
                                                    return -0.35417416824473025
                                        else:
                                            return 0.0
                                else:
                                    if f['mat1_stride0'] <= 1648.0:
                                        if f['io_bytes'] <= 12657424.0:
                                            if f['arith_intensity'] <= 126.77677917480469:
                                                return -0.38544084325240574
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['pk'] <= 4736.0:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['copy_a'] <= 0.5:
                                    if f['mk'] <= 5260288.0:
                                        if f['io_bytes'] <= 6181596.0:
                                            if f['op_addmm'] <= 0.5:
                                                if f['mn'] <= 786717.0:
                                                    if f['io_bytes'] <= 4579931.0:
                                                        return -0.3707423016719339
                                                    else:
                                                        return -0.3330755290253811
                                                else:
                                                    return -0.385944758127321
                                            else:
                                                if f['k'] <= 1027.5:
                                                    if f['io_bytes'] <= 4573495.0:
                                                        return -0.40292253087162394
                                                    else:
                                                        return -0.405465108108164
                                                else:
                                                    return -0.37795923588791847
                                        else:
                                            if f['copy_per_flop'] <= 0.03032801579684019:
                                                if f['k'] <= 251.5:
                                                    if f['itemsize'] <= 3.0:
                                                        if f['op_addmm'] <= 0.5:
                                                            return 0.0
                                                        else:
                                                            return -0.40546510810816394
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['mat2_stride0'] <= 130.5:
                                                        if f['pad_frac_m'] <= 0.03665323369204998:
                                                            if f['copy_per_io'] <= 0.7498247921466827:
                                                                if f['ldb_aligned'] <= 0.5:
                                                                    return 0.0
                                                                else:
                                                                    return -0.38194893594536605
                                                            else:
                                                                return -0.38049774823178223
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['copy_b_per_io'] <= 0.21148975938558578:
                                                            return 0.0
                                                        else:
                                                            if f['mat1_stride0'] <= 1040.0:
                                                                if f['arith_intensity'] <= 93.99585723876953:
                                                                    return 0.0
                                                                else:
                                                                    return -0.33354424172903135
                                                            else:
                                                                if f['io_bytes'] <= 11603884.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                            else:
                                                if f['mn'] <= 77176.0:
                                                    return 0.0
                                                else:
                                                    return -0.4017559609508975
                                    else:
                                        if f['mat1_stride0'] <= 3264.0:
                                            return -0.31819025948231106
                                        else:
                                            return 0.0
                                else:
                                    if f['copy_per_io'] <= 1.002508521080017:
                                        if f['align'] <= 6.0:
                                            if f['mn'] <= 6062674.5:
                                                if f['arith_intensity'] <= 74.79547500610352:
                                                    if f['io_bytes'] <= 29977468.0:
                                                        if f['m'] <= 935.0:
                                                            return -0.3887835434107611
                                                        else:
                                                            return -0.40546510810816405
                                                    else:
                                                        if f['mat2_stride1'] <= 2426.5:
                                                            return -0.4054651081081646
                                                        else:
                                                            return -0.40276721348474864
                                                else:
                                                    if f['mat2_stride1'] <= 1027.5:
                                                        if f['mat2_stride0'] <= 256.0:
                                                            if f['pad_frac_m'] <= 0.0005561640718951821:
                                                                return -0.405465108108164
                                                            else:
                                                                return -0.39980372737291514
                                                        else:
                                                            if f['copy_a_bytes'] <= 2412960.0:
                                                                if f['mat1_stride0'] <= 511.5:
                                                                    return -0.39698507433709346
                                                                else:
                                                                    return -0.3851442244170279
                                                            else:
                                                                return -0.3690952990415392
                                                    else:
                                                        return 0.0
                                            else:
                                                return -0.35141180259179644
                                        else:
                                            if f['k'] <= 2708.5:
                                                if f['copy_a_bytes'] <= 13819072.0:
                                                    if f['flops'] <= 1082466752.0:
                                                        if f['mat1_stride0'] <= 509.5:
                                                            if f['io_bytes'] <= 21288973.0:
                                                                if f['pk'] <= 84.0:
                                                                    return -0.40546510810816533
                                                                else:
                                                                    return -0.4054651081081621
                                                            else:
                                                                return -0.4015866555407279
                                                        else:
                                                            if f['flops'] <= 786399680.0:
                                                                if f['kn'] <= 3010099.5:
                                                                    return -0.40546510810816533
                                                                else:
                                                                    return -0.404696864698591
                                                            else:
                                                                if f['flops'] <= 907709728.0:
                                                                    return -0.39657397225891733
                                                                else:
                                                                    return -0.40467780585292684
                                                    else:
                                                        return -0.39903579724723615
                                                else:
                                                    return -0.395818483904675
                                            else:
                                                if f['op_addmm'] <= 0.5:
                                                    if f['mn'] <= 130152.0:
                                                        if f['mat1_stride0'] <= 5664.5:
                                                            if f['pad_frac_n'] <= 0.04082310013473034:
                                                                return -0.4054651081081651
                                                            else:
                                                                return -0.39838697610793106
                                                        else:
                                                            return -0.39521300866451836
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['copy_per_flop'] <= 0.03477531298995018:
                                                        if f['flops'] <= 888949152.0:
                                                            return -0.3871788748837133
                                                        else:
                                                            return -0.35317047261748036
                                                    else:
                                                        return -0.40191363976210664
                                    else:
                                        return 0.0
                else:
                    if f['copy_per_io'] <= 0.04320099577307701:
                        if f['k'] <= 2140.5:
                            if f['io_bytes'] <= 61709564.0:
                                if f['op_addmm'] <= 0.5:
                                    if f['flops'] <= 1953498432.0:
                                        if f['copy_per_io'] <= 0.00786742428317666:
                                            return 0.0
                                        else:
                                            if f['mat1_stride0'] <= 62.5:
                                                if f['mat1_stride1'] <= 1429.5:
                                                    if f['arith_intensity'] <= 47.99374198913574:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['mat2_stride1'] <= 14.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['pad_frac_k'] <= 0.002932562492787838:
                                                    return 0.0
                                                else:
                                                    if f['mat2_stride0'] <= 1848.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                    else:
                                        if f['align_n'] <= 1.5:
                                            return 0.0
                                        else:
                                            if f['mat1_stride0'] <= 72.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['k'] <= 1203.5:
                                        if f['io_bytes'] <= 43114180.0:
                                            if f['flops'] <= 2069215488.0:
                                                if f['copy_per_flop'] <= 0.00025360489962622523:
                                                    if f['padded_flops_ratio'] <= 1.0432823300361633:
                                                        if f['pad_frac_k'] <= 0.0072706753853708506:
                                                            return -0.3851657496867253
                                                        else:
                                                            return -0.40431397169467204
                                                    else:
                                                        return -0.36922627082660814
                                                else:
                                                    if f['pad_frac_m'] <= 0.0006332534831017256:
                                                        return -0.32696633272390935
                                                    else:
                                                        return -0.3726176933295023
                                            else:
                                                if f['align_m'] <= 3.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['copy_per_io'] <= 0.010123971849679947:
                                    if f['op_addmm'] <= 0.5:
                                        if f['copy_b_bytes'] <= 327840.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['kn'] <= 171907.5:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['copy_per_io'] <= 0.013210696633905172:
                                if f['op_addmm'] <= 0.5:
                                    if f['flops'] <= 1619509056.0:
                                        return 0.0
                                    else:
                                        if f['io_bytes'] <= 62781084.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['pk'] <= 4098.0:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['kn'] <= 312966.0:
                                    return 0.0
                                else:
                                    if f['align_n'] <= 1.5:
                                        if f['pad_frac_k'] <= 0.00017712391854729503:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                    else:
                        if f['copy_per_flop'] <= 0.015464150812476873:
                            if f['flops'] <= 1926222336.0:
                                if f['pk'] <= 2050.0:
                                    if f['op_addmm'] <= 0.5:
                                        if f['copy_a_per_io'] <= 0.008100736886262894:
                                            if f['mat2_stride0'] <= 258.5:
                                                if f['mat1_stride0'] <= 299.0:
                                                    if f['copy_b_bytes'] <= 1248896.0:
                                                        return -0.35290336931218086
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['mat2_stride0'] <= 1683.5:
                                                    return 0.0
                                                else:
                                                    if f['padded_flops_ratio'] <= 1.0174549221992493:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['copy_b_bytes'] <= 78336.0:
                                                if f['mat1_stride1'] <= 515.0:
                                                    if f['arith_intensity'] <= 218.3975601196289:
                                                        if f['align_n'] <= 1.5:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['pad_frac_n'] <= 0.003275803755968809:
                                                        return -0.36805829886756725
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['io_bytes'] <= 21876786.0:
                                                    if f['mat1_stride0'] <= 512.5:
                                                        if f['io_bytes'] <= 10869596.0:
                                                            if f['arith_intensity'] <= 197.75244903564453:
                                                                return -0.40306372842890803
                                                            else:
                                                                return -0.3939357347177058
                                                        else:
                                                            if f['arith_intensity'] <= 143.25637817382812:
                                                                return -0.39239052871248803
                                                            else:
                                                                return -0.35640201989994535
                                                    else:
                                                        if f['copy_per_io'] <= 0.8339104056358337:
                                                            return 0.0
                                                        else:
                                                            return -0.38445070210462884
                                                else:
                                                    return 0.0
                                    else:
                                        if f['k'] <= 1029.0:
                                            if f['mat1_stride0'] <= 704.5:
                                                if f['pad_frac_k'] <= 0.003413128317333758:
                                                    if f['arith_intensity'] <= 209.11721801757812:
                                                        return -0.39669130208177694
                                                    else:
                                                        return -0.36836102721726444
                                                else:
                                                    if f['mk'] <= 901198.0:
                                                        if f['io_bytes'] <= 18435492.0:
                                                            if f['pad_frac_m'] <= 0.007507524453103542:
                                                                if f['flops'] <= 1544471744.0:
                                                                    return -0.4054651081081654
                                                                else:
                                                                    return -0.40321315159050347
                                                            else:
                                                                return -0.39879504714841696
                                                        else:
                                                            return -0.38969148453186014
                                                    else:
                                                        return -0.3910512748689801
                                            else:
                                                return -0.35534423840615936
                                        else:
                                            if f['padded_flops_ratio'] <= 1.0222116708755493:
                                                if f['flops'] <= 1614717056.0:
                                                    return -0.36174350702265756
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['copy_per_io'] <= 0.8957707583904266:
                                        if f['align_n'] <= 1.5:
                                            if f['mk'] <= 2607211.0:
                                                if f['mat1_stride0'] <= 2552.5:
                                                    if f['copy_a_per_io'] <= 0.06443983316421509:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['align_m'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['align_k'] <= 1.5:
                                                if f['mat1_stride0'] <= 2742.0:
                                                    if f['align_m'] <= 1.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['align_m'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return -0.35166818889429624
                                    else:
                                        if f['op_addmm'] <= 0.5:
                                            if f['padded_flops_ratio'] <= 1.039523959159851:
                                                if f['flops'] <= 1698566400.0:
                                                    if f['mat2_stride0'] <= 259.5:
                                                        return -0.4019858872982106
                                                    else:
                                                        return -0.3892054447394716
                                                else:
                                                    return -0.3764237217708006
                                            else:
                                                return 0.0
                                        else:
                                            if f['io_bytes'] <= 18373280.0:
                                                if f['io_bytes'] <= 11665503.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    if f['k'] <= 2238.5:
                                        if f['op_addmm'] <= 0.5:
                                            if f['copy_per_flop'] <= 0.0005717812746297568:
                                                return 0.0
                                            else:
                                                if f['mat2_prepadded'] <= 0.5:
                                                    if f['copy_a_bytes'] <= 280960.0:
                                                        return 0.0
                                                    else:
                                                        if f['mat1_stride0'] <= 442.5:
                                                            return -0.3329904241103866
                                                        else:
                                                            return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['mn'] <= 1433975.0:
                                                if f['io_bytes'] <= 11263877.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['io_bytes'] <= 15744845.0:
                                                    return -0.3788449354355014
                                                else:
                                                    return -0.31802210977438944
                                    else:
                                        if f['copy_per_io'] <= 0.9263321757316589:
                                            if f['copy_per_io'] <= 0.1327134668827057:
                                                return 0.0
                                            else:
                                                if f['pm'] <= 516.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['align_k'] <= 1.5:
                                        if f['copy_per_flop'] <= 0.0006000383291393518:
                                            return 0.0
                                        else:
                                            if f['mat1_stride0'] <= 590.0:
                                                if f['copy_a_per_io'] <= 0.009589907713234425:
                                                    return 0.0
                                                else:
                                                    if f['copy_b_per_io'] <= 0.035054609179496765:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['copy_per_flop'] <= 0.004216441651806235:
                                                    if f['arith_intensity'] <= 252.22052764892578:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['pad_frac_m'] <= 0.00510184932500124:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.8562339842319489:
                                            if f['pad_frac_k'] <= 0.002645669272169471:
                                                if f['kn'] <= 1050112.0:
                                                    return 0.0
                                                else:
                                                    if f['align_m'] <= 1.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['io_bytes'] <= 15558716.0:
                                                    if f['flops'] <= 2140465728.0:
                                                        return 0.0
                                                    else:
                                                        return -0.3936648550689913
                                                else:
                                                    return 0.0
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                return -0.38773194536734895
                                            else:
                                                return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.029419592581689358:
                                if f['op_addmm'] <= 0.5:
                                    if f['mat1_stride0'] <= 8072.0:
                                        if f['arith_intensity'] <= 62.700002670288086:
                                            if f['copy_per_io'] <= 0.9807492792606354:
                                                if f['mat2_stride0'] <= 47.5:
                                                    return 0.0
                                                else:
                                                    return -0.38877086012321893
                                            else:
                                                if f['mat1_stride0'] <= 3318.0:
                                                    return -0.40400176054454834
                                                else:
                                                    if f['copy_a_per_io'] <= 0.030470346100628376:
                                                        return -0.39854755872823083
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['io_bytes'] <= 32643002.0:
                                                return -0.39852596123996387
                                            else:
                                                return -0.40546510810816394
                                    else:
                                        return 0.0
                                else:
                                    if f['mn'] <= 184135.0:
                                        if f['copy_per_io'] <= 0.9805967807769775:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['io_bytes'] <= 33241910.0:
                                            return -0.3129052812839875
                                        else:
                                            if f['mat2_stride0'] <= 45.5:
                                                return 0.0
                                            else:
                                                return -0.3835688330028011
                            else:
                                if f['mat2_stride1'] <= 7909.0:
                                    if f['copy_per_flop'] <= 0.03128177113831043:
                                        if f['arith_intensity'] <= 33.3540153503418:
                                            return -0.3804143652301208
                                        else:
                                            return -0.4018317628106048
                                    else:
                                        if f['io_bytes'] <= 51799442.0:
                                            if f['pk'] <= 4616.0:
                                                return -0.40546510810816405
                                            else:
                                                return -0.38687190485962125
                                        else:
                                            if f['flops'] <= 2257656320.0:
                                                if f['kn'] <= 39039188.0:
                                                    if f['copy_per_io'] <= 0.998495876789093:
                                                        if f['arith_intensity'] <= 50.759294509887695:
                                                            if f['arith_intensity'] <= 19.846373558044434:
                                                                return -0.40546510810816405
                                                            else:
                                                                if f['mk'] <= 130083.0:
                                                                    return -0.40546510810816405
                                                                else:
                                                                    return -0.40546510810816344
                                                        else:
                                                            return -0.4053793814582391
                                                    else:
                                                        return -0.4052028930971741
                                                else:
                                                    return -0.40443793716721155
                                            else:
                                                return -0.40261002850768174
                                else:
                                    return 0.0
            else:
                if f['k'] <= 1808.5:
                    if f['flops'] <= 814076000.0:
                        if f['copy_per_io'] <= 0.03783189877867699:
                            if f['io_bytes'] <= 20836933.0:
                                if f['flops'] <= 293148000.0:
                                    if f['k'] <= 127.0:
                                        if f['io_bytes'] <= 8301669.0:
                                            return -0.405465108108164
                                        else:
                                            return -0.40054385223315536
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['copy_per_io'] <= 0.015294968150556087:
                                    if f['flops'] <= 541673920.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['k'] <= 1020.5:
                                if f['flops'] <= 381737856.0:
                                    if f['pk'] <= 380.0:
                                        if f['io_bytes'] <= 14471568.0:
                                            if f['arith_intensity'] <= 53.90397071838379:
                                                if f['mat1_stride0'] <= 257.5:
                                                    if f['io_bytes'] <= 11348612.0:
                                                        if f['mat1_stride0'] <= 217.5:
                                                            if f['kn'] <= 836.0:
                                                                return -0.4054651081081643
                                                            else:
                                                                if f['copy_b_bytes'] <= 4864.0:
                                                                    return -0.4054651081081651
                                                                else:
                                                                    return -0.4054651081081612
                                                        else:
                                                            return -0.40546510810816405
                                                    else:
                                                        return -0.4054245763931828
                                                else:
                                                    return -0.405005919451415
                                            else:
                                                if f['copy_per_flop'] <= 0.010635570157319307:
                                                    return -0.40505988624494843
                                                else:
                                                    return -0.39031188101572295
                                        else:
                                            return -0.39329700389878924
                                    else:
                                        if f['copy_per_io'] <= 0.7241606712341309:
                                            return 0.0
                                        else:
                                            if f['copy_a_per_io'] <= 0.02485543768852949:
                                                return -0.3580866686492277
                                            else:
                                                if f['k'] <= 643.0:
                                                    if f['copy_per_io'] <= 0.9434552192687988:
                                                        return -0.40305005617560163
                                                    else:
                                                        return -0.40546510810816405
                                                else:
                                                    return -0.3923086278170144
                                else:
                                    if f['copy_b_per_io'] <= 0.003818074823357165:
                                        if f['mat2_stride0'] <= 153.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_a_per_io'] <= 0.004219127353280783:
                                            if f['mat2_stride1'] <= 22.5:
                                                return -0.3396269787833257
                                            else:
                                                return -0.39048540863659675
                                        else:
                                            if f['mn'] <= 86932.0:
                                                return -0.3662683934857523
                                            else:
                                                if f['copy_b_per_io'] <= 0.026726058684289455:
                                                    return -0.3992337103619301
                                                else:
                                                    if f['mat2_stride0'] <= 2048.0:
                                                        return -0.4054651081081651
                                                    else:
                                                        return -0.4046542464850836
                            else:
                                if f['copy_per_io'] <= 0.9496691524982452:
                                    if f['pk'] <= 1202.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['dtype_fp16'] <= 0.5:
                                        if f['mk'] <= 73149.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return -0.4002434290374484
                    else:
                        if f['copy_per_flop'] <= 0.00810946710407734:
                            if f['k'] <= 788.5:
                                if f['io_bytes'] <= 37322884.0:
                                    if f['flops'] <= 1641254400.0:
                                        if f['io_bytes'] <= 24020410.0:
                                            if f['k'] <= 430.5:
                                                if f['arith_intensity'] <= 98.42328643798828:
                                                    if f['mat1_stride0'] <= 96.0:
                                                        if f['flops'] <= 1104505856.0:
                                                            if f['io_bytes'] <= 17107985.0:
                                                                return -0.3816103892316275
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['padded_flops_ratio'] <= 1.0206817984580994:
                                                        return 0.0
                                                    else:
                                                        if f['align_k'] <= 1.5:
                                                            return -0.3564040085812425
                                                        else:
                                                            return -0.39572345526956876
                                            else:
                                                if f['io_bytes'] <= 9937599.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['copy_a_per_io'] <= 0.012266625184565783:
                                                if f['copy_per_flop'] <= 0.0003886576450895518:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['copy_per_flop'] <= 0.0005190089577808976:
                                            if f['align_n'] <= 1.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['kn'] <= 694882.0:
                                                if f['pad_frac_k'] <= 0.014027222990989685:
                                                    if f['mat2_stride0'] <= 66.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['copy_b_per_io'] <= 0.0044785430654883385:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['flops'] <= 1834947456.0:
                                        if f['dtype_bf16'] <= 0.5:
                                            if f['copy_per_io'] <= 0.036157360300421715:
                                                if f['io_bytes'] <= 65464280.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['dtype_bf16'] <= 0.5:
                                            if f['copy_a_per_io'] <= 0.005704272538423538:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    if f['pad_frac_k'] <= 0.0018285447149537504:
                                        return 0.0
                                    else:
                                        if f['copy_b_per_io'] <= 0.016530035994946957:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['align_k'] <= 1.5:
                                        return 0.0
                                    else:
                                        if f['align_m'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                        else:
                            if f['io_bytes'] <= 37387008.0:
                                if f['k'] <= 1099.5:
                                    if f['k'] <= 596.5:
                                        if f['k'] <= 252.5:
                                            return 0.0
                                        else:
                                            if f['pad_frac_n'] <= 0.0009280486556235701:
                                                return -0.36138644175766044
                                            else:
                                                return -0.39323839388498233
                                    else:
                                        if f['align_k'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['io_bytes'] <= 44053618.0:
                                    return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.030505451373755932:
                                        return -0.38661357546040287
                                    else:
                                        if f['copy_a_bytes'] <= 395520.0:
                                            return -0.4017597445951847
                                        else:
                                            if f['m'] <= 6036.0:
                                                return -0.40546510810816433
                                            else:
                                                return -0.4051138654812433
                else:
                    if f['copy_per_io'] <= 0.9588060677051544:
                        if f['align'] <= 6.0:
                            if f['copy_per_io'] <= 0.8733982145786285:
                                if f['flops'] <= 1369131520.0:
                                    if f['arith_intensity'] <= 20.89446258544922:
                                        return 0.0
                                    else:
                                        if f['copy_b_per_io'] <= 0.05815022997558117:
                                            if f['unaligned_lds'] <= 2.5:
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
                            if f['k'] <= 2531.5:
                                if f['flops'] <= 1413568192.0:
                                    if f['dtype_bf16'] <= 0.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['align_n'] <= 1.5:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    if f['dtype_fp16'] <= 0.5:
                                        if f['k'] <= 4098.0:
                                            return 0.0
                                        else:
                                            return 0.4013945669973235
                                    else:
                                        if f['copy_per_flop'] <= 0.008850018959492445:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['align_k'] <= 1.5:
                                        if f['copy_per_flop'] <= 0.012947258073836565:
                                            if f['mat1_stride0'] <= 3336.0:
                                                return 0.0
                                            else:
                                                return 0.38929171029615134
                                        else:
                                            return 0.0
                                    else:
                                        if f['mat1_stride0'] <= 2651.0:
                                            return 0.0
                                        else:
                                            if f['copy_per_io'] <= 0.5185376554727554:
                                                return 0.0
                                            else:
                                                return 0.0
                    else:
                        if f['io_bytes'] <= 40789392.0:
                            if f['pk'] <= 4220.0:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['arith_intensity'] <= 50.607364654541016:
                                        if f['dtype_fp16'] <= 0.5:
                                            return 0.0
                                        else:
                                            if f['kn'] <= 133886.5:
                                                return -0.37440304538797264
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
                                if f['dtype_bf16'] <= 0.5:
                                    if f['k'] <= 6487.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['io_bytes'] <= 72120740.0:
                                if f['k'] <= 5296.5:
                                    if f['copy_per_flop'] <= 0.04375249147415161:
                                        return 0.0
                                    else:
                                        return -0.368665655162899
                                else:
                                    return 0.0
                            else:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['pk'] <= 5460.0:
                                        if f['io_bytes'] <= 101050964.0:
                                            return -0.40150342473864187
                                        else:
                                            return -0.405465108108164
                                    else:
                                        return -0.38321722070154624
                                else:
                                    return -0.3558545147238317
    else:
        if f['copy_per_flop'] <= 0.004157991847023368:
            if f['flops'] <= 10001047552.0:
                if f['copy_per_io'] <= 0.00665221456438303:
                    if f['unaligned_lds'] <= 0.5:
                        if f['io_bytes'] <= 43786632.0:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['op_addmm'] <= 0.5:
                            if f['itemsize'] <= 3.0:
                                if f['copy_per_io'] <= 0.0021457805996760726:
                                    if f['k'] <= 35.5:
                                        return 0.0
                                    else:
                                        if f['flops'] <= 3189992960.0:
                                            if f['io_bytes'] <= 27476331.0:
                                                if f['align_k'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['align_n'] <= 1.5:
                                                    return 0.39863246050432666
                                                else:
                                                    return 0.3645694840631789
                                        else:
                                            if f['align_n'] <= 1.5:
                                                if f['k'] <= 8188.5:
                                                    if f['k'] <= 141.5:
                                                        return 0.3893340332647667
                                                    else:
                                                        if f['align_m'] <= 3.0:
                                                            if f['kn'] <= 385315.0:
                                                                return 0.40348534340957537
                                                            else:
                                                                if f['pn'] <= 436.0:
                                                                    return 0.4043921860644239
                                                                else:
                                                                    return 0.4054651081081638
                                                        else:
                                                            if f['mat2_stride0'] <= 76.0:
                                                                return 0.40467250423545365
                                                            else:
                                                                return 0.39557948439192225
                                                else:
                                                    return 0.3872132219538938
                                            else:
                                                if f['align_k'] <= 1.5:
                                                    if f['flops'] <= 4306270720.0:
                                                        if f['mat1_stride0'] <= 287.0:
                                                            return 0.35660266440310107
                                                        else:
                                                            return 0.3991732385092652
                                                    else:
                                                        if f['mat1_stride1'] <= 255.5:
                                                            if f['flops'] <= 5519002368.0:
                                                                return 0.4032831744975298
                                                            else:
                                                                return 0.405465108108164
                                                        else:
                                                            return 0.3922326991860476
                                                else:
                                                    if f['align_m'] <= 1.5:
                                                        if f['mat1_stride0'] <= 258.0:
                                                            if f['kn'] <= 774888.0:
                                                                return 0.0
                                                            else:
                                                                return 0.405465108108164
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['mk'] <= 3325352.0:
                                                            if f['flops'] <= 4724924928.0:
                                                                return 0.0
                                                            else:
                                                                return 0.37806221494236125
                                                        else:
                                                            return 0.0
                                else:
                                    if f['flops'] <= 3595187328.0:
                                        return 0.0
                                    else:
                                        if f['align_k'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['tf32'] <= 0.5:
                                    if f['pk'] <= 1932.0:
                                        return 0.013816456500788572
                                    else:
                                        return 0.0
                                else:
                                    if f['arith_intensity'] <= 69.27964401245117:
                                        return 0.0
                                    else:
                                        if f['flops'] <= 4282298496.0:
                                            return 0.0
                                        else:
                                            return 0.38453737129941146
                        else:
                            if f['pk'] <= 2054.0:
                                if f['flops'] <= 4522646272.0:
                                    if f['mk'] <= 324187.0:
                                        return 0.0
                                    else:
                                        if f['align_n'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['pad_frac_n'] <= 0.0005849138833582401:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    if f['dtype_bf16'] <= 0.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['align_m'] <= 1.5:
                                        return 0.0
                                    else:
                                        return 0.0
                else:
                    if f['op_addmm'] <= 0.5:
                        if f['flops'] <= 4359228416.0:
                            if f['mn'] <= 166794.0:
                                if f['align_k'] <= 3.0:
                                    if f['mn'] <= 104101.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['copy_a_per_io'] <= 0.022357874549925327:
                                    if f['align_n'] <= 1.5:
                                        if f['copy_per_io'] <= 0.022521810606122017:
                                            if f['m'] <= 5833.0:
                                                if f['pad_frac_n'] <= 0.0005844047700520605:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['k'] <= 1025.5:
                                                if f['batch'] <= 4.5:
                                                    if f['unaligned_dims'] <= 2.5:
                                                        return 0.0
                                                    else:
                                                        if f['n'] <= 3952.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['flops'] <= 3732376320.0:
                                                    if f['pad_frac_m'] <= 0.0024792704498395324:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['op_bmm'] <= 0.5:
                                            if f['align_k'] <= 1.5:
                                                if f['mat1_stride0'] <= 739.0:
                                                    if f['copy_a_per_io'] <= 0.0076001109555363655:
                                                        if f['pad_frac_m'] <= 0.0009746598079800606:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['io_bytes'] <= 49420364.0:
                                                    if f['align_m'] <= 1.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['mat1_stride1'] <= 249.5:
                                                if f['dtype_bf16'] <= 0.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['copy_b_per_io'] <= 0.014371389988809824:
                                        if f['padded_flops_ratio'] <= 1.0149247646331787:
                                            if f['flops'] <= 3355843712.0:
                                                if f['mat1_stride0'] <= 598.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['pad_frac_n'] <= 0.0003258592478232458:
                                                    return 0.0
                                                else:
                                                    if f['mn'] <= 1025392.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['mat1_stride1'] <= 218.0:
                                                if f['mat2_stride1'] <= 328.5:
                                                    if f['align_n'] <= 1.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['flops'] <= 3196484480.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['mat1_stride0'] <= 256.5:
                                            if f['io_bytes'] <= 37848622.0:
                                                if f['flops'] <= 3724784000.0:
                                                    if f['pad_frac_n'] <= 0.0012361014960333705:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['align_k'] <= 1.5:
                                                if f['mk'] <= 1040414.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_per_io'] <= 0.6099989116191864:
                                                    return 0.0
                                                else:
                                                    return 0.0
                        else:
                            if f['dtype_fp32'] <= 0.5:
                                if f['align_n'] <= 1.5:
                                    if f['copy_per_io'] <= 0.7657728493213654:
                                        if f['k'] <= 1229.5:
                                            if f['io_bytes'] <= 22021702.0:
                                                if f['mn'] <= 5721176.5:
                                                    if f['copy_per_io'] <= 0.5565676987171173:
                                                        if f['flops'] <= 5231873024.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['flops'] <= 6127021312.0:
                                                    if f['kn'] <= 191828.0:
                                                        return 0.0
                                                    else:
                                                        if f['copy_a_per_io'] <= 0.011280915699899197:
                                                            return 0.0
                                                        else:
                                                            if f['copy_per_flop'] <= 0.0003446629416430369:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                else:
                                                    if f['copy_per_io'] <= 0.03288700990378857:
                                                        return 0.0
                                                    else:
                                                        if f['pad_frac_m'] <= 0.0015440842835232615:
                                                            if f['flops'] <= 7436950272.0:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                        else:
                                            if f['batch'] <= 1.5:
                                                if f['padded_flops_ratio'] <= 1.0173497200012207:
                                                    if f['flops'] <= 5591129856.0:
                                                        return 0.0
                                                    else:
                                                        if f['mat1_stride0'] <= 1322.5:
                                                            return 0.0
                                                        else:
                                                            return 0.3353645485921305
                                                else:
                                                    return 0.0
                                            else:
                                                if f['k'] <= 2051.0:
                                                    return 0.0
                                                else:
                                                    if f['mn'] <= 143200.0:
                                                        return 0.402992329754031
                                                    else:
                                                        return 0.40546510810816405
                                    else:
                                        if f['mat1_stride1'] <= 471.0:
                                            if f['dtype_fp16'] <= 0.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['align_k'] <= 1.5:
                                        if f['io_bytes'] <= 28228172.0:
                                            if f['mat1_stride0'] <= 311.0:
                                                if f['mat2_stride0'] <= 268.0:
                                                    return 0.0
                                                else:
                                                    if f['copy_a_bytes'] <= 1429696.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['copy_b_bytes'] <= 707328.0:
                                                    return 0.0
                                                else:
                                                    if f['copy_a_per_io'] <= 0.07339739054441452:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['mat1_stride1'] <= 1748.0:
                                                if f['pad_frac_k'] <= 0.007376313675194979:
                                                    if f['batch'] <= 1.5:
                                                        return 0.0
                                                    else:
                                                        if f['mat1_stride0'] <= 323.0:
                                                            return 0.0
                                                        else:
                                                            return 0.389543833048054
                                                else:
                                                    if f['io_bytes'] <= 61369434.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['mat2_stride0'] <= 51.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.5187011659145355:
                                            if f['mn'] <= 262529.0:
                                                return 0.0
                                            else:
                                                if f['flops'] <= 5195152640.0:
                                                    if f['padded_flops_ratio'] <= 1.013895034790039:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['align_m'] <= 1.5:
                                                        if f['mat1_transposed'] <= 0.5:
                                                            if f['pad_frac_n'] <= 0.0005034615460317582:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['mat1_stride1'] <= 861.0:
                                                            if f['copy_a_per_io'] <= 0.006999036995694041:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                        else:
                                            if f['pk'] <= 4100.0:
                                                if f['mn'] <= 1196532.0:
                                                    return 0.0
                                                else:
                                                    if f['padded_flops_ratio'] <= 1.0124412775039673:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                return 0.0
                            else:
                                if f['tf32'] <= 0.5:
                                    if f['copy_per_flop'] <= 0.002223003306426108:
                                        if f['copy_per_flop'] <= 0.0007175055216066539:
                                            if f['unaligned_lds'] <= 2.5:
                                                return -0.04660588961630487
                                            else:
                                                return -0.03144775084061132
                                        else:
                                            if f['copy_a_per_io'] <= 0.02952005621045828:
                                                return -0.06773722651766974
                                            else:
                                                return -0.09147050528800875
                                    else:
                                        return -0.15647425100193565
                                else:
                                    if f['flops'] <= 6463389696.0:
                                        if f['copy_a_per_io'] <= 0.06110937520861626:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.26947999000549316:
                                            if f['io_bytes'] <= 105123176.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                    else:
                        if f['flops'] <= 4401489408.0:
                            if f['k'] <= 2952.0:
                                if f['io_bytes'] <= 56307340.0:
                                    if f['mat1_stride0'] <= 1083.5:
                                        if f['io_bytes'] <= 28058038.0:
                                            if f['align_n'] <= 1.5:
                                                if f['flops'] <= 3740833920.0:
                                                    if f['k'] <= 870.0:
                                                        if f['mat2_stride1'] <= 143.0:
                                                            return -0.35220626726101767
                                                        else:
                                                            return -0.28895449832164805
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['align_k'] <= 1.5:
                                                    if f['mat1_stride0'] <= 264.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['io_bytes'] <= 17209720.0:
                                                        if f['align_m'] <= 1.5:
                                                            return 0.0
                                                        else:
                                                            return -0.402439070098584
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['io_bytes'] <= 40729756.0:
                                                if f['flops'] <= 3698586624.0:
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
                                    return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    if f['k'] <= 5215.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['align_k'] <= 1.5:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['pk'] <= 3132.0:
                                if f['mn'] <= 24197952.0:
                                    if f['align_n'] <= 1.5:
                                        if f['kn'] <= 2104836.5:
                                            if f['copy_per_flop'] <= 0.0005295313312672079:
                                                if f['mat1_stride1'] <= 577.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['mat2_stride0'] <= 555.0:
                                                    return 0.0
                                                else:
                                                    if f['pad_frac_m'] <= 0.0005893275665584952:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['flops'] <= 7112271104.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['align_k'] <= 1.5:
                                            if f['mat1_stride1'] <= 362.0:
                                                if f['copy_a_bytes'] <= 3435232.0:
                                                    if f['io_bytes'] <= 23572753.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['io_bytes'] <= 33208092.0:
                                                if f['pad_frac_n'] <= 0.00026035759947262704:
                                                    return 0.0
                                                else:
                                                    if f['k'] <= 1093.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0003320299292681739:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    if f['mat1_stride0'] <= 3975.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['align_k'] <= 1.5:
                                        return 0.0
                                    else:
                                        if f['copy_a_bytes'] <= 1084736.0:
                                            return 0.0
                                        else:
                                            return 0.0
            else:
                if f['unaligned_lds'] <= 0.5:
                    if f['copy_per_io'] <= 0.10220271348953247:
                        return 0.0
                    else:
                        return -0.3399847545811327
                else:
                    if f['copy_per_flop'] <= 0.0020760142942890525:
                        if f['flops'] <= 18682417152.0:
                            if f['op_addmm'] <= 0.5:
                                if f['copy_a_per_io'] <= 0.004072156269103289:
                                    if f['mat2_prepadded'] <= 0.5:
                                        if f['align_n'] <= 1.5:
                                            if f['dtype_bf16'] <= 0.5:
                                                return 0.3852256877451828
                                            else:
                                                return 0.4016005584143108
                                        else:
                                            if f['align_k'] <= 1.5:
                                                return 0.39541156455869886
                                            else:
                                                if f['mat1_stride0'] <= 277.0:
                                                    return 0.3638409396230749
                                                else:
                                                    return 0.0
                                    else:
                                        if f['mk'] <= 12498552.0:
                                            if f['kn'] <= 4150546.5:
                                                return 0.4054651081081646
                                            else:
                                                return 0.4053414864651678
                                        else:
                                            return 0.391427932985574
                                else:
                                    if f['align_n'] <= 1.5:
                                        if f['flops'] <= 11107924480.0:
                                            return 0.0
                                        else:
                                            if f['mat1_stride1'] <= 457.0:
                                                if f['flops'] <= 14664699392.0:
                                                    if f['dtype_bf16'] <= 0.5:
                                                        return 0.0
                                                    else:
                                                        return 0.3955661653549685
                                                else:
                                                    if f['arith_intensity'] <= 257.2732925415039:
                                                        return 0.38846928711230505
                                                    else:
                                                        return 0.403028244172268
                                            else:
                                                return 0.0
                                    else:
                                        if f['copy_b_per_io'] <= 0.023354465141892433:
                                            if f['kn'] <= 920740.0:
                                                return 0.0
                                            else:
                                                if f['mat2_stride0'] <= 2494.0:
                                                    return 0.38900329581812354
                                                else:
                                                    return 0.34832843552442055
                                        else:
                                            if f['align_k'] <= 1.5:
                                                if f['mk'] <= 2108425.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['mn'] <= 5415611.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.0011087307357229292:
                                    if f['flops'] <= 12205901312.0:
                                        return 0.0
                                    else:
                                        if f['align_n'] <= 1.5:
                                            if f['kn'] <= 2020232.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['align_k'] <= 1.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['align_n'] <= 1.5:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.0012112408876419067:
                                if f['flops'] <= 24615626752.0:
                                    if f['align_n'] <= 1.5:
                                        if f['op_addmm'] <= 0.5:
                                            if f['copy_b_bytes'] <= 8626240.0:
                                                if f['copy_per_flop'] <= 0.0004364145133877173:
                                                    return 0.4054651081081652
                                                else:
                                                    return 0.40465168478898933
                                            else:
                                                return 0.3985849028031073
                                        else:
                                            return 0.38578466964683583
                                    else:
                                        if f['copy_b_per_io'] <= 0.045010508969426155:
                                            if f['flops'] <= 20810480640.0:
                                                return 0.38015067739762964
                                            else:
                                                return 0.4016772544687842
                                        else:
                                            if f['flops'] <= 20332378112.0:
                                                return 0.38757078882391743
                                            else:
                                                if f['align_k'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0009765193099156022:
                                        if f['flops'] <= 36497612800.0:
                                            if f['pm'] <= 6236.0:
                                                if f['flops'] <= 35307892736.0:
                                                    if f['op_addmm'] <= 0.5:
                                                        if f['copy_per_flop'] <= 0.0007839225290808827:
                                                            if f['mat1_stride1'] <= 3827.0:
                                                                if f['copy_per_flop'] <= 0.0006478666036855429:
                                                                    return 0.4054651081081631
                                                                else:
                                                                    return 0.4053895162090687
                                                            else:
                                                                return 0.40474829554188163
                                                        else:
                                                            return 0.40185271819844454
                                                    else:
                                                        if f['k'] <= 1020.5:
                                                            return 0.3923729566543075
                                                        else:
                                                            if f['mat2_stride0'] <= 2046.0:
                                                                return 0.4036553032889898
                                                            else:
                                                                return 0.405465108108164
                                                else:
                                                    return 0.39473688193398876
                                            else:
                                                if f['m'] <= 7053.0:
                                                    return 0.3846443219561236
                                                else:
                                                    if f['copy_b_per_io'] <= 0.029425392858684063:
                                                        return 0.39635260629639374
                                                    else:
                                                        return 0.404508995066378
                                        else:
                                            if f['copy_a_bytes'] <= 37457280.0:
                                                if f['io_bytes'] <= 48222266.0:
                                                    return 0.4014426225703061
                                                else:
                                                    if f['align_k'] <= 48.0:
                                                        if f['copy_per_flop'] <= 0.0007220527913887054:
                                                            if f['pad_frac_n'] <= 0.008138688746839762:
                                                                if f['mn'] <= 3858633.0:
                                                                    return 0.4054651081081643
                                                                else:
                                                                    return 0.4054651081081612
                                                            else:
                                                                return 0.40439886118710516
                                                        else:
                                                            if f['copy_per_flop'] <= 0.0008055681828409433:
                                                                return 0.40322063562285554
                                                            else:
                                                                return 0.4054651081081653
                                                    else:
                                                        return 0.40354111367241413
                                            else:
                                                return 0.4000364207386046
                                    else:
                                        if f['align_n'] <= 1.5:
                                            if f['padded_flops_ratio'] <= 1.0034649968147278:
                                                return 0.0
                                            else:
                                                return 0.40546510810816505
                                        else:
                                            if f['align_k'] <= 1.5:
                                                return 0.39787489139059784
                                            else:
                                                if f['mat2_stride0'] <= 1243.0:
                                                    return 0.0
                                                else:
                                                    return 0.37016956434503123
                            else:
                                if f['align_n'] <= 1.5:
                                    if f['tf32'] <= 0.5:
                                        if f['flops'] <= 26204198912.0:
                                            return 0.39229784347307417
                                        else:
                                            if f['mn'] <= 2334938.5:
                                                return 0.4022912716791957
                                            else:
                                                if f['k'] <= 4092.5:
                                                    return 0.4053744813011463
                                                else:
                                                    return 0.40546510810816544
                                    else:
                                        return 0.36089027392810025
                                else:
                                    if f['align_k'] <= 1.5:
                                        if f['mat1_stride1'] <= 515.5:
                                            if f['arith_intensity'] <= 606.9275817871094:
                                                if f['io_bytes'] <= 66345810.0:
                                                    return 0.40546510810816405
                                                else:
                                                    return 0.4039679441734736
                                            else:
                                                return 0.39131143696015486
                                        else:
                                            return 0.0
                                    else:
                                        if f['mn'] <= 3262617.0:
                                            if f['copy_per_flop'] <= 0.0016132763121277094:
                                                return 0.23660896684632288
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.0014881446841172874:
                                                return 0.3182006591862978
                                            else:
                                                return 0.0
                    else:
                        if f['align_n'] <= 1.5:
                            if f['copy_per_flop'] <= 0.002795117790810764:
                                if f['flops'] <= 17335731200.0:
                                    if f['padded_flops_ratio'] <= 1.0064198970794678:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0023762272903695703:
                                        if f['mat1_stride0'] <= 1755.5:
                                            return 0.353951818419415
                                        else:
                                            return 0.39636479839682975
                                    else:
                                        return 0.32950851541477894
                            else:
                                if f['mn'] <= 695771.0:
                                    return 0.0
                                else:
                                    if f['mat1_stride0'] <= 819.5:
                                        if f['flops'] <= 18464845824.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['mat2_stride0'] <= 250.0:
                                            return 0.29470449371697915
                                        else:
                                            if f['copy_per_flop'] <= 0.003918602596968412:
                                                if f['arith_intensity'] <= 296.1739807128906:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                        else:
                            if f['align_k'] <= 1.5:
                                if f['copy_per_flop'] <= 0.0038084957050159574:
                                    if f['mat1_stride0'] <= 572.0:
                                        if f['padded_flops_ratio'] <= 1.0092742443084717:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['flops'] <= 15792975872.0:
                                            return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.002781112678349018:
                                                return 0.35870710630210667
                                            else:
                                                return 0.2919642074920259
                                else:
                                    return 0.0
                            else:
                                if f['mat1_stride1'] <= 340.5:
                                    if f['arith_intensity'] <= 405.98155212402344:
                                        if f['unaligned_dims'] <= 2.5:
                                            if f['mat2_stride0'] <= 341.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_a_bytes'] <= 10766848.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0027375409845262766:
                                        return 0.0
                                    else:
                                        return 0.0
        else:
            if f['copy_per_flop'] <= 0.007935900706797838:
                if f['mn'] <= 201425.5:
                    if f['align_n'] <= 1.5:
                        return 0.0
                    else:
                        return 0.0
                else:
                    if f['align_n'] <= 1.5:
                        if f['op_bmm'] <= 0.5:
                            if f['dtype_fp32'] <= 0.5:
                                if f['unaligned_lds'] <= 2.5:
                                    return 0.0
                                else:
                                    if f['op_addmm'] <= 0.5:
                                        if f['mn'] <= 839184.5:
                                            if f['mat1_stride0'] <= 3009.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.005359716480597854:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['mn'] <= 532350.0:
                                            return 0.0
                                        else:
                                            if f['mat1_stride0'] <= 2048.0:
                                                return 0.0
                                            else:
                                                return 0.0
                            else:
                                if f['tf32'] <= 0.5:
                                    return -0.24630667675195972
                                else:
                                    if f['arith_intensity'] <= 315.9811096191406:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['k'] <= 2143.5:
                                if f['mat1_stride0'] <= 518.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['io_bytes'] <= 98873704.0:
                                    return 0.0
                                else:
                                    return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            if f['batch'] <= 1.5:
                                if f['mat1_stride0'] <= 1344.0:
                                    if f['mat2_stride0'] <= 180.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['pn'] <= 4976.0:
                                        if f['op_addmm'] <= 0.5:
                                            if f['copy_per_flop'] <= 0.005030726781114936:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['pk'] <= 1952.0:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['tf32'] <= 0.5:
                                if f['mat1_stride0'] <= 319.0:
                                    if f['align_m'] <= 1.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['arith_intensity'] <= 216.92151641845703:
                                        if f['mn'] <= 425426.0:
                                            return 0.0
                                        else:
                                            if f['arith_intensity'] <= 175.36865997314453:
                                                if f['pad_frac_n'] <= 0.000851221673656255:
                                                    return -0.4028629498590773
                                                else:
                                                    return -0.38865933024926375
                                            else:
                                                return 0.0
                                    else:
                                        return 0.0
                            else:
                                return 0.0
            else:
                if f['mn'] <= 142876.5:
                    if f['io_bytes'] <= 101953224.0:
                        if f['copy_per_flop'] <= 0.01534031331539154:
                            if f['align_n'] <= 1.5:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            if f['pad_frac_m'] <= 0.006734246388077736:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        if f['copy_per_flop'] <= 0.03127139061689377:
                            if f['io_bytes'] <= 136554992.0:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            if f['copy_a_bytes'] <= 1574400.0:
                                return 0.0
                            else:
                                if f['pk'] <= 6720.0:
                                    return -0.4054651081081645
                                else:
                                    return -0.40008314369302195
                else:
                    if f['copy_per_flop'] <= 0.010571971535682678:
                        if f['mn'] <= 383327.0:
                            if f['batch'] <= 1.5:
                                if f['op_addmm'] <= 0.5:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['batch'] <= 5.5:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['padded_flops_ratio'] <= 1.0476481318473816:
                                if f['op_addmm'] <= 0.5:
                                    if f['arith_intensity'] <= 214.19810485839844:
                                        if f['op_bmm'] <= 0.5:
                                            if f['copy_per_io'] <= 0.9371624886989594:
                                                return -0.3549953304282219
                                            else:
                                                if f['pad_frac_k'] <= 0.00024431964266113937:
                                                    return -0.38565113124370964
                                                else:
                                                    if f['padded_flops_ratio'] <= 1.0194534063339233:
                                                        return -0.40350382992823713
                                                    else:
                                                        return -0.3956991718407724
                                        else:
                                            if f['copy_a_bytes'] <= 4177024.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        return -0.3073286225519872
                                else:
                                    if f['mat2_stride1'] <= 2142.5:
                                        if f['mn'] <= 727753.0:
                                            return -0.29795901213077586
                                        else:
                                            return -0.3510186890880588
                                    else:
                                        return 0.0
                            else:
                                return 0.0
                    else:
                        if f['copy_per_flop'] <= 0.01574524026364088:
                            if f['mn'] <= 270435.0:
                                if f['align_n'] <= 1.5:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['pad_frac_m'] <= 0.001050264050718397:
                                    if f['lda_aligned'] <= 0.5:
                                        if f['pad_frac_k'] <= 0.0012225427199155092:
                                            if f['pad_frac_k'] <= 0.00026660648290999234:
                                                return -0.3824377529653936
                                            else:
                                                if f['unaligned_dims'] <= 2.5:
                                                    return -0.4027937858488425
                                                else:
                                                    return -0.3978510909571219
                                        else:
                                            return -0.382614368584493
                                    else:
                                        return 0.0
                                else:
                                    if f['pn'] <= 7132.0:
                                        if f['op_bmm'] <= 0.5:
                                            if f['padded_flops_ratio'] <= 1.0446043610572815:
                                                return -0.38073622744326313
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return -0.39296512581884624
                        else:
                            if f['copy_per_flop'] <= 0.018209995701909065:
                                if f['mn'] <= 224091.5:
                                    return 0.0
                                else:
                                    if f['mn'] <= 485403.5:
                                        if f['kn'] <= 513797.5:
                                            if f['mat1_stride0'] <= 3951.0:
                                                return -0.40315169812028245
                                            else:
                                                return 0.0
                                        else:
                                            if f['mat2_stride0'] <= 2663.0:
                                                return 0.0
                                            else:
                                                return -0.3881967559826792
                                    else:
                                        if f['padded_flops_ratio'] <= 1.0168317556381226:
                                            if f['copy_per_flop'] <= 0.01610664278268814:
                                                return -0.4036572776835106
                                            else:
                                                return -0.40546510810816405
                                        else:
                                            return -0.38934691313160497
                            else:
                                if f['copy_per_flop'] <= 0.03128679841756821:
                                    if f['mn'] <= 235736.0:
                                        if f['align_n'] <= 1.5:
                                            return 0.0
                                        else:
                                            return -0.3942689408289217
                                    else:
                                        if f['pad_frac_m'] <= 0.10457516461610794:
                                            if f['n'] <= 59.5:
                                                if f['align_k'] <= 1.5:
                                                    return -0.3845798068952104
                                                else:
                                                    return -0.4008262869322058
                                            else:
                                                if f['copy_per_flop'] <= 0.02022414095699787:
                                                    return -0.3989302058500911
                                                else:
                                                    if f['op_addmm'] <= 0.5:
                                                        return -0.40546510810816505
                                                    else:
                                                        return -0.40184558805184956
                                        else:
                                            return -0.3720761040000685
                                else:
                                    if f['mat1_stride0'] <= 7847.5:
                                        if f['align_k'] <= 1.5:
                                            if f['unaligned_dims'] <= 2.5:
                                                return -0.4039445582519955
                                            else:
                                                return -0.40546510810816405
                                        else:
                                            if f['pk'] <= 4774.0:
                                                return -0.40546510810816405
                                            else:
                                                return -0.405465108108164
                                    else:
                                        return -0.3998600336923298


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
