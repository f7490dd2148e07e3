# Sourced at the start of every device command: installs this project's wheel (its `tuner` command) and only those
# carried wheels (.whl/, from scripts/device/fetch_wheels.sh) whose module the GPU machine lacks, into
# /tmp/site, puts it on PYTHONPATH, and the checkout itself before it (laid out as the package). Usage: `source scripts/device/env.sh`.
case "${1:-}" in -h|--help) sed -n '1,/^[^#]/{/^#!/d;/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; return 0 2>/dev/null || exit 0 ;; esac
_want=$(python3 - <<'PY'
import glob, importlib.util, os
modules = {"click": "click", "click_default_group": "click_default_group",
           "expecttest": "expecttest", "markdown_it_py": "markdown_it", "mdurl": "mdurl", "pluggy": "pluggy",
           "pygments": "pygments", "pytest_timeout": "pytest_timeout",
           "python_dateutil": "dateutil", "redis": "redis", "rich": "rich",
           "sqlite_fts4": "sqlite_fts4", "sqlite_utils": "sqlite_utils", "tabulate": "tabulate"}
for whl in sorted(glob.glob(".whl/*.whl")):
    dist = os.path.basename(whl).split("-")[0]
    if dist == "tuner" or importlib.util.find_spec(modules.get(dist, dist)) is None:
        print(whl)
PY
)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site $_want || return 1
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
export PATH=/tmp/site/bin:$PATH
export PYTHONUNBUFFERED=1
# The code measured is the checkout as it is, laid out as the `tuner` package first on
# PYTHONPATH (child processes and the wheel's `tuner` command import it too): a wheel in .whl/
# built before a commit once measured a setting's old default (2026-11-27)
rm -rf /tmp/tuner_checkout && mkdir -p /tmp/tuner_checkout
python3 -c 'import sys; from pathlib import Path; sys.path.insert(0, "scripts")
from bench_compiler import lay_out_checkout; lay_out_checkout(Path(sys.argv[1]))' /tmp/tuner_checkout || return 1
export PYTHONPATH=/tmp/tuner_checkout:$PYTHONPATH
_gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)
echo "$_gpu"
# the GPU lent, for names of collected files (h100, h200, ...: the tag tuner learn-configs
# names a module by), so data is never filed under another board's name
GPU_TAG=$(echo "$_gpu" | head -1 | cut -d, -f1 | tr 'A-Z' 'a-z' | grep -oE '\b[a-z][0-9]{2,}\b' | head -1)
export GPU_TAG=${GPU_TAG:-gpu}
python3 -P -c "import torch, triton, tuner; print('torch', torch.__version__, 'triton', triton.__version__, 'tuner', tuner.__version__, 'from', tuner.__file__)"
