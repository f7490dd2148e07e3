#!/usr/bin/env bash
# Downloads the pure-Python wheels the GPU machine lacks (it has no registry) into .whl/,
# plus a wheel of this project, so a device command can begin with scripts/device/env.sh.
#
#   bash scripts/device/fetch_wheels.sh     # here, before a device call that carries .whl
case "${1:-}" in -h|--help) sed -n '1,/^[^#]/{/^#!/d;/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; return 0 2>/dev/null || exit 0 ;; esac
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .whl
rm -rf .whl/tuner-*.whl build
PLAT="--only-binary=:all: --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64"
python3 -m pip download -q --no-deps $PLAT -d .whl \
    sqlite-utils sqlite-fts4 click-default-group tabulate python-dateutil pluggy \
    redis rich markdown-it-py mdurl pygments click pytest-timeout expecttest
python3 -m pip wheel -q --no-deps --no-build-isolation -w .whl .
ls .whl
