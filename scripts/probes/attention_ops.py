"""Probe (not maintained): which attention ops a model's forward graph holds after AOTAutograd
with the tuner's decompositions (a fused SDPA kernel kept whole, or bmm + softmax), with their
dtypes, and the SDPA backend PyTorch picks for the model's own q, k, v and mask shapes.
    python3 scripts/probes/attention_ops.py bert"""
import collections, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import torch
from torch._dynamo.backends.common import aot_autograd
from functorch.compile import make_boxed_func
import bench_compiler as bc
from tuner.compiler import torch_compat

KEYS = ("attention", "bmm", "softmax", "mm.default", "addmm")
seen = collections.Counter()


def fw(gm, inputs):
    for n in gm.graph.nodes:
        if n.op == "call_function" and any(k in str(n.target) for k in KEYS):
            v = n.meta.get("val")
            vs = v if isinstance(v, (tuple, list)) else [v]
            seen[(str(n.target), tuple(str(getattr(t, "dtype", "-")).replace("torch.", "") for t in vs[:1]),
                  tuple(tuple(getattr(t, "shape", ())) for t in vs[:1]))] += 1
    return make_boxed_func(gm.forward)


case = bc.CASE_BY_NAME[sys.argv[1]]
built = case.build(False, "cuda")
x = built.make_inputs(0)
backend = aot_autograd(fw_compiler=fw, decompositions=torch_compat.decomposition_table())
with torch.no_grad():
    torch.compile(built.fn, backend=backend)(*x)
for k, n in sorted(seen.items()):
    print(n, *k)
print("math_sdp reduced precision allowed:",
      getattr(torch.backends.cuda, "fp16_bf16_reduction_math_sdp_allowed", lambda: None)())
