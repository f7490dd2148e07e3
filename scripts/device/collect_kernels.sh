#!/usr/bin/env bash
# One device call: `tuner collect triton_kernel` for each kind, SECONDS_PER_KIND each, into
# $OUT/kernels/<kind>_<gpu>_s<seed>.jsonl.gz (<gpu>: the board lent, h100 or h200; seed $SEED),
# with compile jobs overlapping and timings serialized.
#
#   KINDS=reduction SEED=2 SECONDS_PER_KIND=300 bash scripts/device/collect_kernels.sh
case "${1:-}" in -h|--help) sed -n '1,/^[^#]/{/^#!/d;/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; return 0 2>/dev/null || exit 0 ;; esac
set -uo pipefail
source scripts/device/env.sh >/dev/null 2>&1
mkdir -p $OUT/kernels
for kind in ${KINDS:-pointwise persistent_reduction reduction pointwise_tiled}; do
  tuner collect triton_kernel --focus $kind -n ${SAMPLES:-2000} --seed ${SEED:-0} --jobs ${JOBS:-4} \
      --max-seconds ${SECONDS_PER_KIND:-120} -q -o $OUT/kernels/${kind}_${GPU_TAG:-gpu}_s${SEED:-0}.jsonl.gz 2>&1 | tail -3
done
