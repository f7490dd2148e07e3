# Sourced at the start of every device command: installs the carried wheels (.whl/) and this
# project into /tmp/site and puts it on PYTHONPATH. Usage: `source scripts/device_env.sh`.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || return 1
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
export PATH=/tmp/site/bin:$PATH
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, triton, tuner; print('torch', torch.__version__, 'triton', triton.__version__, 'tuner', tuner.__version__)"
