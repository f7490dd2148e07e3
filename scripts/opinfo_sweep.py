#!/usr/bin/env python3
"""OpInfo sweep (CPU): the command line of tests/compiler/opinfo_runner.py (see --help), e.g.
python3 scripts/opinfo_sweep.py --ops 'abs,add' --samples 1 --out /tmp/o.jsonl"""
import importlib.util
import os
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")   # before torch is imported
RUNNER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "tests", "compiler", "opinfo_runner.py")

if __name__ == "__main__":
    spec = importlib.util.spec_from_file_location("opinfo_runner", RUNNER)
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    sys.exit(runner.main())
