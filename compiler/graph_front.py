"""The compiled-graph cache in front of AOTAutograd (issue 53): a graph compiled before is found
from dynamo's own graph, so a hit skips the passes on that graph and AOTAutograd's trace of it
(functionalization and fake copies of every parameter: seconds for a large model, most of what
a warm process still spent after its kernels were carried).

    key(gm, example_inputs, mode, options) -> CacheKey, or None (off, or a graph it refuses)
    load(front_key, mode, options, ...)     -> (CompiledGraph, ATen-level key) or None
    Watch                                   what the compiles inside one AOTAutograd call report
    store(front_key, aten_key)              the link, once a cold compile proved it plain

An entry is a link from dynamo's graph to the ATen-level entry of compiler/graph_cache.py: it
is written only when AOTAutograd's runtime around the one graph it compiled is a pass-through
(an inference graph; no input it writes, no output that aliases an input or another output;
dynamo's inputs, all plain tensors, handed over as they are), because a hit calls the compiled
graph on dynamo's arguments directly. A link whose ATen-level entry is gone is a miss. The key
hashes dynamo's graph (each node's op, target, arguments and example value; tensor constants by
value), the inputs' metadata and whether they need gradients, the mode and options, the
settings of the passes that run on dynamo's graph as well as those of graph_cache, the global
state AOTAutograd traces under (grad mode, autocast, TF32, the default dtype), versions and
the GPU. Graphs with symbolic sizes, modules called as modules, and functions without a stable
name (a lambda, a function local to another) are refused. A link also keeps the answers of
the whole-graph points (layout, decode attention) the passes read, as the cache gave them then
(stored choice, or none: the rule); a load whose answers the cache no longer gives (measured
since, in max-autotune or on another machine) is a miss, and the compile links anew.
"""
from __future__ import annotations

import logging
import threading

import torch

from . import graph_cache
from .graph_cache import Refused, _arg, _constant, _sha, _target, _value

log = logging.getLogger(__name__)
# settings of the passes run on dynamo's graph before AOTAutograd (compiler/backend.py)
PASS_SETTINGS = ("attention_patterns", "fold_max_elements", "gqa_decode", "layout", "partitioner")
_STATE = threading.local()


def key(gm, example_inputs, mode: str, options: dict):
    """The front key of compiling gm for example_inputs; None when the cache is off or the
    graph is refused (counted in graph_cache.UNCACHEABLE with a "front: " reason)."""
    from tuner.settings import settings
    if not settings.graph_cache or not settings.cache:
        return None
    from .freeze import is_inference
    if not is_inference(example_inputs, gm):
        return None   # a training graph is never linked (Watch): no hashing, no lookup
    from tuner.graph_store import make_key
    try:
        if any(type(t) not in (torch.Tensor, torch.nn.Parameter) for t in example_inputs):
            raise Refused("an input that is not a plain tensor")
        nodes = []
        for n in gm.graph.nodes:
            if n.op == "call_module":
                raise Refused("a module called as a module")
            target = _target(n.target)
            if "<lambda>" in target or "<locals>" in target:
                raise Refused("a function without a stable name")
            val = n.meta.get("example_value", n.meta.get("val"))
            item = [n.op, n.name, target, _arg(n.args), _arg(n.kwargs),
                    _value(val) if val is not None else None]
            if n.op == "get_attr":
                item.append(_constant(gm, n.target))
            nodes.append(item)
        inputs = [[_value(t), t.requires_grad] for t in example_inputs]
        problem = _sha(["front", nodes, inputs])
    except Refused as e:
        graph_cache.refused(f"front: {e}")
        return None
    except Exception as e:   # noqa: BLE001 - a graph we cannot describe compiles as before
        graph_cache.refused(f"front: undescribable graph ({type(e).__name__})")
        return None
    names = graph_cache.CODE_SETTINGS + PASS_SETTINGS
    context = {"mode": mode, "options": {k: repr(v) for k, v in sorted(options.items())},
               "settings": {name: repr(getattr(settings, name)) for name in names},
               "state": traced_state()}
    return make_key(problem, _sha(context), graph_cache.versions())


