"""`tuner collect POINT`: measure a shard of a point's problem stream into a dataset file."""
from __future__ import annotations

import importlib
import json
import os
import queue as queue_mod
import sys
import time
import traceback

import click

from tuner.collect import device_metadata
from tuner.heuristics.dataset import DatasetError, DatasetWriter, make_header

# point name -> module with GeneratorSpec, problem(), measure(), header_fields()
POINTS = {"pad_mm": "tuner.datagen.pad_mm", "mm": "tuner.datagen.mm",
          "triton_kernel": "tuner.datagen.triton_kernel"}
RESUME_KEYS = ("seed", "shard", "generator", "focus", "reps")


def parse_shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard {text!r}: expected i/N, e.g. 0/4") from None
    if n < 1 or not 0 <= i < n:
        raise ValueError(f"--shard {text!r}: need 0 <= i < N")
    return i, n


def shard_indices(samples: int, shard: tuple[int, int]) -> range:
    """Problem i belongs to shard i % N: disjoint, and their union is the whole stream."""
    i, n = shard
    return range(i, samples, n)


def problem_key(seed: int, index: int, focus: str | None = None) -> str:
    """A problem's id: a focused stream's ids carry the focus, so they never collide with
    the default stream's (whose ids predate foci)."""
    return f"s{seed}-{index}" if focus is None else f"{focus}-s{seed}-{index}"


def _resolve_devices(device: str | None, devices: str | None) -> list[str]:
    import torch
    if devices:
        out = []
        for d in devices.split(","):
            d = d.strip()
            out.append("cpu" if d == "cpu" else d if d.startswith("cuda") else f"cuda:{int(d)}")
    else:
        out = [device or ("cuda" if torch.cuda.is_available() else "cpu")]
    if any(d != "cpu" for d in out) and not torch.cuda.is_available():
        raise ValueError("a CUDA device was asked for but torch sees no GPU (use --device cpu)")
    kinds = {d == "cpu" for d in out}
    if len(kinds) > 1:
        raise ValueError("--devices mixes cpu and cuda devices; their timings cannot share a file")
    return out


def _worker(module: str, spec, seed: int, indices: list[int], device: str, opts: dict,
            results, stop) -> None:
    try:
        mod = importlib.import_module(module)
        if device.startswith("cuda:"):   # plain "cuda" (--device cuda --jobs N): the current one
            import torch
            torch.cuda.set_device(device)
        for i in indices:
            if stop.is_set():
                break
            rows = mod.measure(mod.problem(seed, i, spec), device, seed=seed + i, **opts)
            results.put(("rows", i, rows))
        results.put(("done", device, None))
    except BaseException:  # noqa: BLE001 - report to the parent, which owns the file
        results.put(("error", device, traceback.format_exc()))


def collect(point: str, samples: int, out: str, *, shard=(0, 1), resume: bool = False,
            device: str | None = None, devices: str | None = None, seed: int = 0,
            focus: str | None = None, reps: int = 3,
            inner: int = 10, warmup: int = 3, max_seconds: float | None = None,
            progress: bool = True, jobs: int = 1) -> dict:
    """Measure this shard's problems not yet in `out`; returns a summary dict.

    jobs: worker processes per device. They prepare problems (compiles) at once and take
    turns timing (TUNER_BENCH_LOCK), for points whose measurement is mostly compiling."""
    if point not in POINTS:
        raise ValueError(f"unknown point {point!r} (known: {', '.join(POINTS)})")
    if samples < 1 or reps < 1 or inner < 1:
        raise ValueError("--samples, --reps and --inner must be >= 1")
    if jobs < 1:
        raise ValueError(f"--jobs must be >= 1, got {jobs}")
    mod = importlib.import_module(POINTS[point])
    devs = _resolve_devices(device, devices)
    foci = getattr(mod, "FOCI", {})
    if focus is not None and focus not in foci:
        raise ValueError(f"--focus {focus!r}: {point} has "
                         + (f"the foci {', '.join(sorted(foci))}" if foci else "no focused streams"))
    spec = mod.GeneratorSpec.for_device("cpu" if devs[0] == "cpu" else "cuda", focus=focus)
    fields = mod.header_fields(spec)
    header = make_header(fields.pop("point"), fields.pop("features"), fields.pop("choices"),
                         device_meta=device_metadata(devs[0]),
                         feature_schema=fields.pop("feature_schema"), **fields,
                         seed=seed, shard=f"{shard[0]}/{shard[1]}", samples=samples, reps=reps,
                         inner=inner, devices=devs, jobs=jobs)
    writer = DatasetWriter(out, header, resume=resume, resume_keys=RESUME_KEYS)
    todo = [i for i in shard_indices(samples, shard) if problem_key(seed, i, focus) not in writer.done]
    summary = {"out": str(out), "point": point, "focus": focus, "shard": f"{shard[0]}/{shard[1]}",
               "problems_in_shard": len(shard_indices(samples, shard)),
               "already_done": len(writer.done), "measured": 0, "stopped_early": False}
    deadline = time.monotonic() + max_seconds if max_seconds else None
    opts = dict(reps=reps, inner=inner, warmup=warmup)
    t0 = time.monotonic()

    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                   console=Console(stderr=True), disable=not progress, transient=False)

    def emit(i: int, rows: list[dict]) -> None:
        writer.write_problem([{"problem": problem_key(seed, i, focus), **r} for r in rows])
        summary["measured"] += 1
        bar.advance(task)

    try:
        with bar:
            what = f"{point}[{focus}]" if focus else point
            task = bar.add_task(f"{what} {summary['shard']} on {','.join(devs)}", total=len(todo))
            workers = [d for d in devs for _ in range(jobs)]
            if len(workers) == 1:
                for i in todo:
                    if deadline and time.monotonic() > deadline:
                        summary["stopped_early"] = True
                        break
                    emit(i, mod.measure(mod.problem(seed, i, spec), devs[0], seed=seed + i, **opts))
            else:
                _collect_parallel(POINTS[point], spec, seed, todo, workers, opts, emit, deadline,
                                  summary, lock=jobs > 1)
    finally:
        writer.close()
    summary["remaining"] = len(todo) - summary["measured"]
    summary["seconds"] = round(time.monotonic() - t0, 2)
    return summary


