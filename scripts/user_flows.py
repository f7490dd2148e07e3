#!/usr/bin/env python3
"""What a new user does with backend="tuner", on CPU (Triton's interpreter): HF `generate` with
the default DynamicCache and a static cache (tokens must be identical), `dynamic=True`,
`fullgraph=True`, `mark_dynamic`, four shapes through one compiled model, no_grad /
inference_mode / train-eval toggles, bf16 autocast and bf16 models, options and modes (bad
names must fail naming the valid ones), and three-step AdamW training loops with the model and
optionally `opt.step` compiled; each against eager. Models are the test zoo's
(tests/models/model_zoo.py). Each (flow, model) runs in its own process; a row per pair goes
to OUT/results.json, each log to OUT/logs/, and a markdown table is printed at the end.

    python3 scripts/user_flows.py --list
    python3 scripts/user_flows.py -j 2 --out /tmp/flows            # every flow
    python3 scripts/user_flows.py generate train_step:gpt2         # a flow, or flow:model

FLOWS_BACKEND=aot_eager runs the same flows through a stock backend (compile counts to compare).
Results of 2026-11-27: bench/results/breadth/user_flows_20261127_cpu.json.
"""
import os
import sys
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")
REPO = str(Path(__file__).resolve().parent.parent)
sys.path.insert(0, f"{REPO}/tests/models")
import argparse, json, subprocess, tempfile, time, traceback  # noqa: E401,E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

BACKEND = os.environ.get("FLOWS_BACKEND", "tuner")
FP32 = dict(rtol=1e-3, atol=1e-4)
BF16 = dict(rtol=2e-2, atol=2e-2)


def setup():
    import torch
    from zoo_run import use_torchvision_stand_in
    use_torchvision_stand_in()
    torch._dynamo.config.automatic_dynamic_local_pgo = False


class Mismatch(Exception):
    pass


PHASE = ["build"]


def ph(p):
    PHASE[0] = p


def compare(out, ref, tol, what):
    import torch
    from model_zoo import flatten
    got, want = flatten(out), flatten(ref)
    if list(got) != list(want):
        raise Mismatch(f"{what}: structure {list(got)[:3]} vs {list(want)[:3]}")
    for k in want:
        if got[k].shape != want[k].shape:
            raise Mismatch(f"{what} {k}: shape {tuple(got[k].shape)} vs {tuple(want[k].shape)}")
        try:
            torch.testing.assert_close(got[k].float(), want[k].float(), equal_nan=True, **tol)
        except AssertionError as e:
            raise Mismatch(f"{what} {k}: " + " ".join(str(e).split("\n")[1:4]))


SEQ_MODELS = ("gpt2", "llama", "bert", "t5")
MODELS = SEQ_MODELS + ("timm_resnet18", "timm_vit_tiny")


def build(name):
    from model_zoo import CASES
    m = CASES[name].build()
    m.eval()
    return m


