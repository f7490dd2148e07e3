"""pad_mm heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 26559 problems.

Regression tree max_depth=12, min_samples_leaf=50 (143 leaves, 62 of them agree and may answer); thresholds pad 1.4921, orig 1.4814.
Held-out test split (2% tolerance): 2822 correct, 1 wrong, 2489 unsure of 5312; largest loss of any answer 1.296945.
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
FEATURES = ('m', 'k', 'n', 'batch', 'op_bmm', 'op_addmm', 'dtype_bf16', 'dtype_fp32', 'mat2_prepadded', 'mat1_stride0', 'mat2_stride0', 'mat2_stride1', 'mk', 'mn', 'arith_intensity', 'pad_frac_n', 'align_k', 'align_n', 'align', 'pk', 'unaligned_lds', 'unaligned_dims', 'flops', 'io_bytes', 'copy_a_bytes', 'copy_b_bytes', 'copy_per_io', 'copy_a_per_io', 'copy_b_per_io', 'copy_per_flop', 'padded_flops_ratio')
# Answer 'pad' when the predicted speedup is at least exp(LOG_THRESHOLD_PAD), 'orig' likewise.
LOG_THRESHOLD_PAD = 0.4001652231206774
LOG_THRESHOLD_ORIG = 0.39301982814207453
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'per_choice_thresholds': True, 'derived_features': True, 'min_dim': 0, 'max_depth': 12, 'min_samples_leaf': 50}


def score(f):
    """Predicted log(time of 'orig' / time of 'pad'): above 0 favours 'pad'; exactly 0 in
    leaves whose training problems did not all agree."""
    if f['flops'] <= 8708790784.0:
        if f['flops'] <= 2666882688.0:
            if f['copy_per_io'] <= 0.0030387252336367965:
                if f['flops'] <= 356431488.0:
                    if f['op_addmm'] <= 0.5:
                        if f['k'] <= 254.5:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        return -0.39019253021188
                else:
                    if f['io_bytes'] <= 19670962.0:
                        return 0.0
                    else:
                        if f['n'] <= 3660.0:
                            return 0.0
                        else:
                            return 0.0
            else:
                if f['op_bmm'] <= 0.5:
                    if f['flops'] <= 1035267392.0:
                        if f['copy_per_io'] <= 0.015311729162931442:
                            if f['io_bytes'] <= 43404338.0:
                                if f['io_bytes'] <= 14901424.0:
                                    if f['io_bytes'] <= 8335900.0:
                                        return -0.40546510810816516
                                    else:
                                        return -0.4023231138252975
                                else:
                                    if f['k'] <= 28.5:
                                        return -0.4000461284063534
                                    else:
                                        return 0.0
                            else:
                                return 0.0
                        else:
                            if f['io_bytes'] <= 13040551.0:
                                if f['flops'] <= 879556320.0:
                                    if f['mat1_stride0'] <= 7913.0:
                                        if f['copy_per_flop'] <= 0.000499435787787661:
                                            return -0.39936850309065813
                                        else:
                                            if f['flops'] <= 723203168.0:
                                                if f['copy_per_flop'] <= 0.12787161022424698:
                                                    return -0.40528677224119936
                                                else:
                                                    return -0.4024571941836696
                                            else:
                                                if f['k'] <= 918.0:
                                                    return -0.405465108108164
                                                else:
                                                    return -0.3959233727617042
                                    else:
                                        return 0.0
                                else:
                                    return -0.39549567869205104
                            else:
                                if f['mat2_prepadded'] <= 0.5:
                                    if f['op_addmm'] <= 0.5:
                                        if f['arith_intensity'] <= 68.69397735595703:
                                            if f['padded_flops_ratio'] <= 1.2143570184707642:
                                                if f['copy_a_per_io'] <= 0.0009648391278460622:
                                                    return -0.402761362484068
                                                else:
                                                    return -0.4052628969404701
                                            else:
                                                return -0.39853441837544623
                                        else:
                                            return -0.3972416843761962
                                    else:
                                        if f['pk'] <= 4524.0:
                                            if f['k'] <= 1443.0:
                                                if f['mat2_stride0'] <= 927.5:
                                                    return -0.4038618550460942
                                                else:
                                                    return -0.405465108108164
                                            else:
                                                if f['m'] <= 2047.5:
                                                    return -0.38873410570175443
                                                else:
                                                    return -0.40457322210117536
                                        else:
                                            return -0.38026835929750946
                                else:
                                    return -0.36967793484696554
                    else:
                        if f['copy_per_io'] <= 0.011542551219463348:
                            if f['io_bytes'] <= 83172160.0:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            if f['copy_a_bytes'] <= 146880.0:
                                if f['mk'] <= 607144.5:
                                    if f['arith_intensity'] <= 89.61190414428711:
                                        return -0.3667448021847228
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['mat2_prepadded'] <= 0.5:
                                    if f['flops'] <= 1819724032.0:
                                        if f['mat2_stride1'] <= 1246.5:
                                            if f['pk'] <= 70.0:
                                                return 0.0
                                            else:
                                                if f['copy_per_io'] <= 0.12765450403094292:
                                                    return -0.3918338057160565
                                                else:
                                                    return -0.4009322551278382
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_per_flop'] <= 0.01550385169684887:
                                            if f['dtype_fp32'] <= 0.5:
                                                if f['copy_b_bytes'] <= 7096960.0:
                                                    return -0.3826987613021344
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.03049919754266739:
                                                return -0.39328525143707116
                                            else:
                                                return -0.4052675661245679
                                else:
                                    if f['copy_a_per_io'] <= 0.7887571156024933:
                                        return 0.0
                                    else:
                                        return 0.0
                else:
                    if f['pk'] <= 2872.0:
                        if f['flops'] <= 968577184.0:
                            if f['k'] <= 1780.0:
                                if f['mat1_stride0'] <= 830.5:
                                    if f['flops'] <= 282871440.0:
                                        if f['mk'] <= 1266.5:
                                            return -0.40546510810816405
                                        else:
                                            if f['flops'] <= 3719136.0:
                                                return -0.40546510810816405
                                            else:
                                                if f['io_bytes'] <= 837619.0:
                                                    return -0.405465108108164
                                                else:
                                                    return -0.4054651081081626
                                    else:
                                        if f['copy_a_per_io'] <= 0.003921342082321644:
                                            return 0.0
                                        else:
                                            if f['copy_b_per_io'] <= 0.005516065051779151:
                                                return -0.37810288699308603
                                            else:
                                                if f['align'] <= 6.0:
                                                    return -0.39851907487580285
                                                else:
                                                    return -0.4054651081081648
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            if f['copy_per_io'] <= 0.02378071565181017:
                                return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.01581420563161373:
                                    if f['copy_a_bytes'] <= 2000512.0:
                                        return -0.3648231289632116
                                    else:
                                        return 0.0
                                else:
                                    return -0.3926202717695775
                    else:
                        if f['dtype_bf16'] <= 0.5:
                            if f['io_bytes'] <= 49260354.0:
                                if f['k'] <= 5232.5:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            if f['pk'] <= 5300.0:
                                return 0.0
                            else:
                                return 0.0
        else:
            if f['copy_per_io'] <= 0.05133456736803055:
                if f['copy_per_io'] <= 0.011295904871076345:
                    if f['pad_frac_n'] <= 0.0007148112636059523:
                        if f['align_n'] <= 3.0:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        return 0.0
                else:
                    if f['flops'] <= 6872182272.0:
                        if f['io_bytes'] <= 72769204.0:
                            if f['mat1_stride0'] <= 66.5:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
                    else:
                        return 0.0
            else:
                if f['copy_per_flop'] <= 0.007959895767271519:
                    if f['flops'] <= 5255168000.0:
                        if f['copy_a_per_io'] <= 0.013949062675237656:
                            return 0.0
                        else:
                            if f['mn'] <= 356244.0:
                                return 0.0
                            else:
                                if f['copy_b_per_io'] <= 0.018255509436130524:
                                    return 0.0
                                else:
                                    if f['flops'] <= 3741651584.0:
                                        if f['io_bytes'] <= 23640075.0:
                                            if f['copy_a_per_io'] <= 0.32724204659461975:
                                                if f['flops'] <= 3183863296.0:
                                                    return -0.37715959418594736
                                                else:
                                                    return -0.396435469885093
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_per_flop'] <= 0.0020279388409107924:
                                            if f['mat2_stride0'] <= 2044.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['mat2_stride0'] <= 375.0:
                                                return 0.0
                                            else:
                                                return 0.0
                    else:
                        if f['copy_a_per_io'] <= 0.014074095990508795:
                            if f['padded_flops_ratio'] <= 1.0067434310913086:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            if f['mat2_prepadded'] <= 0.5:
                                if f['op_addmm'] <= 0.5:
                                    if f['flops'] <= 6184652544.0:
                                        return 0.0
                                    else:
                                        if f['mat1_stride0'] <= 131.5:
                                            return 0.0
                                        else:
                                            if f['align_n'] <= 1.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['io_bytes'] <= 31036724.0:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                return 0.0
                else:
                    if f['mn'] <= 140961.0:
                        if f['copy_per_flop'] <= 0.01878216303884983:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['copy_per_flop'] <= 0.016161805018782616:
                            if f['batch'] <= 1.5:
                                if f['mn'] <= 455877.0:
                                    if f['mat2_stride0'] <= 255.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['arith_intensity'] <= 150.06724548339844:
                                        if f['unaligned_dims'] <= 2.5:
                                            return -0.4017689832439407
                                        else:
                                            return -0.38539764089082873
                                    else:
                                        return -0.358043123935214
                            else:
                                return 0.0
                        else:
                            if f['padded_flops_ratio'] <= 1.0504828095436096:
                                if f['copy_per_flop'] <= 0.01861559133976698:
                                    return -0.39301982814207453
                                else:
                                    if f['mat2_stride0'] <= 61.5:
                                        return -0.4043749491156897
                                    else:
                                        return -0.40546510810816394
                            else:
                                return -0.3886722064186432
    else:
        if f['copy_per_flop'] <= 0.003998060477897525:
            if f['unaligned_lds'] <= 0.5:
                return 0.0
            else:
                if f['flops'] <= 16475253760.0:
                    if f['op_addmm'] <= 0.5:
                        if f['copy_per_flop'] <= 0.0006550627877004445:
                            if f['copy_per_flop'] <= 0.00015345195424742997:
                                return 0.3939322785183032
                            else:
                                if f['copy_a_per_io'] <= 0.0146956373937428:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['flops'] <= 11261377024.0:
                                if f['padded_flops_ratio'] <= 1.0086162090301514:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    if f['mat2_stride0'] <= 885.0:
                                        return 0.34221343992598163
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                    else:
                        if f['copy_b_per_io'] <= 0.02555038221180439:
                            return 0.0
                        else:
                            if f['align_n'] <= 1.5:
                                return 0.0
                            else:
                                return 0.0
                else:
                    if f['copy_per_flop'] <= 0.002086226479150355:
                        if f['flops'] <= 22534216704.0:
                            if f['align_n'] <= 1.5:
                                if f['padded_flops_ratio'] <= 1.0058306455612183:
                                    return 0.0
                                else:
                                    return 0.3936314316885265
                            else:
                                if f['align_k'] <= 1.5:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.0011928539024665952:
                                if f['flops'] <= 24124312576.0:
                                    return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0007890249835327268:
                                        if f['flops'] <= 30031625216.0:
                                            if f['mn'] <= 16663780.5:
                                                return 0.40543199946964115
                                            else:
                                                return 0.390358811407052
                                        else:
                                            if f['copy_per_flop'] <= 0.000128866609884426:
                                                return 0.40088599613873444
                                            else:
                                                if f['copy_per_flop'] <= 0.000680020748404786:
                                                    return 0.40546510810816233
                                                else:
                                                    return 0.4054000054179246
                                    else:
                                        if f['align_n'] <= 1.5:
                                            if f['flops'] <= 36674926592.0:
                                                return 0.3961128853576049
                                            else:
                                                return 0.40546510810816433
                                        else:
                                            if f['align_k'] <= 1.5:
                                                return 0.40231936905295373
                                            else:
                                                return 0.37812877688163526
                            else:
                                if f['align_k'] <= 1.5:
                                    if f['pk'] <= 4172.0:
                                        return 0.3899672419389217
                                    else:
                                        return 0.4052229418594406
                                else:
                                    if f['align_n'] <= 1.5:
                                        return 0.4001652231206774
                                    else:
                                        return 0.0
                    else:
                        if f['align_n'] <= 1.5:
                            if f['copy_per_flop'] <= 0.0027012403588742018:
                                return 0.35745715179778215
                            else:
                                return 0.26196015321880534
                        else:
                            if f['align_k'] <= 1.5:
                                return 0.0
                            else:
                                return 0.0
        else:
            if f['copy_per_flop'] <= 0.007937784306704998:
                if f['align_n'] <= 1.5:
                    if f['copy_per_flop'] <= 0.005457923049107194:
                        return 0.0
                    else:
                        return 0.0
                else:
                    if f['align_k'] <= 1.5:
                        return 0.0
                    else:
                        return 0.0
            else:
                if f['copy_per_flop'] <= 0.010469882283359766:
                    return 0.0
                else:
                    if f['mk'] <= 1437420.0:
                        return 0.0
                    else:
                        return -0.40072909531693124


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
