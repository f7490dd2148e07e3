#!/usr/bin/env python3
"""Hugging Face `model.generate` (greedy) compiled with stock torch.compile and backend="tuner".

Random-weight decoders built from configs (no downloads): `llama` (LlamaConfig: 8 layers,
hidden 1024, intermediate 2816, 16 heads, 4 KV heads, vocab 32000) and `neox` (GPTNeoXConfig
of about the same size); bf16 on CUDA. Prompts are random token ids, attention mask all ones;
`max_new_tokens` new tokens (end-of-sequence off, so every call makes them all). Two caches:
  dynamic  HF's default dynamic KV cache; `model.forward = torch.compile(model.forward, ...)`:
           eager, inductor (stock default), inductor-dynamic (dynamic=True),
           tuner (backend="tuner"), tuner-ro (backend="tuner", mode="reduce-overhead")
  static   HF's own recipe: generate(..., cache_implementation="static",
           compile_config=CompileConfig(backend=..., mode=...)): eager (disable_compile=True),
           inductor / tuner (mode="default"), inductor-ro / tuner-ro (mode="reduce-overhead",
           CompileConfig's default)
Per (family, cache) one subprocess (fresh compiler caches, --timeout-s) builds every variant
(its own model copy; dynamo's automatic-dynamic record swapped per variant, its recompile
limit raised: the variants share the model's code), then per (batch, prompt length): each
variant's first generate (compile included), one more untimed, then --rounds rounds over the
variants in turn (GPU drift hits all alike; CUDA synced around each timing). A row per
variant: first-call seconds, median tokens/s, whether its ids equal `inductor`'s and eager's
(else the first differing new-token index), dynamo frames, and for backend="tuner" the graphs
we compiled, those that ran whole in ATen (graph fallbacks) and the ATen op fallbacks
(tuner.compiler.stats). A variant that raises records the error's first line. JSON goes to
--out after every row; a table is printed last. Compiler caches are fresh per job but shared
by its variants: the first of each backend (`inductor`, `tuner`) compiles cold, a later one
(-dynamic, -ro) may reuse its kernels, so compare first-call seconds between those two.

On the GPU machine (one (family, cache) job per command, under the device's 10 minutes: a
dynamic job compiles ~12 stock graphs at batches 1,8 (30-60 s each on 8 layers), a static one
~4; rows already measured stay in the JSON when --timeout-s stops a job):
    source scripts/device/env.sh
    python3 -P scripts/bench_generate.py --families llama --cache static --timeout-s 540 --out $OUT
    python3 -P scripts/bench_generate.py --families llama --cache dynamic --timeout-s 540 --out $OUT
    python3 -P scripts/bench_generate.py --families neox --cache dynamic --batches 8 --out $OUT
    python3 -P scripts/bench_generate.py --families llama --cache static --batches 1,8,32 \\
        --prompts 32,128 --variants eager,inductor,tuner-ro --out $OUT
On CPU (tiny configs, 8 new tokens, Triton's interpreter):
    python3 scripts/bench_generate.py --smoke --out /tmp/gen
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import copy
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FAMILIES = ("llama", "neox")
CACHES = ("dynamic", "static")
VARIANTS = {"dynamic": ("eager", "inductor", "inductor-dynamic", "tuner", "tuner-ro"),
            "static": ("eager", "inductor", "inductor-ro", "tuner", "tuner-ro")}
REFERENCES = ("inductor", "eager")     # each row says whether its ids equal these variants'


def build(family, smoke):
    """A random-weight causal LM; tiny (2 layers, hidden 64, vocab 100) with --smoke."""
    import torch
    from transformers import GPTNeoXConfig, GPTNeoXForCausalLM, LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    size = (dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, vocab_size=100) if smoke
            else dict(num_hidden_layers=8, hidden_size=1024, num_attention_heads=16, vocab_size=32000))
    if family == "llama":
        cfg = LlamaConfig(**size, intermediate_size=176 if smoke else 2816,
                          num_key_value_heads=2 if smoke else 4, max_position_embeddings=2048)
        model = LlamaForCausalLM(cfg)
    else:
        model = GPTNeoXForCausalLM(GPTNeoXConfig(**size, intermediate_size=4 * size["hidden_size"],
                                                 max_position_embeddings=2048))
    gc = model.generation_config
    gc.eos_token_id, gc.pad_token_id, gc.bos_token_id = None, 0, None   # every call makes max_new_tokens
    return model.eval()


@contextlib.contextmanager
def own_dynamo_state(states, variant):
    """Dynamo's automatic-dynamic record (the sizes it saw per frame; a size that changes
    compiles the frame again with that size symbolic) swapped to this variant's own while it
    runs: it is kept per code location, so the variants, compiling the same model code, would
    otherwise start from each other's sizes. A no-op where torch has no pgo module."""
    try:
        from torch._dynamo import pgo
        saved = pgo._CODE_STATE
        pgo._CODE_STATE = states.setdefault(variant, collections.defaultdict(pgo.CodeState))
    except (ImportError, AttributeError):
        yield
        return
    try:
        yield
    finally:
        states[variant], pgo._CODE_STATE = pgo._CODE_STATE, saved


