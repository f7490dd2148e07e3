"""pad_mm heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 51403 problems.

Regression tree max_depth=16, min_samples_leaf=100 (204 leaves, 80 of them agree and may answer); thresholds pad 1.4994, orig 1.4979.
Held-out test split (2% tolerance): 3239 correct, 0 wrong, 7041 unsure of 10280; largest loss of any answer NaN.
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
FEATURES = ('m', 'k', 'n', 'batch', 'op_bmm', 'op_addmm', 'dtype_bf16', 'tf32', 'mat1_prepadded', 'mat2_prepadded', 'mat1_stride0', 'mat2_stride0', 'mat2_stride1', 'mk', 'kn', 'mn', 'arith_intensity', 'pad_frac_m', 'pad_frac_k', 'pad_frac_n', 'align_m', 'align_k', 'align_n', 'align', 'pk', 'unaligned_lds', 'unaligned_dims', 'flops', 'io_bytes', 'copy_a_bytes', 'copy_b_bytes', 'copy_per_io', 'copy_a_per_io', 'copy_b_per_io', 'copy_per_flop', 'padded_flops_ratio')
# Answer 'pad' when the predicted speedup is at least exp(LOG_THRESHOLD_PAD), 'orig' likewise.
LOG_THRESHOLD_PAD = 0.4050893827787641
LOG_THRESHOLD_ORIG = 0.40406943772410764
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'per_choice_thresholds': True, 'derived_features': True, 'min_dim': 0, 'max_depth': 16, 'min_samples_leaf': 100}


def score(f):
    """Predicted log(time of 'orig' / time of 'pad'): above 0 favours 'pad'; exactly 0 in
    leaves whose training problems did not all agree."""
    if f['flops'] <= 6224455424.0:
        if f['copy_per_flop'] <= 0.00012393935321597382:
            if f['flops'] <= 768911136.0:
                if f['op_addmm'] <= 0.5:
                    if f['flops'] <= 337478912.0:
                        if f['k'] <= 2044.5:
                            if f['dtype_bf16'] <= 0.5:
                                if f['arith_intensity'] <= 28.042780876159668:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
                    else:
                        if f['io_bytes'] <= 18271645.0:
                            return 0.0
                        else:
                            return 0.0
                else:
                    if f['flops'] <= 267485712.0:
                        if f['pad_frac_n'] <= 0.0050543202087283134:
                            return 0.0
                        else:
                            return -0.40098842294790876
                    else:
                        return 0.0
            else:
                if f['op_addmm'] <= 0.5:
                    if f['align'] <= 6.0:
                        if f['tf32'] <= 0.5:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['flops'] <= 2651307264.0:
                            if f['io_bytes'] <= 25503511.0:
                                if f['k'] <= 751.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            if f['padded_flops_ratio'] <= 1.013718605041504:
                                return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    return 0.39579340193899815
                                else:
                                    return 0.0
                else:
                    if f['io_bytes'] <= 13148543.0:
                        return 0.0
                    else:
                        if f['k'] <= 2633.5:
                            return 0.0
                        else:
                            return 0.0
        else:
            if f['flops'] <= 1688666752.0:
                if f['batch'] <= 1.5:
                    if f['flops'] <= 871111776.0:
                        if f['io_bytes'] <= 17634058.0:
                            if f['flops'] <= 519808832.0:
                                if f['mk'] <= 6675743.0:
                                    if f['copy_a_per_io'] <= 0.0006043228204362094:
                                        if f['mk'] <= 1992568.0:
                                            if f['m'] <= 18.5:
                                                return 0.0
                                            else:
                                                if f['flops'] <= 376120576.0:
                                                    if f['flops'] <= 165145488.0:
                                                        if f['copy_per_flop'] <= 0.03586087375879288:
                                                            if f['mk'] <= 649157.0:
                                                                if f['copy_b_per_io'] <= 0.019280599430203438:
                                                                    return -0.40546510810816533
                                                                else:
                                                                    return -0.40546510810816194
                                                            else:
                                                                return -0.4054590432764386
                                                        else:
                                                            return -0.4047435298301621
                                                    else:
                                                        if f['n'] <= 512.5:
                                                            return -0.39845986718723897
                                                        else:
                                                            return -0.4047913378528439
                                                else:
                                                    return -0.39617729352250486
                                        else:
                                            return 0.0
                                    else:
                                        if f['mat2_stride1'] <= 5648.5:
                                            if f['copy_per_flop'] <= 0.0006715891358908266:
                                                if f['kn'] <= 1047808.0:
                                                    return -0.40546510810816555
                                                else:
                                                    return -0.39565806117694957
                                            else:
                                                if f['align_m'] <= 12.0:
                                                    if f['flops'] <= 382113248.0:
                                                        if f['flops'] <= 254488208.0:
                                                            if f['align_k'] <= 96.0:
                                                                if f['k'] <= 6357.5:
                                                                    return -0.40546337781914754
                                                                else:
                                                                    return -0.40526042519236044
                                                            else:
                                                                return -0.4050479452993149
                                                        else:
                                                            if f['pad_frac_k'] <= 0.0003355249937158078:
                                                                return -0.40406943772410764
                                                            else:
                                                                if f['copy_b_bytes'] <= 36928.0:
                                                                    return -0.40490783924210866
                                                                else:
                                                                    return -0.40546510810816233
                                                    else:
                                                        if f['copy_b_bytes'] <= 73216.0:
                                                            return -0.40152100173906596
                                                        else:
                                                            if f['n'] <= 364.0:
                                                                return -0.4054651081081649
                                                            else:
                                                                if f['m'] <= 262.5:
                                                                    return -0.40546510810816466
                                                                else:
                                                                    return -0.4054651081081649
                                                else:
                                                    if f['k'] <= 2048.0:
                                                        if f['copy_b_per_io'] <= 0.001677131513133645:
                                                            return -0.40283452491053723
                                                        else:
                                                            if f['n'] <= 65.5:
                                                                return -0.4054651081081648
                                                            else:
                                                                if f['unaligned_lds'] <= 2.5:
                                                                    return -0.40546510810816494
                                                                else:
                                                                    return -0.4054651081081648
                                                    else:
                                                        return -0.3996607091974608
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['k'] <= 1046.5:
                                    if f['arith_intensity'] <= 65.69364929199219:
                                        return -0.3892009366047013
                                    else:
                                        if f['copy_a_per_io'] <= 0.011208710260689259:
                                            return -0.39952355961846264
                                        else:
                                            if f['copy_a_per_io'] <= 0.49923522770404816:
                                                if f['mat1_stride0'] <= 124.5:
                                                    return -0.4054651081081653
                                                else:
                                                    return -0.40546510810816483
                                            else:
                                                return -0.40398289469521337
                                else:
                                    if f['copy_per_io'] <= 0.7499042749404907:
                                        return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.9480551481246948:
                                            return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.016245802864432335:
                                                return -0.4048634462722645
                                            else:
                                                return -0.39541218368823694
                        else:
                            if f['copy_per_io'] <= 0.015324954874813557:
                                if f['pk'] <= 990.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['copy_a_per_io'] <= 0.0009701413800939918:
                                    return 0.0
                                else:
                                    if f['mat2_prepadded'] <= 0.5:
                                        if f['pk'] <= 4094.0:
                                            if f['copy_per_flop'] <= 0.027115005999803543:
                                                return -0.4009563522163414
                                            else:
                                                if f['k'] <= 2322.0:
                                                    return -0.4054651081081656
                                                else:
                                                    return -0.4050545302559672
                                        else:
                                            if f['io_bytes'] <= 26176650.0:
                                                return 0.0
                                            else:
                                                return -0.4029734714191214
                                    else:
                                        return 0.0
                    else:
                        if f['copy_per_io'] <= 0.009450491517782211:
                            return 0.0
                        else:
                            if f['mat2_prepadded'] <= 0.5:
                                if f['copy_a_bytes'] <= 58240.0:
                                    if f['mk'] <= 2431894.0:
                                        if f['mat1_stride0'] <= 527.0:
                                            if f['flops'] <= 1193724672.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return -0.37785631675237535
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_per_io'] <= 0.04930703900754452:
                                        return 0.0
                                    else:
                                        if f['io_bytes'] <= 10853552.0:
                                            if f['copy_b_bytes'] <= 4075776.0:
                                                if f['mat1_stride0'] <= 547.5:
                                                    if f['copy_b_bytes'] <= 856832.0:
                                                        return -0.40518484338979016
                                                    else:
                                                        return -0.40546510810816483
                                                else:
                                                    return -0.40369011618752637
                                            else:
                                                return -0.3997160655988794
                                        else:
                                            if f['arith_intensity'] <= 123.43492889404297:
                                                if f['mat1_stride0'] <= 1532.0:
                                                    if f['pad_frac_m'] <= 0.00043084910430479795:
                                                        return -0.398564850538731
                                                    else:
                                                        return -0.4043710559861382
                                                else:
                                                    if f['io_bytes'] <= 31886808.0:
                                                        return 0.0
                                                    else:
                                                        if f['copy_per_io'] <= 0.9968385100364685:
                                                            return -0.4050696107133685
                                                        else:
                                                            return -0.3968099477868671
                                            else:
                                                return 0.0
                            else:
                                if f['kn'] <= 1048455.0:
                                    if f['copy_a_bytes'] <= 6032640.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                else:
                    if f['pk'] <= 2874.0:
                        if f['pk'] <= 1030.0:
                            if f['copy_per_io'] <= 0.030460888519883156:
                                if f['flops'] <= 642705664.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['flops'] <= 1169823680.0:
                                    if f['pk'] <= 748.0:
                                        if f['flops'] <= 331671328.0:
                                            if f['pk'] <= 482.0:
                                                if f['mn'] <= 481556.0:
                                                    if f['k'] <= 32.5:
                                                        return -0.40546510810816516
                                                    else:
                                                        if f['copy_a_per_io'] <= 0.03689407743513584:
                                                            return -0.4054651081081647
                                                        else:
                                                            if f['flops'] <= 23927670.0:
                                                                return -0.40546510810816466
                                                            else:
                                                                return -0.4054651081081654
                                                else:
                                                    return -0.4038737122079143
                                            else:
                                                return -0.3981684742173302
                                        else:
                                            if f['copy_a_per_io'] <= 0.007100121350958943:
                                                return 0.0
                                            else:
                                                if f['copy_b_per_io'] <= 0.007788805058225989:
                                                    return 0.0
                                                else:
                                                    if f['io_bytes'] <= 12665011.0:
                                                        return -0.4054651081081647
                                                    else:
                                                        return -0.39846730919140577
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['copy_per_io'] <= 0.8199988007545471:
                                return 0.0
                            else:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['arith_intensity'] <= 32.2139949798584:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                    else:
                        if f['dtype_bf16'] <= 0.5:
                            if f['copy_per_io'] <= 0.9575747549533844:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
            else:
                if f['copy_per_io'] <= 0.054097454994916916:
                    if f['io_bytes'] <= 79614988.0:
                        if f['mn'] <= 834499.5:
                            if f['align_n'] <= 1.5:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            if f['flops'] <= 3753691904.0:
                                if f['io_bytes'] <= 34974758.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                    else:
                        if f['align'] <= 6.0:
                            if f['copy_per_flop'] <= 0.0006412013608496636:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            if f['n'] <= 4095.5:
                                return 0.0
                            else:
                                return 0.0
                else:
                    if f['copy_per_flop'] <= 0.015577199403196573:
                        if f['op_bmm'] <= 0.5:
                            if f['flops'] <= 3107834624.0:
                                if f['copy_a_per_io'] <= 0.013692152220755816:
                                    if f['mk'] <= 535262.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['mat2_prepadded'] <= 0.5:
                                        if f['copy_b_bytes'] <= 7108800.0:
                                            if f['io_bytes'] <= 9371538.0:
                                                return -0.39608455927362274
                                            else:
                                                if f['copy_b_bytes'] <= 2653440.0:
                                                    if f['arith_intensity'] <= 116.79959487915039:
                                                        return 0.0
                                                    else:
                                                        if f['mk'] <= 2507869.0:
                                                            return 0.0
                                                        else:
                                                            return -0.34477741191737576
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
                                if f['copy_per_flop'] <= 0.00781975407153368:
                                    if f['copy_a_per_io'] <= 0.013405960984528065:
                                        if f['copy_per_flop'] <= 0.0009953721310012043:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_b_per_io'] <= 0.007216355763375759:
                                            if f['flops'] <= 4322267648.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['flops'] <= 4441550848.0:
                                                if f['copy_a_bytes'] <= 2064064.0:
                                                    return 0.0
                                                else:
                                                    if f['io_bytes'] <= 17599411.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['align_n'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    if f['mat1_stride0'] <= 521.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                else:
                                    if f['op_addmm'] <= 0.5:
                                        return -0.3751496861324699
                                    else:
                                        return 0.0
                        else:
                            if f['pk'] <= 1448.0:
                                if f['flops'] <= 3832429952.0:
                                    if f['align_n'] <= 1.5:
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
                        if f['mn'] <= 64726.5:
                            return 0.0
                        else:
                            if f['op_bmm'] <= 0.5:
                                if f['copy_per_flop'] <= 0.016953211277723312:
                                    return -0.3823748518890824
                                else:
                                    if f['align'] <= 6.0:
                                        if f['copy_a_bytes'] <= 1972896.0:
                                            return -0.4032997857654397
                                        else:
                                            return -0.4054651081081651
                                    else:
                                        if f['mk'] <= 315372.5:
                                            return -0.40012889032521226
                                        else:
                                            return -0.39040361844184707
                            else:
                                if f['copy_per_flop'] <= 0.02286629192531109:
                                    return 0.0
                                else:
                                    if f['k'] <= 4018.0:
                                        return -0.4026691598628137
                                    else:
                                        return 0.0
    else:
        if f['copy_per_flop'] <= 0.00404753047041595:
            if f['flops'] <= 11188450304.0:
                if f['copy_per_flop'] <= 0.0002914980141213164:
                    if f['op_addmm'] <= 0.5:
                        if f['pad_frac_n'] <= 0.0006385448505170643:
                            return 0.0
                        else:
                            if f['copy_per_io'] <= 0.0013630593894049525:
                                return 0.37854444562750367
                            else:
                                return 0.0
                    else:
                        return 0.0
                else:
                    if f['op_addmm'] <= 0.5:
                        if f['unaligned_lds'] <= 1.5:
                            return 0.0
                        else:
                            if f['copy_b_per_io'] <= 0.009225630667060614:
                                return 0.0
                            else:
                                if f['mat1_prepadded'] <= 0.5:
                                    if f['flops'] <= 8641819648.0:
                                        if f['pad_frac_n'] <= 0.001100371009670198:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                    else:
                        if f['k'] <= 2614.5:
                            if f['io_bytes'] <= 31811503.0:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
            else:
                if f['copy_per_flop'] <= 0.0020853508030995727:
                    if f['unaligned_dims'] <= 1.5:
                        if f['copy_a_per_io'] <= 0.01812778040766716:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['flops'] <= 18626982912.0:
                            if f['op_addmm'] <= 0.5:
                                if f['align_n'] <= 1.5:
                                    if f['copy_per_flop'] <= 0.0002447084552841261:
                                        return 0.3997858887745609
                                    else:
                                        if f['mat1_stride0'] <= 297.5:
                                            return 0.0
                                        else:
                                            return 0.3828395167740711
                                else:
                                    if f['copy_a_per_io'] <= 0.04067028686404228:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['copy_a_per_io'] <= 0.065434530377388:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.0011939918040297925:
                                if f['flops'] <= 24124312576.0:
                                    if f['copy_b_bytes'] <= 3120128.0:
                                        return 0.3946110571429615
                                    else:
                                        return 0.0
                                else:
                                    if f['flops'] <= 29360481280.0:
                                        if f['copy_a_bytes'] <= 3633280.0:
                                            return 0.40214063195626315
                                        else:
                                            return 0.3845028196316168
                                    else:
                                        if f['align_n'] <= 1.5:
                                            if f['flops'] <= 34830669824.0:
                                                return 0.40446803537700743
                                            else:
                                                if f['arith_intensity'] <= 416.06336975097656:
                                                    return 0.4054651081081647
                                                else:
                                                    if f['flops'] <= 50997856256.0:
                                                        return 0.4054651081081655
                                                    else:
                                                        return 0.4054651081081651
                                        else:
                                            if f['copy_per_flop'] <= 0.0007170603203121573:
                                                if f['mk'] <= 4241408.0:
                                                    return 0.40153155720951467
                                                else:
                                                    if f['k'] <= 2163.5:
                                                        return 0.40546510810816494
                                                    else:
                                                        return 0.4050893827787641
                                            else:
                                                return 0.39385274370222
                            else:
                                if f['align_k'] <= 1.5:
                                    if f['mat2_stride0'] <= 908.5:
                                        return 0.40199866945280516
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0016989391879178584:
                                        return 0.0
                                    else:
                                        return 0.0
                else:
                    if f['align_n'] <= 1.5:
                        if f['copy_per_flop'] <= 0.0028488647658377886:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            return 0.0
                        else:
                            return 0.0
        else:
            if f['copy_per_flop'] <= 0.007937784306704998:
                if f['op_bmm'] <= 0.5:
                    if f['align_n'] <= 1.5:
                        if f['mat2_stride0'] <= 261.0:
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
                if f['copy_per_flop'] <= 0.014581043273210526:
                    if f['mn'] <= 507575.0:
                        return 0.0
                    else:
                        if f['padded_flops_ratio'] <= 1.0138927698135376:
                            return 0.0
                        else:
                            return -0.38082883305663917
                else:
                    if f['m'] <= 2999.0:
                        return 0.0
                    else:
                        return -0.40031103878769225


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
