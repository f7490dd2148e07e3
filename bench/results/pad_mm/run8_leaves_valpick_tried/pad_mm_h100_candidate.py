"""pad_mm heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 89028 problems.

Regression tree max_depth=16, min_samples_leaf=200 (175 leaves, 52 of them agree and may answer); thresholds pad 1.0000, orig 1.0000.
Per-leaf validation: leaves that answered wrong on the validation split (or saw fewer than 0 of its problems) are silenced.
Held-out test split (2% tolerance): 6726 correct, 3 wrong, 11076 unsure of 17805; largest loss of any answer 1.106541.
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
FEATURES = ('m', 'k', 'n', 'batch', 'op_bmm', 'op_addmm', 'dtype_bf16', 'dtype_fp32', 'tf32', 'mat2_prepadded', 'mat1_stride0', 'mat2_stride0', 'mk', 'kn', 'mn', 'arith_intensity', 'pad_frac_m', 'pad_frac_k', 'align_m', 'align_k', 'align_n', 'align', 'pm', 'pk', 'ldc_aligned', 'unaligned_lds', 'unaligned_dims', 'copy_a', 'flops', 'io_bytes', 'copy_a_bytes', 'copy_b_bytes', 'copy_per_io', 'copy_a_per_io', 'copy_b_per_io', 'copy_per_flop', 'padded_flops_ratio')
# Answer 'pad' when the predicted speedup is at least exp(LOG_THRESHOLD_PAD), 'orig' likewise.
LOG_THRESHOLD_PAD = 0.0
LOG_THRESHOLD_ORIG = 0.0
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'leaves', 'leaf_min_val': 0, 'derived_features': True, 'min_dim': 0, 'max_depth': 16, 'min_samples_leaf': 200}


def score(f):
    """Predicted log(time of 'orig' / time of 'pad'): above 0 favours 'pad'; exactly 0 in
    leaves whose training problems did not all agree."""
    if f['flops'] <= 4394664192.0:
        if f['copy_per_flop'] <= 0.00012279235670575872:
            if f['op_addmm'] <= 0.5:
                if f['flops'] <= 354461280.0:
                    if f['m'] <= 511.5:
                        return 0.0
                    else:
                        return 0.0
                else:
                    if f['flops'] <= 1148159232.0:
                        if f['arith_intensity'] <= 34.90153694152832:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['align'] <= 6.0:
                            return 0.0
                        else:
                            if f['io_bytes'] <= 16705887.0:
                                return 0.0
                            else:
                                return 0.0
            else:
                if f['flops'] <= 1010661312.0:
                    if f['io_bytes'] <= 7813872.0:
                        return 0.0
                    else:
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
                                    if f['io_bytes'] <= 14515608.0:
                                        if f['k'] <= 256.5:
                                            if f['flops'] <= 236718912.0:
                                                if f['copy_b_per_io'] <= 0.006328176008537412:
                                                    if f['io_bytes'] <= 1703098.0:
                                                        return -0.40546510810816444
                                                    else:
                                                        return -0.4054651081081633
                                                else:
                                                    return -0.40449509039908493
                                            else:
                                                return -0.40108530115290253
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['op_addmm'] <= 0.5:
                                        if f['copy_per_flop'] <= 0.0005351314903236926:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['io_bytes'] <= 14727047.0:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            return 0.0
                    else:
                        if f['flops'] <= 534620176.0:
                            if f['io_bytes'] <= 9385044.0:
                                if f['copy_a_per_io'] <= 0.0006002701120451093:
                                    if f['flops'] <= 271716352.0:
                                        if f['copy_per_flop'] <= 0.06264306977391243:
                                            if f['flops'] <= 134746648.0:
                                                if f['k'] <= 1863.0:
                                                    if f['mat2_stride0'] <= 1143.5:
                                                        if f['kn'] <= 14549.5:
                                                            return -0.4054651081081638
                                                        else:
                                                            if f['m'] <= 131.5:
                                                                return -0.40546510810816433
                                                            else:
                                                                return -0.4054651081081632
                                                    else:
                                                        return -0.404705839132022
                                                else:
                                                    return -0.40231746123653594
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_b_bytes'] <= 384.0:
                                        if f['flops'] <= 253721280.0:
                                            if f['mat1_stride0'] <= 425.5:
                                                if f['padded_flops_ratio'] <= 1.0285011529922485:
                                                    return -0.40493445909514514
                                                else:
                                                    if f['op_addmm'] <= 0.5:
                                                        if f['pm'] <= 408.0:
                                                            return -0.40546510810816444
                                                        else:
                                                            return -0.40546510810816355
                                                    else:
                                                        return -0.4054651081081628
                                            else:
                                                if f['io_bytes'] <= 2779849.0:
                                                    return -0.40309538855121047
                                                else:
                                                    return -0.39406689574323006
                                        else:
                                            return 0.0
                                    else:
                                        if f['mat1_stride0'] <= 6452.0:
                                            if f['mn'] <= 655.5:
                                                return 0.0
                                            else:
                                                if f['mat1_stride0'] <= 4046.0:
                                                    if f['copy_per_io'] <= 1.05453222990036:
                                                        if f['kn'] <= 2487195.0:
                                                            if f['k'] <= 3958.5:
                                                                if f['arith_intensity'] <= 111.14313888549805:
                                                                    return -0.40546510810823666
                                                                else:
                                                                    return -0.4054105542288297
                                                            else:
                                                                return -0.40535384554964443
                                                        else:
                                                            return -0.40514119509140767
                                                    else:
                                                        return -0.40510196783320696
                                                else:
                                                    if f['arith_intensity'] <= 27.55338954925537:
                                                        return -0.4054651081081642
                                                    else:
                                                        return -0.40379920677255804
                                        else:
                                            return 0.0
                            else:
                                if f['copy_a'] <= 0.5:
                                    return 0.0
                                else:
                                    if f['copy_b_per_io'] <= 0.000955943192820996:
                                        return 0.0
                                    else:
                                        if f['dtype_bf16'] <= 0.5:
                                            if f['op_addmm'] <= 0.5:
                                                if f['flops'] <= 406046432.0:
                                                    if f['n'] <= 1734.0:
                                                        return -0.40546510810816294
                                                    else:
                                                        return -0.4052061665881395
                                                else:
                                                    return -0.40308341399159686
                                            else:
                                                if f['pad_frac_k'] <= 0.0008577001572120935:
                                                    return -0.3996886708636571
                                                else:
                                                    return -0.40510678580668047
                                        else:
                                            return 0.0
                        else:
                            if f['copy_b_per_io'] <= 0.0009675867622718215:
                                if f['copy_per_flop'] <= 0.015408796723932028:
                                    if f['flops'] <= 792101696.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['copy_a_per_io'] <= 0.0019363485625945032:
                                    if f['mk'] <= 201738.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['mn'] <= 4841637.0:
                                        if f['op_addmm'] <= 0.5:
                                            if f['flops'] <= 1218848128.0:
                                                if f['flops'] <= 832960256.0:
                                                    if f['copy_b_bytes'] <= 8155136.0:
                                                        if f['pad_frac_m'] <= 0.0014460101374424994:
                                                            return -0.4036562988042501
                                                        else:
                                                            return -0.40543757532857094
                                                    else:
                                                        return -0.40093230275516717
                                                else:
                                                    if f['io_bytes'] <= 25919626.0:
                                                        if f['io_bytes'] <= 10790265.0:
                                                            return -0.4009894619922677
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return -0.40451362313542205
                                            else:
                                                return 0.0
                                        else:
                                            if f['k'] <= 4910.5:
                                                if f['k'] <= 1408.0:
                                                    if f['copy_b_bytes'] <= 1007904.0:
                                                        return -0.40546510810816344
                                                    else:
                                                        return -0.4027256671654014
                                                else:
                                                    if f['flops'] <= 872579680.0:
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
                                return 0.0
                            else:
                                if f['flops'] <= 784324352.0:
                                    if f['k'] <= 604.5:
                                        if f['mn'] <= 903134.0:
                                            if f['k'] <= 406.0:
                                                if f['copy_a_per_io'] <= 0.0037439330480992794:
                                                    return 0.0
                                                else:
                                                    if f['flops'] <= 295074592.0:
                                                        if f['copy_b_per_io'] <= 0.0025507359532639384:
                                                            return -0.4053120020347272
                                                        else:
                                                            if f['flops'] <= 8335752.0:
                                                                return -0.4054651081081642
                                                            else:
                                                                if f['unaligned_lds'] <= 2.5:
                                                                    return -0.4054651081081643
                                                                else:
                                                                    return -0.40546510810816216
                                                    else:
                                                        return -0.4039007819401836
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['copy_per_io'] <= 0.9195603132247925:
                                return 0.0
                            else:
                                if f['k'] <= 1923.5:
                                    return 0.0
                                else:
                                    return 0.0
                    else:
                        if f['dtype_bf16'] <= 0.5:
                            if f['io_bytes'] <= 16983762.0:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
            else:
                if f['copy_per_io'] <= 0.07410835474729538:
                    if f['batch'] <= 1.5:
                        if f['pk'] <= 2054.0:
                            if f['io_bytes'] <= 59457240.0:
                                if f['flops'] <= 2052671232.0:
                                    return 0.0
                                else:
                                    if f['k'] <= 126.5:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['copy_b_per_io'] <= 0.006366448476910591:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            return 0.0
                    else:
                        if f['pad_frac_k'] <= 0.003767531830817461:
                            return 0.0
                        else:
                            return 0.0
                else:
                    if f['copy_per_flop'] <= 0.015594263561069965:
                        if f['op_bmm'] <= 0.5:
                            if f['flops'] <= 2816675072.0:
                                if f['mat2_prepadded'] <= 0.5:
                                    if f['copy_a'] <= 0.5:
                                        return 0.0
                                    else:
                                        if f['mat1_stride0'] <= 581.5:
                                            if f['dtype_fp32'] <= 0.5:
                                                if f['flops'] <= 1994165568.0:
                                                    return -0.39446665706399203
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                if f['copy_per_io'] <= 0.9129792749881744:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.007807988207787275:
                                    if f['copy_a_per_io'] <= 0.017276279628276825:
                                        return 0.0
                                    else:
                                        if f['copy_b_per_io'] <= 0.007217167876660824:
                                            return 0.0
                                        else:
                                            if f['align_k'] <= 1.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['k'] <= 1246.5:
                                if f['arith_intensity'] <= 109.90848541259766:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                    else:
                        if f['mn'] <= 85682.0:
                            return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.020281517878174782:
                                if f['mn'] <= 337837.5:
                                    return 0.0
                                else:
                                    return -0.38641684325212816
                            else:
                                if f['align'] <= 6.0:
                                    if f['pm'] <= 1966.0:
                                        return -0.4038467811928733
                                    else:
                                        return -0.4054513256885608
                                else:
                                    if f['copy_per_flop'] <= 0.031267598271369934:
                                        return 0.0
                                    else:
                                        return 0.0
    else:
        if f['copy_per_flop'] <= 0.00403056270442903:
            if f['flops'] <= 10157907456.0:
                if f['copy_per_flop'] <= 0.00022313487716019154:
                    if f['op_addmm'] <= 0.5:
                        if f['unaligned_dims'] <= 2.5:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        return 0.0
                else:
                    if f['align_n'] <= 1.5:
                        if f['dtype_fp32'] <= 0.5:
                            if f['copy_b_per_io'] <= 0.01494213193655014:
                                return 0.0
                            else:
                                if f['copy_a_per_io'] <= 0.016156923957169056:
                                    return 0.0
                                else:
                                    if f['flops'] <= 7613604608.0:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['tf32'] <= 0.5:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            if f['op_addmm'] <= 0.5:
                                if f['flops'] <= 6415260160.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            if f['copy_a_per_io'] <= 0.01431566895917058:
                                return 0.0
                            else:
                                if f['flops'] <= 6168541184.0:
                                    return 0.0
                                else:
                                    return 0.0
            else:
                if f['copy_per_flop'] <= 0.0021224942756816745:
                    if f['unaligned_dims'] <= 1.5:
                        if f['ldc_aligned'] <= 0.5:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['flops'] <= 18425571328.0:
                            if f['op_addmm'] <= 0.5:
                                if f['align_n'] <= 1.5:
                                    if f['flops'] <= 12654191104.0:
                                        return 0.0
                                    else:
                                        if f['copy_b_bytes'] <= 3290304.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['copy_per_io'] <= 0.1888270005583763:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['flops'] <= 14067023872.0:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.001298651157412678:
                                if f['flops'] <= 25404297216.0:
                                    if f['align_n'] <= 1.5:
                                        return 0.39746734053115745
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.000977549992967397:
                                        if f['flops'] <= 29388713984.0:
                                            return 0.0
                                        else:
                                            if f['pad_frac_k'] <= 0.007676186040043831:
                                                if f['align_n'] <= 1.5:
                                                    if f['copy_a_bytes'] <= 16783808.0:
                                                        if f['align_m'] <= 1.5:
                                                            return 0.4054651081081638
                                                        else:
                                                            return 0.4054651081081629
                                                    else:
                                                        return 0.40518712926487604
                                                else:
                                                    if f['copy_b_per_io'] <= 0.20144128799438477:
                                                        if f['align_m'] <= 1.5:
                                                            return 0.4054651081081636
                                                        else:
                                                            return 0.4043215878213031
                                                    else:
                                                        return 0.40213737275802103
                                            else:
                                                return 0.4014642498131722
                                    else:
                                        if f['align_n'] <= 1.5:
                                            return 0.40375485045800297
                                        else:
                                            return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    return 0.0
                                else:
                                    return 0.0
                else:
                    if f['align_n'] <= 1.5:
                        if f['copy_per_flop'] <= 0.0028006979264318943:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            return 0.0
                        else:
                            return 0.0
        else:
            if f['copy_per_flop'] <= 0.007813684642314911:
                if f['op_bmm'] <= 0.5:
                    if f['align_n'] <= 1.5:
                        if f['copy_per_flop'] <= 0.004407879896461964:
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
                if f['copy_per_flop'] <= 0.015052227303385735:
                    if f['mn'] <= 336682.5:
                        return 0.0
                    else:
                        if f['copy_per_flop'] <= 0.00807102071121335:
                            return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.00885467603802681:
                                return 0.0
                            else:
                                return 0.0
                else:
                    if f['pad_frac_m'] <= 0.0014711148687638342:
                        if f['copy_per_flop'] <= 0.017604653723537922:
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
