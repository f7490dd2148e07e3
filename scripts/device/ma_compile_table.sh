#!/usr/bin/env bash
# One device call: per model (CASES, bench_compiler's names), the cold first call in default
# mode, in max-autotune-no-cudagraphs with the shipped heuristics and with TUNER_HEURISTICS=off,
# each in a fresh process with fresh caches (scripts/probes/max_autotune_compile_split.py),
# ROUNDS times interleaved. Rows (one JSON line each: first-call seconds, benchmarks, decisions
# by source, each measured decision) go to $OUT/ma_compile_table.jsonl as they finish.
#
#   CASES="gpt2 bert" ROUNDS=1 bash scripts/device/ma_compile_table.sh
#   CASES=llama8 VARIANTS="ma ma-off" bash scripts/device/ma_compile_table.sh
set -uo pipefail
source scripts/device/env.sh >/dev/null 2>&1
out=$OUT/ma_compile_table.jsonl
for r in $(seq ${ROUNDS:-1}); do
  for case in ${CASES:-gpt2 bert vit_b16 llama8}; do
    for v in ${VARIANTS:-default ma ma-off}; do
      mode=max-autotune-no-cudagraphs; [ $v = default ] && mode=default
      h=use; [ $v = ma-off ] && h=off
      echo "{\"round\": $r, \"case\": \"$case\", \"variant\": \"$v\"}" >> $out
      TUNER_HEURISTICS=$h timeout 300 python3 -P scripts/probes/max_autotune_compile_split.py $case $mode \
          >> $out 2> >(tail -3 >&2) || echo "{\"failed\": \"$case $v\"}" >> $out
      grep -h '"first_s"' $out | tail -1 | cut -c1-160
    done
  done
done