def make_variant(base, cache, variant, device):
    """(model, generate kwargs) for one variant: its own copy of the model."""
    import torch
    from transformers import CompileConfig
    m = copy.deepcopy(base)
    backend = variant.split("-")[0]
    mode = "reduce-overhead" if variant.endswith("-ro") else "default"
    if cache == "dynamic":
        if variant != "eager":
            kw = {"dynamic": True} if variant == "inductor-dynamic" else {"mode": mode}
            m.forward = torch.compile(m.forward, backend=backend, **kw)
        return m, {}
    if variant == "eager":
        return m, {"cache_implementation": "static", "disable_compile": True}
    cc = CompileConfig(backend=backend, mode=mode)
    if device != "cuda":
        cc._compile_all_devices = True   # generate compiles on CUDA only, unless told (tests do)
    return m, {"cache_implementation": "static", "compile_config": cc}


def first_line(e):
    return f"{type(e).__name__}: {(str(e).strip().splitlines() or [''])[0][:300]}"


def worker(family, cache, variants, a, doc_path):
    import torch
    import tuner.compiler.stats as stats
    from torch._dynamo.utils import counters
    device = "cuda" if torch.cuda.is_available() and not a.smoke else "cpu"
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    # every variant's frames hang on the same model code, each new shape recompiles: past
    # dynamo's recompile limit (8 per code object) a variant would silently run eagerly
    for name, value in (("recompile_limit", 256), ("cache_size_limit", 256), ("accumulated_recompile_limit", 4096)):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, value)
    torch._dynamo.config.automatic_dynamic_local_pgo = False   # nothing read from or left on disk
    states = {}
    stats.KEEP_GRAPHS = max(stats.KEEP_GRAPHS, 256)
    base = build(family, a.smoke).to(device=device, dtype=dtype)
    built, broken = {}, {}
    for v in variants:
        try:
            built[v] = make_variant(base, cache, v, device)
        except Exception as e:   # noqa: BLE001  (recorded per row)
            broken[v] = first_line(e)
    del base
    new_tokens = a.max_new_tokens

    def sync():
        if device == "cuda":
            torch.cuda.synchronize()

    def generate(v, ids):
        m, kw = built[v]
        sync()
        t = time.perf_counter()
        with torch.no_grad(), own_dynamo_state(states, v):
            out = m.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=new_tokens,
                             do_sample=False, **kw)
        sync()
        return out, time.perf_counter() - t

    for b in a.batches:
        for p in a.prompts:
            g = torch.Generator(device="cpu").manual_seed(b * 1000 + p)
            ids = torch.randint(0, built_vocab(built, a.smoke), (b, p), generator=g).to(device)
            rows, outs = {}, {}
            for v in variants:
                row = rows[v] = {"family": family, "cache": cache, "batch": b, "prompt": p, "variant": v}
                if v in broken:
                    row["error"] = broken[v]
                    continue
                last = max((s.graph for s in stats.graphs()), default=0)
                frames = counters["stats"]["unique_graphs"]
                try:
                    outs[v], row["first_call_s"] = generate(v, ids)
                    row["second_call_s"] = generate(v, ids)[1]
                except Exception as e:   # noqa: BLE001
                    row["error"] = first_line(e)
                row["frames"] = counters["stats"]["unique_graphs"] - frames
                if v.startswith("tuner"):
                    mine = [s for s in stats.graphs() if s.graph > last]
                    row["tuner_graphs"] = len(mine)
                    row["graph_fallbacks"] = [s.graph_fallback for s in mine if s.graph_fallback]
                    row["op_fallbacks"] = dict(sum((s.fallbacks for s in mine), collections.Counter()))
            seconds = {v: [] for v in outs}
            for _ in range(a.rounds):
                for v in list(seconds):
                    try:
                        seconds[v].append(generate(v, ids)[1])
                    except Exception as e:   # noqa: BLE001
                        rows[v]["error"] = first_line(e)
                        del seconds[v]
            for v, row in rows.items():
                if seconds.get(v):
                    made = b * (outs[v].shape[1] - p)
                    row["seconds_rounds"] = seconds[v]
                    row["tokens_per_s"] = made / statistics.median(seconds[v])
                for ref in REFERENCES:
                    if v in outs and ref in outs:
                        row[f"same_as_{ref}"], row[f"first_diff_vs_{ref}"] = compare(outs[v], outs[ref], p)
                append_row(doc_path, row)


