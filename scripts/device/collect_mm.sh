#!/usr/bin/env bash
# One device call: `tuner collect mm` for each epilogue class in FOCI (default: bare costly;
# "cheap" is the default stream), SECONDS_PER_FOCUS each, into $OUT/mm/mm_<focus>_<gpu>_s$SEED.jsonl.gz
# (<gpu>: the board lent, h100 or h200), compiles overlapping across JOBS worker processes and
# timings serialized. RESUME_DIR: a folder of earlier files of the same names to continue
# (copied in, then --resume; only a file of the same board resumes).
#
#   FOCI="bare costly" SECONDS_PER_FOCUS=280 bash scripts/device/collect_mm.sh
case "${1:-}" in -h|--help) sed -n '1,/^[^#]/{/^#!/d;/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; return 0 2>/dev/null || exit 0 ;; esac
set -uo pipefail
source scripts/device/env.sh >/dev/null 2>&1
mkdir -p $OUT/mm
for focus in ${FOCI:-bare costly}; do
  out=$OUT/mm/mm_${focus}_${GPU_TAG:-gpu}_s${SEED:-0}.jsonl.gz
  [ -n "${RESUME_DIR:-}" ] && [ -f "$RESUME_DIR/$(basename $out)" ] && cp "$RESUME_DIR/$(basename $out)" $out
  f=(--focus $focus); [ "$focus" = cheap ] && f=()
  tuner collect mm "${f[@]}" -n ${SAMPLES:-2000} --seed ${SEED:-0} --jobs ${JOBS:-6} --resume \
      --max-seconds ${SECONDS_PER_FOCUS:-280} -q -o $out 2>&1 | tail -4
done
