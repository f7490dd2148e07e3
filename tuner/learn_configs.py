"""`tuner learn-configs`: a kernel-config module for one kernel kind (tuner/heuristics/configs.py
learns it; the kernel-config point says which configs each problem's space would launch)."""
from __future__ import annotations

import shutil
from pathlib import Path

import click

from tuner.heuristics.cli import _ints


@click.command("learn-configs")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "-o", required=True, type=click.Path(file_okay=False),
              help="Folder for the module and its report (<name>.py, <name>.report.json).")
@click.option("--name", default=None, help="Module name (default: <kind>_<gpu>, e.g. triton_reduction_h100).")
@click.option("--max-depth", "depths", default="3,4,6,8,12", show_default=True, help="Grid of tree depths.")
@click.option("--min-samples-leaf", "leaves", default="10,20,50", show_default=True,
              help="Grid of minimum problems per leaf.")
@click.option("--leaf-tolerance", type=float, default=0.05, show_default=True,
              help="A leaf answers a config only if it is at most this fraction slower than the best "
                   "on every one of the leaf's training problems.")
@click.option("--tolerance", type=float, default=0.05, show_default=True,
              help="An answer within this fraction of a problem's best counts as good (validation).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the train/val/test split.")
@click.option("--shortlist", "shortlist_size", type=click.IntRange(0, 16), default=3, show_default=True,
              help="Configs the module names as worth measuring beside the default where it is "
                   "unsure (max-autotune measures those instead of searching).")
@click.option("--answers/--no-answers", default=True, show_default=True,
              help="--no-answers: the module is never sure (its shortlist alone ships).")
@click.option("--install", is_flag=True, help="Also copy the module into heuristics/artifacts/ of this tree.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def learn_configs_cmd(files, out, name, depths, leaves, leaf_tolerance, tolerance, seed, shortlist_size,
                      answers, install, as_json):
    """Learn a kernel-config module for one kernel kind from dataset FILES.

    FILES are rows of `tuner collect triton_kernel --focus KIND` or of collect mode
    (triton.<kind>.jsonl), one point and one GPU generation (H100 and H200 files merge: a
    problem's times are only compared with each other). A multi-output tree groups problems whose
    configs rank alike; a leaf answers the config (or the kernel's own default) that is
    within --leaf-tolerance of the best on all its training problems, else it is unsure.

    \b
    Examples:
      tuner learn-configs data/triton_kernel/reduction_h100_s0.jsonl.gz --out out --install
      tuner learn-configs data/triton_kernel/pointwise_h100_s0.jsonl.gz --out out --no-answers
    """
    import functools
    import json

    from tuner.heuristics import configs
    from tuner.heuristics.dataset import read_dataset
    from tuner.heuristics.problems import LearnError
    from tuner.points.triton_kernel import device_limits_of, launched_form, learned_form, row_config_fits

    try:
        # the space is the measuring GPU's (a template's shared memory), not this machine's
        limits = device_limits_of(read_dataset(Path(files[0])).header)
    except Exception:   # noqa: BLE001 - an unreadable file: learn() says what is wrong with it
        limits = None
    try:
        # configs the point's space would not launch for a problem are neither answered nor
        # credited there (the exhaustive lists time some outside it)
        P, model, report = configs.learn(list(files), depths=_ints(depths), leaves=_ints(leaves),
                                         seed=seed, leaf_tolerance=leaf_tolerance, tolerance=tolerance,
                                         valid=functools.partial(row_config_fits, device=limits),
                                         shortlist_size=shortlist_size, form=learned_form,
                                         launched=launched_form,
                                         answers=answers)
    except LearnError as e:
        raise click.ClickException(str(e))
    import re
    gpu = re.search(r"\b[a-z]\d{2,}\b", str(P.header.get("gpu_name", "")).lower())
    name = name or f"{P.point.replace('.', '_')}_{gpu.group(0) if gpu else 'gpu'}"
    if not name.isidentifier():
        raise click.BadParameter(f"{name!r} is not a Python module name", param_hint="--name")
    path = configs.write(P, model, report, Path(out), name)
    if install:
        import tuner.heuristics.artifacts as artifacts
        dest = Path(artifacts.__file__).resolve().parent / path.name
        shutil.copyfile(path, dest)
        report["installed"] = str(dest)
    if as_json:
        click.echo(json.dumps(report, indent=1, default=float))
        return
    t = report["test"]
    click.echo(f"{P.point}: {len(P)} problems, depth {report['chosen']['max_depth']}, leaf "
               f"{report['chosen']['min_samples_leaf']}, {len(model.answers)} confident leaves")
    click.echo(f"test split: {t['answered']} of {t['problems']} answered, {t['within_tolerance']} within "
               f"{tolerance:.0%} of the best, {t['wrong_over_10pct']} slower than 10%, worst "
               f"{t['worst_loss'] if t['worst_loss'] is not None else '-'}; where answered "
               f"{t['geomean_speedup_over_default_where_answered'] or 1:.3f}x faster than the default")
    st = report["shortlist_test"]
    click.echo(f"shortlist of {len(report['shortlist'])} with the default: within {leaf_tolerance:.0%} on "
               f"{st['within_tolerance']} of {st['problems']} test problems (the default alone "
               f"{st['default_within_tolerance']}), worst {st['worst_loss'] or 1:.3f}")
    click.echo(f"wrote {path}" + (f"; installed {report['installed']}" if install else ""))
