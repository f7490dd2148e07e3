"""pad_mm heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 51403 problems.

Regression tree max_depth=12, min_samples_leaf=100 (173 leaves, 40 of them agree and may answer); thresholds pad 1.0000, orig 1.4895.
Held-out test split (2% tolerance): 3995 correct, 2 wrong, 6283 unsure of 10280; largest loss of any answer 1.188859.
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
FEATURES = ('m', 'k', 'n', 'batch', 'op_bmm', 'op_addmm', 'dtype_fp16', 'dtype_bf16', 'itemsize', 'tf32', 'mat1_prepadded', 'mat2_prepadded', 'mat1_stride0', 'mat2_stride0', 'mk', 'mn', 'arith_intensity', 'pad_frac_m', 'pad_frac_k', 'pad_frac_n', 'align_k', 'align_n', 'align', 'pk', 'unaligned_lds', 'unaligned_dims', 'copy_a', 'flops', 'io_bytes', 'copy_b_bytes', 'copy_per_io', 'copy_a_per_io', 'copy_b_per_io', 'copy_per_flop', 'padded_flops_ratio')
# Answer 'pad' when the predicted speedup is at least exp(LOG_THRESHOLD_PAD), 'orig' likewise.
LOG_THRESHOLD_PAD = 0.0
LOG_THRESHOLD_ORIG = 0.39841776013822533
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'per_choice_thresholds': True, 'derived_features': True, 'min_dim': 0, 'max_depth': 12, 'min_samples_leaf': 100}


def score(f):
    """Predicted log(time of 'orig' / time of 'pad'): above 0 favours 'pad'; exactly 0 in
    leaves whose training problems did not all agree."""
    if f['flops'] <= 6221484032.0:
        if f['copy_per_flop'] <= 0.0001228255932801403:
            if f['flops'] <= 769693600.0:
                if f['op_addmm'] <= 0.5:
                    if f['flops'] <= 292720336.0:
                        if f['k'] <= 1023.5:
                            if f['m'] <= 772.0:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
                    else:
                        if f['mn'] <= 234673.5:
                            return 0.0
                        else:
                            return 0.0
                else:
                    if f['io_bytes'] <= 9113617.0:
                        if f['mk'] <= 523776.0:
                            return 0.0
                        else:
                            return 0.0
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
                        if f['flops'] <= 1867628544.0:
                            if f['batch'] <= 1.5:
                                if f['flops'] <= 1175121856.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            if f['io_bytes'] <= 17397612.0:
                                return 0.0
                            else:
                                if f['unaligned_lds'] <= 2.5:
                                    return 0.0
                                else:
                                    if f['align_n'] <= 1.5:
                                        return 0.0
                                    else:
                                        return 0.0
                else:
                    if f['io_bytes'] <= 19679918.0:
                        return 0.0
                    else:
                        return 0.0
        else:
            if f['flops'] <= 1688699520.0:
                if f['op_bmm'] <= 0.5:
                    if f['copy_per_io'] <= 0.006596877705305815:
                        if f['flops'] <= 670788736.0:
                            if f['io_bytes'] <= 17419363.0:
                                if f['flops'] <= 105953340.0:
                                    return -0.4054651081081653
                                else:
                                    return -0.3974569963488277
                            else:
                                return 0.0
                        else:
                            return 0.0
                    else:
                        if f['flops'] <= 812349728.0:
                            if f['flops'] <= 450950656.0:
                                if f['io_bytes'] <= 8515768.0:
                                    if f['m'] <= 16.5:
                                        if f['pad_frac_k'] <= 0.0025777476839721203:
                                            return 0.0
                                        else:
                                            return -0.4049064307620767
                                    else:
                                        if f['flops'] <= 276349984.0:
                                            if f['copy_b_bytes'] <= 2966464.0:
                                                if f['copy_per_flop'] <= 0.0013068493572063744:
                                                    return -0.40446033030344153
                                                else:
                                                    return -0.4054106304930179
                                            else:
                                                if f['arith_intensity'] <= 36.583580017089844:
                                                    return -0.4054651081081642
                                                else:
                                                    return -0.39958479975993294
                                        else:
                                            if f['mat2_prepadded'] <= 0.5:
                                                if f['mat1_prepadded'] <= 0.5:
                                                    return -0.4054325896202487
                                                else:
                                                    return -0.39991713944135154
                                            else:
                                                return -0.3970846995218975
                                else:
                                    if f['mat1_prepadded'] <= 0.5:
                                        if f['mat2_prepadded'] <= 0.5:
                                            if f['pk'] <= 6088.0:
                                                if f['pad_frac_k'] <= 0.0003721229440998286:
                                                    return -0.4044095691871299
                                                else:
                                                    return -0.4054583784371182
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['n'] <= 743.0:
                                            return 0.0
                                        else:
                                            return -0.3988725141650509
                            else:
                                if f['copy_per_io'] <= 0.0222384100779891:
                                    return 0.0
                                else:
                                    if f['copy_a_per_io'] <= 0.0009701413800939918:
                                        if f['pk'] <= 1040.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_b_bytes'] <= 30912.0:
                                            if f['mat1_stride0'] <= 1030.0:
                                                if f['mn'] <= 485598.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['pk'] <= 2814.0:
                                                if f['mat1_stride0'] <= 1843.5:
                                                    return -0.40545725680296796
                                                else:
                                                    return -0.4035855278621074
                                            else:
                                                if f['op_addmm'] <= 0.5:
                                                    return -0.4052381212735538
                                                else:
                                                    return 0.0
                        else:
                            if f['copy_per_io'] <= 0.6577022075653076:
                                if f['pk'] <= 3608.0:
                                    if f['copy_b_per_io'] <= 0.007281094091013074:
                                        if f['pad_frac_m'] <= 0.0005340972566045821:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_a_per_io'] <= 0.0036532687954604626:
                                            if f['op_addmm'] <= 0.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['itemsize'] <= 3.0:
                                                if f['flops'] <= 1248552640.0:
                                                    return -0.4054651081081651
                                                else:
                                                    return -0.39984476367534016
                                            else:
                                                return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['copy_a'] <= 0.5:
                                    return 0.0
                                else:
                                    if f['copy_b_per_io'] <= 0.0009718819637782872:
                                        if f['m'] <= 3269.5:
                                            return 0.0
                                        else:
                                            return -0.39328698986574445
                                    else:
                                        if f['op_addmm'] <= 0.5:
                                            if f['mn'] <= 402821.5:
                                                if f['n'] <= 66.5:
                                                    return -0.39841776013822533
                                                else:
                                                    return -0.4044761191108898
                                            else:
                                                return 0.0
                                        else:
                                            if f['k'] <= 2711.0:
                                                return -0.40023059707444186
                                            else:
                                                return 0.0
                else:
                    if f['pk'] <= 2988.0:
                        if f['k'] <= 1021.5:
                            if f['copy_per_io'] <= 0.030414726585149765:
                                if f['flops'] <= 681892960.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['flops'] <= 935477248.0:
                                    if f['k'] <= 716.5:
                                        if f['flops'] <= 383351696.0:
                                            if f['k'] <= 412.5:
                                                if f['flops'] <= 235910848.0:
                                                    return -0.4054651081081619
                                                else:
                                                    return -0.4038737122079143
                                            else:
                                                return 0.0
                                        else:
                                            if f['align_k'] <= 1.5:
                                                return 0.0
                                            else:
                                                return -0.39823512183830306
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_per_io'] <= 0.5170800983905792:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['copy_per_io'] <= 0.7824672162532806:
                                return 0.0
                            else:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['io_bytes'] <= 23135624.0:
                                        return 0.0
                                    else:
                                        return -0.39589571949677804
                                else:
                                    return 0.0
                    else:
                        if f['dtype_bf16'] <= 0.5:
                            if f['copy_per_io'] <= 0.9775791764259338:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
            else:
                if f['copy_per_io'] <= 0.0683165118098259:
                    if f['batch'] <= 1.5:
                        if f['io_bytes'] <= 79283528.0:
                            if f['mk'] <= 8840358.0:
                                if f['flops'] <= 2724204160.0:
                                    if f['copy_b_per_io'] <= 0.007493196753785014:
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
                            if f['copy_per_flop'] <= 0.0003034095134353265:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        if f['k'] <= 1476.0:
                            if f['io_bytes'] <= 101205744.0:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
                else:
                    if f['copy_per_flop'] <= 0.007948300801217556:
                        if f['mn'] <= 411023.0:
                            if f['op_bmm'] <= 0.5:
                                if f['copy_per_io'] <= 0.8732759654521942:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            if f['flops'] <= 4322267648.0:
                                if f['copy_a_per_io'] <= 0.0024038590490818024:
                                    if f['copy_b_bytes'] <= 3655968.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_b_per_io'] <= 0.008816072717308998:
                                        if f['flops'] <= 2986616704.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['flops'] <= 3646034048.0:
                                            if f['flops'] <= 2377359616.0:
                                                if f['dtype_fp16'] <= 0.5:
                                                    return 0.0
                                                else:
                                                    return -0.39750622418680726
                                            else:
                                                if f['mat1_stride0'] <= 579.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['copy_b_per_io'] <= 0.013285832945257425:
                                    return 0.0
                                else:
                                    if f['copy_a_per_io'] <= 0.014609379693865776:
                                        return 0.0
                                    else:
                                        if f['align_n'] <= 1.5:
                                            if f['copy_b_bytes'] <= 3811616.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['align_k'] <= 1.5:
                                                return 0.0
                                            else:
                                                return 0.0
                    else:
                        if f['batch'] <= 1.5:
                            if f['copy_per_flop'] <= 0.015419368632137775:
                                if f['op_addmm'] <= 0.5:
                                    if f['n'] <= 127.5:
                                        return -0.3979782694404188
                                    else:
                                        if f['copy_b_bytes'] <= 25904512.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['align'] <= 6.0:
                                    if f['arith_intensity'] <= 90.66456985473633:
                                        if f['copy_a_per_io'] <= 0.03305782377719879:
                                            return -0.4045196675775848
                                        else:
                                            return -0.4054651081081652
                                    else:
                                        return -0.3964734310228512
                                else:
                                    if f['copy_per_io'] <= 0.9957179129123688:
                                        if f['mat1_stride0'] <= 4044.5:
                                            return -0.3920702349035686
                                        else:
                                            return 0.0
                                    else:
                                        return -0.39912042317827673
                        else:
                            if f['copy_per_flop'] <= 0.021669672802090645:
                                if f['pk'] <= 2630.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['pk'] <= 4620.0:
                                    if f['io_bytes'] <= 105402152.0:
                                        return 0.0
                                    else:
                                        return -0.4031040129953291
                                else:
                                    return 0.0
    else:
        if f['copy_per_flop'] <= 0.004033631412312388:
            if f['flops'] <= 11077105152.0:
                if f['copy_per_flop'] <= 0.0003226257540518418:
                    if f['op_addmm'] <= 0.5:
                        if f['pad_frac_n'] <= 0.0006219924543984234:
                            return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.000124141457490623:
                                return 0.0
                            else:
                                return 0.0
                    else:
                        return 0.0
                else:
                    if f['op_addmm'] <= 0.5:
                        if f['mat2_prepadded'] <= 0.5:
                            if f['copy_a_per_io'] <= 0.011882817838340998:
                                if f['padded_flops_ratio'] <= 1.0121756792068481:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['flops'] <= 8755736064.0:
                                    if f['align_k'] <= 1.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            return 0.0
                    else:
                        if f['pk'] <= 2620.0:
                            if f['copy_b_per_io'] <= 0.06727338954806328:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
            else:
                if f['copy_per_flop'] <= 0.002113022026605904:
                    if f['unaligned_dims'] <= 1.5:
                        if f['copy_a_per_io'] <= 0.017903428990393877:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['flops'] <= 18728859648.0:
                            if f['op_addmm'] <= 0.5:
                                if f['align_n'] <= 1.5:
                                    if f['copy_per_flop'] <= 0.00024361418036278337:
                                        return 0.3997853667128513
                                    else:
                                        if f['mat1_stride0'] <= 513.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0002736116584856063:
                                        return 0.0
                                    else:
                                        if f['align_k'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['flops'] <= 14921201664.0:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.001299680967349559:
                                if f['flops'] <= 24500056064.0:
                                    if f['copy_b_bytes'] <= 3636736.0:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.001075415755622089:
                                        if f['flops'] <= 28393934848.0:
                                            return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.0009681503288447857:
                                                if f['copy_b_per_io'] <= 0.2752626836299896:
                                                    return 0.4048845302819546
                                                else:
                                                    return 0.40211128970082716
                                            else:
                                                return 0.3986874366125122
                                    else:
                                        return 0.0
                            else:
                                if f['align_n'] <= 1.5:
                                    return 0.39284979242712753
                                else:
                                    if f['mn'] <= 3082225.0:
                                        return 0.0
                                    else:
                                        return 0.0
                else:
                    if f['align_n'] <= 1.5:
                        if f['copy_per_flop'] <= 0.0028030367102473974:
                            return 0.0
                        else:
                            return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            return 0.0
                        else:
                            return 0.0
        else:
            if f['copy_per_flop'] <= 0.007822495885193348:
                if f['batch'] <= 1.5:
                    if f['align_n'] <= 1.5:
                        if f['mat2_stride0'] <= 268.0:
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
                    if f['mn'] <= 509082.0:
                        return 0.0
                    else:
                        if f['arith_intensity'] <= 122.60492324829102:
                            return 0.0
                        else:
                            return 0.0
                else:
                    if f['pad_frac_m'] <= 0.002544491086155176:
                        if f['copy_per_io'] <= 0.9850300550460815:
                            return 0.0
                        else:
                            return -0.4031792980618988
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
