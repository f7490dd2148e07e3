import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "scripts" / "bench_cache.py"


@pytest.mark.slow
def test_bench_cache_smoke_writes_its_json(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--smoke", "--procs", "2", "--out",
                        str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = json.loads((tmp_path / "cache_bench_smoke.json").read_text())
    assert {"local_hit", "remote_hit", "remote_get_only"} <= set(out["latency"])
    assert [run["procs"] for run in out["write_throughput"]["local"]] == [1, 2]
    assert out["machine"]["cores"] and out["machine"]["torch"]
    assert "hit latency" in r.stdout