def built_vocab(built, smoke):
    return next(iter(built.values()))[0].config.vocab_size if built else (100 if smoke else 32000)


def compare(out, ref, prompt):
    """(ids equal, index of the first new token where any sequence differs, or None)."""
    if out.shape != ref.shape:
        return False, 0
    differs = (out[:, prompt:] != ref[:, prompt:]).any(dim=0).nonzero()
    return (True, None) if len(differs) == 0 else (False, int(differs[0]))


def append_row(doc_path, row):
    doc = json.loads(doc_path.read_text())
    doc["rows"].append(row)
    doc_path.write_text(json.dumps(doc, indent=1))
    print(json.dumps(row), flush=True)


def _csv(text, cast=str):
    return [cast(x.strip()) for x in text.split(",") if x.strip()]


def main(argv=None):
    desc, _, ex = __doc__.partition("On the GPU machine")
    p = argparse.ArgumentParser(description=desc, epilog="examples, on the GPU machine" + ex,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--families", default=",".join(FAMILIES), help=f"comma-separated, of {', '.join(FAMILIES)}")
    p.add_argument("--cache", default=",".join(CACHES), help="comma-separated, of dynamic, static")
    p.add_argument("--variants", default=None,
                   help="comma-separated; default every variant of each cache: "
                        + "; ".join(f"{c}: {', '.join(v)}" for c, v in VARIANTS.items()))
    p.add_argument("--batches", default=None, help="comma-separated batch sizes (default 1,8; --smoke 1,2)")
    p.add_argument("--prompts", default=None, help="comma-separated prompt lengths (default 128; --smoke 8)")
    p.add_argument("--max-new-tokens", type=int, default=None, help="default 64 (--smoke 8)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds (median; default 3)")
    p.add_argument("--smoke", action="store_true", help="tiny configs on CPU (Triton interpreter)")
    p.add_argument("--out", default="bench/results/generate", help="folder for the JSON result")
    p.add_argument("--timeout-s", type=float, default=1800, help="per (family, cache) subprocess")
    p.add_argument("--worker", nargs=3, metavar=("FAMILY", "CACHE", "DOC"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    a.batches = _csv(a.batches or ("1,2" if a.smoke else "1,8"), int)
    a.prompts = _csv(a.prompts or ("8" if a.smoke else "128"), int)
    a.max_new_tokens = a.max_new_tokens or (8 if a.smoke else 64)
    families, caches = _csv(a.families), _csv(a.cache)
    variants = _csv(a.variants) if a.variants else None
    known = set(VARIANTS["dynamic"]) | set(VARIANTS["static"])
    bad = ([f for f in families if f not in FAMILIES] + [c for c in caches if c not in CACHES]
           + [v for v in variants or () if v not in known])
    if bad:
        p.error(f"unknown {', '.join(bad)}; families: {', '.join(FAMILIES)}; caches: {', '.join(CACHES)}; "
                f"variants: {', '.join(sorted(known))}")
    if a.rounds < 1 or a.max_new_tokens < 1 or min(a.batches + a.prompts, default=0) < 1:
        p.error("--rounds, --max-new-tokens, --batches and --prompts must be >= 1")

    def chosen(cache):
        return [v for v in VARIANTS[cache] if variants is None or v in variants]
    if a.worker:
        family, cache, doc = a.worker
        worker(family, cache, chosen(cache), a, Path(doc))
        return 0
    import torch
    import transformers
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _results_doc import cold_cache_env, new_document
    device = "cuda" if torch.cuda.is_available() and not a.smoke else "cpu"
    doc, path = new_document("generate", argv, device, a.out)
    del doc["cases"]
    doc.update(transformers=transformers.__version__, device=device, max_new_tokens=a.max_new_tokens,
               batches=a.batches, prompts=a.prompts, rounds=a.rounds, rows=[], jobs=[])
    path.write_text(json.dumps(doc, indent=1))
    for family in families:
        for cache in caches:
            with tempfile.TemporaryDirectory() as tmp:   # fresh compiler caches per job
                env = cold_cache_env(tmp, a.smoke)
                cmd = [sys.executable, *(["-P"] if sys.flags.safe_path else []), __file__,
                       "--worker", family, cache, str(path)]
                for flag in ("batches", "prompts", "max_new_tokens", "rounds", "variants"):
                    value = getattr(a, flag)
                    if value is not None:
                        value = ",".join(map(str, value)) if isinstance(value, list) else str(value)
                        cmd += [f"--{flag.replace('_', '-')}", value]
                cmd += ["--smoke"] if a.smoke else []
                print(f"== {family} {cache}", file=sys.stderr, flush=True)
                t = time.perf_counter()
                try:
                    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=a.timeout_s)
                    err = None if r.returncode == 0 else \
                        (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[-1][:300]
                except subprocess.TimeoutExpired:
                    err = f"timed out after {a.timeout_s:.0f} s"
            doc = json.loads(path.read_text())   # the worker appended its rows
            doc["jobs"].append({"family": family, "cache": cache, "seconds": time.perf_counter() - t,
                                "error": err})
            path.write_text(json.dumps(doc, indent=1))
            if err:
                print(f"== {family} {cache}: {err}", file=sys.stderr, flush=True)
    print(table(json.loads(path.read_text())))
    print(f"wrote {path}")
    return 0


def table(doc):
    lines = [f"{'family':6} {'cache':7} {'shape':>7} {'variant':16} {'first s':>8} {'tok/s':>9} "
             f"{'vs ind':>6} {'=ind':>4} {'=eag':>4} {'frames':>6}  tuner graphs/ATen"]
    speed = {(r["family"], r["cache"], r["batch"], r["prompt"]): r.get("tokens_per_s")
             for r in doc["rows"] if r["variant"] == "inductor"}
    for r in doc["rows"]:
        key = (r["family"], r["cache"], r["batch"], r["prompt"])
        shape = f"{r['batch']}x{r['prompt']}"
        head = f"{r['family']:6} {r['cache']:7} {shape:>7} {r['variant']:16}"
        if "tokens_per_s" not in r:
            lines.append(f"{head} error: {r.get('error', 'no timing')}")
            continue
        ind = speed.get(key)

        def same(ref):
            s = r.get(f"same_as_{ref}")
            return "-" if s is None else "yes" if s else f"@{r[f'first_diff_vs_{ref}']}"
        extra = ""
        if "tuner_graphs" in r:
            extra = f"  {r['tuner_graphs']}/{len(r['graph_fallbacks'])}" + \
                (f" ops: {r['op_fallbacks']}" if r["op_fallbacks"] else "")
        ratio = f"{r['tokens_per_s'] / ind:.2f}" if ind else "-"
        lines.append(f"{head} {r['first_call_s']:8.1f} {r['tokens_per_s']:9.1f} {ratio:>6} {same('inductor'):>4} "
                     f"{same('eager'):>4} {r['frames']:>6}{extra}")
    for j in doc.get("jobs", []):
        if j["error"]:
            lines.append(f"{j['family']} {j['cache']}: {j['error']}")
    lines.append("first s: first generate (compile included); tok/s: new tokens per second, median of "
                 "interleaved rounds; vs ind: over `inductor` of the same cache; =ind/=eag: ids equal, or "
                 "@i the first differing new token; frames: dynamo compiles at this shape; tuner graphs/ATen: "
                 "graphs we compiled / those run whole in ATen, ops: ATen op fallbacks")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
