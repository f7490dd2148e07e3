"""pad_mm heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 89028 problems.

Regression tree max_depth=12, min_samples_leaf=200 (157 leaves, 34 of them agree and may answer); thresholds pad 1.0000, orig 1.4977.
Held-out test split (2% tolerance): 5293 correct, 2 wrong, 12510 unsure of 17805; largest loss of any answer 1.106541.
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
FEATURES = ('k', 'batch', 'op_bmm', 'op_addmm', 'dtype_bf16', 'dtype_fp32', 'itemsize', 'mat1_prepadded', 'mat2_prepadded', 'mat1_stride0', 'mat2_stride0', 'mk', 'kn', 'mn', 'arith_intensity', 'pad_frac_m', 'pad_frac_n', 'align_k', 'align_n', 'align', 'pm', 'pk', 'pn', 'unaligned_dims', 'copy_a', 'copy_b', 'flops', 'io_bytes', 'copy_b_bytes', 'copy_per_io', 'copy_a_per_io', 'copy_b_per_io', 'copy_per_flop', 'padded_flops_ratio')
# Answer 'pad' when the predicted speedup is at least exp(LOG_THRESHOLD_PAD), 'orig' likewise.
LOG_THRESHOLD_PAD = 0.0
LOG_THRESHOLD_ORIG = 0.40395434535923597
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'ensemble': 1, 'per_choice_thresholds': True, 'derived_features': True, 'min_dim': 0, 'max_depth': 12, 'min_samples_leaf': 200}


def score(f):
    """Predicted log(time of 'orig' / time of 'pad'): above 0 favours 'pad'; exactly 0 in
    leaves whose training problems did not all agree."""
    if f['flops'] <= 4661503232.0:
        if f['copy_per_flop'] <= 0.0004936907789669931:
            if f['flops'] <= 1052766688.0:
                if f['copy_per_flop'] <= 0.0001228084074682556:
                    if f['op_addmm'] <= 0.5:
                        if f['io_bytes'] <= 20192547.0:
                            if f['kn'] <= 49153.5:
                                return 0.0
                            else:
                                if f['io_bytes'] <= 4155409.0:
                                    return 0.0
                                else:
                                    if f['pad_frac_n'] <= 0.0026551189366728067:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            return 0.0
                    else:
                        if f['io_bytes'] <= 7792040.0:
                            return 0.0
                        else:
                            return 0.0
                else:
                    if f['io_bytes'] <= 19740059.0:
                        if f['io_bytes'] <= 9277466.0:
                            if f['k'] <= 254.5:
                                if f['io_bytes'] <= 4196174.0:
                                    return -0.40546510810816266
                                else:
                                    return -0.4034560238880682
                            else:
                                return 0.0
                        else:
                            return 0.0
                    else:
                        return 0.0
            else:
                if f['copy_per_io'] <= 0.004369191825389862:
                    if f['op_addmm'] <= 0.5:
                        if f['align'] <= 6.0:
                            return 0.0
                        else:
                            if f['flops'] <= 1933515520.0:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        return 0.0
                else:
                    if f['batch'] <= 1.5:
                        if f['flops'] <= 2684748928.0:
                            if f['copy_per_io'] <= 0.010168387088924646:
                                return 0.0
                            else:
                                if f['flops'] <= 1657188544.0:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['k'] <= 649.0:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        return 0.0
        else:
            if f['flops'] <= 1691219136.0:
                if f['batch'] <= 1.5:
                    if f['flops'] <= 534620176.0:
                        if f['io_bytes'] <= 16771473.0:
                            if f['io_bytes'] <= 5776051.0:
                                if f['flops'] <= 363885856.0:
                                    if f['copy_a'] <= 0.5:
                                        if f['pk'] <= 1124.0:
                                            if f['flops'] <= 134746648.0:
                                                if f['copy_b_per_io'] <= 0.7739819884300232:
                                                    return -0.40544455143394287
                                                else:
                                                    return -0.40193897631804826
                                            else:
                                                return -0.4005877173012431
                                        else:
                                            if f['pad_frac_m'] <= 0.009763204958289862:
                                                return 0.0
                                            else:
                                                return -0.4025509504126103
                                    else:
                                        if f['copy_b'] <= 0.5:
                                            if f['mat1_stride0'] <= 278.0:
                                                if f['k'] <= 511.5:
                                                    return -0.4054462844646337
                                                else:
                                                    return -0.4038078611327442
                                            else:
                                                if f['mat2_stride0'] <= 119.0:
                                                    return -0.402791965500372
                                                else:
                                                    return -0.39454055499455265
                                        else:
                                            if f['mn'] <= 805.0:
                                                return -0.4042358830246587
                                            else:
                                                if f['arith_intensity'] <= 111.11447525024414:
                                                    return -0.4054651081082363
                                                else:
                                                    return -0.4054486154689958
                                else:
                                    if f['mat1_stride0'] <= 509.5:
                                        return -0.4025874029492843
                                    else:
                                        return 0.0
                            else:
                                if f['mat1_prepadded'] <= 0.5:
                                    if f['copy_b_per_io'] <= 0.0009392491192556918:
                                        if f['kn'] <= 120006.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['pk'] <= 2788.0:
                                            if f['padded_flops_ratio'] <= 1.004499912261963:
                                                return -0.40395434535923597
                                            else:
                                                if f['copy_b_bytes'] <= 7658688.0:
                                                    return -0.4054651081081609
                                                else:
                                                    return -0.40463797912590044
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                return -0.4039006976756306
                                            else:
                                                return 0.0
                                else:
                                    if f['mk'] <= 157396.0:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.0021631205454468727:
                                return 0.0
                            else:
                                if f['op_addmm'] <= 0.5:
                                    if f['copy_per_io'] <= 0.9923112988471985:
                                        return -0.3993656667263422
                                    else:
                                        return -0.4048887931401298
                                else:
                                    return 0.0
                    else:
                        if f['copy_per_io'] <= 0.09641548991203308:
                            if f['dtype_fp32'] <= 0.5:
                                if f['k'] <= 68.5:
                                    if f['mn'] <= 11532820.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['io_bytes'] <= 35873444.0:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['mat2_prepadded'] <= 0.5:
                                if f['copy_a_per_io'] <= 0.0019369369838386774:
                                    if f['mk'] <= 538656.5:
                                        if f['copy_per_flop'] <= 0.015652118250727654:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['flops'] <= 1284614720.0:
                                        if f['op_addmm'] <= 0.5:
                                            if f['copy_per_io'] <= 0.9165808260440826:
                                                if f['io_bytes'] <= 9164751.0:
                                                    return -0.40213492927247674
                                                else:
                                                    return 0.0
                                            else:
                                                if f['pad_frac_n'] <= 0.05090595409274101:
                                                    return -0.40393206942327575
                                                else:
                                                    return 0.0
                                        else:
                                            if f['k'] <= 4157.0:
                                                if f['k'] <= 1970.5:
                                                    return -0.4032687088115633
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['copy_per_flop'] <= 0.01794618647545576:
                                            if f['copy_per_io'] <= 0.9497645795345306:
                                                return -0.3837336569480465
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.015514754690229893:
                                    if f['flops'] <= 914913952.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                else:
                    if f['pk'] <= 2054.0:
                        if f['k'] <= 1021.5:
                            if f['mn'] <= 2469404.0:
                                if f['flops'] <= 820985632.0:
                                    if f['k'] <= 515.5:
                                        if f['io_bytes'] <= 17416784.0:
                                            if f['copy_a'] <= 0.5:
                                                return 0.0
                                            else:
                                                if f['mat2_prepadded'] <= 0.5:
                                                    return -0.4051577230306913
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.007854721043258905:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                return 0.0
                        else:
                            if f['copy_per_io'] <= 0.9562387466430664:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        if f['dtype_bf16'] <= 0.5:
                            if f['io_bytes'] <= 27322015.0:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
            else:
                if f['copy_per_flop'] <= 0.008077416568994522:
                    if f['batch'] <= 1.5:
                        if f['flops'] <= 2820552832.0:
                            if f['copy_a_per_io'] <= 0.007932270411401987:
                                return 0.0
                            else:
                                if f['copy_b_per_io'] <= 0.010391694493591785:
                                    return 0.0
                                else:
                                    if f['mat1_stride0'] <= 588.5:
                                        if f['io_bytes'] <= 18987573.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['copy_a_per_io'] <= 0.013260605745017529:
                                return 0.0
                            else:
                                if f['copy_b_per_io'] <= 0.014274424407631159:
                                    return 0.0
                                else:
                                    if f['flops'] <= 3654348160.0:
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
                        if f['pk'] <= 1254.0:
                            if f['io_bytes'] <= 51527638.0:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
                else:
                    if f['mn'] <= 116856.5:
                        if f['copy_per_flop'] <= 0.030355149880051613:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['copy_per_flop'] <= 0.01608738675713539:
                            if f['mn'] <= 239629.0:
                                return 0.0
                            else:
                                if f['op_addmm'] <= 0.5:
                                    if f['copy_a_per_io'] <= 0.7872298061847687:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.028837932273745537:
                                if f['mn'] <= 246965.0:
                                    return 0.0
                                else:
                                    return -0.3928150984259296
                            else:
                                if f['copy_per_flop'] <= 0.03249422088265419:
                                    return -0.39785153935360923
                                else:
                                    if f['io_bytes'] <= 109351836.0:
                                        return -0.4029642004909712
                                    else:
                                        return -0.4054421846220162
    else:
        if f['copy_per_flop'] <= 0.004030309617519379:
            if f['flops'] <= 10164986880.0:
                if f['copy_per_flop'] <= 0.0003242039820179343:
                    if f['op_addmm'] <= 0.5:
                        if f['pad_frac_n'] <= 0.00046730470785405487:
                            return 0.0
                        else:
                            if f['copy_per_io'] <= 0.006138890516012907:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        return 0.0
                else:
                    if f['align_n'] <= 1.5:
                        if f['itemsize'] <= 3.0:
                            if f['copy_b_per_io'] <= 0.026316632516682148:
                                return 0.0
                            else:
                                if f['flops'] <= 7614924544.0:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            if f['flops'] <= 6925954048.0:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            if f['copy_a_per_io'] <= 0.024117118678987026:
                                return 0.0
                            else:
                                if f['io_bytes'] <= 31138476.0:
                                    return 0.0
                                else:
                                    return 0.0
            else:
                if f['copy_per_flop'] <= 0.0021060591097921133:
                    if f['unaligned_dims'] <= 1.5:
                        if f['copy_a_per_io'] <= 0.016192425042390823:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['flops'] <= 18425571328.0:
                            if f['op_addmm'] <= 0.5:
                                if f['align_n'] <= 1.5:
                                    if f['flops'] <= 12675758080.0:
                                        return 0.0
                                    else:
                                        if f['copy_b_bytes'] <= 3290304.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['copy_per_io'] <= 0.17695826292037964:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['flops'] <= 14349714432.0:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.001299680967349559:
                                if f['flops'] <= 25967110144.0:
                                    if f['align_n'] <= 1.5:
                                        return 0.39900745771297463
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0009776409715414047:
                                        if f['arith_intensity'] <= 229.27902221679688:
                                            return 0.39841992194652254
                                        else:
                                            if f['copy_per_flop'] <= 0.0007915020687505603:
                                                if f['op_addmm'] <= 0.5:
                                                    return 0.40526928608573415
                                                else:
                                                    return 0.403732471567902
                                            else:
                                                return 0.0
                                    else:
                                        if f['align_n'] <= 1.5:
                                            return 0.4038109244793196
                                        else:
                                            return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    return 0.0
                                else:
                                    return 0.0
                else:
                    if f['align_n'] <= 1.5:
                        if f['copy_per_flop'] <= 0.002803924377076328:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            return 0.0
                        else:
                            return 0.0
        else:
            if f['copy_per_flop'] <= 0.007997948676347733:
                if f['align_n'] <= 1.5:
                    if f['op_bmm'] <= 0.5:
                        if f['copy_per_flop'] <= 0.004772400949150324:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        return 0.0
                else:
                    if f['align_k'] <= 1.5:
                        if f['mat1_stride0'] <= 2632.0:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['arith_intensity'] <= 214.19768524169922:
                            return 0.0
                        else:
                            return 0.0
            else:
                if f['copy_per_flop'] <= 0.015055002178996801:
                    if f['mn'] <= 376071.0:
                        return 0.0
                    else:
                        if f['copy_per_flop'] <= 0.008953961543738842:
                            return 0.0
                        else:
                            return 0.0
                else:
                    if f['pm'] <= 2956.0:
                        if f['pn'] <= 4746.0:
                            return 0.0
                        else:
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