def traced_state() -> dict:
    """The global state AOTAutograd traces under, which dynamo's graph does not show."""
    cuda = torch.backends.cuda.matmul
    return {"grad": torch.is_grad_enabled(), "default_dtype": str(torch.get_default_dtype()),
            "autocast": [[d, torch.is_autocast_enabled(d), str(torch.get_autocast_dtype(d))]
                         for d in ("cpu", "cuda")],
            "tf32": [cuda.allow_tf32, torch.backends.cudnn.allow_tf32,
                     torch.get_float32_matmul_precision()],
            "deterministic": torch.are_deterministic_algorithms_enabled()}


def load(front_key, mode: str, options: dict, load_kernel, public_ops: dict):
    """(the compiled graph, its ATen-level key) that front_key links to, or None (a miss);
    load_kernel and public_ops as graph_cache.load takes them."""
    import time

    from tuner import graph_store as graphs

    from .context import CompileContext
    start = time.perf_counter()
    link, _ = graphs.lookup(front_key)
    if not isinstance(link, dict) or not isinstance(link.get("aten"), list) or len(link["aten"]) != 3:
        return None
    from tuner.points import answers
    if not answers.still_stand(link.get("answers", [])):
        log.debug("graph cache: front link made under answers the cache no longer gives")
        return None   # (the cold compile stores a new link over it)
    aten = graphs.CacheKey(graphs.NAMESPACE, *(str(p) for p in link["aten"]))
    ctx = CompileContext(mode, options, inference=True)
    compiled = graph_cache.load(aten, ctx, start, load_kernel, public_ops)
    if compiled is None:
        return None
    compiled.stats.graph_cache += ", before AOTAutograd"
    return compiled, aten


def store(front_key, aten_key, consulted=()) -> None:
    """Link front_key to the ATen-level entry aten_key (stored after that graph's first call),
    made under the whole-graph points' answers `consulted` (tuner.points.answers.watch: the
    passes before AOTAutograd chose by them; a load checks they still stand)."""
    from tuner import graph_store as graphs
    try:
        why = graphs.store(front_key, {"aten": [aten_key.problem, aten_key.configs_hash, aten_key.backend],
                                       "answers": [list(a) for a in consulted]})
    except Exception as e:   # noqa: BLE001 - an unstored link costs a trace next time
        why = f"{type(e).__name__}: {e}"
    if why:
        log.debug("graph cache: front link not stored: %s", why)


class Watch:
    """What the graphs compiled inside one AOTAutograd call report (compile_graph calls
    `note`): their ATen-level keys, and whether each was an inference graph that AOTAutograd
    hands dynamo's inputs and outputs through unchanged."""

    def __init__(self, n_inputs: int):
        self.n_inputs = n_inputs
        self.keys: list = []
        self.graphs = 0
        self.plain = True

    def __enter__(self):
        self._outer = getattr(_STATE, "watch", None)
        _STATE.watch = self
        return self

    def __exit__(self, *exc):
        _STATE.watch = self._outer
        return False

    def link(self):
        """The one ATen-level key a plain compile produced, else None."""
        return self.keys[0] if self.plain and self.graphs == 1 and len(self.keys) == 1 else None


def note(gm, aten_key, inference: bool) -> None:
    """Called by compile_graph for each graph it compiles (hit or not), outside probes."""
    w = getattr(_STATE, "watch", None)
    if w is None:
        return
    w.graphs += 1
    if aten_key is None or not inference or not _pass_through(gm, w.n_inputs):
        w.plain = False
    else:
        w.keys.append(aten_key)


def _pass_through(gm, n_inputs: int) -> bool:
    """Whether AOTAutograd's runtime around gm (the graph being compiled now) passes dynamo's
    inputs in and gm's outputs out unchanged, read from its metadata."""
    try:
        from torch._guards import TracingContext
        tc = TracingContext.try_get()
        meta = getattr(tc, "fw_metadata", None) if tc is not None else None
        if meta is None:
            return False
        if any(getattr(i, "mutates_data", True) or getattr(i, "mutates_metadata", True)
               or getattr(i, "mutates_storage_metadata", False) for i in meta.input_info):
            return False
        if any(o.output_type.name != "non_alias" for o in meta.output_info):
            return False
        if getattr(meta, "num_intermediate_bases", 1) or getattr(meta, "tokens", None):
            return False
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        outputs = next(n for n in reversed(gm.graph.nodes) if n.op == "output").args[0]
        return (len(placeholders) == n_inputs == len(meta.input_info)
                and len(outputs) == len(meta.output_info))
    except Exception:   # noqa: BLE001 - metadata of another torch: not plain
        return False
