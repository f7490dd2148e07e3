#!/usr/bin/env bash
# Runs the GPU test suite (tests marked `gpu`) on the device machine; arguments pass through
# to pytest (a path, -k EXPR, --lf ...). With $OUT set, the log and a JUnit XML land there.
#
#   source scripts/device/env.sh && bash scripts/device/gpu_tests.sh
#   source scripts/device/env.sh && bash scripts/device/gpu_tests.sh tests/compiler/test_models_gpu.py
#
# GPU_TESTS_TOTAL_S (default 510) ends the run with SIGINT before a 9-minute device call is
# cut off, so pytest still prints its summary and writes the XML; GPU_TESTS_TIMEOUT_S (default
# 420) is the per-test limit when pytest-timeout is installed.
case "${1:-}" in -h|--help) sed -n '1,/^[^#]/{/^#!/d;/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; return 0 2>/dev/null || exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."

if ! python3 -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)"; then
    echo "gpu_tests.sh: torch sees no CUDA GPU here; these tests only run on the device machine" >&2
    exit 2
fi

# Test the checkout as it is (not a wheel built earlier): lay it out as the `tuner` package,
# entry point included, first on PYTHONPATH.
SRC=$(mktemp -d)
trap 'rm -rf "$SRC"' EXIT
python3 -c 'import sys; from pathlib import Path; sys.path.insert(0, "scripts")
from bench_compiler import lay_out_checkout; lay_out_checkout(Path(sys.argv[1]))' "$SRC" || exit 2
export PYTHONPATH="$SRC${PYTHONPATH:+:$PYTHONPATH}"
python3 -P -c 'import tuner; print("gpu_tests.sh: tuner", tuner.__version__, "from", tuner.__file__)'

# Real kernels on the GPU: CPU test folders default TRITON_INTERPRET to 1 when it is unset
# (os.environ.setdefault), and "0" keeps their setdefault from turning the interpreter on.
export TRITON_INTERPRET=0
export PYTHONUNBUFFERED=1

args=(-m gpu -q --durations=15)
if python3 -c "import pytest_timeout" 2>/dev/null; then
    args+=(-o "timeout=${GPU_TESTS_TIMEOUT_S:-420}")
fi
log=/dev/null
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    args+=(--junitxml="$OUT/gpu_tests.xml")
    log="$OUT/gpu_tests.log"
fi

nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader || true
# -P: the checkout root must not come first on sys.path, or its bare tuner/ folder (without
# cache/, compiler/ ... mapped in) would shadow the installed package
timeout -s INT -k 30 "${GPU_TESTS_TOTAL_S:-510}" python3 -P -m pytest "${args[@]}" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" = 124 ]; then
    echo "gpu_tests.sh: stopped after ${GPU_TESTS_TOTAL_S:-510} s (GPU_TESTS_TOTAL_S); run the rest with a narrower selection" >&2
fi
exit "$rc"
