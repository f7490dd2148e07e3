#!/usr/bin/env bash
# One device call: per model (CASES, bench_compiler's names), the first call in default mode
# and in max-autotune-no-cudagraphs, each in a fresh process (scripts/ma_compile_split.py),
# ROUNDS times interleaved. VARIANTS (default: default ma ma-off):
#   default, ma    cold caches, the shipped heuristics
#   ma-off         cold caches, TUNER_HEURISTICS=off
#   ma-p16         as ma, with 16 compile worker processes (TUNER_COMPILE_PROCESSES=16)
#   ma-prof        as ma, the first call under cProfile (slower: for where the time goes, not
#                  for its seconds); a "profile_own"/"profile_cum" line follows its row
#   default-warm, ma-warm   two processes over the same fresh cache folders (Triton's and the
#                  tuner's): the first is recorded as <variant>up, the second (warm local
#                  caches) as the variant
#   ma-remote      a shared Redis (scripts/device/redis.sh; carry .redis) as on two machines:
#                  the first process (recorded as ma-remoteup) tunes with fresh local folders
#                  and fills an empty Redis; the second starts from other fresh local folders
#                  (nothing compiled, nothing tuned on this "machine") with the same Redis
# Any other setting (TUNER_COMPILE_WARMUP=0, TUNER_PREBUILD_BACKGROUND=0, ...): export it for the
# call. Rows (one JSON line each: first-call seconds, benchmarks, decisions by source, each measured
# decision) go to $OUT/ma_compile_table.jsonl as they finish.
#
#   CASES="gpt2 bert" ROUNDS=1 bash scripts/device/ma_compile_table.sh
#   CASES=llama8 VARIANTS="ma ma-off" bash scripts/device/ma_compile_table.sh
case "${1:-}" in -h|--help) sed -n '1,/^[^#]/{/^#!/d;/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; return 0 2>/dev/null || exit 0 ;; esac
set -uo pipefail
source scripts/device/env.sh >/dev/null 2>&1 || exit 2   # (the checkout's code first on PYTHONPATH)
[[ " ${VARIANTS:-} " == *" ma-remote "* ]] && source scripts/device/redis.sh
out=$OUT/ma_compile_table.jsonl

one() {   # label case mode heuristics [cache dir]
  echo "{\"round\": $r, \"case\": \"$2\", \"variant\": \"$1\"}" >> $out
  if [ -n "${5:-}" ]; then
    export TUNER_CACHE_DIR=$5/tuner TRITON_CACHE_DIR=$5/triton
  else
    unset TUNER_CACHE_DIR TRITON_CACHE_DIR
  fi
  if TUNER_HEURISTICS=$4 timeout 300 python3 -P scripts/ma_compile_split.py $2 $3 ${PROFILE:-} \
      >> $out 2> >(tail -3 >&2); then
    grep -h '"first_s"' $out | tail -1 | cut -c1-120
  else
    echo "{\"failed\": \"$2 $1\"}" | tee -a $out
  fi
}

for r in $(seq ${ROUNDS:-1}); do
  for case in ${CASES:-gpt2 bert vit_b16 llama8}; do
    for v in ${VARIANTS:-default ma ma-off}; do
      mode=max-autotune-no-cudagraphs; [[ $v == default* ]] && mode=default
      case $v in
        default|ma) one $v $case $mode use ;;
        ma-off) one $v $case $mode off ;;
        ma-p16) TUNER_COMPILE_PROCESSES=16 one $v $case $mode use ;;
        ma-prof) PROFILE=--profile one $v $case $mode use ;;
        default-warm|ma-warm)
          d=$(mktemp -d)
          one ${v}up $case $mode use $d
          one $v $case $mode use $d
          rm -rf $d ;;
        ma-remote)
          if [ -z "${TUNER_BENCH_REDIS_URL:-}" ]; then echo "ma-remote: no Redis (carry .redis)" >&2; continue; fi
          python3 -c "import redis, sys; redis.Redis.from_url(sys.argv[1]).flushdb()" "$TUNER_BENCH_REDIS_URL"
          d1=$(mktemp -d); d2=$(mktemp -d)
          TUNER_REMOTE_CACHE=$TUNER_BENCH_REDIS_URL one ${v}up $case $mode use $d1
          TUNER_REMOTE_CACHE=$TUNER_BENCH_REDIS_URL one $v $case $mode use $d2
          rm -rf $d1 $d2 ;;
        *) echo "unknown variant $v (see --help)" >&2; exit 2 ;;
      esac
    done
  done
done
