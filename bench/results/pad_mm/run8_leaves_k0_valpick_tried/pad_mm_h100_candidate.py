"""pad_mm heuristic for NVIDIA H100 80GB HBM3, learned by `tuner learn` from 89028 problems.

Regression tree max_depth=16, min_samples_leaf=10 (2061 leaves, 768 of them agree and may answer); thresholds pad 1.0000, orig 1.0000.
Per-leaf validation: leaves that answered wrong on the validation split (or saw fewer than 0 of its problems) are silenced.
Held-out test split (2% tolerance): 10250 correct, 99 wrong, 7456 unsure of 17805; largest loss of any answer 3.010061.
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
FEATURES = ('m', 'k', 'n', 'batch', 'op_bmm', 'op_addmm', 'dtype_fp16', 'dtype_bf16', 'dtype_fp32', 'itemsize', 'tf32', 'mat1_transposed', 'mat2_transposed', 'mat1_prepadded', 'mat2_prepadded', 'mat1_stride0', 'mat1_stride1', 'mat2_stride0', 'mat2_stride1', 'mk', 'kn', 'mn', 'arith_intensity', 'pad_frac_m', 'pad_frac_k', 'pad_frac_n', 'align_m', 'align_k', 'align_n', 'align', 'pm', 'pk', 'pn', 'lda_aligned', 'ldb_aligned', 'ldc_aligned', 'unaligned_lds', 'unaligned_dims', 'copy_a', 'copy_b', 'flops', 'io_bytes', 'copy_a_bytes', 'copy_b_bytes', 'copy_per_io', 'copy_a_per_io', 'copy_b_per_io', 'copy_per_flop', 'padded_flops_ratio')
# Answer 'pad' when the predicted speedup is at least exp(LOG_THRESHOLD_PAD), 'orig' likewise.
LOG_THRESHOLD_PAD = 0.0
LOG_THRESHOLD_ORIG = 0.0
TRAINING = {'seed': 0, 'min_reps': 3, 'max_spread': 0.2, 'tolerance': 0.02, 'clip': 1.5, 'leaf_agreement': True, 'leaf_margin': 0.1, 'leaf_rule': 'margin', 'leaf_min_clear': 0.0, 'ensemble': 1, 'per_choice_thresholds': True, 'calibration': 'leaves', 'leaf_min_val': 0, 'derived_features': True, 'min_dim': 0, 'max_depth': 16, 'min_samples_leaf': 10}


def score(f):
    """Predicted log(time of 'orig' / time of 'pad'): above 0 favours 'pad'; exactly 0 in
    leaves whose training problems did not all agree."""
    if f['flops'] <= 4394664192.0:
        if f['copy_per_flop'] <= 0.00012279235670575872:
            if f['op_addmm'] <= 0.5:
                if f['flops'] <= 354461280.0:
                    if f['m'] <= 511.5:
                        if f['itemsize'] <= 3.0:
                            if f['k'] <= 4097.5:
                                if f['batch'] <= 2.5:
                                    if f['mk'] <= 8763.5:
                                        if f['mat1_stride0'] <= 58.0:
                                            if f['m'] <= 31.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['k'] <= 759.5:
                                            if f['align_k'] <= 1.5:
                                                return 0.0
                                            else:
                                                if f['lda_aligned'] <= 0.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['pk'] <= 1028.0:
                                                return 0.0
                                            else:
                                                if f['pk'] <= 1208.0:
                                                    return 0.0
                                                else:
                                                    if f['k'] <= 2045.0:
                                                        return 0.0
                                                    else:
                                                        if f['mn'] <= 29739.0:
                                                            if f['pad_frac_n'] <= 0.003937069093808532:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                else:
                                    if f['k'] <= 89.0:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['pad_frac_k'] <= 0.0004947971174260601:
                                    return 0.0
                                else:
                                    return 0.3648045889564493
                        else:
                            if f['mat1_stride0'] <= 2245.5:
                                if f['mn'] <= 1662.0:
                                    return 0.0
                                else:
                                    if f['flops'] <= 170836536.0:
                                        if f['mat1_stride1'] <= 126.0:
                                            if f['mat1_prepadded'] <= 0.5:
                                                return 0.0
                                            else:
                                                if f['ldc_aligned'] <= 0.5:
                                                    if f['kn'] <= 310482.0:
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
                                if f['tf32'] <= 0.5:
                                    return 0.0
                                else:
                                    return 0.0
                    else:
                        if f['batch'] <= 1.5:
                            if f['arith_intensity'] <= 23.31162452697754:
                                if f['dtype_fp16'] <= 0.5:
                                    if f['flops'] <= 19289180.0:
                                        return 0.0
                                    else:
                                        if f['flops'] <= 100230688.0:
                                            if f['unaligned_lds'] <= 1.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['io_bytes'] <= 14298933.0:
                                                if f['mk'] <= 3454080.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['padded_flops_ratio'] <= 1.0089976787567139:
                                        return 0.0
                                    else:
                                        if f['m'] <= 1789.5:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['arith_intensity'] <= 136.9101104736328:
                                    if f['pad_frac_m'] <= 0.0012589608086273074:
                                        if f['mn'] <= 66816.0:
                                            if f['n'] <= 46.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['pad_frac_n'] <= 0.0289129838347435:
                                                if f['flops'] <= 116504064.0:
                                                    return 0.0
                                                else:
                                                    if f['align_k'] <= 1.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['padded_flops_ratio'] <= 1.004600703716278:
                                            return 0.0
                                        else:
                                            if f['pm'] <= 556.0:
                                                if f['pad_frac_k'] <= 0.0015199885820038617:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['io_bytes'] <= 2151738.0:
                                                    return -0.4028534905699412
                                                else:
                                                    if f['pm'] <= 1976.0:
                                                        if f['k'] <= 2590.0:
                                                            if f['pad_frac_n'] <= 0.05344757251441479:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['pad_frac_m'] <= 0.002018839819356799:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['padded_flops_ratio'] <= 1.0684260129928589:
                                if f['ldb_aligned'] <= 0.5:
                                    if f['n'] <= 65.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['flops'] <= 148123152.0:
                                    return 0.0
                                else:
                                    return 0.0
                else:
                    if f['flops'] <= 1148159232.0:
                        if f['padded_flops_ratio'] <= 1.0953064560890198:
                            if f['arith_intensity'] <= 15.770363807678223:
                                if f['padded_flops_ratio'] <= 1.0031027793884277:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['pk'] <= 146.0:
                                    if f['pad_frac_n'] <= 0.0004954191390424967:
                                        if f['mn'] <= 3175464.0:
                                            return 0.0
                                        else:
                                            if f['align_n'] <= 3.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['mn'] <= 7849279.5:
                                            if f['io_bytes'] <= 12575664.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['dtype_bf16'] <= 0.5:
                                        if f['k'] <= 256.5:
                                            return 0.0
                                        else:
                                            if f['align_k'] <= 3.0:
                                                if f['io_bytes'] <= 6675309.0:
                                                    if f['pad_frac_k'] <= 0.0018783148261718452:
                                                        return 0.0
                                                    else:
                                                        if f['m'] <= 554.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['mat1_stride1'] <= 1273.0:
                                                        if f['mat2_stride1'] <= 919.5:
                                                            if f['pad_frac_k'] <= 0.0031430410454049706:
                                                                if f['mk'] <= 1119431.5:
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
                                                        if f['mat1_stride1'] <= 4010.5:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                            else:
                                                if f['arith_intensity'] <= 21.465381622314453:
                                                    return 0.0
                                                else:
                                                    if f['align_n'] <= 6.0:
                                                        if f['pk'] <= 2054.0:
                                                            if f['pk'] <= 758.0:
                                                                if f['align_n'] <= 1.5:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['mn'] <= 233285.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['io_bytes'] <= 21099348.0:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                    else:
                                                        return 0.0
                                    else:
                                        if f['arith_intensity'] <= 164.60857391357422:
                                            if f['padded_flops_ratio'] <= 1.0833107829093933:
                                                if f['io_bytes'] <= 8555267.0:
                                                    if f['k'] <= 514.5:
                                                        return 0.0
                                                    else:
                                                        if f['pn'] <= 240.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['arith_intensity'] <= 86.65633392333984:
                                                        if f['align_m'] <= 1.5:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['pad_frac_k'] <= 0.005830093054100871:
                                                return 0.0
                                            else:
                                                return 0.0
                        else:
                            if f['flops'] <= 794847296.0:
                                if f['align_m'] <= 3.0:
                                    if f['pad_frac_m'] <= 0.0007753553509246558:
                                        return 0.0
                                    else:
                                        if f['padded_flops_ratio'] <= 1.198616862297058:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['pad_frac_n'] <= 0.0038298654835671186:
                                    return 0.0
                                else:
                                    if f['pm'] <= 3962.0:
                                        return 0.3953902857304368
                                    else:
                                        return 0.321755292796273
                    else:
                        if f['align'] <= 6.0:
                            if f['tf32'] <= 0.5:
                                if f['pad_frac_k'] <= 0.014504939783364534:
                                    if f['mat2_stride1'] <= 50.0:
                                        if f['ldb_aligned'] <= 0.5:
                                            if f['mn'] <= 365261.5:
                                                if f['io_bytes'] <= 58063196.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['mat1_stride0'] <= 56.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['mn'] <= 874557.0:
                                            if f['kn'] <= 253892.0:
                                                return 0.0
                                            else:
                                                if f['mat1_stride0'] <= 2518.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['unaligned_lds'] <= 0.5:
                                    return 0.0
                                else:
                                    if f['mat2_stride1'] <= 519.0:
                                        if f['pad_frac_m'] <= 0.0012825437588617206:
                                            if f['m'] <= 4095.5:
                                                if f['arith_intensity'] <= 68.37298965454102:
                                                    return 0.22159607389614172
                                                else:
                                                    return 0.3434456150070701
                                            else:
                                                return 0.0
                                        else:
                                            if f['arith_intensity'] <= 127.54544830322266:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['unaligned_lds'] <= 0.5:
                                return 0.0
                            else:
                                if f['io_bytes'] <= 25744231.0:
                                    if f['pad_frac_m'] <= 0.001465560751967132:
                                        if f['flops'] <= 2763015808.0:
                                            if f['mk'] <= 460144.0:
                                                return 0.0
                                            else:
                                                if f['align_k'] <= 3.0:
                                                    if f['unaligned_lds'] <= 2.5:
                                                        return 0.0
                                                    else:
                                                        if f['pad_frac_m'] <= 0.0009442702576052397:
                                                            if f['mat2_stride0'] <= 185.0:
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
                                            if f['kn'] <= 269086.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['flops'] <= 2208643328.0:
                                            if f['pad_frac_k'] <= 0.0008555386157240719:
                                                if f['pk'] <= 2172.0:
                                                    return 0.0
                                                else:
                                                    if f['align_m'] <= 1.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['k'] <= 288.0:
                                                    return 0.0
                                                else:
                                                    if f['align_n'] <= 3.0:
                                                        if f['mn'] <= 448421.5:
                                                            if f['mat1_stride1'] <= 281.0:
                                                                return 0.0
                                                            else:
                                                                return 0.39378074334797475
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['mat2_stride0'] <= 514.0:
                                                if f['align_n'] <= 1.5:
                                                    if f['n'] <= 389.0:
                                                        return 0.39625327722481857
                                                    else:
                                                        return 0.40546510810816455
                                                else:
                                                    if f['pad_frac_k'] <= 0.0004847601376241073:
                                                        return 0.3982297288162298
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['flops'] <= 3037016576.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                else:
                                    if f['kn'] <= 31312.5:
                                        return 0.0
                                    else:
                                        if f['k'] <= 62.5:
                                            if f['n'] <= 4093.5:
                                                if f['m'] <= 4017.0:
                                                    return 0.0
                                                else:
                                                    return 0.3947927073263318
                                            else:
                                                if f['n'] <= 5304.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['unaligned_lds'] <= 2.5:
                                                if f['align_m'] <= 96.0:
                                                    if f['mat1_stride0'] <= 2198.0:
                                                        if f['batch'] <= 2.5:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['mk'] <= 16666792.0:
                                                            return 0.0
                                                        else:
                                                            return 0.3396215135612001
                                                else:
                                                    return 0.0
                                            else:
                                                if f['mat1_stride1'] <= 1649.0:
                                                    if f['pad_frac_k'] <= 0.0009765634313225746:
                                                        if f['mk'] <= 5457060.5:
                                                            return 0.40546510810816416
                                                        else:
                                                            if f['pad_frac_k'] <= 0.0006148102402221411:
                                                                return 0.39347230140963213
                                                            else:
                                                                return 0.4054651081081645
                                                    else:
                                                        if f['n'] <= 62.5:
                                                            return 0.0
                                                        else:
                                                            if f['mat2_stride0'] <= 2047.5:
                                                                if f['mn'] <= 547265.0:
                                                                    return 0.4054651081081645
                                                                else:
                                                                    return 0.3953218437239235
                                                            else:
                                                                return 0.36903848723953164
                                                else:
                                                    if f['mat1_stride1'] <= 2051.5:
                                                        return 0.0
                                                    else:
                                                        if f['pad_frac_n'] <= 0.08599508553743362:
                                                            return 0.0
                                                        else:
                                                            return 0.3272641234434147
            else:
                if f['flops'] <= 1010661312.0:
                    if f['io_bytes'] <= 7813872.0:
                        if f['flops'] <= 263713392.0:
                            if f['mn'] <= 2430.0:
                                return 0.0
                            else:
                                if f['mat2_stride1'] <= 2050.0:
                                    if f['flops'] <= 133365260.0:
                                        if f['mk'] <= 1064708.0:
                                            if f['arith_intensity'] <= 65.41886520385742:
                                                if f['kn'] <= 1012087.0:
                                                    return -0.4054651081081652
                                                else:
                                                    return -0.40478397881072736
                                            else:
                                                return -0.3935047316779761
                                        else:
                                            if f['align_m'] <= 1.5:
                                                return 0.0
                                            else:
                                                return -0.40546510810816455
                                    else:
                                        if f['align_k'] <= 1.5:
                                            if f['padded_flops_ratio'] <= 1.0494427680969238:
                                                return 0.0
                                            else:
                                                return -0.39346542859595063
                                        else:
                                            if f['io_bytes'] <= 2902865.0:
                                                return -0.3865097831314085
                                            else:
                                                return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['k'] <= 453.5:
                                if f['padded_flops_ratio'] <= 1.0333965420722961:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['mat1_stride1'] <= 737.0:
                                    if f['mat1_stride0'] <= 1022.0:
                                        if f['mk'] <= 447831.5:
                                            if f['io_bytes'] <= 3776393.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['mat2_stride0'] <= 73.5:
                                                return -0.40546510810816455
                                            else:
                                                return -0.3708559666082854
                                    else:
                                        if f['flops'] <= 437078016.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                    else:
                        if f['k'] <= 2387.0:
                            if f['flops'] <= 646446784.0:
                                if f['arith_intensity'] <= 59.51161575317383:
                                    if f['padded_flops_ratio'] <= 1.0021353363990784:
                                        if f['pad_frac_m'] <= 0.0003025858386536129:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['n'] <= 58.5:
                                            return -0.4054651081081644
                                        else:
                                            if f['pn'] <= 3664.0:
                                                if f['k'] <= 65.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return -0.39858744270352414
                                else:
                                    return 0.0
                            else:
                                if f['arith_intensity'] <= 49.95412254333496:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['arith_intensity'] <= 20.862479209899902:
                                if f['pad_frac_k'] <= 0.00048394441546406597:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['arith_intensity'] <= 35.00503158569336:
                                    if f['mat2_stride0'] <= 23.0:
                                        return -0.3830416397368783
                                    else:
                                        return 0.0
                                else:
                                    if f['align_m'] <= 1.5:
                                        return 0.0
                                    else:
                                        return 0.0
                else:
                    if f['k'] <= 2220.0:
                        if f['mn'] <= 25400834.0:
                            if f['mat2_stride1'] <= 1060.5:
                                if f['flops'] <= 1801819136.0:
                                    if f['align_n'] <= 6.0:
                                        if f['n'] <= 4094.5:
                                            if f['mat1_stride1'] <= 889.0:
                                                if f['pad_frac_n'] <= 0.006697715725749731:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['mk'] <= 928292.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['align_n'] <= 3.0:
                                        if f['pad_frac_k'] <= 0.020192437805235386:
                                            if f['align_n'] <= 1.5:
                                                if f['unaligned_dims'] <= 2.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['pm'] <= 3724.0:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['mat1_stride0'] <= 1243.5:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            return 0.0
                    else:
                        if f['padded_flops_ratio'] <= 1.0717960000038147:
                            if f['mat1_stride0'] <= 4933.0:
                                if f['arith_intensity'] <= 119.9461898803711:
                                    if f['pad_frac_m'] <= 0.0009915598784573376:
                                        if f['mat2_stride0'] <= 99.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['pm'] <= 1206.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['dtype_bf16'] <= 0.5:
                                        if f['unaligned_dims'] <= 2.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['pad_frac_k'] <= 6.104260683059692e-05:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['pad_frac_m'] <= 0.0005699927860405296:
                                return 0.0
                            else:
                                if f['pad_frac_k'] <= 0.0003806111344601959:
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
                                        if f['mk'] <= 4795437.5:
                                            if f['mat1_stride0'] <= 256.5:
                                                if f['io_bytes'] <= 10405723.0:
                                                    if f['copy_a_bytes'] <= 164224.0:
                                                        if f['padded_flops_ratio'] <= 1.0020445585250854:
                                                            return -0.3945841233328852
                                                        else:
                                                            if f['copy_b_bytes'] <= 145536.0:
                                                                if f['align_k'] <= 96.0:
                                                                    return -0.4054376554046611
                                                                else:
                                                                    return -0.4043538775436536
                                                            else:
                                                                if f['mk'] <= 677223.0:
                                                                    return -0.4048315596992192
                                                                else:
                                                                    return -0.39777819956132343
                                                    else:
                                                        if f['mk'] <= 84457.0:
                                                            return -0.3565634850776987
                                                        else:
                                                            return -0.40546510810816416
                                                else:
                                                    if f['mk'] <= 191239.0:
                                                        if f['mat2_stride0'] <= 4166.5:
                                                            if f['io_bytes'] <= 16499354.0:
                                                                if f['arith_intensity'] <= 34.963294982910156:
                                                                    return -0.4054651081081641
                                                                else:
                                                                    return -0.39920599971903065
                                                            else:
                                                                if f['mat1_stride0'] <= 19.5:
                                                                    return -0.40546510810816444
                                                                else:
                                                                    return -0.37731663836910584
                                                        else:
                                                            if f['dtype_fp16'] <= 0.5:
                                                                return -0.4054651081081645
                                                            else:
                                                                return -0.34864190677980145
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['dtype_fp32'] <= 0.5:
                                                    if f['pad_frac_k'] <= 0.015628816094249487:
                                                        if f['k'] <= 848.5:
                                                            if f['mat2_stride1'] <= 589.0:
                                                                if f['mk'] <= 3061833.0:
                                                                    return -0.4051056356018887
                                                                else:
                                                                    return -0.38788513198409225
                                                            else:
                                                                return -0.3873659641477045
                                                        else:
                                                            if f['align_k'] <= 1.5:
                                                                return -0.3637922094862866
                                                            else:
                                                                return -0.4048377955654873
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['op_addmm'] <= 0.5:
                                                        if f['mn'] <= 223023.0:
                                                            return -0.36577975267022017
                                                        else:
                                                            return -0.2953138997970349
                                                    else:
                                                        if f['flops'] <= 187029768.0:
                                                            return -0.38436013777241385
                                                        else:
                                                            return -0.4054651081081645
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.007960409857332706:
                                            if f['mk'] <= 32368.0:
                                                return 0.0
                                            else:
                                                if f['pad_frac_n'] <= 0.0028258124366402626:
                                                    if f['pm'] <= 3938.0:
                                                        if f['unaligned_dims'] <= 2.5:
                                                            return 0.0
                                                        else:
                                                            return -0.3612523557453879
                                                    else:
                                                        if f['io_bytes'] <= 27880837.0:
                                                            return -0.40546510810816455
                                                        else:
                                                            return -0.3519168071672324
                                                else:
                                                    return 0.0
                                        else:
                                            if f['arith_intensity'] <= 28.40509033203125:
                                                if f['copy_b_per_io'] <= 0.00293882901314646:
                                                    return 0.0
                                                else:
                                                    return -0.405465108108164
                                            else:
                                                return 0.0
                                else:
                                    if f['itemsize'] <= 3.0:
                                        if f['mat1_stride0'] <= 256.5:
                                            if f['copy_per_flop'] <= 0.0004897676990367472:
                                                if f['op_addmm'] <= 0.5:
                                                    if f['copy_b_bytes'] <= 277504.0:
                                                        if f['pk'] <= 28.0:
                                                            return 0.0
                                                        else:
                                                            if f['unaligned_lds'] <= 2.5:
                                                                return -0.4054651081081645
                                                            else:
                                                                if f['mat1_stride0'] <= 36.5:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['flops'] <= 1012200256.0:
                                                        if f['padded_flops_ratio'] <= 1.0959129333496094:
                                                            if f['n'] <= 384.0:
                                                                return -0.40389938315535473
                                                            else:
                                                                return -0.4054651081081641
                                                        else:
                                                            return -0.3875500995685212
                                                    else:
                                                        if f['mat2_stride0'] <= 1136.5:
                                                            return -0.40546510810816455
                                                        else:
                                                            return 0.0
                                            else:
                                                if f['align_m'] <= 24.0:
                                                    if f['mat2_stride0'] <= 7183.5:
                                                        if f['copy_per_flop'] <= 0.0009331160690635443:
                                                            if f['io_bytes'] <= 36606856.0:
                                                                if f['m'] <= 7626.0:
                                                                    return 0.0
                                                                else:
                                                                    return -0.37551524027601674
                                                            else:
                                                                if f['pad_frac_m'] <= 0.0005985646275803447:
                                                                    return -0.34728940385067486
                                                                else:
                                                                    return -0.40259994210917593
                                                        else:
                                                            if f['padded_flops_ratio'] <= 1.0186064839363098:
                                                                return -0.39985914212267776
                                                            else:
                                                                return -0.35895922883113246
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['flops'] <= 767739360.0:
                                                if f['m'] <= 1101.0:
                                                    return -0.40259019142867525
                                                else:
                                                    return 0.0
                                            else:
                                                if f['op_addmm'] <= 0.5:
                                                    if f['arith_intensity'] <= 107.33655166625977:
                                                        return 0.0
                                                    else:
                                                        if f['arith_intensity'] <= 162.05772399902344:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['kn'] <= 292379.0:
                                                        return -0.3847073844573968
                                                    else:
                                                        return 0.0
                                    else:
                                        if f['pad_frac_m'] <= 0.0007739773136563599:
                                            if f['copy_per_flop'] <= 0.0007856235024519265:
                                                if f['flops'] <= 1194415936.0:
                                                    if f['align_m'] <= 12.0:
                                                        if f['tf32'] <= 0.5:
                                                            return 0.0
                                                        else:
                                                            return -0.3841310022569024
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['flops'] <= 788739424.0:
                                                return -0.3941551590586734
                                            else:
                                                if f['copy_a_per_io'] <= 0.02676018327474594:
                                                    return -0.3584088741652961
                                                else:
                                                    return -0.23134247623039172
                            else:
                                if f['io_bytes'] <= 24962608.0:
                                    if f['copy_a_bytes'] <= 583040.0:
                                        if f['mat2_stride0'] <= 8.5:
                                            if f['flops'] <= 1096899648.0:
                                                if f['io_bytes'] <= 22298526.0:
                                                    if f['copy_b_bytes'] <= 517632.0:
                                                        if f['copy_a_per_io'] <= 0.015371780842542648:
                                                            if f['pad_frac_n'] <= 0.07064676657319069:
                                                                if f['copy_per_flop'] <= 0.0005929046019446105:
                                                                    return 0.0
                                                                else:
                                                                    return -0.40340296641318235
                                                            else:
                                                                if f['mat1_stride0'] <= 2030.0:
                                                                    return -0.3820316000684669
                                                                else:
                                                                    return -0.4054651081081645
                                                        else:
                                                            return -0.3731202959287198
                                                    else:
                                                        return -0.3512955484394083
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['io_bytes'] <= 14717792.0:
                                                if f['mat1_stride0'] <= 3529.5:
                                                    if f['copy_per_flop'] <= 0.0002985980245284736:
                                                        return 0.0
                                                    else:
                                                        if f['copy_b_per_io'] <= 0.07560603693127632:
                                                            if f['copy_per_flop'] <= 0.0005664199416060001:
                                                                if f['mn'] <= 140320.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['dtype_fp16'] <= 0.5:
                                                                    return -0.4049828104817833
                                                                else:
                                                                    return -0.3819757968859611
                                                        else:
                                                            return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['op_addmm'] <= 0.5:
                                                    if f['copy_per_io'] <= 0.010499358642846346:
                                                        if f['unaligned_dims'] <= 2.5:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['copy_b_per_io'] <= 0.017771740444004536:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['copy_b_bytes'] <= 261440.0:
                                                        return -0.4019946881996965
                                                    else:
                                                        return 0.0
                                    else:
                                        if f['pn'] <= 1572.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['mn'] <= 72997.5:
                                        if f['k'] <= 7942.0:
                                            if f['align_k'] <= 1.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['mn'] <= 102525.0:
                                            return 0.0
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                if f['align_n'] <= 3.0:
                                                    if f['pad_frac_k'] <= 0.0006646373076364398:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['pk'] <= 2332.0:
                                                    if f['padded_flops_ratio'] <= 1.039621353149414:
                                                        return -0.29961397523322814
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                        else:
                            if f['copy_per_io'] <= 0.0058222003281116486:
                                if f['flops'] <= 1052102368.0:
                                    if f['mn'] <= 99141.0:
                                        return 0.0
                                    else:
                                        if f['mat2_stride0'] <= 6998.0:
                                            if f['unaligned_dims'] <= 2.5:
                                                if f['copy_b_per_io'] <= 0.0036245634546503425:
                                                    if f['align_k'] <= 12.0:
                                                        return 0.0
                                                    else:
                                                        if f['io_bytes'] <= 67686328.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['padded_flops_ratio'] <= 1.1457781791687012:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['io_bytes'] <= 67198724.0:
                                        return 0.0
                                    else:
                                        if f['mk'] <= 80104.0:
                                            return 0.0
                                        else:
                                            if f['flops'] <= 1268580800.0:
                                                return 0.0
                                            else:
                                                return 0.0
                            else:
                                if f['mk'] <= 218978.5:
                                    if f['io_bytes'] <= 49393002.0:
                                        if f['pm'] <= 3326.0:
                                            if f['kn'] <= 159744.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                return 0.0
                                            else:
                                                return -0.4039944429806897
                                    else:
                                        if f['align_m'] <= 1.5:
                                            if f['mn'] <= 28072937.0:
                                                if f['copy_per_io'] <= 0.007674491731449962:
                                                    return 0.0
                                                else:
                                                    if f['flops'] <= 959963904.0:
                                                        return -0.32522433803638623
                                                    else:
                                                        return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                if f['pad_frac_m'] <= 0.00037317219539545476:
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
                        if f['flops'] <= 534620176.0:
                            if f['io_bytes'] <= 9385044.0:
                                if f['mn'] <= 280.0:
                                    if f['copy_b_bytes'] <= 49856.0:
                                        return -0.4054651081081645
                                    else:
                                        return 0.0
                                else:
                                    if f['flops'] <= 423785856.0:
                                        if f['copy_a_per_io'] <= 0.0006002701120451093:
                                            if f['mn'] <= 565.0:
                                                if f['pad_frac_k'] <= 8.71839583851397e-05:
                                                    return 0.0
                                                else:
                                                    return -0.4054651081081645
                                            else:
                                                if f['copy_per_flop'] <= 0.12512089312076569:
                                                    if f['flops'] <= 134746648.0:
                                                        if f['copy_per_io'] <= 0.9816969037055969:
                                                            if f['mat1_stride0'] <= 2814.0:
                                                                if f['padded_flops_ratio'] <= 1.0002279877662659:
                                                                    return -0.39645706245819773
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['io_bytes'] <= 3289246.0:
                                                                    return -0.4040646999404138
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['mat1_prepadded'] <= 0.5:
                                                            if f['copy_b_bytes'] <= 2197024.0:
                                                                return -0.3981203716241852
                                                            else:
                                                                return -0.32128690935191495
                                                        else:
                                                            if f['mat2_stride0'] <= 40.5:
                                                                if f['padded_flops_ratio'] <= 1.0094472765922546:
                                                                    return -0.39828436563336433
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['op_addmm'] <= 0.5:
                                                                    return -0.3874214860891845
                                                                else:
                                                                    return -0.40340835663443875
                                                else:
                                                    if f['padded_flops_ratio'] <= 1.0055497884750366:
                                                        return -0.2844916686795208
                                                    else:
                                                        if f['flops'] <= 822336.0:
                                                            return -0.37899236147822524
                                                        else:
                                                            return -0.40546510810816455
                                        else:
                                            if f['copy_b'] <= 0.5:
                                                if f['arith_intensity'] <= 152.25830841064453:
                                                    if f['io_bytes'] <= 2779849.0:
                                                        if f['pm'] <= 22.0:
                                                            if f['mat1_stride0'] <= 2064.5:
                                                                if f['mat1_stride0'] <= 600.0:
                                                                    return -0.40546510810816416
                                                                else:
                                                                    return -0.3861537696311072
                                                            else:
                                                                return -0.35097152704474643
                                                        else:
                                                            if f['copy_per_flop'] <= 0.09879029914736748:
                                                                if f['k'] <= 7876.0:
                                                                    return 0.0
                                                                else:
                                                                    return -0.40083107294978415
                                                            else:
                                                                if f['n'] <= 19.5:
                                                                    return -0.40465799726222434
                                                                else:
                                                                    return -0.3877591276289213
                                                    else:
                                                        if f['mat1_stride0'] <= 129.5:
                                                            if f['kn'] <= 1059433.5:
                                                                if f['pm'] <= 518.0:
                                                                    return -0.404308620328895
                                                                else:
                                                                    return -0.40546510810816383
                                                            else:
                                                                if f['m'] <= 51.5:
                                                                    return -0.40546510810816455
                                                                else:
                                                                    return -0.3667483721552903
                                                        else:
                                                            if f['pad_frac_m'] <= 0.00030021058046258986:
                                                                if f['arith_intensity'] <= 55.709564208984375:
                                                                    return -0.39212528660603524
                                                                else:
                                                                    return -0.3396291790818414
                                                            else:
                                                                if f['pad_frac_n'] <= 0.0015048619243316352:
                                                                    return -0.39042329702084294
                                                                else:
                                                                    return -0.40207830997738697
                                                else:
                                                    if f['mat1_stride0'] <= 340.0:
                                                        return -0.40483138973952054
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['copy_b_per_io'] <= 0.9785159826278687:
                                                    if f['copy_per_flop'] <= 0.21508147567510605:
                                                        if f['kn'] <= 3009596.0:
                                                            if f['flops'] <= 348028416.0:
                                                                if f['copy_per_io'] <= 1.0860172510147095:
                                                                    return -0.4054621720155186
                                                                else:
                                                                    return -0.4050945568071875
                                                            else:
                                                                if f['copy_per_io'] <= 1.0043851137161255:
                                                                    return -0.4054651081081633
                                                                else:
                                                                    return -0.39639982051721306
                                                        else:
                                                            if f['flops'] <= 320676144.0:
                                                                return -0.4054651081081641
                                                            else:
                                                                if f['pad_frac_n'] <= 0.0017653427785262465:
                                                                    return -0.3903943845540335
                                                                else:
                                                                    return -0.40546510810816455
                                                    else:
                                                        if f['flops'] <= 215462.0:
                                                            return -0.40546510810816455
                                                        else:
                                                            return -0.3907567574476432
                                                else:
                                                    if f['copy_per_flop'] <= 0.06389018520712852:
                                                        return -0.40546510810816405
                                                    else:
                                                        return 0.0
                                    else:
                                        if f['mn'] <= 34106.0:
                                            if f['copy_a_bytes'] <= 2117696.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['mat1_prepadded'] <= 0.5:
                                                if f['mat2_prepadded'] <= 0.5:
                                                    if f['mat1_stride0'] <= 3965.0:
                                                        if f['copy_a_bytes'] <= 69376.0:
                                                            return -0.40546510810816455
                                                        else:
                                                            if f['copy_b_bytes'] <= 208896.0:
                                                                return -0.405465108108164
                                                            else:
                                                                if f['k'] <= 67.5:
                                                                    return -0.40546510810816455
                                                                else:
                                                                    return -0.4054651081081637
                                                    else:
                                                        if f['arith_intensity'] <= 90.21451568603516:
                                                            return -0.40546510810816455
                                                        else:
                                                            return -0.3902991673128688
                                                else:
                                                    if f['flops'] <= 487464720.0:
                                                        if f['padded_flops_ratio'] <= 1.0249223709106445:
                                                            return -0.3922005407969945
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['pad_frac_k'] <= 0.0008684092608746141:
                                                            return -0.3882524598082682
                                                        else:
                                                            return -0.40475845170968844
                                            else:
                                                if f['align'] <= 6.0:
                                                    return -0.32295703325258945
                                                else:
                                                    if f['pk'] <= 1192.0:
                                                        if f['mat2_stride0'] <= 999.0:
                                                            return -0.40546510810816455
                                                        else:
                                                            return -0.38083382176087266
                                                    else:
                                                        return -0.35778013713907597
                            else:
                                if f['copy_a'] <= 0.5:
                                    if f['pad_frac_n'] <= 0.002932562492787838:
                                        if f['mat1_stride1'] <= 967.0:
                                            if f['flops'] <= 474919392.0:
                                                if f['arith_intensity'] <= 15.702898979187012:
                                                    return -0.37536257614972035
                                                else:
                                                    if f['pad_frac_k'] <= 0.004135306342504919:
                                                        if f['flops'] <= 415046736.0:
                                                            if f['mat1_stride0'] <= 2079.0:
                                                                if f['copy_b_per_io'] <= 0.06103851832449436:
                                                                    return 0.0
                                                                else:
                                                                    return -0.405465108108164
                                                            else:
                                                                if f['pad_frac_k'] <= 0.0005774158635176718:
                                                                    return -0.4054651081081645
                                                                else:
                                                                    return -0.39700622182395745
                                                        else:
                                                            return -0.38645548249534944
                                                    else:
                                                        if f['padded_flops_ratio'] <= 1.0415089130401611:
                                                            return -0.34774741819075305
                                                        else:
                                                            if f['copy_per_io'] <= 0.037485841661691666:
                                                                return -0.40124830775956327
                                                            else:
                                                                return -0.40546510810816455
                                            else:
                                                if f['mat2_stride0'] <= 2619.5:
                                                    return -0.3145022847103753
                                                else:
                                                    return -0.3885116064906036
                                        else:
                                            return 0.0
                                    else:
                                        if f['arith_intensity'] <= 27.85805892944336:
                                            if f['align_m'] <= 12.0:
                                                if f['m'] <= 1023.5:
                                                    return -0.4054651081081645
                                                else:
                                                    return -0.3581936912004433
                                            else:
                                                return 0.0
                                        else:
                                            if f['padded_flops_ratio'] <= 1.046247661113739:
                                                if f['align_m'] <= 1.5:
                                                    return -0.3197957025568542
                                                else:
                                                    return -0.3699311352781048
                                            else:
                                                if f['mn'] <= 33682.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                else:
                                    if f['copy_b'] <= 0.5:
                                        if f['kn'] <= 3615174.5:
                                            if f['pn'] <= 514.0:
                                                if f['mat2_stride1'] <= 4373.5:
                                                    if f['arith_intensity'] <= 15.804031372070312:
                                                        if f['padded_flops_ratio'] <= 1.003013014793396:
                                                            if f['kn'] <= 54064.0:
                                                                return -0.40546510810816455
                                                            else:
                                                                return -0.4016424437005342
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['copy_a_bytes'] <= 8985216.0:
                                                            if f['op_addmm'] <= 0.5:
                                                                return -0.37394083381443577
                                                            else:
                                                                return -0.4054651081081645
                                                        else:
                                                            if f['mat1_stride0'] <= 4092.5:
                                                                if f['pad_frac_k'] <= 0.0007387801888398826:
                                                                    return -0.40174689775159933
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['pad_frac_k'] <= 0.00024016388488234952:
                                                                    return -0.40268868398250157
                                                                else:
                                                                    return -0.38649131852510726
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_a_bytes'] <= 591200.0:
                                                    if f['kn'] <= 46226.0:
                                                        if f['kn'] <= 24384.0:
                                                            return -0.3789965193293985
                                                        else:
                                                            return -0.40546510810816455
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['op_addmm'] <= 0.5:
                                                        return 0.0
                                                    else:
                                                        return -0.35422062380155234
                                        else:
                                            if f['copy_a_bytes'] <= 462656.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['copy_b_per_io'] <= 0.9904606342315674:
                                            if f['mn'] <= 10785772.5:
                                                if f['copy_per_io'] <= 1.0051400661468506:
                                                    if f['mat2_stride1'] <= 7242.5:
                                                        if f['k'] <= 4906.5:
                                                            if f['mat1_stride0'] <= 2389.0:
                                                                if f['mk'] <= 8054061.0:
                                                                    return -0.4053373266074149
                                                                else:
                                                                    return -0.4021355710604173
                                                            else:
                                                                if f['mat2_stride0'] <= 1950.0:
                                                                    return -0.40375056366939044
                                                                else:
                                                                    return -0.39169045232492844
                                                        else:
                                                            if f['copy_b_bytes'] <= 239232.0:
                                                                return -0.37542323248112003
                                                            else:
                                                                if f['align_n'] <= 24.0:
                                                                    return -0.40297906856883176
                                                                else:
                                                                    return -0.38519745606100947
                                                    else:
                                                        return -0.3782590590116306
                                                else:
                                                    if f['mn'] <= 22335.0:
                                                        if f['copy_per_flop'] <= 0.044677210971713066:
                                                            return -0.3924603995655328
                                                        else:
                                                            if f['n'] <= 18.5:
                                                                return -0.4000805405796834
                                                            else:
                                                                return -0.4054651081081642
                                                    else:
                                                        return -0.35391627213608856
                                            else:
                                                return -0.37195035992158226
                                        else:
                                            if f['align_n'] <= 3.0:
                                                if f['op_addmm'] <= 0.5:
                                                    return -0.4054651081081643
                                                else:
                                                    return -0.39490421543467125
                                            else:
                                                return 0.0
                        else:
                            if f['copy_b_bytes'] <= 32768.0:
                                if f['copy_per_flop'] <= 0.015408796723932028:
                                    if f['io_bytes'] <= 29165282.0:
                                        if f['mat1_stride1'] <= 238.5:
                                            if f['flops'] <= 1295856960.0:
                                                if f['align_k'] <= 1.5:
                                                    if f['op_addmm'] <= 0.5:
                                                        if f['padded_flops_ratio'] <= 1.0306233763694763:
                                                            if f['pad_frac_n'] <= 0.012987986672669649:
                                                                if f['mat1_stride0'] <= 2452.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['arith_intensity'] <= 63.195905685424805:
                                                                return 0.0
                                                            else:
                                                                return -0.36850038592478673
                                                    else:
                                                        if f['mat1_stride0'] <= 3735.0:
                                                            if f['pad_frac_k'] <= 0.00271654746029526:
                                                                return -0.35638265985348644
                                                            else:
                                                                return -0.40546510810816455
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['io_bytes'] <= 8960319.0:
                                                        if f['dtype_fp16'] <= 0.5:
                                                            if f['pad_frac_m'] <= 0.0019342649611644447:
                                                                return -0.40546510810816444
                                                            else:
                                                                if f['io_bytes'] <= 6252263.0:
                                                                    return -0.35482417345193057
                                                                else:
                                                                    return -0.4054651081081645
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['align_n'] <= 1.5:
                                                            if f['padded_flops_ratio'] <= 1.0192313194274902:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['arith_intensity'] <= 107.0824203491211:
                                                                if f['padded_flops_ratio'] <= 1.041562020778656:
                                                                    return -0.3585075557469962
                                                                else:
                                                                    return -0.4015925023710301
                                                            else:
                                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['pad_frac_k'] <= 0.0002264624781673774:
                                                if f['kn'] <= 308391.0:
                                                    if f['mat2_stride0'] <= 275.0:
                                                        return -0.39379430653447545
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['flops'] <= 1121612928.0:
                                                    if f['flops'] <= 773999296.0:
                                                        if f['pad_frac_n'] <= 0.02347624860703945:
                                                            return -0.40546510810816416
                                                        else:
                                                            return -0.38971876049281634
                                                    else:
                                                        if f['flops'] <= 829245952.0:
                                                            return -0.3322107773331705
                                                        else:
                                                            if f['padded_flops_ratio'] <= 1.0244481563568115:
                                                                return -0.3790984299461612
                                                            else:
                                                                return -0.40420093641614585
                                                else:
                                                    return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['pad_frac_m'] <= 0.0011763594229705632:
                                        if f['dtype_bf16'] <= 0.5:
                                            if f['mk'] <= 6753595.0:
                                                if f['pad_frac_k'] <= 0.0005538574187085032:
                                                    return -0.4024888840280261
                                                else:
                                                    return -0.37589776040368106
                                            else:
                                                return -0.40546510810816394
                                        else:
                                            if f['copy_per_io'] <= 0.9847513139247894:
                                                if f['mk'] <= 9517122.0:
                                                    return -0.3942633980985043
                                                else:
                                                    return -0.31641370228101917
                                            else:
                                                if f['mn'] <= 98304.0:
                                                    return -0.3900244889292327
                                                else:
                                                    return -0.40546510810816455
                                    else:
                                        if f['mn'] <= 74689.5:
                                            if f['pad_frac_m'] <= 0.003052501124329865:
                                                if f['flops'] <= 728181120.0:
                                                    return -0.4054651081081645
                                                else:
                                                    return -0.3954537982055294
                                            else:
                                                return -0.3697202460262247
                                        else:
                                            if f['pk'] <= 4094.0:
                                                return -0.39692504072789914
                                            else:
                                                if f['pn'] <= 56.0:
                                                    return 0.0
                                                else:
                                                    return -0.3625138397414161
                            else:
                                if f['copy_a_bytes'] <= 67584.0:
                                    if f['mk'] <= 201738.0:
                                        if f['m'] <= 1025.5:
                                            if f['mat2_stride1'] <= 5458.0:
                                                if f['io_bytes'] <= 19373562.0:
                                                    if f['padded_flops_ratio'] <= 1.0726693868637085:
                                                        if f['padded_flops_ratio'] <= 1.018698275089264:
                                                            if f['m'] <= 371.5:
                                                                if f['copy_per_flop'] <= 0.007922056131064892:
                                                                    return -0.40546510810816455
                                                                else:
                                                                    return -0.40288967474906756
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['padded_flops_ratio'] <= 1.038554608821869:
                                                                if f['pad_frac_n'] <= 0.0007063841912895441:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['io_bytes'] <= 9608712.0:
                                                                    return -0.4053356044540474
                                                                else:
                                                                    return -0.3824232672716826
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['dtype_bf16'] <= 0.5:
                                                        if f['m'] <= 62.0:
                                                            return -0.405465108108164
                                                        else:
                                                            return -0.39576667275096156
                                                    else:
                                                        if f['pad_frac_k'] <= 0.0004894781450275332:
                                                            return -0.3496523988506865
                                                        else:
                                                            return -0.40546510810816444
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['flops'] <= 1074044864.0:
                                            if f['mat1_stride1'] <= 28.0:
                                                if f['mat1_stride0'] <= 5520.5:
                                                    if f['arith_intensity'] <= 67.47502899169922:
                                                        return 0.0
                                                    else:
                                                        if f['n'] <= 436.0:
                                                            if f['mn'] <= 116641.5:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['dtype_fp32'] <= 0.5:
                                                                if f['copy_per_io'] <= 0.6808538734912872:
                                                                    return -0.40546510810816455
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['mat2_stride0'] <= 596.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                else:
                                                    if f['pad_frac_k'] <= 0.00013718087575398386:
                                                        return 0.0
                                                    else:
                                                        if f['kn'] <= 4238071.0:
                                                            return -0.4018934217350823
                                                        else:
                                                            return -0.36867940603605626
                                            else:
                                                if f['kn'] <= 872001.0:
                                                    if f['mat2_stride0'] <= 37.0:
                                                        if f['mk'] <= 2142824.0:
                                                            return -0.40546510810816455
                                                        else:
                                                            return -0.396718970683213
                                                    else:
                                                        return -0.3485883236716206
                                                else:
                                                    if f['mk'] <= 745227.0:
                                                        return -0.36843436510354105
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.021668690256774426:
                                                if f['io_bytes'] <= 5818800.0:
                                                    return -0.36248241956893473
                                                else:
                                                    if f['padded_flops_ratio'] <= 1.026538372039795:
                                                        if f['padded_flops_ratio'] <= 1.014361560344696:
                                                            if f['copy_per_flop'] <= 0.005723735084757209:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                return -0.39870506095620367
                                else:
                                    if f['mn'] <= 11691400.5:
                                        if f['copy_per_io'] <= 1.0035375356674194:
                                            if f['io_bytes'] <= 8126603.0:
                                                if f['mat1_stride0'] <= 509.5:
                                                    if f['padded_flops_ratio'] <= 1.0040560960769653:
                                                        return -0.40121027875631293
                                                    else:
                                                        if f['mat1_stride0'] <= 314.5:
                                                            if f['padded_flops_ratio'] <= 1.0058477520942688:
                                                                return -0.40413901627218585
                                                            else:
                                                                if f['pad_frac_m'] <= 0.00015229104610625654:
                                                                    return -0.40546510810816416
                                                                else:
                                                                    return -0.40546510810816244
                                                        else:
                                                            if f['padded_flops_ratio'] <= 1.026127815246582:
                                                                if f['io_bytes'] <= 4609742.0:
                                                                    return -0.4020940029619823
                                                                else:
                                                                    return -0.40546510810816416
                                                            else:
                                                                return -0.39888397324940544
                                                else:
                                                    if f['flops'] <= 732621440.0:
                                                        return -0.4054651081081655
                                                    else:
                                                        if f['flops'] <= 743776416.0:
                                                            return -0.36589691603173324
                                                        else:
                                                            if f['padded_flops_ratio'] <= 1.0081366300582886:
                                                                if f['pad_frac_n'] <= 0.0024450462078675628:
                                                                    return -0.4012542802107042
                                                                else:
                                                                    return -0.34788752344727386
                                                            else:
                                                                if f['pad_frac_m'] <= 0.020842378959059715:
                                                                    return -0.40223692053401194
                                                                else:
                                                                    return -0.38607240851617886
                                            else:
                                                if f['flops'] <= 1091432576.0:
                                                    if f['mn'] <= 61502.0:
                                                        if f['op_addmm'] <= 0.5:
                                                            if f['copy_a_bytes'] <= 385280.0:
                                                                return -0.3756608552505744
                                                            else:
                                                                return -0.4054651081081645
                                                        else:
                                                            if f['pad_frac_m'] <= 0.013299262151122093:
                                                                if f['io_bytes'] <= 36534226.0:
                                                                    return -0.36689831445309273
                                                                else:
                                                                    return -0.4031230310032858
                                                            else:
                                                                if f['kn'] <= 7445441.5:
                                                                    return 0.0
                                                                else:
                                                                    return -0.3423622408642618
                                                    else:
                                                        if f['copy_per_io'] <= 0.02476150169968605:
                                                            return -0.3506004328609253
                                                        else:
                                                            if f['io_bytes'] <= 8513210.0:
                                                                if f['pad_frac_n'] <= 0.008443931117653847:
                                                                    return -0.3984651252861717
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['copy_per_flop'] <= 0.03474701754748821:
                                                                    return 0.0
                                                                else:
                                                                    return -0.4048056841971417
                                                else:
                                                    if f['copy_per_flop'] <= 0.02895563282072544:
                                                        if f['padded_flops_ratio'] <= 1.0949479937553406:
                                                            if f['pad_frac_m'] <= 0.04206433333456516:
                                                                if f['copy_b_per_io'] <= 0.017612291499972343:
                                                                    return 0.0
                                                                else:
                                                                    return -0.39022312434507
                                                            else:
                                                                if f['m'] <= 67.5:
                                                                    return -0.40546510810816455
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['padded_flops_ratio'] <= 1.1144251823425293:
                                                                return 0.0
                                                            else:
                                                                return -0.38773583810290485
                                                    else:
                                                        if f['align_k'] <= 12.0:
                                                            if f['copy_a_per_io'] <= 0.002713090507313609:
                                                                return -0.37637110877128344
                                                            else:
                                                                if f['mn'] <= 75228.0:
                                                                    return -0.3897227064105908
                                                                else:
                                                                    return -0.40437365762286986
                                                        else:
                                                            return -0.3705086466316543
                                        else:
                                            if f['dtype_bf16'] <= 0.5:
                                                return -0.4044818813988838
                                            else:
                                                return 0.0
                                    else:
                                        if f['op_addmm'] <= 0.5:
                                            if f['copy_b_per_io'] <= 0.006446144310757518:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['flops'] <= 853831072.0:
                                                return -0.3774882242010864
                                            else:
                                                return -0.2573530790987645
                else:
                    if f['k'] <= 2947.5:
                        if f['k'] <= 1021.5:
                            if f['copy_per_flop'] <= 0.0014621646841987967:
                                if f['flops'] <= 646208480.0:
                                    if f['io_bytes'] <= 16372818.0:
                                        if f['arith_intensity'] <= 52.72512245178223:
                                            if f['k'] <= 348.0:
                                                if f['io_bytes'] <= 9439464.0:
                                                    if f['k'] <= 148.0:
                                                        if f['n'] <= 5189.5:
                                                            return -0.405465108108164
                                                        else:
                                                            return -0.4007334767741428
                                                    else:
                                                        return -0.39097784613731246
                                                else:
                                                    if f['batch'] <= 3.5:
                                                        return -0.40546510810816455
                                                    else:
                                                        return -0.3730925177122714
                                            else:
                                                return 0.0
                                        else:
                                            if f['arith_intensity'] <= 55.40660858154297:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['mn'] <= 115792.0:
                                            return 0.0
                                        else:
                                            if f['copy_per_io'] <= 0.010136435274034739:
                                                if f['mat2_stride0'] <= 19.0:
                                                    return -0.37916366072716406
                                                else:
                                                    if f['align_m'] <= 1.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['arith_intensity'] <= 21.1540584564209:
                                                    return -0.4054651081081645
                                                else:
                                                    return 0.0
                                else:
                                    if f['io_bytes'] <= 69611840.0:
                                        if f['align_n'] <= 1.5:
                                            if f['copy_per_io'] <= 0.02571915276348591:
                                                if f['mat1_stride0'] <= 17.5:
                                                    if f['padded_flops_ratio'] <= 1.08016836643219:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['n'] <= 687.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['dtype_fp16'] <= 0.5:
                                                if f['align_k'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    if f['arith_intensity'] <= 56.49820899963379:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['mat2_stride0'] <= 513.0:
                                                    return 0.0
                                                else:
                                                    return -0.3781558208694655
                                    else:
                                        return 0.0
                            else:
                                if f['flops'] <= 784324352.0:
                                    if f['pk'] <= 710.0:
                                        if f['io_bytes'] <= 32508124.0:
                                            if f['copy_a_bytes'] <= 768.0:
                                                if f['pk'] <= 320.0:
                                                    if f['flops'] <= 378690000.0:
                                                        if f['io_bytes'] <= 9496138.0:
                                                            return -0.405465108108165
                                                        else:
                                                            if f['mk'] <= 8937.5:
                                                                return -0.35737660752380906
                                                            else:
                                                                return -0.3981690584892831
                                                    else:
                                                        return -0.3425563413481869
                                                else:
                                                    if f['dtype_bf16'] <= 0.5:
                                                        if f['k'] <= 511.5:
                                                            return 0.0
                                                        else:
                                                            if f['pad_frac_k'] <= 0.005370958708226681:
                                                                return -0.375061029856848
                                                            else:
                                                                return -0.4054651081081645
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['padded_flops_ratio'] <= 1.0027316212654114:
                                                    if f['flops'] <= 175027104.0:
                                                        return -0.40546510810816455
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['k'] <= 507.5:
                                                        if f['mat2_stride1'] <= 400.0:
                                                            if f['io_bytes'] <= 15636732.0:
                                                                if f['mn'] <= 2081094.5:
                                                                    return -0.4053835070462133
                                                                else:
                                                                    return -0.39484424608215446
                                                            else:
                                                                if f['copy_b_per_io'] <= 0.0009080953896045685:
                                                                    return -0.3670716413902203
                                                                else:
                                                                    return -0.402769962815193
                                                        else:
                                                            return -0.38625304360928403
                                                    else:
                                                        if f['mat2_prepadded'] <= 0.5:
                                                            if f['mat2_stride0'] <= 1603.0:
                                                                if f['copy_per_flop'] <= 0.01046000886708498:
                                                                    return -0.3867167893871653
                                                                else:
                                                                    return -0.4054444966309343
                                                            else:
                                                                return -0.37663019551564586
                                                        else:
                                                            if f['align_n'] <= 1.5:
                                                                if f['padded_flops_ratio'] <= 1.175137221813202:
                                                                    return 0.0
                                                                else:
                                                                    return -0.39023936236823886
                                                            else:
                                                                if f['copy_a_bytes'] <= 4170656.0:
                                                                    return -0.3886338499326922
                                                                else:
                                                                    return -0.3164389000730554
                                        else:
                                            if f['copy_per_io'] <= 0.131044439971447:
                                                if f['batch'] <= 5.5:
                                                    if f['kn'] <= 59016.0:
                                                        return -0.39396418435900676
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['pm'] <= 44.0:
                                                    return -0.3934118780745228
                                                else:
                                                    return -0.40546510810816444
                                    else:
                                        if f['copy_per_io'] <= 0.4683618098497391:
                                            return 0.0
                                        else:
                                            if f['copy_a_per_io'] <= 0.004268730757758021:
                                                return 0.0
                                            else:
                                                if f['arith_intensity'] <= 46.747535705566406:
                                                    if f['k'] <= 1019.5:
                                                        if f['padded_flops_ratio'] <= 1.2229458093643188:
                                                            if f['mk'] <= 25177.0:
                                                                return -0.4002168828378272
                                                            else:
                                                                return -0.40546510810816416
                                                        else:
                                                            return -0.3910417361102589
                                                    else:
                                                        return -0.37014222545075404
                                                else:
                                                    if f['copy_per_flop'] <= 0.01598950382322073:
                                                        return -0.38523198335100384
                                                    else:
                                                        return 0.0
                                else:
                                    if f['copy_a_per_io'] <= 0.004045350942760706:
                                        if f['tf32'] <= 0.5:
                                            if f['copy_per_io'] <= 0.2718527615070343:
                                                return 0.0
                                            else:
                                                if f['mat1_stride0'] <= 342.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['mat1_stride0'] <= 908.5:
                                            if f['pk'] <= 38.0:
                                                if f['align'] <= 6.0:
                                                    return 0.0
                                                else:
                                                    return -0.33693118872532524
                                            else:
                                                if f['copy_b'] <= 0.5:
                                                    if f['arith_intensity'] <= 99.67902374267578:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['k'] <= 100.5:
                                                        if f['pad_frac_k'] <= 0.056884292513132095:
                                                            if f['flops'] <= 960740352.0:
                                                                return -0.37632437669654145
                                                            else:
                                                                return -0.27190336904949697
                                                        else:
                                                            return -0.40281578734104717
                                                    else:
                                                        if f['mat1_stride0'] <= 596.0:
                                                            if f['flops'] <= 1300699328.0:
                                                                if f['padded_flops_ratio'] <= 1.0329309105873108:
                                                                    return -0.3972896197792291
                                                                else:
                                                                    return -0.4043443357547455
                                                            else:
                                                                return -0.37870866110684487
                                                        else:
                                                            return 0.0
                                        else:
                                            return 0.0
                        else:
                            if f['copy_per_io'] <= 0.8395695090293884:
                                if f['mat1_stride0'] <= 2149.5:
                                    if f['copy_per_io'] <= 0.7317256033420563:
                                        if f['align_k'] <= 6.0:
                                            if f['flops'] <= 18690960.0:
                                                return 0.0
                                            else:
                                                if f['mn'] <= 23080.0:
                                                    if f['pad_frac_k'] <= 0.0011556975659914315:
                                                        return 0.0
                                                    else:
                                                        if f['align_k'] <= 1.5:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['copy_a_per_io'] <= 0.02365579456090927:
                                                        if f['mat2_stride1'] <= 1230.0:
                                                            if f['io_bytes'] <= 16833828.0:
                                                                return 0.0
                                                            else:
                                                                if f['mk'] <= 2909923.5:
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
                                        return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['io_bytes'] <= 23132672.0:
                                        if f['itemsize'] <= 3.0:
                                            if f['flops'] <= 610216960.0:
                                                if f['copy_per_io'] <= 0.9470267295837402:
                                                    return 0.0
                                                else:
                                                    if f['copy_b_bytes'] <= 12561984.0:
                                                        if f['mat1_stride0'] <= 1741.5:
                                                            if f['pad_frac_m'] <= 0.0013473807484842837:
                                                                if f['align_k'] <= 1.5:
                                                                    return -0.3726324585324702
                                                                else:
                                                                    return -0.40546510810816455
                                                            else:
                                                                return -0.40546510810816405
                                                        else:
                                                            if f['padded_flops_ratio'] <= 1.1043766736984253:
                                                                return 0.0
                                                            else:
                                                                if f['flops'] <= 99460136.0:
                                                                    return -0.3827379940141232
                                                                else:
                                                                    return -0.40546510810816455
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['pk'] <= 1788.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['tf32'] <= 0.5:
                                                if f['mat1_stride0'] <= 1762.0:
                                                    if f['n'] <= 362.5:
                                                        return 0.0
                                                    else:
                                                        return -0.3049683354786096
                                                else:
                                                    if f['unaligned_lds'] <= 2.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['copy_per_io'] <= 0.9569813311100006:
                                                    return 0.0
                                                else:
                                                    if f['pk'] <= 2046.0:
                                                        return -0.40546510810816455
                                                    else:
                                                        return -0.37877975220345855
                                    else:
                                        if f['io_bytes'] <= 32131254.0:
                                            if f['pad_frac_k'] <= 0.001465560751967132:
                                                return 0.0
                                            else:
                                                return -0.4043778489066925
                                        else:
                                            if f['batch'] <= 2.5:
                                                return -0.3966548446119704
                                            else:
                                                if f['mat2_stride1'] <= 2045.5:
                                                    return -0.40546510810816394
                                                else:
                                                    return -0.4012291158322648
                                else:
                                    if f['mat1_stride0'] <= 2335.5:
                                        if f['copy_per_io'] <= 0.9987255334854126:
                                            if f['mat2_stride0'] <= 34.0:
                                                if f['copy_per_io'] <= 0.9766857028007507:
                                                    return 0.0
                                                else:
                                                    if f['copy_per_flop'] <= 0.03352000005543232:
                                                        return -0.3519823787848768
                                                    else:
                                                        if f['align_k'] <= 1.5:
                                                            return -0.39242086178892355
                                                        else:
                                                            return 0.0
                                            else:
                                                if f['io_bytes'] <= 7092744.0:
                                                    return 0.0
                                                else:
                                                    if f['align_n'] <= 1.5:
                                                        if f['mat1_transposed'] <= 0.5:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['copy_a_per_io'] <= 0.348655566573143:
                                                return 0.0
                                            else:
                                                if f['unaligned_dims'] <= 2.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        return 0.0
                    else:
                        if f['dtype_bf16'] <= 0.5:
                            if f['io_bytes'] <= 24213975.0:
                                if f['k'] <= 5940.5:
                                    if f['copy_per_io'] <= 0.9494550228118896:
                                        if f['mn'] <= 3561.5:
                                            if f['align_n'] <= 1.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['pad_frac_n'] <= 0.0053621449042111635:
                                                return 0.0
                                            else:
                                                if f['mn'] <= 15222.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['tf32'] <= 0.5:
                                            if f['dtype_fp16'] <= 0.5:
                                                if f['io_bytes'] <= 13588764.0:
                                                    return 0.29849636993449297
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_a_per_io'] <= 0.6115804314613342:
                                                    if f['copy_b_per_io'] <= 0.6784314215183258:
                                                        return 0.0
                                                    else:
                                                        if f['copy_b_bytes'] <= 9686592.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['mk'] <= 884906.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['mat1_stride0'] <= 3462.0:
                                                return -0.3503702794256167
                                            else:
                                                return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.016634368803352118:
                                        return 0.0
                                    else:
                                        if f['io_bytes'] <= 14200500.0:
                                            if f['pad_frac_m'] <= 0.0839160867035389:
                                                if f['flops'] <= 111733792.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['padded_flops_ratio'] <= 1.1138617992401123:
                                                return 0.0
                                            else:
                                                return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.02848897222429514:
                                    if f['mat1_stride0'] <= 5929.0:
                                        if f['mat1_stride0'] <= 1556.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['k'] <= 8190.5:
                                        if f['io_bytes'] <= 42178340.0:
                                            if f['mat1_stride0'] <= 5309.5:
                                                if f['copy_per_io'] <= 0.9976655542850494:
                                                    if f['flops'] <= 767012864.0:
                                                        return 0.0
                                                    else:
                                                        return -0.34911767534685656
                                                else:
                                                    return -0.3615736119544713
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_a_per_io'] <= 0.9623814821243286:
                                                if f['io_bytes'] <= 60377336.0:
                                                    return -0.29922926211552986
                                                else:
                                                    if f['tf32'] <= 0.5:
                                                        return -0.3543630334118665
                                                    else:
                                                        return -0.3987276460606331
                                            else:
                                                if f['flops'] <= 809732096.0:
                                                    return -0.37741250115581393
                                                else:
                                                    return -0.40469717835220764
                                    else:
                                        return 0.0
                        else:
                            if f['align_n'] <= 1.5:
                                if f['k'] <= 5112.0:
                                    if f['flops'] <= 875646592.0:
                                        if f['copy_a_bytes'] <= 1259520.0:
                                            if f['pad_frac_m'] <= 0.05641025863587856:
                                                return 0.40521810457768637
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_a_bytes'] <= 2439680.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['io_bytes'] <= 33371040.0:
                                        return 0.40546510810816416
                                    else:
                                        return 0.371207955750471
                            else:
                                if f['copy_per_io'] <= 0.9632220268249512:
                                    if f['align_k'] <= 1.5:
                                        return 0.387391853267911
                                    else:
                                        return 0.0
                                else:
                                    if f['align_k'] <= 1.5:
                                        if f['io_bytes'] <= 34401434.0:
                                            if f['io_bytes'] <= 11773395.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['pk'] <= 5200.0:
                                            if f['flops'] <= 274707600.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['pad_frac_n'] <= 0.003964382573030889:
                                                return 0.0
                                            else:
                                                return 0.0
            else:
                if f['copy_per_io'] <= 0.07410835474729538:
                    if f['op_bmm'] <= 0.5:
                        if f['pk'] <= 2054.0:
                            if f['io_bytes'] <= 59457240.0:
                                if f['flops'] <= 2052671232.0:
                                    if f['copy_per_io'] <= 0.008037480525672436:
                                        if f['flops'] <= 1645962880.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['dtype_fp32'] <= 0.5:
                                            if f['copy_per_flop'] <= 0.0005447742878459394:
                                                if f['mat2_stride0'] <= 7038.5:
                                                    if f['mat2_stride1'] <= 86.5:
                                                        if f['mat1_stride0'] <= 515.5:
                                                            if f['align_n'] <= 1.5:
                                                                if f['pad_frac_n'] <= 0.0006207363039720803:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['mk'] <= 180250.5:
                                                                    return -0.3954617360895291
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['padded_flops_ratio'] <= 1.1092961430549622:
                                                    if f['op_addmm'] <= 0.5:
                                                        if f['align_k'] <= 1.5:
                                                            return -0.32860169448429843
                                                        else:
                                                            if f['align_m'] <= 1.5:
                                                                return 0.0
                                                            else:
                                                                return -0.36475162361068936
                                                    else:
                                                        return -0.40546510810816433
                                                else:
                                                    return 0.0
                                        else:
                                            if f['copy_per_io'] <= 0.04157802648842335:
                                                if f['copy_per_io'] <= 0.016359200701117516:
                                                    return 0.0
                                                else:
                                                    if f['copy_a_per_io'] <= 0.020825025625526905:
                                                        if f['kn'] <= 284871.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['arith_intensity'] <= 186.42005157470703:
                                                    if f['copy_a_bytes'] <= 964608.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                else:
                                    if f['mat2_prepadded'] <= 0.5:
                                        if f['op_addmm'] <= 0.5:
                                            if f['copy_a_per_io'] <= 0.008532213978469372:
                                                if f['align_n'] <= 3.0:
                                                    if f['arith_intensity'] <= 181.5865936279297:
                                                        if f['mat1_stride0'] <= 133.5:
                                                            if f['pk'] <= 118.0:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['pm'] <= 4102.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['mat2_stride0'] <= 398.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['io_bytes'] <= 29175912.0:
                                                    return -0.3688698531563511
                                                else:
                                                    if f['copy_a_bytes'] <= 584960.0:
                                                        if f['flops'] <= 2897460480.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['dtype_fp16'] <= 0.5:
                                                            if f['mk'] <= 490180.0:
                                                                return 0.0
                                                            else:
                                                                if f['copy_b_bytes'] <= 468864.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['pad_frac_n'] <= 0.0008533277141395956:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                        else:
                                            if f['k'] <= 1234.5:
                                                if f['io_bytes'] <= 44006356.0:
                                                    if f['m'] <= 4277.5:
                                                        if f['io_bytes'] <= 28634914.0:
                                                            return -0.3971054489630435
                                                        else:
                                                            if f['copy_a_bytes'] <= 615808.0:
                                                                return 0.0
                                                            else:
                                                                return -0.3658157136039279
                                                    else:
                                                        if f['copy_b_bytes'] <= 672704.0:
                                                            if f['kn'] <= 197322.0:
                                                                return 0.0
                                                            else:
                                                                if f['kn'] <= 259080.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['pad_frac_n'] <= 0.0009773641359061003:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['align_n'] <= 1.5:
                                            if f['mk'] <= 367456.5:
                                                if f['pad_frac_k'] <= 0.00364491471555084:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['pad_frac_m'] <= 0.0007645986624993384:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['pn'] <= 4626.0:
                                                if f['n'] <= 4093.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['mat1_stride0'] <= 331.0:
                                                    if f['unaligned_dims'] <= 2.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                            else:
                                if f['copy_b_per_io'] <= 0.006366448476910591:
                                    if f['mat2_stride0'] <= 6666.5:
                                        if f['op_addmm'] <= 0.5:
                                            if f['align_n'] <= 3.0:
                                                if f['copy_per_flop'] <= 0.0003482821339275688:
                                                    if f['padded_flops_ratio'] <= 1.1113951206207275:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['copy_b_bytes'] <= 302592.0:
                                                        return 0.0
                                                    else:
                                                        if f['copy_b_bytes'] <= 404992.0:
                                                            return 0.0
                                                        else:
                                                            if f['copy_b_per_io'] <= 0.0048608737997710705:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                            else:
                                                if f['kn'] <= 176624.0:
                                                    if f['align_n'] <= 6.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['copy_b_bytes'] <= 525760.0:
                                                if f['pad_frac_m'] <= 0.00012588503886945546:
                                                    return 0.0
                                                else:
                                                    if f['copy_a_bytes'] <= 326592.0:
                                                        return 0.0
                                                    else:
                                                        if f['mk'] <= 168355.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['flops'] <= 3794497024.0:
                                            if f['dtype_bf16'] <= 0.5:
                                                if f['mat2_stride0'] <= 8155.0:
                                                    if f['copy_per_flop'] <= 0.00028667574224527925:
                                                        return 0.0
                                                    else:
                                                        if f['padded_flops_ratio'] <= 1.091492474079132:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['pad_frac_k'] <= 0.1231527142226696:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['flops'] <= 3308590976.0:
                                        if f['mk'] <= 110100.5:
                                            return 0.0
                                        else:
                                            if f['copy_per_io'] <= 0.008089899085462093:
                                                return 0.0
                                            else:
                                                if f['copy_a_bytes'] <= 1365440.0:
                                                    if f['mat2_stride0'] <= 5738.5:
                                                        if f['mn'] <= 20408762.0:
                                                            if f['op_addmm'] <= 0.5:
                                                                if f['pad_frac_m'] <= 0.00045990794023964554:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                return -0.25444476092586427
                                                        else:
                                                            if f['io_bytes'] <= 92377496.0:
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
                                        if f['mn'] <= 32781973.0:
                                            if f['copy_a_per_io'] <= 0.017989736050367355:
                                                if f['flops'] <= 4013808768.0:
                                                    if f['kn'] <= 407512.0:
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
                            if f['copy_per_flop'] <= 0.0002502978459233418:
                                if f['pad_frac_m'] <= 0.05090595409274101:
                                    if f['padded_flops_ratio'] <= 1.0017311573028564:
                                        return 0.0
                                    else:
                                        if f['flops'] <= 1860376640.0:
                                            return 0.0
                                        else:
                                            if f['mat1_stride1'] <= 4537.5:
                                                if f['kn'] <= 168919.0:
                                                    return 0.0
                                                else:
                                                    if f['pad_frac_m'] <= 0.018574805930256844:
                                                        if f['align_n'] <= 1.5:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['pad_frac_k'] <= 0.0007850783877074718:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['mat1_stride0'] <= 7910.5:
                                    if f['pn'] <= 100.0:
                                        if f['pad_frac_m'] <= 0.0009236475161742419:
                                            if f['copy_per_flop'] <= 0.0004040483181597665:
                                                if f['mn'] <= 281977.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['io_bytes'] <= 65632036.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['mat1_stride0'] <= 4004.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['k'] <= 2745.0:
                                            if f['op_addmm'] <= 0.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                if f['copy_a_bytes'] <= 928800.0:
                                                    if f['padded_flops_ratio'] <= 1.0486255288124084:
                                                        return 0.0
                                                    else:
                                                        if f['mat2_stride0'] <= 3713.5:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['pad_frac_k'] <= 0.0003151769342366606:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['io_bytes'] <= 31813381.0:
                                                    if f['arith_intensity'] <= 118.79502868652344:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['align_k'] <= 1.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                else:
                                    if f['kn'] <= 17131673.0:
                                        return 0.0
                                    else:
                                        return 0.0
                    else:
                        if f['pk'] <= 2476.0:
                            if f['io_bytes'] <= 106946024.0:
                                if f['mat1_stride1'] <= 513.5:
                                    if f['copy_per_flop'] <= 0.000580028718104586:
                                        if f['flops'] <= 3602985728.0:
                                            if f['mn'] <= 232354.0:
                                                return 0.0
                                            else:
                                                if f['mat2_stride0'] <= 96.5:
                                                    if f['n'] <= 2241.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['arith_intensity'] <= 105.9258804321289:
                                                        if f['pad_frac_n'] <= 0.0018606600351631641:
                                                            if f['align_n'] <= 3.0:
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
                                        if f['io_bytes'] <= 55532092.0:
                                            if f['pad_frac_k'] <= 0.021911421790719032:
                                                return 0.0
                                            else:
                                                if f['flops'] <= 1911670912.0:
                                                    return -0.3861561185473946
                                                else:
                                                    return 0.0
                                        else:
                                            if f['pad_frac_m'] <= 0.0022926469100639224:
                                                if f['copy_a_per_io'] <= 0.024397173896431923:
                                                    if f['padded_flops_ratio'] <= 1.0508337020874023:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['io_bytes'] <= 52986734.0:
                                        if f['pad_frac_k'] <= 0.0031356554245576262:
                                            return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.0006025061302352697:
                                                if f['pad_frac_m'] <= 0.0006587061216123402:
                                                    return 0.0
                                                else:
                                                    return -0.39121145862948675
                                            else:
                                                return 0.0
                                    else:
                                        if f['flops'] <= 3210936320.0:
                                            if f['mk'] <= 95461.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['dtype_fp32'] <= 0.5:
                                        if f['copy_a_bytes'] <= 407040.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_per_flop'] <= 0.0012134072021581233:
                                            if f['mat1_stride1'] <= 4640.5:
                                                if f['padded_flops_ratio'] <= 1.0707422494888306:
                                                    if f['mat2_stride0'] <= 4510.0:
                                                        if f['pad_frac_k'] <= 0.001907594851218164:
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
                                            if f['mk'] <= 77370.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['arith_intensity'] <= 22.656972885131836:
                                        if f['mat1_stride0'] <= 17.5:
                                            return 0.3306169392058988
                                        else:
                                            return 0.0
                                    else:
                                        return 0.3755498527246832
                        else:
                            if f['dtype_fp32'] <= 0.5:
                                if f['align_n'] <= 1.5:
                                    if f['flops'] <= 2258346112.0:
                                        return 0.3959054539704061
                                    else:
                                        return 0.4054651081081645
                                else:
                                    if f['copy_per_io'] <= 0.02027277648448944:
                                        return 0.0
                                    else:
                                        if f['mn'] <= 36918.0:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['mn'] <= 67251.5:
                                    return 0.0
                                else:
                                    return 0.0
                else:
                    if f['copy_per_flop'] <= 0.015594263561069965:
                        if f['mn'] <= 96084.0:
                            if f['batch'] <= 1.5:
                                return 0.0
                            else:
                                if f['unaligned_lds'] <= 1.5:
                                    return 0.0
                                else:
                                    if f['k'] <= 4096.5:
                                        if f['copy_per_io'] <= 0.9562387466430664:
                                            if f['mat1_prepadded'] <= 0.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['kn'] <= 598511.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['io_bytes'] <= 43563484.0:
                                            if f['copy_b_per_io'] <= 0.763652890920639:
                                                if f['mn'] <= 42524.0:
                                                    if f['k'] <= 5905.5:
                                                        return 0.0
                                                    else:
                                                        return 0.384289146180218
                                                else:
                                                    if f['pm'] <= 516.0:
                                                        return 0.40546510810816455
                                                    else:
                                                        return 0.37644178737843975
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                        else:
                            if f['flops'] <= 2803618560.0:
                                if f['copy_a_per_io'] <= 0.006870101438835263:
                                    if f['n'] <= 260.5:
                                        if f['pad_frac_m'] <= 0.002107141772285104:
                                            if f['flops'] <= 1871961088.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['kn'] <= 727895.0:
                                                return 0.0
                                            else:
                                                if f['m'] <= 995.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['flops'] <= 2374230912.0:
                                            if f['padded_flops_ratio'] <= 1.0036330819129944:
                                                if f['tf32'] <= 0.5:
                                                    if f['flops'] <= 1740421568.0:
                                                        return -0.2676001389442355
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['flops'] <= 1415104384.0:
                                                    return -0.39747652551020324
                                                else:
                                                    if f['k'] <= 4088.0:
                                                        if f['mn'] <= 303594.5:
                                                            if f['arith_intensity'] <= 137.9341812133789:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['op_addmm'] <= 0.5:
                                                                if f['arith_intensity'] <= 183.89686584472656:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['mk'] <= 1530233.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                    else:
                                                        if f['mn'] <= 130230.5:
                                                            return 0.0
                                                        else:
                                                            if f['pad_frac_k'] <= 0.0006400712009053677:
                                                                return -0.40518102077547474
                                                            else:
                                                                return 0.0
                                        else:
                                            if f['n'] <= 2440.0:
                                                if f['padded_flops_ratio'] <= 1.0095687508583069:
                                                    return 0.0
                                                else:
                                                    if f['io_bytes'] <= 18678018.0:
                                                        if f['mk'] <= 978411.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['flops'] <= 2527184384.0:
                                                    return 0.0
                                                else:
                                                    if f['pad_frac_k'] <= 0.0025488287210464478:
                                                        return 0.0
                                                    else:
                                                        return -0.3792218050441468
                                else:
                                    if f['mat2_prepadded'] <= 0.5:
                                        if f['op_bmm'] <= 0.5:
                                            if f['mat1_stride0'] <= 581.5:
                                                if f['flops'] <= 2679583104.0:
                                                    if f['dtype_fp32'] <= 0.5:
                                                        if f['flops'] <= 1994165568.0:
                                                            if f['arith_intensity'] <= 76.84169006347656:
                                                                return -0.35489033428533395
                                                            else:
                                                                if f['io_bytes'] <= 10884865.0:
                                                                    return -0.4024095151314178
                                                                else:
                                                                    return -0.38988473276772107
                                                        else:
                                                            if f['align_n'] <= 1.5:
                                                                if f['mn'] <= 257218.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['unaligned_dims'] <= 2.5:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                    else:
                                                        if f['copy_per_flop'] <= 0.002972434158436954:
                                                            if f['tf32'] <= 0.5:
                                                                if f['io_bytes'] <= 24185980.0:
                                                                    return -0.2921864047669124
                                                                else:
                                                                    return -0.23308863796315182
                                                            else:
                                                                if f['copy_a_per_io'] <= 0.030260290019214153:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['tf32'] <= 0.5:
                                                                if f['copy_b_per_io'] <= 0.38912852108478546:
                                                                    return -0.36094265442720347
                                                                else:
                                                                    return -0.30859445433606125
                                                            else:
                                                                if f['padded_flops_ratio'] <= 1.0069363713264465:
                                                                    return -0.3627597434708925
                                                                else:
                                                                    return -0.39557681029083647
                                                else:
                                                    if f['padded_flops_ratio'] <= 1.0229008793830872:
                                                        if f['padded_flops_ratio'] <= 1.0113933682441711:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['pad_frac_m'] <= 0.05344757251441479:
                                                    if f['align_n'] <= 1.5:
                                                        if f['op_addmm'] <= 0.5:
                                                            if f['mn'] <= 1063699.5:
                                                                if f['arith_intensity'] <= 116.68251419067383:
                                                                    return -0.3966138505053699
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['mat2_stride1'] <= 644.5:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['mat1_stride0'] <= 2850.5:
                                                                if f['copy_b_bytes'] <= 7965760.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['io_bytes'] <= 15613004.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                    else:
                                                        if f['align_k'] <= 1.5:
                                                            if f['flops'] <= 1740464512.0:
                                                                if f['align_m'] <= 1.5:
                                                                    return 0.0
                                                                else:
                                                                    return -0.3869555832342112
                                                            else:
                                                                if f['k'] <= 878.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['align'] <= 6.0:
                                                                if f['flops'] <= 1788771776.0:
                                                                    return -0.37737933852082317
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['mn'] <= 1085645.0:
                                                                    return -0.40386447909782264
                                                                else:
                                                                    return -0.37117487416183936
                                                else:
                                                    if f['n'] <= 2834.5:
                                                        return 0.0
                                                    else:
                                                        if f['pn'] <= 4992.0:
                                                            return -0.38531303390576915
                                                        else:
                                                            return 0.0
                                        else:
                                            if f['pk'] <= 1130.0:
                                                if f['io_bytes'] <= 15668844.0:
                                                    if f['mk'] <= 784382.0:
                                                        if f['pad_frac_m'] <= 0.01069566234946251:
                                                            if f['flops'] <= 2211474176.0:
                                                                if f['copy_b_bytes'] <= 3715776.0:
                                                                    return 0.0
                                                                else:
                                                                    return -0.3149209216654437
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['io_bytes'] <= 20936187.0:
                                                        if f['io_bytes'] <= 18236271.0:
                                                            if f['io_bytes'] <= 16514694.0:
                                                                return -0.3907617857415605
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['k'] <= 396.0:
                                                                return -0.40546510810816455
                                                            else:
                                                                return -0.3921379047810333
                                                    else:
                                                        if f['io_bytes'] <= 28745420.0:
                                                            if f['kn'] <= 56971.0:
                                                                return 0.0
                                                            else:
                                                                if f['arith_intensity'] <= 98.53116989135742:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['copy_per_flop'] <= 0.010602368041872978:
                                                                if f['copy_a_bytes'] <= 6842880.0:
                                                                    return 0.0
                                                                else:
                                                                    return -0.27395641810702587
                                                            else:
                                                                return -0.3996230488176705
                                            else:
                                                if f['copy_per_flop'] <= 0.010401612147688866:
                                                    if f['copy_per_io'] <= 0.9265952110290527:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['pad_frac_m'] <= 0.024396694265305996:
                                            if f['copy_per_flop'] <= 0.010115235112607479:
                                                if f['m'] <= 7283.5:
                                                    if f['align_n'] <= 1.5:
                                                        if f['flops'] <= 2307590272.0:
                                                            if f['padded_flops_ratio'] <= 1.0291329622268677:
                                                                if f['pad_frac_k'] <= 0.00454961322247982:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['arith_intensity'] <= 202.0741729736328:
                                                                if f['mk'] <= 4697985.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['padded_flops_ratio'] <= 1.0108924508094788:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                    else:
                                                        if f['m'] <= 1009.0:
                                                            if f['kn'] <= 839493.0:
                                                                return 0.0
                                                            else:
                                                                if f['pk'] <= 4282.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['padded_flops_ratio'] <= 1.0084792971611023:
                                                                if f['copy_a_bytes'] <= 7124480.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['padded_flops_ratio'] <= 1.0194869637489319:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['op_addmm'] <= 0.5:
                                                    if f['mk'] <= 4433434.0:
                                                        return -0.333870253862257
                                                    else:
                                                        if f['mn'] <= 268049.5:
                                                            return -0.40187493048705764
                                                        else:
                                                            return -0.40546510810816455
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.007744597969576716:
                                    if f['mn'] <= 461376.5:
                                        if f['batch'] <= 1.5:
                                            if f['copy_per_io'] <= 0.8737633228302002:
                                                if f['copy_per_flop'] <= 0.001658286724705249:
                                                    if f['op_addmm'] <= 0.5:
                                                        if f['flops'] <= 3205952256.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['kn'] <= 2876787.0:
                                                        if f['pad_frac_k'] <= 6.104260683059692e-05:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['io_bytes'] <= 15853091.0:
                                                            return 0.0
                                                        else:
                                                            if f['pn'] <= 1026.0:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                            else:
                                                if f['op_addmm'] <= 0.5:
                                                    if f['align_n'] <= 1.5:
                                                        if f['mat1_stride1'] <= 76.5:
                                                            if f['copy_a_per_io'] <= 0.5214389264583588:
                                                                return 0.0
                                                            else:
                                                                return -0.28576728295646764
                                                        else:
                                                            return -0.3098874440781245
                                                    else:
                                                        if f['padded_flops_ratio'] <= 1.0213728547096252:
                                                            if f['padded_flops_ratio'] <= 1.0088846683502197:
                                                                return 0.0
                                                            else:
                                                                return -0.4011390707255475
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['flops'] <= 3717629824.0:
                                                        if f['mat2_transposed'] <= 0.5:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['k'] <= 2044.5:
                                                if f['arith_intensity'] <= 210.6422348022461:
                                                    if f['mat1_stride1'] <= 190.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_per_io'] <= 0.42859913408756256:
                                                    return 0.0
                                                else:
                                                    if f['pn'] <= 516.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                    else:
                                        if f['op_addmm'] <= 0.5:
                                            if f['align_k'] <= 1.5:
                                                if f['mat1_stride0'] <= 256.0:
                                                    if f['flops'] <= 3383981184.0:
                                                        if f['copy_b_per_io'] <= 0.026009170338511467:
                                                            if f['mk'] <= 755040.0:
                                                                return 0.0
                                                            else:
                                                                if f['pad_frac_n'] <= 0.004493712447583675:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['pad_frac_m'] <= 0.0038167607272043824:
                                                                if f['pad_frac_n'] <= 0.0017440516385249794:
                                                                    return 0.0
                                                                else:
                                                                    return -0.39435837128728063
                                                            else:
                                                                return 0.0
                                                    else:
                                                        if f['pad_frac_m'] <= 0.008552392479032278:
                                                            if f['pm'] <= 2424.0:
                                                                if f['flops'] <= 3995642496.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['mat1_stride0'] <= 126.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['copy_per_flop'] <= 0.0019692842615768313:
                                                        if f['copy_b_per_io'] <= 0.04607444442808628:
                                                            if f['pm'] <= 3308.0:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['pad_frac_m'] <= 0.002103327075019479:
                                                                if f['arith_intensity'] <= 306.58982849121094:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['n'] <= 2046.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                    else:
                                                        if f['flops'] <= 4167415552.0:
                                                            if f['flops'] <= 3674248064.0:
                                                                if f['mat2_stride0'] <= 255.5:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['padded_flops_ratio'] <= 1.0092004537582397:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['io_bytes'] <= 19915258.0:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                            else:
                                                if f['copy_per_io'] <= 0.16012046486139297:
                                                    if f['align_n'] <= 1.5:
                                                        if f['lda_aligned'] <= 0.5:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['mat2_stride0'] <= 894.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['copy_a'] <= 0.5:
                                                        if f['io_bytes'] <= 19364540.0:
                                                            if f['pad_frac_k'] <= 0.001953132450580597:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['copy_per_flop'] <= 0.003550415043719113:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                    else:
                                                        if f['flops'] <= 3306321536.0:
                                                            if f['pad_frac_m'] <= 0.004035473335534334:
                                                                if f['copy_per_flop'] <= 0.0021032949443906546:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['k'] <= 1026.0:
                                                                    return 0.0
                                                                else:
                                                                    return -0.35759434083821545
                                                        else:
                                                            if f['mn'] <= 3524902.0:
                                                                if f['padded_flops_ratio'] <= 1.0175539255142212:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['mn'] <= 5563654.5:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                        else:
                                            if f['mat1_stride0'] <= 2793.5:
                                                if f['arith_intensity'] <= 330.37391662597656:
                                                    if f['pad_frac_k'] <= 0.0015520182787440717:
                                                        if f['kn'] <= 1751931.0:
                                                            if f['padded_flops_ratio'] <= 1.0143222212791443:
                                                                if f['flops'] <= 3380328320.0:
                                                                    return -0.3875600795460625
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['copy_b_bytes'] <= 12994912.0:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                    else:
                                                        if f['flops'] <= 3651314688.0:
                                                            if f['mn'] <= 4682622.0:
                                                                if f['copy_a_bytes'] <= 6803456.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['arith_intensity'] <= 209.99998474121094:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['copy_b_bytes'] <= 487040.0:
                                                                return 0.0
                                                            else:
                                                                if f['pad_frac_n'] <= 0.00022594229085370898:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                else:
                                                    if f['copy_a_per_io'] <= 0.16808388382196426:
                                                        return 0.0
                                                    else:
                                                        if f['align_n'] <= 1.5:
                                                            return 0.0
                                                        else:
                                                            return -0.3506315167466149
                                            else:
                                                if f['mn'] <= 534824.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                else:
                                    if f['mn'] <= 170765.0:
                                        if f['align_n'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_per_flop'] <= 0.008277059998363256:
                                            if f['pad_frac_n'] <= 0.042160892859101295:
                                                if f['arith_intensity'] <= 210.69544219970703:
                                                    if f['op_bmm'] <= 0.5:
                                                        if f['mat1_stride0'] <= 5800.0:
                                                            if f['k'] <= 2031.5:
                                                                if f['align_m'] <= 1.5:
                                                                    return 0.0
                                                                else:
                                                                    return -0.36305397193329547
                                                            else:
                                                                if f['mk'] <= 12169789.5:
                                                                    return 0.0
                                                                else:
                                                                    return -0.3964661062640363
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['op_bmm'] <= 0.5:
                                                if f['op_addmm'] <= 0.5:
                                                    if f['unaligned_lds'] <= 2.5:
                                                        if f['copy_b_bytes'] <= 37255680.0:
                                                            if f['padded_flops_ratio'] <= 1.0031757950782776:
                                                                if f['copy_per_io'] <= 0.9530993402004242:
                                                                    return -0.39611509153093827
                                                                else:
                                                                    return -0.4054651081081645
                                                            else:
                                                                if f['padded_flops_ratio'] <= 1.0183100700378418:
                                                                    return -0.3054784816476828
                                                                else:
                                                                    return -0.39098222084504447
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['arith_intensity'] <= 175.36576080322266:
                                                            if f['io_bytes'] <= 29519866.0:
                                                                return -0.37835935979237034
                                                            else:
                                                                if f['mn'] <= 795669.5:
                                                                    return -0.405465108108164
                                                                else:
                                                                    return -0.3968824904932645
                                                        else:
                                                            if f['arith_intensity'] <= 208.6048583984375:
                                                                return -0.34515363713255615
                                                            else:
                                                                return -0.3779213165511831
                                                else:
                                                    if f['mat1_stride0'] <= 4515.5:
                                                        if f['pad_frac_k'] <= 0.0008011326135601848:
                                                            if f['align_k'] <= 1.5:
                                                                return 0.0
                                                            else:
                                                                if f['align'] <= 6.0:
                                                                    return -0.286551837152887
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['mk'] <= 17818535.0:
                                                                if f['mat1_stride1'] <= 33.5:
                                                                    return -0.40546510810816455
                                                                else:
                                                                    return -0.4000873812146234
                                                            else:
                                                                return -0.3586706701532255
                                                    else:
                                                        if f['copy_per_io'] <= 0.981113463640213:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                            else:
                                                if f['k'] <= 1782.5:
                                                    if f['kn'] <= 132540.5:
                                                        return -0.33465328526826915
                                                    else:
                                                        if f['mat1_stride0'] <= 577.0:
                                                            return -0.36921259257717304
                                                        else:
                                                            return -0.39960356772326516
                                                else:
                                                    return 0.0
                    else:
                        if f['mn'] <= 85682.0:
                            if f['copy_per_flop'] <= 0.03376949205994606:
                                if f['pad_frac_m'] <= 0.00679104239679873:
                                    if f['copy_per_flop'] <= 0.029632113873958588:
                                        if f['copy_b_bytes'] <= 3043008.0:
                                            if f['copy_a_per_io'] <= 0.9573933780193329:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_per_io'] <= 0.9948640465736389:
                                                if f['copy_a_per_io'] <= 0.6175840795040131:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['padded_flops_ratio'] <= 1.0238236784934998:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['mk'] <= 409448.0:
                                        if f['kn'] <= 4758061.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['copy_per_io'] <= 1.0042058229446411:
                                            if f['align_k'] <= 1.5:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['dtype_bf16'] <= 0.5:
                                    if f['io_bytes'] <= 69505344.0:
                                        return 0.0
                                    else:
                                        if f['mn'] <= 25642.0:
                                            return -0.3815295551332212
                                        else:
                                            if f['mat1_stride0'] <= 6953.0:
                                                return -0.40546510810816416
                                            else:
                                                return -0.40000160178574545
                                else:
                                    if f['copy_per_io'] <= 0.9993108808994293:
                                        if f['kn'] <= 8389627.0:
                                            if f['pad_frac_k'] <= 0.0005503922293428332:
                                                return 0.0
                                            else:
                                                return -0.40546510810816455
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.020281517878174782:
                                if f['batch'] <= 1.5:
                                    if f['op_addmm'] <= 0.5:
                                        if f['pad_frac_m'] <= 0.10286576300859451:
                                            if f['kn'] <= 115669.5:
                                                return -0.3434027475650153
                                            else:
                                                if f['arith_intensity'] <= 61.27843475341797:
                                                    if f['padded_flops_ratio'] <= 1.0183695554733276:
                                                        return -0.35522115876321775
                                                    else:
                                                        if f['pk'] <= 2936.0:
                                                            return -0.375563398973972
                                                        else:
                                                            if f['copy_b_bytes'] <= 460096.0:
                                                                return -0.38788878730220366
                                                            else:
                                                                if f['flops'] <= 1809719552.0:
                                                                    return -0.39777489939229804
                                                                else:
                                                                    return -0.40490436089647586
                                                else:
                                                    if f['arith_intensity'] <= 117.60294342041016:
                                                        if f['ldb_aligned'] <= 0.5:
                                                            if f['mn'] <= 132191.5:
                                                                return -0.4034565588854826
                                                            else:
                                                                return -0.40546510810816416
                                                        else:
                                                            if f['copy_b_bytes'] <= 758784.0:
                                                                return -0.40546510810816455
                                                            else:
                                                                return -0.3969380073779915
                                                    else:
                                                        if f['io_bytes'] <= 55428540.0:
                                                            return -0.38291432609996323
                                                        else:
                                                            return -0.40546510810816455
                                        else:
                                            return 0.0
                                    else:
                                        if f['io_bytes'] <= 32842966.0:
                                            if f['pad_frac_k'] <= 0.0002528874756535515:
                                                return -0.39305127595810213
                                            else:
                                                if f['pad_frac_k'] <= 0.0006884942122269422:
                                                    return 0.0
                                                else:
                                                    if f['flops'] <= 1644802240.0:
                                                        return -0.3734394090202281
                                                    else:
                                                        return -0.2734793003135269
                                        else:
                                            if f['mat2_stride1'] <= 3225.5:
                                                if f['padded_flops_ratio'] <= 1.0690190196037292:
                                                    if f['m'] <= 125.5:
                                                        if f['copy_b_bytes'] <= 46768064.0:
                                                            return -0.3197238778613155
                                                        else:
                                                            return -0.40546510810816455
                                                    else:
                                                        if f['arith_intensity'] <= 118.86707305908203:
                                                            if f['pk'] <= 5736.0:
                                                                return -0.40546510810816416
                                                            else:
                                                                return -0.3889995819526123
                                                        else:
                                                            return -0.383584056386419
                                                else:
                                                    return -0.3397134991765706
                                            else:
                                                if f['pad_frac_m'] <= 0.0022509368136525154:
                                                    return -0.2675608476997834
                                                else:
                                                    return -0.37287530324205276
                                else:
                                    if f['pk'] <= 2954.0:
                                        if f['k'] <= 1236.5:
                                            if f['io_bytes'] <= 36078406.0:
                                                if f['pk'] <= 672.0:
                                                    return -0.39917265412603753
                                                else:
                                                    return -0.37338951253535724
                                            else:
                                                if f['mn'] <= 452258.0:
                                                    return -0.40546510810816444
                                                else:
                                                    return -0.39046333532729377
                                        else:
                                            if f['io_bytes'] <= 47249006.0:
                                                return 0.0
                                            else:
                                                if f['kn'] <= 974998.5:
                                                    return -0.4042645039948638
                                                else:
                                                    return -0.341714652927741
                                    else:
                                        if f['copy_per_flop'] <= 0.017926031723618507:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['dtype_fp32'] <= 0.5:
                                    if f['copy_per_flop'] <= 0.031267598271369934:
                                        if f['mn'] <= 107027.5:
                                            return 0.0
                                        else:
                                            if f['arith_intensity'] <= 34.681257247924805:
                                                if f['padded_flops_ratio'] <= 1.1436602473258972:
                                                    return 0.0
                                                else:
                                                    if f['op_bmm'] <= 0.5:
                                                        if f['kn'] <= 271548.5:
                                                            if f['mat1_stride0'] <= 5894.0:
                                                                if f['dtype_bf16'] <= 0.5:
                                                                    return -0.36954900221291115
                                                                else:
                                                                    return -0.40546510810816455
                                                            else:
                                                                return -0.31791314281785643
                                                        else:
                                                            if f['pad_frac_n'] <= 6.29485075478442e-05:
                                                                return -0.38242280625302644
                                                            else:
                                                                if f['mat2_stride1'] <= 5054.5:
                                                                    return -0.4054651081081643
                                                                else:
                                                                    return -0.40068085387605984
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['mat2_stride1'] <= 2045.5:
                                                    if f['mat1_stride0'] <= 2446.5:
                                                        if f['io_bytes'] <= 37618938.0:
                                                            return -0.39997592504459023
                                                        else:
                                                            return -0.40546510810816405
                                                    else:
                                                        if f['copy_per_io'] <= 0.9898349046707153:
                                                            return -0.36893021676259224
                                                        else:
                                                            if f['pad_frac_k'] <= 0.0002460158721078187:
                                                                return -0.3839300812846825
                                                            else:
                                                                if f['pad_frac_n'] <= 0.0006629886629525572:
                                                                    return -0.3941123865812581
                                                                else:
                                                                    return -0.40541703299439963
                                                else:
                                                    if f['pad_frac_m'] <= 0.0006218681228347123:
                                                        return -0.3116079620066189
                                                    else:
                                                        if f['n'] <= 45.5:
                                                            return -0.3847505347806569
                                                        else:
                                                            return -0.40546510810816455
                                    else:
                                        if f['mn'] <= 103602.0:
                                            if f['mk'] <= 104449.0:
                                                return 0.0
                                            else:
                                                if f['pad_frac_k'] <= 0.0006553951534442604:
                                                    return -0.4054651081081644
                                                else:
                                                    return -0.38736863161236645
                                        else:
                                            if f['arith_intensity'] <= 30.603758811950684:
                                                if f['kn'] <= 53575680.0:
                                                    if f['align_k'] <= 96.0:
                                                        if f['mn'] <= 119691.0:
                                                            if f['align_k'] <= 3.0:
                                                                if f['copy_a_per_io'] <= 0.004024423658847809:
                                                                    return -0.40435660701807663
                                                                else:
                                                                    return -0.40546510810816433
                                                            else:
                                                                return -0.3966517737506431
                                                        else:
                                                            if f['mat1_stride1'] <= 8072.5:
                                                                return -0.4054651081081645
                                                            else:
                                                                return -0.40415373683345973
                                                    else:
                                                        return -0.39837132429620137
                                                else:
                                                    if f['m'] <= 21.5:
                                                        return -0.38425489544756725
                                                    else:
                                                        return -0.4054651081081645
                                            else:
                                                if f['copy_per_flop'] <= 0.032475296407938004:
                                                    if f['arith_intensity'] <= 30.723567962646484:
                                                        return -0.3954265641943658
                                                    else:
                                                        return -0.4054651081081642
                                                else:
                                                    return 0.0
                                else:
                                    if f['io_bytes'] <= 38009906.0:
                                        return -0.3898139613243508
                                    else:
                                        if f['mat2_stride1'] <= 6322.0:
                                            if f['mn'] <= 127750.5:
                                                if f['flops'] <= 3008721792.0:
                                                    if f['io_bytes'] <= 66533904.0:
                                                        return -0.4045915975044637
                                                    else:
                                                        return -0.405465108108164
                                                else:
                                                    return -0.39380633446770796
                                            else:
                                                if f['pad_frac_k'] <= 0.002806297386996448:
                                                    if f['mat2_prepadded'] <= 0.5:
                                                        if f['padded_flops_ratio'] <= 1.000254213809967:
                                                            return -0.40546510810816455
                                                        else:
                                                            if f['flops'] <= 1496128384.0:
                                                                return -0.40546510810816444
                                                            else:
                                                                if f['kn'] <= 90139.0:
                                                                    return -0.40546510810816455
                                                                else:
                                                                    return -0.40546510810816244
                                                    else:
                                                        if f['mk'] <= 13738147.5:
                                                            return -0.40503647485853955
                                                        else:
                                                            return -0.4054651081081642
                                                else:
                                                    return -0.40444899229779996
                                        else:
                                            if f['m'] <= 1508.5:
                                                return -0.3938284260498042
                                            else:
                                                return -0.40546510810816416
    else:
        if f['copy_per_flop'] <= 0.00403056270442903:
            if f['flops'] <= 10157907456.0:
                if f['copy_per_flop'] <= 0.00022313487716019154:
                    if f['unaligned_lds'] <= 0.5:
                        if f['copy_a_per_io'] <= 0.006715287687256932:
                            if f['flops'] <= 7525629952.0:
                                if f['io_bytes'] <= 61694496.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                return 0.0
                        else:
                            return -0.3276457020206827
                    else:
                        if f['op_addmm'] <= 0.5:
                            if f['itemsize'] <= 3.0:
                                if f['copy_per_io'] <= 0.005945611745119095:
                                    if f['flops'] <= 4538810880.0:
                                        return 0.0
                                    else:
                                        if f['n'] <= 34.5:
                                            return 0.29730460006392223
                                        else:
                                            if f['arith_intensity'] <= 58.44624710083008:
                                                if f['align_n'] <= 1.5:
                                                    return 0.40546510810816455
                                                else:
                                                    if f['padded_flops_ratio'] <= 1.0366731882095337:
                                                        return 0.38898404374204926
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['mat1_stride1'] <= 4707.0:
                                                    if f['pn'] <= 6420.0:
                                                        if f['k'] <= 8140.0:
                                                            if f['arith_intensity'] <= 367.8915557861328:
                                                                return 0.40546510810816555
                                                            else:
                                                                return 0.40538765237934843
                                                        else:
                                                            return 0.39041824048432994
                                                    else:
                                                        if f['pad_frac_m'] <= 0.007812976837158203:
                                                            return 0.3781066466461963
                                                        else:
                                                            return 0.4054651081081645
                                                else:
                                                    if f['mat2_stride0'] <= 94.5:
                                                        return 0.4054651081081645
                                                    else:
                                                        return 0.3482572722402637
                                else:
                                    if f['flops'] <= 6862705152.0:
                                        if f['align_n'] <= 1.5:
                                            if f['pad_frac_k'] <= 0.005198771832510829:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['align_n'] <= 3.0:
                                                if f['align_k'] <= 1.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_per_io'] <= 0.019824832677841187:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['kn'] <= 525695.0:
                                            if f['mat1_stride0'] <= 269.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['pm'] <= 244.0:
                                                return 0.0
                                            else:
                                                if f['arith_intensity'] <= 219.03897094726562:
                                                    if f['k'] <= 234.5:
                                                        return 0.39362273583849616
                                                    else:
                                                        return 0.3465200649488372
                                                else:
                                                    if f['mat1_stride0'] <= 1823.0:
                                                        return 0.40546510810816455
                                                    else:
                                                        return 0.4034251869202793
                            else:
                                if f['tf32'] <= 0.5:
                                    if f['unaligned_lds'] <= 2.5:
                                        if f['mn'] <= 1125488.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['pn'] <= 1786.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['pk'] <= 6586.0:
                                        if f['kn'] <= 311803.0:
                                            return 0.0
                                        else:
                                            if f['arith_intensity'] <= 150.81253051757812:
                                                return 0.3578759651404185
                                            else:
                                                if f['k'] <= 1960.5:
                                                    return 0.40477912863875415
                                                else:
                                                    return 0.37947091508067265
                                    else:
                                        return 0.2733051471553854
                        else:
                            if f['align_n'] <= 1.5:
                                if f['pad_frac_k'] <= 0.0028069899417459965:
                                    if f['kn'] <= 535237.0:
                                        return 0.0
                                    else:
                                        if f['mat2_stride0'] <= 704.0:
                                            if f['padded_flops_ratio'] <= 1.020099699497223:
                                                if f['flops'] <= 6837381632.0:
                                                    return 0.36138283302445795
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.38887161928108055
                                        else:
                                            return 0.0
                                else:
                                    if f['pad_frac_m'] <= 0.0003323817509226501:
                                        return 0.0
                                    else:
                                        if f['flops'] <= 6271485952.0:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['align_m'] <= 3.0:
                                    if f['arith_intensity'] <= 254.448486328125:
                                        if f['mat1_stride0'] <= 876.5:
                                            if f['padded_flops_ratio'] <= 1.0308471322059631:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['pad_frac_k'] <= 0.0033745450200513005:
                                        if f['align_k'] <= 3.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                else:
                    if f['align_n'] <= 1.5:
                        if f['itemsize'] <= 3.0:
                            if f['copy_b_per_io'] <= 0.01494213193655014:
                                if f['mat1_stride0'] <= 24.0:
                                    if f['flops'] <= 7549117184.0:
                                        if f['padded_flops_ratio'] <= 1.012915551662445:
                                            return 0.0
                                        else:
                                            if f['flops'] <= 5129063424.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['batch'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.36561132155164483
                                else:
                                    if f['mn'] <= 984410.5:
                                        if f['mat1_stride0'] <= 8173.5:
                                            if f['pk'] <= 2268.0:
                                                return 0.3579540787141401
                                            else:
                                                if f['copy_a_per_io'] <= 0.3210821598768234:
                                                    return 0.40546510810816455
                                                else:
                                                    return 0.3886845487512714
                                        else:
                                            return 0.0
                                    else:
                                        if f['op_addmm'] <= 0.5:
                                            if f['kn'] <= 434301.0:
                                                if f['align_k'] <= 3.0:
                                                    if f['copy_per_flop'] <= 0.0006290879973676056:
                                                        return 0.30527790113011205
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['flops'] <= 6957568000.0:
                                                    return 0.0
                                                else:
                                                    if f['copy_a_bytes'] <= 9087680.0:
                                                        return 0.40546510810816455
                                                    else:
                                                        return 0.3854107895428814
                                        else:
                                            if f['mat2_stride0'] <= 2050.0:
                                                return 0.0
                                            else:
                                                return 0.0
                            else:
                                if f['copy_a_per_io'] <= 0.011194455903023481:
                                    if f['flops'] <= 5240003328.0:
                                        if f['copy_per_io'] <= 0.1332528367638588:
                                            if f['kn'] <= 656443.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['op_addmm'] <= 0.5:
                                            if f['pm'] <= 336.0:
                                                return 0.0
                                            else:
                                                if f['arith_intensity'] <= 314.8671569824219:
                                                    if f['mk'] <= 146936.0:
                                                        return 0.0
                                                    else:
                                                        if f['kn'] <= 1637542.5:
                                                            if f['kn'] <= 367337.0:
                                                                return 0.0
                                                            else:
                                                                if f['pad_frac_k'] <= 0.006477276096120477:
                                                                    return 0.4054651081081643
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['copy_b_per_io'] <= 0.27610360085964203:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['kn'] <= 3523877.5:
                                                if f['io_bytes'] <= 30348996.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['flops'] <= 7613604608.0:
                                        if f['mat1_stride1'] <= 4965.0:
                                            if f['op_addmm'] <= 0.5:
                                                if f['copy_per_io'] <= 0.9256164133548737:
                                                    if f['mat2_stride1'] <= 179.0:
                                                        if f['pad_frac_n'] <= 0.0005730730481445789:
                                                            if f['align_k'] <= 1.5:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['mat1_stride0'] <= 1020.5:
                                                                if f['m'] <= 3184.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['copy_per_io'] <= 0.7617601454257965:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                    else:
                                                        if f['mat1_stride0'] <= 488.5:
                                                            if f['pad_frac_k'] <= 0.008383093401789665:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['arith_intensity'] <= 330.4308319091797:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                else:
                                                    if f['m'] <= 999.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['mat1_stride0'] <= 3558.5:
                                                    if f['flops'] <= 5328113920.0:
                                                        if f['copy_b_bytes'] <= 1235008.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['copy_a_bytes'] <= 6131456.0:
                                                            if f['mat2_stride0'] <= 2464.0:
                                                                if f['mat1_stride0'] <= 357.5:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['flops'] <= 6732827392.0:
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
                                        if f['mat1_stride1'] <= 1208.5:
                                            if f['mk'] <= 557325.0:
                                                if f['padded_flops_ratio'] <= 1.0200107097625732:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['flops'] <= 8024577792.0:
                                                    if f['op_addmm'] <= 0.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['flops'] <= 8319987200.0:
                                                        if f['mat2_stride0'] <= 790.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['copy_b_bytes'] <= 1715520.0:
                                                            return 0.0
                                                        else:
                                                            if f['copy_per_flop'] <= 0.0028741946443915367:
                                                                if f['copy_a_bytes'] <= 1676544.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['k'] <= 4708.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                        else:
                                            if f['align_m'] <= 3.0:
                                                if f['copy_b_per_io'] <= 0.10028745979070663:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                        else:
                            if f['tf32'] <= 0.5:
                                if f['copy_per_flop'] <= 0.0019734498346224427:
                                    if f['copy_per_flop'] <= 0.000697787560056895:
                                        if f['copy_per_io'] <= 0.014942125417292118:
                                            return 0.0
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                if f['copy_per_flop'] <= 0.0005890531465411186:
                                                    if f['padded_flops_ratio'] <= 1.0045347213745117:
                                                        return 0.0
                                                    else:
                                                        if f['flops'] <= 6402523648.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['op_bmm'] <= 0.5:
                                            if f['mat1_stride0'] <= 924.5:
                                                if f['copy_per_flop'] <= 0.0011735304142348468:
                                                    if f['mk'] <= 703392.0:
                                                        return 0.0
                                                    else:
                                                        if f['mat1_stride0'] <= 147.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['mat2_stride0'] <= 1343.0:
                                                        return 0.0
                                                    else:
                                                        return -0.11682422526373669
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.003250686335377395:
                                        if f['copy_a_per_io'] <= 0.17239753156900406:
                                            return 0.0
                                        else:
                                            if f['mat1_stride0'] <= 964.0:
                                                return -0.16722457951020375
                                            else:
                                                return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.6423661112785339:
                                            return -0.17366584665611903
                                        else:
                                            return -0.2022970808905559
                            else:
                                if f['copy_per_flop'] <= 0.0010460269986651838:
                                    if f['flops'] <= 7829070080.0:
                                        if f['copy_a_bytes'] <= 2295552.0:
                                            if f['pad_frac_n'] <= 0.005370094673708081:
                                                if f['io_bytes'] <= 111210720.0:
                                                    if f['mat1_prepadded'] <= 0.5:
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
                                        if f['mat2_stride1'] <= 52.0:
                                            if f['pad_frac_k'] <= 0.007520497543737292:
                                                return 0.0
                                            else:
                                                return 0.3511959634045309
                                        else:
                                            return 0.37510862465820566
                                else:
                                    if f['op_addmm'] <= 0.5:
                                        if f['flops'] <= 6137803264.0:
                                            if f['mat1_stride0'] <= 123.5:
                                                return 0.0
                                            else:
                                                if f['pad_frac_m'] <= 0.0001834724171203561:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.0017944980645552278:
                                                return 0.0
                                            else:
                                                if f['arith_intensity'] <= 374.2408447265625:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['mat1_stride0'] <= 1217.0:
                                            if f['copy_per_io'] <= 0.2352147102355957:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            if f['op_addmm'] <= 0.5:
                                if f['align'] <= 6.0:
                                    if f['tf32'] <= 0.5:
                                        if f['copy_per_flop'] <= 0.002246041432954371:
                                            if f['copy_per_flop'] <= 0.000982202182058245:
                                                if f['copy_b_per_io'] <= 0.008532426785677671:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_b_per_io'] <= 0.05372626148164272:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['copy_a_per_io'] <= 0.13870244473218918:
                                                return -0.17387979523687297
                                            else:
                                                return -0.14929622604158294
                                    else:
                                        if f['copy_a_per_io'] <= 0.06136202625930309:
                                            if f['k'] <= 69.0:
                                                return 0.0
                                            else:
                                                if f['mn'] <= 3420046.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['mk'] <= 1107834.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['flops'] <= 6415260160.0:
                                        if f['copy_b_per_io'] <= 0.018389714881777763:
                                            if f['m'] <= 4618.0:
                                                if f['io_bytes'] <= 26521478.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_a_per_io'] <= 0.02744885254651308:
                                                if f['mat2_stride0'] <= 643.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['pad_frac_n'] <= 0.006149783032014966:
                                                    if f['dtype_bf16'] <= 0.5:
                                                        if f['align_n'] <= 3.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['kn'] <= 997358.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    return 0.0
                                    else:
                                        if f['mat1_stride1'] <= 509.0:
                                            if f['pad_frac_k'] <= 0.008377505000680685:
                                                if f['copy_b_per_io'] <= 0.2023214027285576:
                                                    if f['copy_per_flop'] <= 0.0019756602123379707:
                                                        if f['mat1_stride0'] <= 2050.0:
                                                            if f['pn'] <= 1092.0:
                                                                return 0.398881839586026
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.37437936763653706
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['copy_a_bytes'] <= 1044480.0:
                                                        return 0.0
                                                    else:
                                                        if f['pad_frac_n'] <= 0.0005706865340471268:
                                                            return 0.0
                                                        else:
                                                            if f['dtype_bf16'] <= 0.5:
                                                                return 0.0
                                                            else:
                                                                return 0.33341988512618426
                                            else:
                                                if f['flops'] <= 7998002432.0:
                                                    if f['io_bytes'] <= 37777250.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['dtype_bf16'] <= 0.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['mat2_stride1'] <= 270.0:
                                                if f['copy_per_flop'] <= 0.0011354077141731977:
                                                    if f['dtype_fp16'] <= 0.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                            else:
                                if f['mat1_stride0'] <= 37.0:
                                    if f['copy_per_flop'] <= 0.0004660195845644921:
                                        return 0.0
                                    else:
                                        if f['kn'] <= 2875340.0:
                                            if f['align_n'] <= 3.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0005152339872438461:
                                        if f['copy_a_per_io'] <= 0.00483896560035646:
                                            return 0.0
                                        else:
                                            if f['pad_frac_k'] <= 0.02482051309198141:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['mk'] <= 6496416.0:
                                            if f['kn'] <= 2217354.0:
                                                if f['mat2_stride0'] <= 1568.0:
                                                    if f['align_m'] <= 1.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['pm'] <= 2890.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['pm'] <= 514.0:
                                                    if f['copy_a_bytes'] <= 1316544.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['io_bytes'] <= 24425098.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['mat2_stride0'] <= 265.0:
                                                return 0.0
                                            else:
                                                return 0.0
                        else:
                            if f['copy_a_per_io'] <= 0.01431566895917058:
                                if f['pad_frac_n'] <= 0.014504939783364534:
                                    if f['mat2_stride1'] <= 56.0:
                                        if f['flops'] <= 5709890816.0:
                                            if f['op_addmm'] <= 0.5:
                                                if f['mk'] <= 334987.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['unaligned_dims'] <= 1.5:
                                                return 0.0
                                            else:
                                                if f['copy_per_flop'] <= 0.0007637542730662972:
                                                    if f['arith_intensity'] <= 296.66046142578125:
                                                        if f['padded_flops_ratio'] <= 1.0590038895606995:
                                                            if f['flops'] <= 8091078144.0:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['pad_frac_k'] <= 0.0005129326600581408:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                    else:
                                        if f['mn'] <= 627118.0:
                                            return 0.0
                                        else:
                                            if f['mn'] <= 1076734.0:
                                                return 0.0
                                            else:
                                                if f['kn'] <= 570776.0:
                                                    return 0.0
                                                else:
                                                    if f['unaligned_lds'] <= 2.5:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                else:
                                    if f['pm'] <= 2340.0:
                                        return 0.0
                                    else:
                                        if f['mk'] <= 23460924.0:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['flops'] <= 6168541184.0:
                                    if f['mat1_stride0'] <= 204.0:
                                        if f['padded_flops_ratio'] <= 1.003943145275116:
                                            if f['pad_frac_m'] <= 0.0012416195822879672:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['mat1_stride1'] <= 2046.0:
                                                if f['pad_frac_n'] <= 0.0008221677271649241:
                                                    return 0.0
                                                else:
                                                    if f['copy_a_per_io'] <= 0.09625055268406868:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['dtype_bf16'] <= 0.5:
                                            if f['pad_frac_m'] <= 0.005738235544413328:
                                                if f['copy_per_flop'] <= 0.0006156536110211164:
                                                    return 0.0
                                                else:
                                                    if f['pad_frac_m'] <= 0.0009106994839385152:
                                                        if f['copy_a_per_io'] <= 0.15703247487545013:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['padded_flops_ratio'] <= 1.0079556703567505:
                                                            return 0.0
                                                        else:
                                                            return -0.40159842875362867
                                            else:
                                                if f['k'] <= 4094.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['pad_frac_m'] <= 0.0012041980517096817:
                                                return 0.0
                                            else:
                                                if f['n'] <= 515.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                else:
                                    if f['unaligned_lds'] <= 0.5:
                                        if f['mk'] <= 1261730.0:
                                            if f['flops'] <= 8103414272.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['itemsize'] <= 3.0:
                                                return -0.39474952874448715
                                            else:
                                                return 0.0
                                    else:
                                        if f['copy_b_per_io'] <= 0.03158569894731045:
                                            if f['copy_per_flop'] <= 0.003246087464503944:
                                                if f['mat1_stride0'] <= 173.0:
                                                    if f['op_addmm'] <= 0.5:
                                                        if f['align_m'] <= 1.5:
                                                            if f['pad_frac_n'] <= 0.0005966881144559011:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['copy_per_flop'] <= 0.0004782784089911729:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['align_n'] <= 3.0:
                                                        return 0.0
                                                    else:
                                                        if f['mk'] <= 1749261.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['mat2_stride0'] <= 1008.0:
                                                if f['io_bytes'] <= 26337500.0:
                                                    if f['align_k'] <= 3.0:
                                                        if f['copy_b_per_io'] <= 0.15752314031124115:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['pad_frac_n'] <= 0.003911369596607983:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['align_n'] <= 3.0:
                                                        if f['copy_b_per_io'] <= 0.1416085585951805:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['flops'] <= 9673700864.0:
                                                    if f['padded_flops_ratio'] <= 1.0116761922836304:
                                                        if f['align_m'] <= 3.0:
                                                            if f['m'] <= 2985.0:
                                                                if f['padded_flops_ratio'] <= 1.0088591575622559:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['io_bytes'] <= 31966142.0:
                                                            if f['io_bytes'] <= 23887560.0:
                                                                return 0.0
                                                            else:
                                                                return -0.2984066617786649
                                                        else:
                                                            return 0.0
                                                else:
                                                    return 0.0
            else:
                if f['unaligned_lds'] <= 0.5:
                    if f['copy_per_io'] <= 0.08332712575793266:
                        if f['copy_per_io'] <= 0.015744056552648544:
                            if f['io_bytes'] <= 68159856.0:
                                return 0.0
                            else:
                                if f['align_m'] <= 1.5:
                                    return 0.0
                                else:
                                    if f['pm'] <= 1078.0:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['io_bytes'] <= 77764512.0:
                                return -0.33103114911356946
                            else:
                                if f['mk'] <= 709390.0:
                                    return -0.20384979087053146
                                else:
                                    if f['pn'] <= 6224.0:
                                        return -0.16901951806576282
                                    else:
                                        return 0.0
                    else:
                        if f['copy_per_io'] <= 0.44117479026317596:
                            if f['copy_a_bytes'] <= 7139744.0:
                                return -0.3500897889071794
                            else:
                                if f['kn'] <= 4233192.0:
                                    return -0.33481178582563836
                                else:
                                    return 0.0
                        else:
                            if f['copy_per_io'] <= 0.580319881439209:
                                return -0.3643703205873035
                            else:
                                if f['copy_per_flop'] <= 0.0014146075118333101:
                                    return -0.39769694457410987
                                else:
                                    return -0.4054651081081644
                else:
                    if f['copy_per_flop'] <= 0.0021224942756816745:
                        if f['flops'] <= 18425571328.0:
                            if f['op_addmm'] <= 0.5:
                                if f['copy_per_flop'] <= 0.0012277384521439672:
                                    if f['align_n'] <= 1.5:
                                        if f['flops'] <= 10981533696.0:
                                            if f['copy_a_bytes'] <= 2827264.0:
                                                if f['mat1_stride1'] <= 836.5:
                                                    if f['padded_flops_ratio'] <= 1.0112091302871704:
                                                        return 0.3938277693735379
                                                    else:
                                                        return 0.4054651081081644
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['io_bytes'] <= 378183136.0:
                                                if f['mat1_stride1'] <= 386.0:
                                                    if f['pm'] <= 7996.0:
                                                        if f['mat2_stride0'] <= 6845.0:
                                                            if f['io_bytes'] <= 173767912.0:
                                                                if f['pad_frac_n'] <= 0.012237774673849344:
                                                                    return 0.40268754752711017
                                                                else:
                                                                    return 0.3857578742288365
                                                            else:
                                                                if f['pad_frac_m'] <= 0.001366254291497171:
                                                                    return 0.3617389055592893
                                                                else:
                                                                    return 0.4054651081081645
                                                        else:
                                                            if f['copy_per_io'] <= 0.04802270978689194:
                                                                return 0.404035283773509
                                                            else:
                                                                return 0.3625281213657759
                                                    else:
                                                        if f['copy_per_flop'] <= 0.0002536482206778601:
                                                            return 0.40546510810816455
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['kn'] <= 5077967.0:
                                                        if f['copy_b_bytes'] <= 2552448.0:
                                                            if f['align_m'] <= 3.0:
                                                                if f['align_m'] <= 1.5:
                                                                    return 0.4028541304167791
                                                                else:
                                                                    return 0.3841529507946506
                                                            else:
                                                                if f['mat1_stride1'] <= 8030.0:
                                                                    return 0.40546510810816455
                                                                else:
                                                                    return 0.40546510810816455
                                                        else:
                                                            if f['mat2_stride0'] <= 2049.0:
                                                                if f['mat2_stride0'] <= 493.0:
                                                                    return 0.3702755023469294
                                                                else:
                                                                    return 0.29446934592638024
                                                            else:
                                                                return 0.40191664752565837
                                                    else:
                                                        return 0.0
                                            else:
                                                return 0.31684741550127465
                                    else:
                                        if f['copy_per_flop'] <= 0.0002618754660943523:
                                            if f['io_bytes'] <= 208240624.0:
                                                if f['copy_per_io'] <= 0.0040158918127417564:
                                                    if f['arith_intensity'] <= 115.91825485229492:
                                                        return 0.3945454335741726
                                                    else:
                                                        return 0.4054651081081643
                                                else:
                                                    if f['flops'] <= 12481552896.0:
                                                        if f['mat1_stride0'] <= 457.0:
                                                            if f['pn'] <= 4100.0:
                                                                return 0.40546510810816455
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['align_k'] <= 12.0:
                                                            if f['pn'] <= 424.0:
                                                                return 0.0
                                                            else:
                                                                if f['mat1_stride0'] <= 132.5:
                                                                    return 0.3936386770269557
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            return 0.34436139569061874
                                            else:
                                                if f['pad_frac_n'] <= 0.0013908259570598602:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['mat1_stride1'] <= 7484.5:
                                                if f['pn'] <= 7712.0:
                                                    if f['align_k'] <= 1.5:
                                                        if f['mat1_stride1'] <= 4064.0:
                                                            if f['pad_frac_m'] <= 0.0006492228421848267:
                                                                if f['flops'] <= 11865033728.0:
                                                                    return 0.35041550759526036
                                                                else:
                                                                    return 0.4018335531348176
                                                            else:
                                                                if f['m'] <= 5069.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['mat1_stride0'] <= 481.0:
                                                            if f['mk'] <= 330100.0:
                                                                return 0.0
                                                            else:
                                                                if f['pn'] <= 3672.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                        else:
                                                            if f['pad_frac_k'] <= 0.0044615925289690495:
                                                                if f['m'] <= 3401.5:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                return 0.0
                                                else:
                                                    if f['pad_frac_k'] <= 0.006943453568965197:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['align_n'] <= 1.5:
                                        if f['flops'] <= 10857290752.0:
                                            return 0.0
                                        else:
                                            if f['mat1_stride1'] <= 1148.0:
                                                if f['align'] <= 6.0:
                                                    return 0.0
                                                else:
                                                    if f['n'] <= 3806.0:
                                                        if f['copy_per_io'] <= 0.8564470112323761:
                                                            if f['copy_per_flop'] <= 0.0019561232766136527:
                                                                return 0.40546510810816405
                                                            else:
                                                                return 0.38926997842470235
                                                        else:
                                                            return 0.383280186985535
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['mk'] <= 6460796.0:
                                                    return 0.0
                                                else:
                                                    return 0.3827880136197107
                                    else:
                                        if f['align_m'] <= 1.5:
                                            if f['io_bytes'] <= 26385459.0:
                                                return 0.0
                                            else:
                                                if f['align_k'] <= 1.5:
                                                    if f['copy_per_io'] <= 0.4401904344558716:
                                                        return 0.3309727845866453
                                                    else:
                                                        if f['copy_per_io'] <= 0.7631008625030518:
                                                            return 0.4054651081081645
                                                        else:
                                                            return 0.38487845940414367
                                                else:
                                                    if f['mat1_stride0'] <= 403.0:
                                                        return 0.38184389949523867
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['copy_b_bytes'] <= 12007552.0:
                                                if f['mn'] <= 4179972.0:
                                                    if f['padded_flops_ratio'] <= 1.007887840270996:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['align_k'] <= 1.5:
                                                    if f['mat1_stride0'] <= 971.0:
                                                        return 0.0
                                                    else:
                                                        return 0.38910200513378945
                                                else:
                                                    return 0.0
                            else:
                                if f['flops'] <= 13311911936.0:
                                    if f['copy_a_per_io'] <= 0.046375228092074394:
                                        if f['flops'] <= 11623785984.0:
                                            if f['pad_frac_n'] <= 0.00013226295413915068:
                                                return 0.3594592492200808
                                            else:
                                                if f['copy_per_io'] <= 0.03619002364575863:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['padded_flops_ratio'] <= 1.0107737183570862:
                                                return 0.0
                                            else:
                                                return 0.38614419485662266
                                    else:
                                        if f['m'] <= 3053.5:
                                            if f['copy_per_io'] <= 0.7247081398963928:
                                                if f['mat2_stride0'] <= 2775.5:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                if f['mat1_stride0'] <= 3378.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['io_bytes'] <= 30003137.0:
                                                return 0.0
                                            else:
                                                if f['mat1_stride0'] <= 266.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                else:
                                    if f['align_n'] <= 1.5:
                                        if f['mat1_stride0'] <= 509.0:
                                            if f['copy_per_flop'] <= 0.0003768520837184042:
                                                if f['mat1_stride1'] <= 2748.5:
                                                    return 0.40546510810816455
                                                else:
                                                    return 0.0
                                            else:
                                                if f['pad_frac_k'] <= 0.0020920593524351716:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['flops'] <= 14342173184.0:
                                                return 0.0
                                            else:
                                                if f['mk'] <= 8087459.5:
                                                    if f['copy_b_per_io'] <= 0.30259355902671814:
                                                        if f['copy_a_bytes'] <= 3152128.0:
                                                            return 0.40254519017807605
                                                        else:
                                                            return 0.40546510810816444
                                                    else:
                                                        return 0.38072188362946696
                                                else:
                                                    return 0.36373106771880404
                                    else:
                                        if f['align_k'] <= 1.5:
                                            if f['pad_frac_n'] <= 0.0014164334279485047:
                                                if f['padded_flops_ratio'] <= 1.0054615139961243:
                                                    return 0.0
                                                else:
                                                    if f['arith_intensity'] <= 254.6110076904297:
                                                        return 0.3854180595855524
                                                    else:
                                                        return 0.40546510810816455
                                            else:
                                                if f['mn'] <= 2343505.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['copy_a_per_io'] <= 0.4230060875415802:
                                                if f['copy_b_bytes'] <= 3757184.0:
                                                    if f['mat2_stride0'] <= 1479.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['pad_frac_n'] <= 0.0004966576816514134:
                                                        return 0.3884152459586883
                                                    else:
                                                        if f['mk'] <= 3865627.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                            else:
                                                return 0.0
                        else:
                            if f['copy_per_flop'] <= 0.001298651157412678:
                                if f['flops'] <= 25404297216.0:
                                    if f['align_n'] <= 1.5:
                                        if f['padded_flops_ratio'] <= 1.0015689134597778:
                                            if f['copy_per_flop'] <= 0.0004971881862729788:
                                                return 0.4006207369536984
                                            else:
                                                return 0.3208616495460049
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                if f['copy_b_bytes'] <= 20016576.0:
                                                    if f['io_bytes'] <= 194373720.0:
                                                        if f['copy_per_flop'] <= 0.00012815539230359718:
                                                            return 0.40546510810816416
                                                        else:
                                                            if f['arith_intensity'] <= 215.33039093017578:
                                                                return 0.4054651081081645
                                                            else:
                                                                return 0.4054651081081654
                                                    else:
                                                        if f['padded_flops_ratio'] <= 1.0209367275238037:
                                                            return 0.3969060209771381
                                                        else:
                                                            return 0.4054651081081645
                                                else:
                                                    return 0.3831642504302267
                                            else:
                                                if f['mat1_stride0'] <= 1427.0:
                                                    if f['copy_per_flop'] <= 0.00041495513869449496:
                                                        if f['copy_per_flop'] <= 0.0002365696127526462:
                                                            return 0.399947698270931
                                                        else:
                                                            return 0.40546510810816455
                                                    else:
                                                        if f['kn'] <= 4719662.0:
                                                            if f['dtype_fp16'] <= 0.5:
                                                                return 0.3956210519580755
                                                            else:
                                                                return 0.3501139742834259
                                                        else:
                                                            return 0.3089823733168518
                                                else:
                                                    if f['mn'] <= 2650522.0:
                                                        return 0.4044705117998614
                                                    else:
                                                        return 0.4054651081081642
                                    else:
                                        if f['copy_per_io'] <= 0.37731024622917175:
                                            if f['align_k'] <= 1.5:
                                                if f['mat1_stride1'] <= 4973.5:
                                                    if f['copy_per_io'] <= 0.3208635598421097:
                                                        if f['io_bytes'] <= 198286816.0:
                                                            if f['mat1_stride1'] <= 1142.5:
                                                                if f['padded_flops_ratio'] <= 1.0033742785453796:
                                                                    return 0.3964736572446979
                                                                else:
                                                                    return 0.40538896070331243
                                                            else:
                                                                return 0.38831024863525687
                                                        else:
                                                            return 0.37894751926200915
                                                    else:
                                                        return 0.37337074547116933
                                                else:
                                                    return 0.0
                                            else:
                                                if f['copy_per_flop'] <= 0.00024396589287789539:
                                                    if f['mat1_stride0'] <= 2653.0:
                                                        if f['mat2_stride1'] <= 574.0:
                                                            return 0.4054651081081641
                                                        else:
                                                            return 0.4014657105517231
                                                    else:
                                                        return 0.3563137945538846
                                                else:
                                                    if f['n'] <= 2846.0:
                                                        if f['align_k'] <= 3.0:
                                                            return 0.37810811632535196
                                                        else:
                                                            return 0.40538670938668253
                                                    else:
                                                        if f['io_bytes'] <= 55867174.0:
                                                            return 0.0
                                                        else:
                                                            if f['pad_frac_k'] <= 0.010601495392620564:
                                                                if f['mat2_stride0'] <= 4850.0:
                                                                    return 0.4021117225498436
                                                                else:
                                                                    return 0.34638799291711914
                                                            else:
                                                                return 0.0
                                        else:
                                            if f['align_k'] <= 1.5:
                                                if f['mn'] <= 8058880.0:
                                                    if f['padded_flops_ratio'] <= 1.0037176609039307:
                                                        return 0.374868623197118
                                                    else:
                                                        return 0.4054651081081645
                                                else:
                                                    return 0.0
                                            else:
                                                if f['padded_flops_ratio'] <= 1.0034475326538086:
                                                    return 0.0
                                                else:
                                                    if f['flops'] <= 21935258624.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.0009775012149475515:
                                        if f['mk'] <= 511805.5:
                                            if f['copy_b_bytes'] <= 11795328.0:
                                                if f['copy_per_flop'] <= 0.000234279410506133:
                                                    return 0.397656599145205
                                                else:
                                                    return 0.33286984901585875
                                            else:
                                                return 0.4054050415338525
                                        else:
                                            if f['n'] <= 127.5:
                                                return 0.365753783365459
                                            else:
                                                if f['flops'] <= 29388713984.0:
                                                    if f['copy_a_bytes'] <= 17343296.0:
                                                        if f['mn'] <= 51097884.0:
                                                            if f['copy_per_flop'] <= 0.0006316274520941079:
                                                                if f['padded_flops_ratio'] <= 1.0319207906723022:
                                                                    return 0.40524244262505715
                                                                else:
                                                                    return 0.3994968404345269
                                                            else:
                                                                if f['pad_frac_k'] <= 0.003681059810332954:
                                                                    return 0.4033503745812251
                                                                else:
                                                                    return 0.36935394571422214
                                                        else:
                                                            return 0.37568951883952595
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['mk'] <= 64455632.0:
                                                        if f['align_n'] <= 1.5:
                                                            if f['mat1_stride1'] <= 7617.5:
                                                                if f['k'] <= 8191.5:
                                                                    return 0.40546510810816117
                                                                else:
                                                                    return 0.40118851051911203
                                                            else:
                                                                if f['pad_frac_m'] <= 0.000126155253383331:
                                                                    return 0.40546510810816455
                                                                else:
                                                                    return 0.389734491492161
                                                        else:
                                                            if f['copy_b_per_io'] <= 0.20163411647081375:
                                                                if f['pk'] <= 168.0:
                                                                    return 0.3988021228692357
                                                                else:
                                                                    return 0.4048589761690064
                                                            else:
                                                                if f['pk'] <= 1732.0:
                                                                    return 0.39539285881117686
                                                                else:
                                                                    return 0.40427470561170437
                                                    else:
                                                        return 0.38938534987844775
                                    else:
                                        if f['align_n'] <= 1.5:
                                            if f['io_bytes'] <= 40697540.0:
                                                return 0.3764342235055841
                                            else:
                                                if f['tf32'] <= 0.5:
                                                    if f['k'] <= 1358.0:
                                                        return 0.4054651081081645
                                                    else:
                                                        if f['copy_a_bytes'] <= 1964928.0:
                                                            return 0.40546510810816455
                                                        else:
                                                            return 0.4054651081081647
                                                else:
                                                    return 0.3941339121669481
                                        else:
                                            if f['align_k'] <= 1.5:
                                                if f['mat1_stride1'] <= 4193.5:
                                                    if f['mat1_stride1'] <= 965.0:
                                                        if f['copy_b'] <= 0.5:
                                                            return 0.398048877709097
                                                        else:
                                                            return 0.4054651081081645
                                                    else:
                                                        return 0.39068769216017
                                                else:
                                                    return 0.35746608078081726
                                            else:
                                                if f['io_bytes'] <= 57579110.0:
                                                    if f['op_addmm'] <= 0.5:
                                                        if f['copy_per_flop'] <= 0.0010933378362096846:
                                                            return 0.37954014482252185
                                                        else:
                                                            return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['kn'] <= 2693230.0:
                                                        return 0.3066531034447385
                                                    else:
                                                        if f['align_m'] <= 1.5:
                                                            if f['io_bytes'] <= 70345392.0:
                                                                return 0.368626993054893
                                                            else:
                                                                if f['copy_a_per_io'] <= 0.7096081078052521:
                                                                    return 0.40546510810816455
                                                                else:
                                                                    return 0.3941126807347158
                                                        else:
                                                            if f['flops'] <= 48918276096.0:
                                                                return 0.38768036309945597
                                                            else:
                                                                if f['pad_frac_n'] <= 0.0015128731611184776:
                                                                    return 0.36293855389681995
                                                                else:
                                                                    return 0.30050884168937725
                            else:
                                if f['align_n'] <= 1.5:
                                    if f['tf32'] <= 0.5:
                                        if f['io_bytes'] <= 42357060.0:
                                            if f['mat2_stride0'] <= 936.0:
                                                return 0.0
                                            else:
                                                return 0.4054651081081645
                                        else:
                                            if f['n'] <= 8085.0:
                                                if f['copy_per_flop'] <= 0.001959205255843699:
                                                    if f['mat1_stride1'] <= 612.0:
                                                        if f['copy_per_io'] <= 0.93018439412117:
                                                            return 0.4054651081081652
                                                        else:
                                                            return 0.40506887092691907
                                                    else:
                                                        if f['pad_frac_m'] <= 0.0019000135944224894:
                                                            return 0.4054651081081642
                                                        else:
                                                            return 0.40401118890720167
                                                else:
                                                    if f['mn'] <= 2405406.5:
                                                        if f['arith_intensity'] <= 393.0386047363281:
                                                            return 0.4054651081081645
                                                        else:
                                                            return 0.3767219165773673
                                                    else:
                                                        if f['mk'] <= 38247874.0:
                                                            if f['padded_flops_ratio'] <= 1.0036425590515137:
                                                                return 0.4017587217503441
                                                            else:
                                                                return 0.40546510810816416
                                                        else:
                                                            return 0.39658426636298605
                                            else:
                                                return 0.37390398098134237
                                    else:
                                        if f['copy_b_bytes'] <= 32023616.0:
                                            if f['copy_per_flop'] <= 0.001436712744180113:
                                                return 0.4054651081081645
                                            else:
                                                if f['arith_intensity'] <= 649.1141357421875:
                                                    return 0.3588078927514698
                                                else:
                                                    return 0.3872293954970692
                                        else:
                                            if f['copy_a_bytes'] <= 9811936.0:
                                                return 0.36931060355673284
                                            else:
                                                return 0.28691989165037163
                                else:
                                    if f['align_k'] <= 1.5:
                                        if f['mat1_stride0'] <= 386.0:
                                            if f['align_m'] <= 1.5:
                                                if f['mn'] <= 3843969.0:
                                                    return 0.40546510810816455
                                                else:
                                                    return 0.35932386418110646
                                            else:
                                                if f['mat2_stride0'] <= 1083.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['align'] <= 6.0:
                                                return 0.0
                                            else:
                                                if f['padded_flops_ratio'] <= 1.0126858353614807:
                                                    return 0.40546510810816505
                                                else:
                                                    return 0.40306457420804415
                                    else:
                                        if f['mn'] <= 4199574.0:
                                            if f['mn'] <= 4114988.0:
                                                if f['mat1_stride0'] <= 458.0:
                                                    if f['align_m'] <= 1.5:
                                                        return 0.39425198415126306
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['copy_per_flop'] <= 0.0014937000232748687:
                                                        if f['op_addmm'] <= 0.5:
                                                            if f['padded_flops_ratio'] <= 1.0068692564964294:
                                                                if f['pad_frac_k'] <= 0.0001398601452820003:
                                                                    return 0.36272410892910256
                                                                else:
                                                                    return 0.3084484168999085
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['k'] <= 3085.0:
                                                            if f['arith_intensity'] <= 395.35289001464844:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            if f['io_bytes'] <= 65685568.0:
                                                                if f['mat2_stride0'] <= 764.0:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['copy_a_per_io'] <= 0.0658332072198391:
                                                                    return 0.3036616863597533
                                                                else:
                                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['dtype_bf16'] <= 0.5:
                                                if f['mn'] <= 5020817.0:
                                                    return 0.3960042664805842
                                                else:
                                                    if f['mn'] <= 6072007.0:
                                                        return 0.3070960063996043
                                                    else:
                                                        return 0.35868049004864316
                                            else:
                                                return 0.0
                    else:
                        if f['align_n'] <= 1.5:
                            if f['copy_per_flop'] <= 0.0028006979264318943:
                                if f['flops'] <= 20679407616.0:
                                    if f['padded_flops_ratio'] <= 1.006792664527893:
                                        if f['pad_frac_n'] <= 0.0018282513483427465:
                                            if f['copy_per_flop'] <= 0.002446478116326034:
                                                if f['pad_frac_m'] <= 0.001158775994554162:
                                                    return 0.3676322133737454
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['flops'] <= 13688268800.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['pk'] <= 4100.0:
                                            if f['mat1_stride0'] <= 214.0:
                                                return 0.0
                                            else:
                                                if f['mat2_stride0'] <= 4096.0:
                                                    if f['pad_frac_k'] <= 0.0011240568710491061:
                                                        return 0.3766279114201933
                                                    else:
                                                        return 0.40546510810816455
                                                else:
                                                    return 0.0
                                        else:
                                            if f['op_addmm'] <= 0.5:
                                                if f['pn'] <= 504.0:
                                                    return 0.36164168392078855
                                                else:
                                                    return 0.29375897376039084
                                            else:
                                                return 0.0
                                else:
                                    if f['align'] <= 6.0:
                                        if f['copy_per_flop'] <= 0.0024338022340089083:
                                            return 0.30782316895211786
                                        else:
                                            return 0.0
                                    else:
                                        if f['mat1_stride0'] <= 511.5:
                                            if f['mk'] <= 3021336.5:
                                                return 0.2868512707651314
                                            else:
                                                if f['padded_flops_ratio'] <= 1.0075722336769104:
                                                    return 0.3459159201629375
                                                else:
                                                    return 0.39864325421473507
                                        else:
                                            if f['flops'] <= 28787730432.0:
                                                if f['copy_per_flop'] <= 0.0022424047347158194:
                                                    return 0.39706588896262707
                                                else:
                                                    return 0.3537017203103614
                                            else:
                                                if f['copy_b_bytes'] <= 9781248.0:
                                                    return 0.38572640834181
                                                else:
                                                    if f['copy_per_io'] <= 0.911781519651413:
                                                        if f['flops'] <= 51137236992.0:
                                                            return 0.40546510810816455
                                                        else:
                                                            return 0.4046063261875207
                                                    else:
                                                        if f['mk'] <= 3072059.0:
                                                            return 0.3892481159421392
                                                        else:
                                                            return 0.4022570720241459
                            else:
                                if f['batch'] <= 1.5:
                                    if f['mat1_stride0'] <= 1645.0:
                                        if f['op_addmm'] <= 0.5:
                                            if f['copy_per_flop'] <= 0.003634949680417776:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['io_bytes'] <= 59385830.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['align'] <= 6.0:
                                            if f['pn'] <= 4848.0:
                                                if f['mn'] <= 2070455.5:
                                                    if f['copy_a_bytes'] <= 33619968.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['unaligned_lds'] <= 2.5:
                                                return 0.3517755947758559
                                            else:
                                                if f['mn'] <= 1016918.0:
                                                    return 0.0
                                                else:
                                                    if f['mat2_transposed'] <= 0.5:
                                                        if f['mn'] <= 2102026.5:
                                                            if f['pad_frac_n'] <= 0.0012700337101705372:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.2648258958665909
                                                    else:
                                                        return 0.0
                                else:
                                    if f['k'] <= 2050.5:
                                        if f['io_bytes'] <= 81800620.0:
                                            if f['copy_per_flop'] <= 0.003641655552200973:
                                                return 0.3069999677466582
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['batch'] <= 4.5:
                                            if f['padded_flops_ratio'] <= 1.018956482410431:
                                                return 0.40199164369188156
                                            else:
                                                return 0.35145899403671915
                                        else:
                                            if f['padded_flops_ratio'] <= 1.0093541145324707:
                                                return 0.25057894912516876
                                            else:
                                                if f['copy_b_bytes'] <= 44025856.0:
                                                    return 0.0
                                                else:
                                                    return 0.29317173069021424
                        else:
                            if f['align_k'] <= 1.5:
                                if f['copy_per_flop'] <= 0.0030806910945102572:
                                    if f['io_bytes'] <= 38289060.0:
                                        if f['mat1_stride0'] <= 1758.0:
                                            return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.00241989572532475:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['mat1_stride0'] <= 1189.0:
                                            if f['mat2_stride0'] <= 354.0:
                                                if f['flops'] <= 21982551040.0:
                                                    return 0.31150104473133594
                                                else:
                                                    return 0.39353202642660623
                                            else:
                                                if f['align_m'] <= 1.5:
                                                    if f['mn'] <= 2121433.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['mk'] <= 5488493.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                        else:
                                            if f['arith_intensity'] <= 456.74493408203125:
                                                if f['copy_per_io'] <= 0.9433179795742035:
                                                    if f['copy_per_flop'] <= 0.002781015820801258:
                                                        if f['copy_per_io'] <= 0.9245717227458954:
                                                            if f['io_bytes'] <= 148990176.0:
                                                                if f['mn'] <= 2674572.0:
                                                                    return 0.4054651081081645
                                                                else:
                                                                    return 0.40519498869893533
                                                            else:
                                                                return 0.3925927582842224
                                                        else:
                                                            return 0.3874487143873615
                                                    else:
                                                        return 0.36341900052669857
                                                else:
                                                    if f['flops'] <= 23423614976.0:
                                                        return 0.2597395193234571
                                                    else:
                                                        return 0.3661998785893503
                                            else:
                                                return 0.0
                                else:
                                    if f['mat1_stride0'] <= 2060.0:
                                        if f['mat2_stride1'] <= 2542.0:
                                            if f['mk'] <= 2989270.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['batch'] <= 1.5:
                                            if f['mn'] <= 1379374.0:
                                                return 0.0
                                            else:
                                                if f['copy_per_io'] <= 0.9419773519039154:
                                                    if f['pad_frac_k'] <= 0.0005088127945782617:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    return 0.2966460590701147
                                        else:
                                            return 0.3603529924878118
                            else:
                                if f['arith_intensity'] <= 412.62159729003906:
                                    if f['mat1_stride1'] <= 340.5:
                                        if f['copy_per_io'] <= 0.7716648280620575:
                                            return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.00299303128849715:
                                                if f['pad_frac_k'] <= 0.00012210012937430292:
                                                    return 0.0
                                                else:
                                                    if f['io_bytes'] <= 51504846.0:
                                                        if f['copy_b_bytes'] <= 4073728.0:
                                                            return 0.0
                                                        else:
                                                            if f['mat2_stride0'] <= 591.0:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                    else:
                                                        if f['dtype_bf16'] <= 0.5:
                                                            return 0.0
                                                        else:
                                                            if f['copy_b_bytes'] <= 68026368.0:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                            else:
                                                if f['unaligned_lds'] <= 2.5:
                                                    if f['mat1_stride0'] <= 3925.0:
                                                        return 0.0
                                                    else:
                                                        if f['copy_per_io'] <= 0.9528475403785706:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['arith_intensity'] <= 235.56988525390625:
                                                        return -0.2829511641200622
                                                    else:
                                                        if f['mat1_stride0'] <= 5469.0:
                                                            if f['mk'] <= 1687184.0:
                                                                return 0.0
                                                            else:
                                                                return 0.0
                                                        else:
                                                            return 0.0
                                    else:
                                        if f['align_m'] <= 1.5:
                                            if f['flops'] <= 28715493376.0:
                                                if f['kn'] <= 3033248.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['io_bytes'] <= 49839376.0:
                                                return 0.0
                                            else:
                                                if f['copy_b_bytes'] <= 4823808.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                else:
                                    if f['mat1_stride0'] <= 5304.0:
                                        if f['copy_per_flop'] <= 0.002219226793386042:
                                            if f['arith_intensity'] <= 427.4615173339844:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['k'] <= 4970.0:
                                                if f['arith_intensity'] <= 544.0613403320312:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['io_bytes'] <= 68013774.0:
                                            return 0.0
                                        else:
                                            return 0.0
        else:
            if f['copy_per_flop'] <= 0.007813684642314911:
                if f['op_bmm'] <= 0.5:
                    if f['align_n'] <= 1.5:
                        if f['copy_per_flop'] <= 0.00416777073405683:
                            if f['padded_flops_ratio'] <= 1.019040822982788:
                                if f['mn'] <= 1883104.5:
                                    if f['pad_frac_n'] <= 0.0006202462827786803:
                                        return 0.0
                                    else:
                                        if f['unaligned_dims'] <= 2.5:
                                            return 0.0
                                        else:
                                            if f['copy_per_io'] <= 0.9489303529262543:
                                                return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['io_bytes'] <= 70810632.0:
                                        return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['mat1_stride0'] <= 2872.0:
                                    return 0.0
                                else:
                                    if f['padded_flops_ratio'] <= 1.026357650756836:
                                        return 0.0
                                    else:
                                        return 0.29902255966798713
                        else:
                            if f['itemsize'] <= 3.0:
                                if f['unaligned_lds'] <= 2.5:
                                    if f['mat2_stride0'] <= 1125.0:
                                        if f['mat1_stride0'] <= 4440.0:
                                            return 0.0
                                        else:
                                            return 0.3322774063679328
                                    else:
                                        if f['n'] <= 5207.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['mat1_stride1'] <= 4094.5:
                                        if f['mn'] <= 465855.0:
                                            return 0.0
                                        else:
                                            if f['mat2_stride1'] <= 1681.0:
                                                if f['k'] <= 4461.5:
                                                    if f['op_addmm'] <= 0.5:
                                                        if f['pad_frac_n'] <= 0.016341470647603273:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                    else:
                                                        if f['m'] <= 232.0:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                                else:
                                                    if f['copy_per_io'] <= 0.9578355252742767:
                                                        return 0.0
                                                    else:
                                                        if f['pad_frac_m'] <= 0.00025302445283159614:
                                                            return 0.0
                                                        else:
                                                            if f['pad_frac_n'] <= 0.001830573717597872:
                                                                if f['copy_per_io'] <= 0.9729710221290588:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                if f['kn'] <= 1995327.5:
                                                                    return 0.0
                                                                else:
                                                                    return 0.0
                                            else:
                                                if f['mn'] <= 610353.5:
                                                    return 0.0
                                                else:
                                                    if f['io_bytes'] <= 44100512.0:
                                                        return 0.0
                                                    else:
                                                        if f['copy_per_flop'] <= 0.0060435011982917786:
                                                            return 0.0
                                                        else:
                                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['flops'] <= 10129935872.0:
                                    if f['tf32'] <= 0.5:
                                        if f['copy_b_bytes'] <= 31261824.0:
                                            if f['n'] <= 514.0:
                                                if f['copy_per_io'] <= 0.8546634912490845:
                                                    return -0.22305455973452576
                                                else:
                                                    return -0.2675169930561392
                                            else:
                                                if f['n'] <= 978.0:
                                                    return -0.1850502734921729
                                                else:
                                                    return -0.20966447142652483
                                        else:
                                            return -0.28871383872861117
                                    else:
                                        if f['pad_frac_k'] <= 0.0002293303914484568:
                                            return 0.0
                                        else:
                                            if f['flops'] <= 8051153664.0:
                                                if f['flops'] <= 6107323392.0:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.005489847389981151:
                                        if f['k'] <= 4057.5:
                                            return 0.0
                                        else:
                                            if f['mat2_stride0'] <= 477.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.9421036839485168:
                                            return 0.0
                                        else:
                                            return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            if f['mat1_stride0'] <= 1417.0:
                                if f['pad_frac_m'] <= 0.010038442444056273:
                                    if f['align_m'] <= 1.5:
                                        if f['k'] <= 4096.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['dtype_fp32'] <= 0.5:
                                            if f['padded_flops_ratio'] <= 1.015445053577423:
                                                return -0.40546510810816455
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.005581744248047471:
                                    if f['copy_per_io'] <= 0.9185081422328949:
                                        if f['mn'] <= 1363715.0:
                                            if f['mat2_stride0'] <= 342.0:
                                                return -0.2665060153047763
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_a_bytes'] <= 29606400.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        if f['ldb_aligned'] <= 0.5:
                                            if f['mat2_stride0'] <= 278.0:
                                                if f['pn'] <= 260.0:
                                                    if f['flops'] <= 9890672640.0:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                                else:
                                                    if f['pad_frac_n'] <= 0.0014760781778022647:
                                                        return 0.0
                                                    else:
                                                        return 0.0
                                            else:
                                                if f['copy_per_io'] <= 0.9564613401889801:
                                                    return 0.0
                                                else:
                                                    return 0.0
                                        else:
                                            if f['copy_a_bytes'] <= 3663872.0:
                                                return 0.2848366249602619
                                            else:
                                                return 0.0
                                else:
                                    if f['copy_b_bytes'] <= 2292992.0:
                                        return 0.0
                                    else:
                                        if f['pn'] <= 5584.0:
                                            if f['flops'] <= 8358740480.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                        else:
                            if f['arith_intensity'] <= 236.02556610107422:
                                if f['mat1_stride1'] <= 134.5:
                                    if f['io_bytes'] <= 35412878.0:
                                        if f['n'] <= 257.0:
                                            return -0.3682955428600218
                                        else:
                                            if f['arith_intensity'] <= 219.76893615722656:
                                                return -0.3084385923596539
                                            else:
                                                return 0.0
                                    else:
                                        if f['arith_intensity'] <= 223.91564178466797:
                                            if f['copy_per_io'] <= 0.927544504404068:
                                                return -0.3687999870977047
                                            else:
                                                if f['mn'] <= 629772.0:
                                                    return -0.37561506289783225
                                                else:
                                                    if f['flops'] <= 13315009536.0:
                                                        return -0.40546510810816416
                                                    else:
                                                        return -0.3950090629544971
                                        else:
                                            if f['mk'] <= 1671564.0:
                                                return 0.0
                                            else:
                                                return -0.3826020915112094
                                else:
                                    if f['align_m'] <= 1.5:
                                        if f['pad_frac_k'] <= 0.0002618039579829201:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['n'] <= 257.0:
                                            return -0.4038492711457576
                                        else:
                                            return -0.34901446860808144
                            else:
                                if f['tf32'] <= 0.5:
                                    if f['mat1_stride0'] <= 930.0:
                                        return 0.0
                                    else:
                                        if f['copy_a_per_io'] <= 0.7148031294345856:
                                            return -0.21853305761514547
                                        else:
                                            return -0.2730427869488631
                                else:
                                    if f['n'] <= 509.0:
                                        return 0.0
                                    else:
                                        if f['flops'] <= 11430800384.0:
                                            return 0.0
                                        else:
                                            if f['copy_a_bytes'] <= 12636544.0:
                                                return 0.0
                                            else:
                                                return 0.0
                else:
                    if f['align_n'] <= 1.5:
                        if f['k'] <= 2309.0:
                            if f['copy_per_flop'] <= 0.00420465087518096:
                                if f['mn'] <= 1136030.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['mk'] <= 3578760.5:
                                    if f['pad_frac_k'] <= 0.0052617513574659824:
                                        if f['pad_frac_k'] <= 0.0011151583748869598:
                                            if f['padded_flops_ratio'] <= 1.008307933807373:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['mat1_stride0'] <= 621.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_a_bytes'] <= 63400192.0:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['io_bytes'] <= 100299760.0:
                                if f['mn'] <= 325503.5:
                                    if f['batch'] <= 6.5:
                                        if f['kn'] <= 3741741.0:
                                            return 0.40475020217935503
                                        else:
                                            return 0.3935647091615528
                                    else:
                                        return 0.30495033375763947
                                else:
                                    if f['io_bytes'] <= 63378044.0:
                                        return 0.0
                                    else:
                                        if f['k'] <= 3596.0:
                                            return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['k'] <= 4242.0:
                                    if f['pad_frac_n'] <= 0.01271618390455842:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['padded_flops_ratio'] <= 1.0286989212036133:
                                        if f['kn'] <= 1577590.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                    else:
                        if f['align_k'] <= 1.5:
                            if f['k'] <= 1260.0:
                                if f['mat1_stride0'] <= 217.0:
                                    return 0.0
                                else:
                                    return 0.0
                            else:
                                if f['io_bytes'] <= 168105248.0:
                                    if f['kn'] <= 1214133.0:
                                        if f['dtype_bf16'] <= 0.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        if f['dtype_fp16'] <= 0.5:
                                            if f['mk'] <= 957284.5:
                                                return 0.0
                                            else:
                                                if f['io_bytes'] <= 109579288.0:
                                                    return 0.3833638117162939
                                                else:
                                                    return 0.0
                                        else:
                                            return 0.0
                                else:
                                    if f['mat1_stride0'] <= 4290.0:
                                        return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['mat1_stride1'] <= 65.0:
                                if f['copy_b_per_io'] <= 0.10576470196247101:
                                    if f['copy_per_flop'] <= 0.004293514182791114:
                                        return -0.30905319228194567
                                    else:
                                        if f['copy_a_bytes'] <= 96930944.0:
                                            return -0.36508677449564186
                                        else:
                                            return -0.40546510810816455
                                else:
                                    if f['pk'] <= 4648.0:
                                        if f['itemsize'] <= 3.0:
                                            if f['pm'] <= 224.0:
                                                return -0.3820965573648383
                                            else:
                                                return -0.32947186894770236
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                            else:
                                if f['align_m'] <= 1.5:
                                    return 0.0
                                else:
                                    if f['copy_b_per_io'] <= 0.04220602288842201:
                                        return 0.0
                                    else:
                                        return 0.0
            else:
                if f['copy_per_flop'] <= 0.015052227303385735:
                    if f['mn'] <= 261888.0:
                        if f['batch'] <= 5.5:
                            if f['mn'] <= 101218.5:
                                return 0.0
                            else:
                                if f['dtype_fp32'] <= 0.5:
                                    if f['pad_frac_m'] <= 0.0025570085272192955:
                                        return 0.0
                                    else:
                                        if f['copy_per_io'] <= 0.978222519159317:
                                            return 0.0
                                        else:
                                            return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['pad_frac_m'] <= 0.005027156788855791:
                                if f['align_n'] <= 1.5:
                                    return 0.0
                                else:
                                    if f['mat1_stride0'] <= 4287.0:
                                        return 0.0
                                    else:
                                        return -0.3757543526312187
                            else:
                                if f['mn'] <= 132603.0:
                                    return 0.0
                                else:
                                    if f['copy_per_flop'] <= 0.011172442231327295:
                                        return 0.0
                                    else:
                                        return 0.0
                    else:
                        if f['copy_per_flop'] <= 0.00807102071121335:
                            if f['padded_flops_ratio'] <= 1.0320969820022583:
                                if f['arith_intensity'] <= 123.98112487792969:
                                    if f['mat1_prepadded'] <= 0.5:
                                        if f['flops'] <= 16975945728.0:
                                            if f['mat2_stride0'] <= 127.5:
                                                if f['mn'] <= 800832.0:
                                                    return -0.3206824361687129
                                                else:
                                                    return -0.3999151918605664
                                            else:
                                                if f['k'] <= 4515.5:
                                                    return -0.4054651081081645
                                                else:
                                                    return -0.40546510810816455
                                        else:
                                            return -0.3285397601680818
                                    else:
                                        return 0.0
                                else:
                                    if f['copy_b_bytes'] <= 1699360.0:
                                        return -0.37546059017125866
                                    else:
                                        if f['copy_b_per_io'] <= 0.8393051624298096:
                                            if f['mk'] <= 17860611.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            return 0.0
                            else:
                                if f['io_bytes'] <= 81872960.0:
                                    if f['pad_frac_k'] <= 0.001467204070650041:
                                        if f['mn'] <= 597025.0:
                                            return 0.0
                                        else:
                                            if f['flops'] <= 6513848576.0:
                                                return 0.0
                                            else:
                                                return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['align_m'] <= 1.5:
                                        if f['align_n'] <= 1.5:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return 0.0
                        else:
                            if f['batch'] <= 1.5:
                                if f['arith_intensity'] <= 215.6457061767578:
                                    if f['op_addmm'] <= 0.5:
                                        if f['mat1_stride0'] <= 8191.5:
                                            if f['copy_per_io'] <= 0.9052478671073914:
                                                return -0.34277546888775323
                                            else:
                                                if f['align_k'] <= 6.0:
                                                    if f['mn'] <= 1342404.0:
                                                        if f['io_bytes'] <= 43701692.0:
                                                            return -0.38688842121415634
                                                        else:
                                                            if f['pk'] <= 4080.0:
                                                                if f['pad_frac_k'] <= 0.0008712971466593444:
                                                                    return -0.3969007404583142
                                                                else:
                                                                    return -0.40546510810816455
                                                            else:
                                                                if f['lda_aligned'] <= 0.5:
                                                                    return -0.4053181270488355
                                                                else:
                                                                    return -0.4012078871114868
                                                    else:
                                                        return -0.37768532115136877
                                                else:
                                                    return -0.37978944411300025
                                        else:
                                            return 0.0
                                    else:
                                        if f['io_bytes'] <= 60373468.0:
                                            if f['align_m'] <= 6.0:
                                                if f['pad_frac_n'] <= 0.0010700929851736873:
                                                    return -0.3883089779733506
                                                else:
                                                    return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['copy_per_flop'] <= 0.010602130088955164:
                                                if f['unaligned_lds'] <= 2.5:
                                                    return 0.0
                                                else:
                                                    if f['align_n'] <= 1.5:
                                                        return -0.3755830801753861
                                                    else:
                                                        return -0.4054651081081645
                                            else:
                                                if f['pk'] <= 4668.0:
                                                    return -0.3845014707287822
                                                else:
                                                    if f['arith_intensity'] <= 146.57849884033203:
                                                        if f['pad_frac_k'] <= 0.00017184170428663492:
                                                            return 0.0
                                                        else:
                                                            return -0.40217469954812185
                                                    else:
                                                        return -0.39205797829382605
                                else:
                                    if f['m'] <= 256.5:
                                        if f['mat1_stride0'] <= 5544.5:
                                            return -0.3821468745583467
                                        else:
                                            return -0.33874673254354026
                                    else:
                                        if f['mat2_stride0'] <= 256.5:
                                            if f['align_m'] <= 1.5:
                                                return -0.3492683720367081
                                            else:
                                                return -0.2997473767770972
                                        else:
                                            if f['mn'] <= 744759.0:
                                                return -0.3070126723656545
                                            else:
                                                if f['copy_per_io'] <= 0.9453656673431396:
                                                    return -0.2626295354700846
                                                else:
                                                    return -0.21512565800508873
                            else:
                                if f['batch'] <= 2.5:
                                    if f['mn'] <= 599727.5:
                                        return 0.0
                                    else:
                                        return 0.0
                                else:
                                    if f['arith_intensity'] <= 116.75798416137695:
                                        if f['batch'] <= 3.5:
                                            return -0.314934281589842
                                        else:
                                            if f['mn'] <= 326288.0:
                                                return -0.3330291381074615
                                            else:
                                                if f['mat2_stride1'] <= 2570.0:
                                                    if f['padded_flops_ratio'] <= 1.0595006942749023:
                                                        if f['flops'] <= 22870391808.0:
                                                            if f['padded_flops_ratio'] <= 1.0386805534362793:
                                                                return -0.4054651081081644
                                                            else:
                                                                return -0.4051471462358699
                                                        else:
                                                            return -0.3878867249985273
                                                    else:
                                                        return 0.0
                                                else:
                                                    return -0.35215460838754215
                                    else:
                                        if f['mn'] <= 505424.0:
                                            if f['copy_per_flop'] <= 0.008974087424576283:
                                                return 0.0
                                            else:
                                                return 0.0
                                        else:
                                            if f['arith_intensity'] <= 193.3938446044922:
                                                if f['k'] <= 1021.0:
                                                    return -0.3281493323745516
                                                else:
                                                    if f['m'] <= 5263.0:
                                                        return -0.4010072698999364
                                                    else:
                                                        return -0.37344429607624735
                                            else:
                                                return 0.0
                else:
                    if f['pad_frac_m'] <= 0.047667087987065315:
                        if f['copy_per_flop'] <= 0.01766098663210869:
                            if f['mn'] <= 220663.0:
                                if f['align_k'] <= 3.0:
                                    if f['flops'] <= 9952622592.0:
                                        if f['pk'] <= 4672.0:
                                            return 0.0
                                        else:
                                            return 0.0
                                    else:
                                        return -0.3684056471733325
                                else:
                                    return 0.0
                            else:
                                if f['padded_flops_ratio'] <= 1.0926579236984253:
                                    if f['copy_b_bytes'] <= 208889920.0:
                                        if f['m'] <= 63.5:
                                            return 0.0
                                        else:
                                            if f['io_bytes'] <= 80629512.0:
                                                if f['pad_frac_k'] <= 0.00027184556529391557:
                                                    return 0.0
                                                else:
                                                    return -0.3985119141671898
                                            else:
                                                if f['mat2_stride0'] <= 126.5:
                                                    if f['pad_frac_k'] <= 0.001537494477815926:
                                                        if f['arith_intensity'] <= 122.12228393554688:
                                                            if f['pad_frac_k'] <= 0.001164281798992306:
                                                                return -0.4054651081081647
                                                            else:
                                                                return -0.4054540582952709
                                                        else:
                                                            return -0.39432131048477237
                                                    else:
                                                        return -0.3883833936957682
                                                else:
                                                    if f['mn'] <= 475680.0:
                                                        return 0.0
                                                    else:
                                                        if f['kn'] <= 559122.0:
                                                            return -0.3695059385742935
                                                        else:
                                                            if f['pad_frac_m'] <= 0.011757348198443651:
                                                                if f['copy_per_io'] <= 0.9613466858863831:
                                                                    return -0.4043328546387238
                                                                else:
                                                                    return 0.0
                                                            else:
                                                                return -0.3957032055875476
                                    else:
                                        return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['mn'] <= 66446.5:
                                return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.03167494758963585:
                                    if f['copy_per_io'] <= 0.9953294992446899:
                                        if f['mn'] <= 366911.0:
                                            if f['arith_intensity'] <= 82.75354385375977:
                                                if f['copy_per_flop'] <= 0.018758201971650124:
                                                    return -0.37726866264593645
                                                else:
                                                    if f['copy_b_per_io'] <= 0.0055628621485084295:
                                                        if f['pad_frac_m'] <= 0.0006181783101055771:
                                                            return -0.40370523352150084
                                                        else:
                                                            return -0.3888588180252836
                                                    else:
                                                        if f['dtype_bf16'] <= 0.5:
                                                            return -0.40546510810816433
                                                        else:
                                                            if f['mat1_stride0'] <= 2195.5:
                                                                return -0.4054651081081645
                                                            else:
                                                                return -0.4054651081081645
                                            else:
                                                return -0.3713837236526349
                                        else:
                                            return -0.40546510810816494
                                    else:
                                        if f['align_m'] <= 3.0:
                                            return -0.40359095133269296
                                        else:
                                            return 0.0
                                else:
                                    if f['pm'] <= 3024.0:
                                        return -0.4054651081081641
                                    else:
                                        return -0.4054651081081648
                    else:
                        if f['pn'] <= 3576.0:
                            if f['copy_b_bytes'] <= 110372864.0:
                                return 0.0
                            else:
                                if f['copy_per_flop'] <= 0.029042980633676052:
                                    return 0.0
                                else:
                                    return 0.0
                        else:
                            if f['io_bytes'] <= 81644240.0:
                                return 0.0
                            else:
                                if f['flops'] <= 4783289856.0:
                                    return 0.0
                                else:
                                    if f['copy_a_per_io'] <= 0.011094845831394196:
                                        if f['copy_b_per_io'] <= 0.9866242110729218:
                                            if f['pad_frac_k'] <= 0.0016722454456612468:
                                                if f['io_bytes'] <= 253142104.0:
                                                    return -0.40546510810816416
                                                else:
                                                    return -0.3996518787942461
                                            else:
                                                return -0.38841375469076017
                                        else:
                                            if f['mk'] <= 200527.5:
                                                return -0.40546510810816444
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
