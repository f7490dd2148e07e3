#!/usr/bin/env bash
# Sets up a fresh machine for development and tests: a Redis server (the remote-cache tests
# start their own on a free loopback port), PyTorch, and this package with its test extras
# (and timm for the model zoo).
#
#   bash scripts/setup.sh
case "${1:-}" in -h|--help) sed -n '1,/^[^#]/{/^#!/d;/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; return 0 2>/dev/null || exit 0 ;; esac
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

if ! command -v redis-server >/dev/null; then
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi
# A CPU build of torch where none is installed (the GPU machine brings its own CUDA build).
if ! python3 -c "import torch" 2>/dev/null; then
    python3 -m pip install -q torch==2.13.0
fi
python3 -m pip install -q -e '.[test]'
# timm for the model zoo (tests/models), without its declared dependencies: it requires
# torchvision, and PyPI's torchvision pulls a CUDA torch over our CPU build (and cannot load
# against it). tests/models/conftest.py puts a stand-in torchvision on the path for timm's
# imports. So timm is not in the test extra; its real dependencies are installed here.
python3 -m pip install -q --no-deps timm==1.0.31
python3 -m pip install -q huggingface_hub safetensors pyyaml
redis-server --version
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