def inputs(name, b, s):
    """batch b, sequence s (images: resolution s for resnet, 32 for vit)."""
    import torch
    g = torch.Generator().manual_seed(1000 * b + s)
    if name == "t5":
        return {"input_ids": torch.randint(3, 100, (b, s), generator=g),
                "decoder_input_ids": torch.randint(3, 100, (b, max(2, s // 2)), generator=g)}
    if name in SEQ_MODELS:
        return {"input_ids": torch.randint(3, 100, (b, s), generator=g)}
    r = 32 if name == "timm_vit_tiny" else s * 4
    return {"x": torch.randn(b, 3, r, r, generator=g)}


SHAPES = [(2, 8), (3, 12), (4, 6), (1, 10)]


def top_compiles(compiled, model):
    from zoo_run import top_frame_compiles
    try:
        return top_frame_compiles(compiled, model)[1]
    except Exception:  # noqa: BLE001
        return -1


# --------------------------------------------------------------------------- flows

def flow_generate(name, cache=None):
    import torch
    model = build(name)
    g = torch.Generator().manual_seed(5)
    ids = torch.randint(3, 100, (2, 6), generator=g)
    kw = dict(max_new_tokens=10, do_sample=False, min_new_tokens=10)
    if cache:
        kw["cache_implementation"] = cache
    if model.config.pad_token_id is None:
        kw["pad_token_id"] = 0
    ph("eager generate")
    with torch.no_grad():
        ref = model.generate(ids, attention_mask=torch.ones_like(ids), **kw)
    ph("compiled generate")
    model.forward = torch.compile(model.forward, backend=BACKEND)
    with torch.no_grad():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), **kw)
    ph("compare")
    if not torch.equal(out, ref):
        raise Mismatch(f"tokens differ:\n{out.tolist()}\nvs\n{ref.tolist()}")
    fn = model.forward._torchdynamo_orig_callable
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list
    return len(_debug_get_cache_entry_list(getattr(fn, "__func__", fn).__code__))


def flow_generate_static(name):
    return flow_generate(name, "static")


def _shapes_run(name, shapes, tol=FP32, model=None, kwargs_of=None, context=None, **ckw):
    """Each shape through one compiled model (default: the zoo's, on its inputs) under no_grad
    and `context`, against eager; the top frame's compile count."""
    import contextlib

    import torch
    model = build(name) if model is None else model
    kwargs_of = kwargs_of or (lambda b, s: inputs(name, b, s))
    compiled = torch.compile(model, **ckw)
    for b, s in shapes:
        kw = kwargs_of(b, s)
        with torch.no_grad(), (context or contextlib.nullcontext)():
            ph(f"eager {b}x{s}")
            ref = model(**kw)
            ph(f"compiled {b}x{s}")
            out = compiled(**kw)
        ph(f"compare {b}x{s}")
        compare(out, ref, tol, f"{b}x{s}")
    return top_compiles(compiled, model)


def flow_dynamic(name):
    n = _shapes_run(name, SHAPES[:3], backend=BACKEND, dynamic=True)
    if n != 1:
        raise Mismatch(f"dynamic=True compiled the top frame {n} times (want 1)")
    return n


def flow_fullgraph(name):
    import torch
    torch._dynamo.reset()
    return _shapes_run(name, SHAPES[:2], backend=BACKEND, fullgraph=True)


def flow_mark_dynamic(name):
    import torch
    model = build(name)
    compiled = torch.compile(model, backend=BACKEND)
    for b in (2, 3, 5):
        kw = inputs(name, b, 8)
        first = next(iter(kw.values()))
        torch._dynamo.mark_dynamic(first, 0)
        if name == "t5":
            torch._dynamo.mark_dynamic(kw["decoder_input_ids"], 0)
        ph(f"eager b{b}")
        with torch.no_grad():
            ref = model(**kw)
            ph(f"compiled b{b}")
            out = compiled(**kw)
        compare(out, ref, FP32, f"b{b}")
    n = top_compiles(compiled, model)
    if n != 1:
        raise Mismatch(f"mark_dynamic batch: top frame compiled {n} times (want 1)")
    return n


def flow_shapes(name):
    n = _shapes_run(name, SHAPES, backend=BACKEND)
    if n > 2:
        raise Mismatch(f"4 shapes: top frame compiled {n} times (want <= 2)")
    return n


def flow_grad_modes(name):
    import torch
    model = build(name)
    compiled = torch.compile(model, backend=BACKEND)
    kw = inputs(name, 2, 8)
    for label, ctx in (("no_grad", torch.no_grad), ("inference_mode", torch.inference_mode)):
        ph(f"eager {label}")
        with ctx():
            ref = model(**kw)
        ph(f"compiled {label}")
        with ctx():
            out = compiled(**kw)
        compare(out, ref, FP32, label)
    # train / eval toggled on the same compiled module (dropout 0 in these configs; BN differs)
    for mode in ("train", "eval", "train"):
        getattr(model, mode)()
        import copy
        ph(f"eager {mode}")
        ref_model = copy.deepcopy(model)
        with torch.no_grad():
            ref = ref_model(**kw)
            ph(f"compiled {mode}")
            out = compiled(**kw)
        compare(out, ref, FP32, mode)
        if mode == "train":   # BN running stats updated alike
            compare(dict(model.named_buffers()), dict(ref_model.named_buffers()), FP32, f"{mode} buffers")
            model.load_state_dict(ref_model.state_dict())
    return top_compiles(compiled, model)


def flow_autocast(name):
    import torch
    return _shapes_run(name, SHAPES[:2], BF16, context=lambda: torch.autocast("cpu", dtype=torch.bfloat16),
                       backend=BACKEND)


def flow_bf16(name):
    import torch
    cast = lambda v: v.to(torch.bfloat16) if v.is_floating_point() else v   # noqa: E731
    return _shapes_run(name, SHAPES[:2], BF16, model=build(name).to(torch.bfloat16),
                       kwargs_of=lambda b, s: {k: cast(v) for k, v in inputs(name, b, s).items()},
                       backend=BACKEND)


def flow_options(name):
    import torch
    model = build(name)
    kw = inputs(name, 2, 8)
    with torch.no_grad():
        ref = model(**kw)
    n = 0
    for label, ckw in (("options", dict(options={"max_persistent_r": 4096, "combo_kernels": False})),
                       ("max-autotune-no-cudagraphs", dict(mode="max-autotune-no-cudagraphs")),
                       ("max-autotune", dict(mode="max-autotune"))):
        torch._dynamo.reset()
        ph(label)
        compiled = torch.compile(model, backend="tuner", **ckw)
        with torch.no_grad():
            out = compiled(**kw)
        compare(out, ref, FP32, label)
        n += 1
    torch._dynamo.reset()
    ph("unknown option")
    try:
        compiled = torch.compile(model, backend="tuner", options={"max_persistant_r": 1})
        with torch.no_grad():
            compiled(**kw)
    except Exception as e:  # noqa: BLE001
        msg = str(e)
        if "max_persistent_r" not in msg or "max_persistant_r" not in msg:
            raise Mismatch(f"unknown option message lacks the names: {type(e).__name__}: {msg[:300]}")
        print("UNKNOWN OPTION MESSAGE:", type(e).__name__, msg.splitlines()[0][:300])
    else:
        raise Mismatch("unknown option accepted silently")
    ph("unknown mode")
    torch._dynamo.reset()
    try:
        compiled = torch.compile(model, backend="tuner", mode="fastest")
        with torch.no_grad():
            compiled(**kw)
    except Exception as e:  # noqa: BLE001
        print("UNKNOWN MODE MESSAGE:", type(e).__name__, str(e).splitlines()[0][:300])
    else:
        raise Mismatch("unknown mode accepted silently")
    return n


def _train(name, compile_model, compile_step):
    import torch
    from model_zoo import CASES
    torch.manual_seed(0)
    losses = []
    model = CASES[name].build()
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    fwd = torch.compile(model, backend=BACKEND) if compile_model else model
    step = torch.compile(opt.step, backend=BACKEND) if compile_step else opt.step
    for i in range(3):
        kw = inputs(name, 2, 8)
        if name in ("gpt2", "llama"):
            kw["labels"] = kw["input_ids"]
        if name == "t5":
            kw["labels"] = kw.pop("decoder_input_ids")
        opt.zero_grad(set_to_none=True)
        out = fwd(**kw)
        loss = getattr(out, "loss", None)
        if loss is None:
            from model_zoo import flatten
            t = next(iter(flatten(out).values()))
            loss = (t * torch.randn(t.shape, generator=torch.Generator().manual_seed(7))).sum()
        loss.backward()
        step()
        losses.append(loss.detach())
    return losses, model


def flow_train(name, compile_step=False):
    import torch
    ph("eager train")
    ref, rm = _train(name, False, False)
    ph("compiled train")
    got, gm = _train(name, True, compile_step)
    ph("compare")
    for i, (a, b) in enumerate(zip(got, ref)):
        compare(a, b, FP32, f"loss step {i}")
    compare(dict(gm.named_parameters()), dict(rm.named_parameters()), dict(rtol=1e-3, atol=1e-3), "params after 3 steps")
    return -1


def flow_train_step(name):
    return flow_train(name, compile_step=True)


FLOWS = {
    "generate": (flow_generate, ("llama", "t5")),
    "generate_static": (flow_generate_static, ("gpt2", "llama")),
    "dynamic": (flow_dynamic, ("llama", "bert", "timm_resnet18")),
    "fullgraph": (flow_fullgraph, ("gpt2", "t5", "timm_vit_tiny")),
    "mark_dynamic": (flow_mark_dynamic, ("gpt2", "timm_resnet18")),
    "shapes4": (flow_shapes, ("gpt2", "t5", "timm_resnet18")),
    "grad_modes": (flow_grad_modes, ("llama", "timm_resnet18")),
    "autocast_bf16": (flow_autocast, ("gpt2", "bert", "timm_resnet18")),
    "model_bf16": (flow_bf16, ("llama", "bert", "timm_vit_tiny")),
    "options": (flow_options, ("gpt2", "timm_resnet18")),
    "train": (flow_train, ("gpt2", "timm_resnet18")),
    "train_step": (flow_train_step, ("gpt2", "timm_resnet18")),
}


def run_one(flow, name):
    import torch
    setup()
    import tuner.compiler.stats as stats
    res = {"flow": flow, "model": name, "status": "ok", "phase": "", "error": ""}
    try:
        res["recompiles"] = FLOWS[flow][0](name)
    except Mismatch as e:
        res.update(status="mismatch", phase=PHASE[0], error=str(e)[:400])
    except Exception as e:  # noqa: BLE001
        res.update(status="error", phase=PHASE[0],
                   error=f"{type(e).__name__}: {(str(e).strip().splitlines() or [''])[0][:200]}")
        traceback.print_exc()
    t = stats.totals()
    res["fallbacks"] = dict(t.fallbacks)
    res["graph_fallbacks"] = [g.graph_fallback[:200] for g in stats.graphs() if getattr(g, "graph_fallback", "")]
    res["frames"] = dict(torch._dynamo.utils.counters["stats"])
    return res


def launch(flow, name, timeout, out):
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, __file__, "--one", flow, name], capture_output=True,
                           text=True, timeout=timeout, cwd=out)
        with open(f"{out}/logs/{flow}__{name}.log", "w") as f:
            f.write(p.stdout + "\n--- stderr ---\n" + p.stderr)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("FLOW_RESULT ")]
        if lines:
            res = json.loads(lines[-1][len("FLOW_RESULT "):])
        else:
            tail = (p.stderr.strip().splitlines() or ["?"])[-1]
            res = {"flow": flow, "model": name, "status": "error", "phase": "process", "error": f"rc={p.returncode}: {tail[:200]}"}
    except subprocess.TimeoutExpired as e:
        text = lambda b: b.decode(errors="replace") if isinstance(b, bytes) else (b or "")  # noqa: E731
        with open(f"{out}/logs/{flow}__{name}.log", "w") as f:
            f.write(text(e.stdout) + "\n--- stderr ---\n" + text(e.stderr))
        res = {"flow": flow, "model": name, "status": "timeout", "phase": "", "error": f">{timeout}s"}
    res["seconds"] = round(time.time() - t0, 1)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--one", nargs=2, metavar=("FLOW", "MODEL"), help="run one pair here, print its row")
    ap.add_argument("-j", type=int, default=2, help="pairs at a time (default 2)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per pair (default 300)")
    ap.add_argument("--out", default=None, help="folder for results.json and logs/ (default: a new temporary folder)")
    ap.add_argument("--list", action="store_true", help="list the flows and their models, and exit")
    ap.add_argument("jobs", nargs="*", help="FLOW or FLOW:MODEL (default: every flow)")
    a = ap.parse_args()
    if a.list:
        for f, (fn, models) in FLOWS.items():
            print(f"{f:16} {', '.join(models)}")
        return
    if a.one:
        res = run_one(*a.one)
        print("FLOW_RESULT " + json.dumps(res), flush=True)
        return
    pairs = [(f, m) for f, (_, models) in FLOWS.items() for m in models]
    known = set(FLOWS) | {f"{f}:{m}" for f, m in pairs}
    bad = [j for j in a.jobs if j not in known]
    if bad:
        ap.error(f"unknown {', '.join(bad)}; flows: {', '.join(FLOWS)} (FLOW:MODEL for one model, see --list)")
    jobs = [(f, m) for f, m in pairs if not a.jobs or f in a.jobs or f"{f}:{m}" in a.jobs]
    a.out = a.out or tempfile.mkdtemp(prefix="user-flows-")
    os.makedirs(f"{a.out}/logs", exist_ok=True)
    print(f"{len(jobs)} flow/model pairs, {a.j} at a time; results in {a.out}", flush=True)
    results = []
    with ThreadPoolExecutor(a.j) as ex:
        for r in ex.map(lambda fm: launch(*fm, a.timeout, a.out), jobs):
            results.append(r)
            print(f"{r['flow']:16} {r['model']:14} {r['status']:8} {r['seconds']:6}s "
                  f"{r.get('phase','')[:24]:24} {r.get('error','')[:150]}", flush=True)
    with open(f"{a.out}/results.json", "w") as f:
        json.dump(results, f, indent=1)
    print("\n| flow | model | status | phase | error | s | recompiles | ATen fallbacks |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        fb = ", ".join(f"{k}x{v}" for k, v in (r.get("fallbacks") or {}).items())
        if r.get("graph_fallbacks"):
            fb += f" WHOLE-GRAPH x{len(r['graph_fallbacks'])}"
        print(f"| {r['flow']} | {r['model']} | {r['status']} | {r.get('phase','')} | "
              f"{r.get('error','')[:160]} | {r['seconds']} | {r.get('recompiles','')} | {fb} |")


if __name__ == "__main__":
    main()
