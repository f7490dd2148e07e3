#!/usr/bin/env bash
# Collect more pad_mm timings on this machine's GPU and learn its heuristic from the committed
# data plus the new files, in one call (< 9 min).
#
#   source scripts/device/env.sh && bash scripts/collect_pad_mm_gpu.sh --out $OUT
#   bash scripts/collect_pad_mm_gpu.sh --smoke --out /tmp/pm     # CPU check, about a minute
#
# Options: --seconds N (collection budget, default 380), --samples N (problems per stream at
# most, default: as many as the budget allows; the smoke test bounds by count), --focus NAME (focused stream, default
# skinny; "none" for none), --default-share PCT (share of the budget for a default-stream shard
# with --default-seed, default 30 and 1; 0 for none), --base GLOB (earlier datasets to learn
# from too, default data/pad_mm/*.jsonl.gz; "none" for none), --check-seeds S,S (other split
# seeds to report the same rules on, default 1,2,3,4), --compare MODULE (a generated heuristic
# module to score on the new problems beside the shipped one; repeatable), --no-learn (collect
# and score only: the new files then serve as a fresh test set, e.g. --focus none
# --default-seed 3 --compare /tmp/candidate.py, a module restored with e.g. `git show
# 25d744a:bench/results/pad_mm/run11_six_files/nl0.05/pad_mm_h100.py`).
# The streams are measured one after the other (never at the same time: they would disturb
# each other's timings); a stream that runs out of time stops cleanly and learning runs
# whatever happened to collection. If the base files do not merge with the new ones (another
# GPU or torch/Triton version), it learns from the new files alone and says so.
# Files under --out (at most 8, as the device tool returns):
#   pad_mm_<gpu>_<focus>_s0.jsonl.gz, pad_mm_<gpu>_s<seed>.jsonl.gz   new datasets
#   pad_mm_<gpu>.py      the generated heuristic (copy into heuristics/artifacts/)
#   eval_table.txt, report.md (with per-seed rows and outliers), plot.png, summary.json, log.txt
set -uo pipefail
cd "$(dirname "$0")/.."

OUTDIR=${OUT:-/tmp/pad_mm_collect}   # not bench/results: keep report.md and summary.json from it there
SECONDS_TOTAL=380
DEVICE=cuda
FOCUS=skinny
DEFAULT_SHARE=30
DEFAULT_SEED=1
BASE="data/pad_mm/*.jsonl.gz"
CHECK_SEEDS=1,2,3,4
SAMPLES=200000          # an upper bound: the time budget decides how many are measured
MIN_PROBLEMS=200
COMPARE=()
LEARN_TOO=1
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUTDIR=$2; shift 2 ;;
        --seconds) SECONDS_TOTAL=$2; shift 2 ;;
        --samples) SAMPLES=$2; shift 2 ;;
        --focus) FOCUS=$2; shift 2 ;;
        --default-share) DEFAULT_SHARE=$2; shift 2 ;;
        --default-seed) DEFAULT_SEED=$2; shift 2 ;;
        --base) BASE=$2; shift 2 ;;
        --check-seeds) CHECK_SEEDS=$2; shift 2 ;;
        --compare) COMPARE+=("$2"); shift 2 ;;
        --no-learn) LEARN_TOO=0; shift ;;
        # CPU timings never merge with the committed GPU data: no base there
        --smoke) DEVICE=cpu; SECONDS_TOTAL=30; MIN_PROBLEMS=20; BASE=none; CHECK_SEEDS=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
case "$SAMPLES" in ''|0|*[!0-9]*) echo "--samples: expected a count >= 1, got $SAMPLES" >&2; exit 2 ;; esac
case "$SECONDS_TOTAL" in ''|*[!0-9]*) echo "--seconds: expected whole seconds, got $SECONDS_TOTAL" >&2; exit 2 ;; esac
case "$DEFAULT_SHARE" in ''|*[!0-9]*) echo "--default-share: expected 0..100, got $DEFAULT_SHARE" >&2; exit 2 ;; esac
if [ "$DEFAULT_SHARE" -gt 100 ]; then echo "--default-share: expected 0..100" >&2; exit 2; fi
if [ "$FOCUS" = none ] && [ "$DEFAULT_SHARE" -eq 0 ]; then
    echo "nothing to collect: --focus none and --default-share 0" >&2; exit 2
fi
[ "$FOCUS" = none ] && DEFAULT_SHARE=100
for m in ${COMPARE[@]+"${COMPARE[@]}"}; do
    [ -f "$m" ] || { echo "--compare: no such module: $m" >&2; exit 2; }
done
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
LOG="$OUTDIR/log.txt"
exec > >(tee -a "$LOG") 2>&1

# The tuner package as installed or laid out (scripts/device/env.sh puts this checkout's code
# first on PYTHONPATH); -P keeps the checkout root, whose bare tuner/ folder lacks the mapped
# cache/, compiler/ ... folders, off sys.path.
TUNER="python3 -P -m tuner.cli"

GPU=$(python3 -P - <<PY
from tuner.collect import device_metadata
from tuner.heuristics.dataset import board_slug
print(board_slug(device_metadata("$DEVICE")["gpu_name"]))
PY
)
NAME="pad_mm_${GPU:-gpu}"
DEFAULT_S=$((SECONDS_TOTAL * DEFAULT_SHARE / 100))
FOCUS_S=$((SECONDS_TOTAL - DEFAULT_S))
NEW=()