def _collect_parallel(module, spec, seed, todo, devs, opts, emit, deadline, summary, *,
                      lock: bool = False) -> None:
    # One spawned process per entry of devs measures a round-robin slice; only this process
    # writes. lock: workers share devices, so they time under one file lock (its path reaches
    # the spawned children through the environment).
    import multiprocessing as mp
    import tempfile
    from tuner.settings import environ
    ctx = mp.get_context("spawn")
    # a lock the user set already (two collects sharing a GPU) is kept
    lock_dir = tempfile.TemporaryDirectory(prefix="tuner-collect-") \
        if lock and not os.environ.get("TUNER_BENCH_LOCK") else None
    updates = {}
    if lock_dir is not None:
        updates["TUNER_BENCH_LOCK"] = os.path.join(lock_dir.name, "gpu.lock")
    if os.environ.get("TUNER_COMPILE_PROCESSES") is None:   # the workers are the compile processes
        updates["TUNER_COMPILE_PROCESSES"] = "1"
    try:
        with environ(updates):
            _run_workers(ctx, module, spec, seed, todo, devs, opts, emit, deadline, summary)
    finally:
        if lock_dir is not None:
            lock_dir.cleanup()


def _run_workers(ctx, module, spec, seed, todo, devs, opts, emit, deadline, summary) -> None:
    results, stop = ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_worker, args=(module, spec, seed, todo[w::len(devs)], d, opts,
                                               results, stop), daemon=True)
             for w, d in enumerate(devs)]
    for p in procs:
        p.start()
    active, error = len(procs), None
    try:
        while active:
            if deadline and time.monotonic() > deadline and not stop.is_set():
                stop.set()
                summary["stopped_early"] = True
            try:
                kind, who, payload = results.get(timeout=0.5)
            except queue_mod.Empty:
                if not any(p.is_alive() for p in procs):
                    break
                continue
            if kind == "rows":
                emit(who, payload)
            elif kind == "done":
                active -= 1
            else:
                error, active = f"worker on {who} failed:\n{payload}", active - 1
                stop.set()
    finally:
        stop.set()
        for p in procs:
            p.join(timeout=30)
    if error:
        raise RuntimeError(error)


@click.command("collect")
@click.argument("point", type=click.Choice(sorted(POINTS)))
@click.option("--samples", "-n", type=int, required=True,
              help="Problems in the whole stream (all shards together).")
@click.option("--out", "-o", required=True, type=click.Path(dir_okay=False),
              help="Dataset file (.jsonl, or .jsonl.gz for gzip).")
@click.option("--shard", default="0/1", show_default=True,
              help="i/N: measure the problems whose index % N == i.")
@click.option("--resume", is_flag=True, help="Continue an existing file, skipping problems already in it.")
@click.option("--device", type=click.Choice(["cuda", "cpu"]), default=None,
              help="Where to measure (default: cuda when present, else cpu with small sizes).")
@click.option("--devices", default=None, help="Comma-separated GPU indices: one worker process per GPU.")
@click.option("--jobs", "-j", type=int, default=1, show_default=True,
              help="Worker processes per device: they compile at once and take turns timing "
                   "(for points whose measurement is mostly compiling, e.g. mm).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the problem stream.")
@click.option("--focus", default=None,
              help="Measure a focused stream instead of the default one: it over-samples a region "
                   "where learned rules erred (pad_mm: 'skinny', 'prepadded'). Its problem ids "
                   "carry the name, and its files merge with default-stream ones in `tuner learn`.")
@click.option("--reps", type=int, default=3, show_default=True,
              help="Repetitions per choice (each the median of --inner runs).")
@click.option("--inner", type=int, default=10, show_default=True, help="Timed runs per repetition.")
@click.option("--warmup", type=int, default=3, show_default=True, help="Warm-up runs before timing.")
@click.option("--max-seconds", type=float, default=None,
              help="Stop measuring after this long (the file stays complete and resumable).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def collect_cmd(point, samples, out, shard, resume, device, devices, jobs, seed, focus, reps,
                inner, warmup, max_seconds, as_json, quiet):
    """Measure every choice of POINT on a seeded stream of problems and write a dataset.

    Each problem is measured for every choice (--reps repetitions of --inner runs), and
    one row per (problem, choice) is appended and flushed, so a killed run leaves a
    readable file that --resume continues. Shards (--shard i/N) are disjoint, reproducible
    slices of the same stream: run them anywhere and merge with `tuner learn`.
    """
    try:
        summary = collect(point, samples, out, shard=parse_shard(shard), resume=resume,
                          device=device, devices=devices, seed=seed, focus=focus, reps=reps, inner=inner,
                          warmup=warmup, max_seconds=max_seconds, progress=not quiet, jobs=jobs)
    except (ValueError, DatasetError, RuntimeError) as e:
        raise click.ClickException(str(e))
    except KeyboardInterrupt:
        click.echo(f"interrupted: {out} holds every problem measured so far (use --resume)", err=True)
        sys.exit(130)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        click.echo(f"{summary['out']}: measured {summary['measured']} problems "
                   f"({summary['already_done']} already there, {summary['remaining']} left) "
                   f"in {summary['seconds']} s" + (" [stopped at --max-seconds]"
                                                    if summary["stopped_early"] else ""))
