"""mm_backend.costly heuristic for NVIDIA H200 + NVIDIA H100 80GB HBM3, learned by `tuner learn` from 2278 problems.

Regression tree max_depth=12, min_samples_leaf=10 (88 leaves, 35 of them agree and may answer); thresholds template 1.0000, extern 1.4874. Leaves of near-ties answer extern (no training problem won by template by more than 5%).
Held-out test split (2% tolerance): 194 correct, 3 wrong, 258 unsure of 455; largest loss of any answer 1.252852.
Generated code: re-run `tuner learn` instead of editing it.
"""
from tuner.heuristics.interface import (Precondition, as_float32, derive_features, in_domain,
                                        two_way_choice)

PRECONDITION = Precondition(point='mm_backend.costly', capability=(9, 0), shared_memory=232448, feature_schema=1, gpu_name='NVIDIA H200 + NVIDIA H100 80GB HBM3')
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
FEATURES = ('m', 'k', 'n', 'op_bmm', 'op_addmm', 'dtype_fp16', 'dtype_fp32', 'itemsize', 'mat2_transposed', 'mk', 'kn', 'mn', 'arith_intensity', 'flops', 'tiles_128', 'tiles_64', 'k_steps_64', 'out_bytes', 'epilogue_per_flop', 'aligned_16b', 'lead_aligned_16b')
# Answer 'template' when the predicted speedup is at least exp(LOG_THRESHOLD_TEMPLATE), 'extern' likewise.
LOG_THRESHOLD_TEMPLATE = 0.0
LOG_THRESHOLD_EXTERN = 0.3970228606527031
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.2, 'default_tie': 0.05, 'leaf_ranges': False, 'open_above': [], 'open_below': [], 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'thresholds', 'derived_features': True, 'min_dim': 0, 'max_depth': 12, 'min_samples_leaf': 10, 'keep': ['mm_costly_h200_s[12]*:dtype=float32', 'mm_costly_large_h100_s0*:dtype=float32']}


