#!/usr/bin/env bash
# Collect pad_mm timings on this machine's GPU and learn its heuristic, in one call (< 9 min).
#
#   source scripts/device_env.sh && bash scripts/collect_pad_mm_gpu.sh --out $OUT
#   bash scripts/collect_pad_mm_gpu.sh --smoke --out /tmp/pm     # CPU check, about a minute
#
# Two shards of one seeded problem stream are measured one after the other (never at the
# same time: they would disturb each other's timings), each for half of --seconds; then
# `tuner learn` merges them. A shard that runs out of time stops cleanly, and learning runs
# whatever happened to collection. Files under --out (at most 8, as the device tool returns):
#   pad_mm_<gpu>_s0of2.jsonl.gz, pad_mm_<gpu>_s1of2.jsonl.gz   datasets (header + rows)
#   pad_mm_<gpu>.py      the generated heuristic (copy into heuristics/artifacts/)
#   eval_table.txt, report.md, plot.png, summary.json, log.txt
set -uo pipefail
cd "$(dirname "$0")/.."

OUTDIR=${OUT:-bench/results/pad_mm}
SECONDS_TOTAL=400
DEVICE=cuda
SAMPLES=200000          # an upper bound: the time budget decides how many are measured
MIN_PROBLEMS=200
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUTDIR=$2; shift 2 ;;
        --seconds) SECONDS_TOTAL=$2; shift 2 ;;
        --smoke) DEVICE=cpu; SECONDS_TOTAL=30; MIN_PROBLEMS=20; shift ;;
        -h|--help) sed -n 2,16p "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
LOG="$OUTDIR/log.txt"
exec > >(tee -a "$LOG") 2>&1

# Run this checkout's code whatever tuner wheel is installed: `python3 -m` puts the checkout
# root first on sys.path, and tuner/__init__.py maps the sibling folders into the package.
TUNER="python3 -m tuner.cli"

GPU=$(python3 - <<PY
from tuner.datagen.dataset import device_metadata
from tuner.heuristics.learn import slug
print(slug(device_metadata("$DEVICE")["gpu_name"]))
PY
)
NAME="pad_mm_${GPU:-gpu}"
echo "== $(date -u +%FT%TZ) collecting $NAME on $DEVICE for ${SECONDS_TOTAL}s"
HALF=$((SECONDS_TOTAL / 2))
for i in 0 1; do
    # SIGINT after a grace period if a shard hangs; the file stays readable either way
    timeout -s INT $((HALF + 60)) $TUNER collect pad_mm --device "$DEVICE" --samples $SAMPLES \
        --shard "$i/2" --seed 0 --reps 3 --inner 10 --warmup 3 --max-seconds "$HALF" \
        --out "$OUTDIR/${NAME}_s${i}of2.jsonl.gz" --resume --json \
        || echo "collect shard $i exited with $? (learning from what it wrote)"
done

echo "== $(date -u +%FT%TZ) learning"
LEARN=$(mktemp -d)
$TUNER learn "$OUTDIR"/${NAME}_s*of2.jsonl.gz --out "$LEARN" --name "$NAME" \
    --min-problems $MIN_PROBLEMS
RC=$?
if [ $RC -eq 0 ]; then
    cp "$LEARN/$NAME.py" "$LEARN/eval_table.txt" "$LEARN/report.md" "$LEARN/summary.json" "$OUTDIR/"
    [ -f "$LEARN/plot.png" ] && cp "$LEARN/plot.png" "$OUTDIR/"
    # the same data with the first model's rules (one threshold, every leaf answers, raw
    # features, unclipped target, no tolerance): for comparison only
    echo "== run1 rules (not shipped)"
    $TUNER learn "$OUTDIR"/${NAME}_s*of2.jsonl.gz --out "$(mktemp -d)" --name "$NAME" \
        --min-problems $MIN_PROBLEMS --tolerance 0 --clip inf --no-leaf-agreement --one-threshold \
        --raw-features --no-plot | tail -2
fi
echo "== $(date -u +%FT%TZ) done (learn exit $RC)"
python3 - "$OUTDIR" <<'PY'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
f = out / "summary.json"
if not f.exists():
    sys.exit("no summary.json: learning failed (see log.txt)")
s = json.loads(f.read_text())
b = s["best"]
print(f"\n{s['gpu_name']}: {s['problems']} problems {s['split']}, dropped {s['dropped']}")
thr = " ".join(f"{c}={b[f'threshold_{c}']:.4f}" for c in reversed(s["choices"]))
print(f"chosen max_depth={b['max_depth']} min_samples_leaf={b['min_samples_leaf']} "
      f"leaves={b['leaves']} thresholds {thr} tolerance={s['tolerance']:.0%}")
print(f"{'split':<6}{'correct':>9}{'wrong':>7}{'unsure':>8}{'total':>7}{'max_wrong':>11}")
for k in ("train", "val", "test"):
    r = b[k]
    print(f"{k:<6}{r['correct']:>9}{r['wrong']:>7}{r['unsure']:>8}{r['total']:>7}{r['max_wrong_speedup']:>11.3f}")
big = b.get("test_dims_ge_512")
if big:
    print(f"test, all dims >= 512: {big['correct']} correct, {big['wrong']} wrong, {big['unsure']} unsure of {big['total']}")
print(f"benchmarking avoided per answer: {s['bench_seconds_saved_per_answer']*1e3:.1f} ms, "
      f"per decision: {s['bench_seconds_saved_per_decision']*1e3:.1f} ms")
PY
exit $RC