collect() {   # collect SECONDS FILE ARGS...: one whole stream (shard 0/1), stopped by the budget
    local secs=$1 file=$2; shift 2
    [ "$secs" -gt 0 ] || return 0
    echo "== $(date -u +%FT%TZ) collecting $file on $DEVICE for ${secs}s ($*)"
    # SIGINT after a grace period if it hangs; the file stays readable either way
    timeout -s INT $((secs + 60)) $TUNER collect pad_mm --device "$DEVICE" --samples $SAMPLES \
        --reps 3 --inner 10 --warmup 3 --max-seconds "$secs" --out "$OUTDIR/$file" --resume \
        --json -q "$@" || echo "collect $file exited with $? (learning from what it wrote)"
    [ -f "$OUTDIR/$file" ] && NEW+=("$OUTDIR/$file")
}

if [ "$FOCUS" != none ]; then
    collect "$FOCUS_S" "${NAME}_${FOCUS}_s0.jsonl.gz" --focus "$FOCUS" --seed 0
fi
collect "$DEFAULT_S" "${NAME}_s${DEFAULT_SEED}.jsonl.gz" --seed "$DEFAULT_SEED"
if [ ${#NEW[@]} -eq 0 ]; then echo "no dataset was written" >&2; exit 1; fi

BASE_FILES=()
if [ "$BASE" != none ]; then
    for f in $BASE; do [ -f "$f" ] && BASE_FILES+=("$f"); done
    [ ${#BASE_FILES[@]} -eq 0 ] && echo "no base datasets match $BASE: learning from the new files alone"
fi

RC=0
if [ $LEARN_TOO -eq 1 ]; then
    echo "== $(date -u +%FT%TZ) learning from ${#BASE_FILES[@]} base + ${#NEW[@]} new files"
    LEARN=$(mktemp -d)
    learn() {
        $TUNER learn "$@" --out "$LEARN" --name "$NAME" --min-problems $MIN_PROBLEMS \
            --check-seeds "$CHECK_SEEDS"
    }
    learn "${BASE_FILES[@]}" "${NEW[@]}"
    RC=$?
    if [ $RC -ne 0 ] && [ ${#BASE_FILES[@]} -gt 0 ]; then
        echo "== learning with the base files failed (exit $RC; see above): new files alone"
        learn "${NEW[@]}"
        RC=$?
    fi
    if [ $RC -eq 0 ]; then
        cp "$LEARN/$NAME.py" "$LEARN/eval_table.txt" "$LEARN/report.md" "$LEARN/summary.json" "$OUTDIR/"
        [ -f "$LEARN/plot.png" ] && cp "$LEARN/plot.png" "$OUTDIR/"
    fi
    echo "== $(date -u +%FT%TZ) done (learn exit $RC)"
fi
COMPARE_MODULES=$(printf '%s\n' "heuristics/artifacts/$NAME.py" ${COMPARE[@]+"${COMPARE[@]}"}) \
LEARN_TOO=$LEARN_TOO python3 -P - "$OUTDIR" "${NEW[@]}" <<'PY'
import json, os, sys, pathlib
out = pathlib.Path(sys.argv[1])
# How the shipped module (and any --compare module) does on the newly measured problems, none
# of which it was learned from; a module scores only data from its own GPU
from tuner.heuristics.dataset import read_datasets
from tuner.heuristics.learn import build_problems
from tuner.heuristics.render import load_module
modules = [pathlib.Path(m) for m in os.environ["COMPARE_MODULES"].split("\n") if m]
for new in sys.argv[2:]:
    try:
        ds = read_datasets([new])
        p = build_problems(ds)
    except ValueError as e:
        print(f"{new}: {e}")
        continue
    rows = {r["problem"]: r for r in ds.rows if r["choice"] == p.choices[0]}
    for path in modules:
        mod = load_module(path) if path.exists() else None
        if mod is None or ds.header.get("gpu_name") != mod.PRECONDITION.gpu_name:
            print(f"{pathlib.Path(new).name}: {len(p)} usable problems ({path} not comparable here)")
            continue
        c = w = u = big = 0
        for pid, (t0, t1) in zip(p.ids, p.times):
            ans = mod.decide(rows[pid])
            if ans is None:
                u += 1
                continue
            loss = (t1 / t0) if ans == p.choices[1] else (t0 / t1)
            w += loss > 1.02
            c += loss <= 1.02
            big += loss > 1.10
        print(f"{path} on {pathlib.Path(new).name}: {c} correct, {w} wrong "
              f"({big} losing > 10%), {u} unsure of {len(p)} ({100 * u / max(len(p), 1):.1f}% unsure)")
if os.environ["LEARN_TOO"] == "0":
    sys.exit(0)
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
print(f"\n{'seed':>4}{'correct':>9}{'wrong':>7}{'unsure%':>9}{'max_wrong':>11}{'>10%':>6}  outliers")
for r in s.get("seed_check", []):
    outl = ", ".join(f"{o['problem']}:{o['answer']}:{o['loss']:.2f}" for o in r["outliers"][:4])
    print(f"{r['seed']:>4}{r['correct']:>9}{r['wrong']:>7}{r['unsure_pct']:>9.1f}"
          f"{r['max_wrong_speedup']:>11.3f}{r['over_10pct']:>6}  {outl}")
PY
exit $RC