def score(f):
    """Predicted log(time of 'extern' / time of 'template'): above 0 favours 'template'; exactly 0 in
    leaves whose training problems did not all agree (learned with a default tie, a leaf of
    near-ties scores just below 0: it answers 'extern')."""
    if f['k'] <= 516.0:
        if f['itemsize'] <= 3.0:
            if f['arith_intensity'] <= 145.28028106689453:
                if f['arith_intensity'] <= 43.99640464782715:
                    if f['aligned_16b'] <= 0.5:
                        if f['epilogue_per_flop'] <= 0.006753832334652543:
                            return 0.37996659061298715
                        else:
                            if f['mk'] <= 146778.0:
                                if f['arith_intensity'] <= 7.646316289901733:
                                    if f['mn'] <= 52352.0:
                                        return 0.40546510810816494
                                    else:
                                        if f['mk'] <= 1533.0:
                                            return 0.39958416812037434
                                        else:
                                            return 0.40546510810816455
                                else:
                                    if f['epilogue_per_flop'] <= 0.18333333730697632:
                                        if f['dtype_fp16'] <= 0.5:
                                            if f['arith_intensity'] <= 28.869808197021484:
                                                return 0.4054651081081643
                                            else:
                                                return 0.4053911746934558
                                        else:
                                            return 0.39656872405334664
                                    else:
                                        return 0.38472390383037597
                            else:
                                return 0.39356712608081623
                    else:
                        if f['out_bytes'] <= 43008.0:
                            if f['arith_intensity'] <= 22.430476188659668:
                                if f['k'] <= 500.0:
                                    return 0.4054651081081644
                                else:
                                    return 0.3906426277769997
                            else:
                                return 0.3811556849898595
                        else:
                            if f['mn'] <= 49152.0:
                                if f['tiles_128'] <= 32.0:
                                    return 0.34703308303251773
                                else:
                                    return 0.3681256737313232
                            else:
                                return 0.38875919556528576
                else:
                    if f['op_bmm'] <= 0.5:
                        if f['mk'] <= 30496.0:
                            return 0.0
                        else:
                            if f['m'] <= 1061.0:
                                if f['epilogue_per_flop'] <= 0.003910072147846222:
                                    return 0.4019054474066229
                                else:
                                    return 0.38860354604814523
                            else:
                                if f['arith_intensity'] <= 89.86227798461914:
                                    return 0.3729202066134214
                                else:
                                    return 0.3320750209078999
                    else:
                        return 0.0
            else:
                if f['out_bytes'] <= 4718592.0:
                    return 0.0
                else:
                    return 0.0
        else:
            if f['flops'] <= 16762688.0:
                if f['epilogue_per_flop'] <= 0.009588178247213364:
                    return 0.0
                else:
                    if f['m'] <= 37.5:
                        if f['k'] <= 126.5:
                            if f['flops'] <= 581056.0:
                                if f['k'] <= 35.5:
                                    return 0.40546510810816416
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
                    else:
                        if f['kn'] <= 73.0:
                            return 0.0
                        else:
                            if f['n'] <= 193.5:
                                if f['epilogue_per_flop'] <= 0.11596638709306717:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
            else:
                if f['mat2_transposed'] <= 0.5:
                    if f['out_bytes'] <= 13242368.0:
                        if f['flops'] <= 309107024.0:
                            if f['mk'] <= 26642.0:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
                    else:
                        if f['lead_aligned_16b'] <= 0.5:
                            return 0.0
                        else:
                            return 0.0
                else:
                    if f['flops'] <= 134283264.0:
                        if f['arith_intensity'] <= 28.90988826751709:
                            return -0.05247792950847034
                        else:
                            return 0.0
                    else:
                        return -0.3996786300620882
    else:
        if f['dtype_fp32'] <= 0.5:
            if f['k_steps_64'] <= 45.0:
                if f['out_bytes'] <= 1131520.0:
                    if f['k'] <= 1167.5:
                        if f['arith_intensity'] <= 1.4351786077022552:
                            return 0.0
                        else:
                            if f['k'] <= 1016.0:
                                if f['mn'] <= 245760.0:
                                    if f['kn'] <= 1324114.5:
                                        return 0.38061068471809373
                                    else:
                                        return 0.3328078979383739
                                else:
                                    return 0.0
                            else:
                                if f['tiles_128'] <= 7.0:
                                    return 0.0
                                else:
                                    if f['out_bytes'] <= 297514.0:
                                        if f['m'] <= 55.5:
                                            return 0.0
                                        else:
                                            return 0.32656311912675456
                                    else:
                                        return 0.0
                    else:
                        if f['tiles_128'] <= 3.5:
                            if f['mk'] <= 14536.5:
                                return 0.0
                            else:
                                return 0.0
                        else:
                            if f['flops'] <= 82734636.0:
                                return 0.0
                            else:
                                return 0.0
                else:
                    if f['lead_aligned_16b'] <= 0.5:
                        return 0.0
                    else:
                        if f['k'] <= 1240.0:
                            if f['arith_intensity'] <= 452.33604431152344:
                                if f['dtype_fp16'] <= 0.5:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            return 0.0
            else:
                if f['tiles_128'] <= 5.5:
                    if f['epilogue_per_flop'] <= 0.000334186086547561:
                        return -0.4001852275726496
                    else:
                        if f['mn'] <= 234.5:
                            return 0.0
                        else:
                            return 0.0
                else:
                    if f['arith_intensity'] <= 1.2138692140579224:
                        return 0.0
                    else:
                        if f['arith_intensity'] <= 111.79236221313477:
                            if f['kn'] <= 3276800.0:
                                return 0.0
                            else:
                                if f['tiles_128'] <= 37.0:
                                    if f['arith_intensity'] <= 15.89533519744873:
                                        return 0.0
                                    else:
                                        return -0.03699289315529081
                                else:
                                    return 0.0
                        else:
                            if f['flops'] <= 56521949184.0:
                                if f['flops'] <= 2439848576.0:
                                    return 0.0
                                else:
                                    if f['k_steps_64'] <= 95.0:
                                        if f['mat2_transposed'] <= 0.5:
                                            if f['op_addmm'] <= 0.5:
                                                return -0.0007119320384657499
                                            else:
                                                return -0.06370402057610612
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['flops'] <= 146028888064.0:
                                    return 0.0
                                else:
                                    if f['tiles_128'] <= 2400.0:
                                        return -0.035031685948948676
                                    else:
                                        return 0.0
        else:
            if f['mat2_transposed'] <= 0.5:
                if f['lead_aligned_16b'] <= 0.5:
                    if f['op_addmm'] <= 0.5:
                        if f['tiles_128'] <= 50.5:
                            return -0.3927608052613899
                        else:
                            return 0.0
                    else:
                        if f['epilogue_per_flop'] <= 0.0019536020699888468:
                            return 0.0
                        else:
                            return 0.0
                else:
                    if f['epilogue_per_flop'] <= 0.0016276041860692203:
                        if f['op_addmm'] <= 0.5:
                            return -0.08629836627668017
                        else:
                            return 0.0
                    else:
                        if f['op_addmm'] <= 0.5:
                            if f['tiles_64'] <= 42.0:
                                return 0.0
                            else:
                                if f['mn'] <= 1835008.0:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['tiles_128'] <= 28.0:
                                return 0.0
                            else:
                                return 0.0
            else:
                if f['mk'] <= 11779.0:
                    return 0.0
                else:
                    if f['kn'] <= 132209.0:
                        return -0.3796270490182766
                    else:
                        if f['flops'] <= 629145600.0:
                            return -0.3970228606527031
                        else:
                            return -0.4054651081081641


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
