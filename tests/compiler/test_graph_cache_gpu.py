"""The compiled-graph cache on the GPU: a second process with the first one's cache folder
rebuilds a small transformer's CUDA graphs (default mode and reduce-overhead) without
lowering, and its outputs equal the first process's bit for bit."""
import json
import os
import subprocess
import sys

import pytest

from helpers import COUNT_LOWERINGS

pytestmark = pytest.mark.gpu

PROCESS = """
import json, sys
import torch
""" + COUNT_LOWERINGS + """torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True, dropout=0.0)
model = torch.nn.Sequential(layer, torch.nn.LayerNorm(64)).cuda().eval()
x = torch.randn(4, 32, 64, device="cuda")
fn = torch.compile(model, backend="tuner", mode=sys.argv[1])
with torch.no_grad():
    outs = [fn(x).clone() for _ in range(3)]
    ref = model(x)
import tuner.compiler.stats as stats
print(json.dumps({"lowered": lowered[0], "cache": [g.graph_cache for g in stats.graphs()],
                  "out": outs[-1].double().sum().item(), "err": (outs[-1] - ref).abs().max().item(),
                  "same": all(torch.equal(o, outs[0]) for o in outs)}))
"""


def _run(tmp_path, script, *args, **env_vars):
    """script run in a fresh process with the graph cache on (no remote cache) and env_vars;
    the JSON line it prints last. Its working folder is tmp_path, not the checkout, whose bare
    tuner/ would shadow the package."""
    env = {k: v for k, v in os.environ.items() if k not in ("TUNER_REMOTE_CACHE",)}
    env.update(TUNER_GRAPH_CACHE="1", **env_vars)
    p = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True,
                       env=env, timeout=300, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mode", ["default", "reduce-overhead"])
def test_second_process_rebuilds_cuda_graphs_from_the_cache(tmp_path, mode):
    runs = [_run(tmp_path, PROCESS, mode, TUNER_CACHE_DIR=str(tmp_path)) for _ in range(2)]
    first, second = runs
    assert first["lowered"] >= 1 and "stored" in first["cache"], first
    assert second["lowered"] == 0 and all(c.startswith("hit") for c in second["cache"]), second
    assert second["out"] == first["out"] and second["same"] and first["err"] < 1e-3, runs


BINARIES = PROCESS.replace("import tuner.compiler.stats as stats", """import tuner.compiler.stats as stats
import os
from tuner.compiler import kernel_binaries as kb
root = os.environ["TRITON_CACHE_DIR"]
ours = sorted(d for d in os.listdir(root)
              if any(f.startswith("tk_") and f.endswith(".cubin") for f in os.listdir(os.path.join(root, d))))
restored = sorted(os.path.basename(kb.cache_dir(h)) for h in kb.RESTORED if not kb.host_present(h))
hosts = sorted(d for d in os.listdir(root) if any(f.endswith(".so") for f in os.listdir(os.path.join(root, d))))
built = sorted(set(hosts) - kb.RESTORED)
from tuner.compiler.runtime import launch, static_launch""").replace(
    '"same": all(', '"ours": ours, "restored": restored, "hosts": hosts, "built": built, '
    '"static": static_launch.LOADED, "jit": launch.JIT_LAUNCHES, "same": all(')


def test_a_new_machine_loads_the_graphs_kernels_without_compiling_them(tmp_path):
    # two Triton caches, one tuner cache: the second process finds every generated kernel in
    # the entries the first stored and writes it into its own (empty) Triton cache before
    # launching; Triton then compiles none of ours (no folder with a tk_ kernel it made)
    runs = [_run(tmp_path, BINARIES, "default", TUNER_CACHE_DIR=str(tmp_path / "tuner"),
                 TRITON_CACHE_DIR=str(tmp_path / machine)) for machine in ("a", "b")]
    first, second = runs
    assert first["ours"] and not first["restored"], first
    assert second["lowered"] == 0 and all(c.startswith("hit") for c in second["cache"]), second
    assert second["restored"] and second["ours"] == second["restored"], second
    # nor does it build a host module (Triton's C launchers) that the first one built
    assert first["hosts"] and not second["built"], runs
    # it launches every kernel from its cubin through torch's static launcher: none goes
    # through Triton's JIT (compiler/runtime/static_launch.py)
    assert first["jit"] > 0 and first["static"] == 0, first
    assert second["static"] >= len(second["ours"]) and second["jit"] == 0, second
    assert second["out"] == first["out"] and second["same"], runs


def test_with_the_static_launcher_off_a_hit_launches_through_triton(tmp_path):
    runs = [_run(tmp_path, BINARIES, "reduce-overhead", TUNER_CACHE_DIR=str(tmp_path / "tuner"),
                 TRITON_CACHE_DIR=str(tmp_path / "a"), TUNER_STATIC_LAUNCH=off) for off in ("1", "0")]
    first, second = runs
    assert all(c.startswith("hit") for c in second["cache"]) and second["static"] == 0, second
    assert second["jit"] > 0 and second["out"] == first["out"], runs


SYMBOLIC = """
import json, sys
import torch
""" + COUNT_LOWERINGS + """import tuner.compiler.stats as stats
torch.manual_seed(0)
lin = torch.nn.Linear(64, 64).cuda()
def fn(x):
    return torch.softmax(lin(x).relu() * 2, dim=-1).sum(-1) + x[:, 0]
cf = torch.compile(fn, backend="tuner", dynamic=True)
errs = []
with torch.no_grad():
    for n in [int(a) for a in sys.argv[1:]]:
        x = torch.randn(n, 64, device="cuda")
        errs.append((cf(x) - fn(x)).abs().max().item())
print(json.dumps({"lowered": lowered[0], "cache": [g.graph_cache for g in stats.graphs()],
                  "symbolic": [g.symbolic for g in stats.graphs()], "err": max(errs)}))
"""


def test_a_symbolic_graph_compiled_on_one_machine_serves_other_sizes_on_another(tmp_path):
    # one cache entry for a graph with size symbols (compiler/graph_cache_sizes.py): the second
    # process calls it at sizes the first never saw, lowers nothing and matches eager
    runs = [_run(tmp_path, SYMBOLIC, *sizes, TUNER_CACHE_DIR=str(tmp_path / "cache"),
                 TRITON_CACHE_DIR=str(tmp_path / machine))
            for machine, sizes in (("a", ["37", "50"]), ("b", ["91", "300", "7"]))]
    first, second = runs
    assert first["lowered"] >= 1 and "stored" in first["cache"] and any(first["symbolic"]), first
    assert second["lowered"] == 0 and all(c.startswith("hit") for c in second["cache"]), second
    assert first["err"] < 1e-3 and second["err"] < 1e-3, runs


def test_a_symbolic_graphs_sized_kernels_launch_statically_on_a_hit(tmp_path):
    # the entry describes each sized kernel's compiled kernels in every size bucket the first
    # process launched in (runtime/static_launch.py; a bucket entered after the first call's
    # store is stored again at exit): the second process, at other sizes of those buckets,
    # launches them from their cubins, none through Triton's JIT
    script = SYMBOLIC.replace("import tuner.compiler.stats as stats", "import tuner.compiler.stats as stats\n"
                              "from tuner.compiler.runtime import launch, static_launch").replace(
        '"err": max(errs)', '"err": max(errs), "static": static_launch.LOADED, "jit": launch.JIT_LAUNCHES')
    runs = [_run(tmp_path, script, *sizes, TUNER_CACHE_DIR=str(tmp_path / "cache"),
                 TRITON_CACHE_DIR=str(tmp_path / machine))
            for machine, sizes in (("a", ["37", "300"]), ("b", ["50", "41", "400"]))]
    first, second = runs
    assert any(first["symbolic"]) and first["jit"] > 0 and first["static"] == 0, first
    assert all(c.startswith("hit") for c in second["cache"]), second
    assert second["static"] > 0 and second["jit"] == 0, second
    assert first["err"] < 1e-3 and second["err"] < 1e-3, runs
