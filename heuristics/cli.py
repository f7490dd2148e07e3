"""`tuner learn`: merge datasets, grid-search regression trees, render the chosen one."""
from __future__ import annotations

import shutil
from pathlib import Path

import click

# the default learn() applies, shown in --help as a value (the option stays None: learn()'s
# own default applies)
from tuner.heuristics.recipe import DEFAULT_LEAF_MARGIN


def _ints(text: str) -> tuple[int, ...]:
    try:
        vals = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"{text!r}: expected comma-separated integers") from None
    if not vals or min(vals) < 1:
        raise click.BadParameter(f"{text!r}: expected integers >= 1")
    return vals


@click.command("learn")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--out", "-o", required=True, type=click.Path(file_okay=False),
              help="Folder for the module, evaluation table, report and plot.")
@click.option("--name", default=None,
              help="Module name (default: <point>_<gpu>, e.g. pad_mm_h100).")
@click.option("--max-depth", "depths", default="6,8,12,16", show_default=True,
              help="Grid of tree depths.")
@click.option("--min-samples-leaf", "leaves", default="10,20,50,100,200", show_default=True,
              help="Grid of minimum samples per leaf (larger: fewer, surer leaves, a smaller module).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the train/val/test split.")
@click.option("--min-reps", type=int, default=3, show_default=True,
              help="Drop problems measured with fewer repetitions.")
@click.option("--max-spread", type=float, default=0.2, show_default=True,
              help="Drop problems whose (max-min)/median over repetitions exceeds this.")
@click.option("--tolerance", type=float, default=0.02, show_default=True,
              help="An answer at most this fraction slower than the other choice is not wrong "
                   "(near-ties are right either way); used to set the thresholds and in the table. "
                   "max_wrong_speedup always shows the largest loss on the true times.")
@click.option("--clip", type=float, default=1.5, show_default=True,
              help="Train on the log speedup clipped to this factor (inf: unclipped): splits go "
                   "where the winner changes, not into the size of clear wins.")
@click.option("--leaf-agreement/--no-leaf-agreement", default=True, show_default=True,
              help="A leaf answers only if every training problem in it was won by the same choice.")
@click.option("--leaf-margin", type=float, default=None,
              help="With leaf agreement, a leaf answers only if each of its training problems was "
                   "won by more than this fraction (a leaf of near-ties cannot vouch for new "
                   f"problems).  [default: {DEFAULT_LEAF_MARGIN}]")
@click.option("--default-tie", type=float, default=None, metavar="FRACTION",
              help="Let a leaf of near-ties answer the first of the dataset's choices (for "
                   "mm_backend: extern, free to take; for pad_mm: orig) when no training problem in "
                   "it was won by the second choice by more than this fraction. Needs leaf agreement. "
                   "Off by default.")
@click.option("--namespace", default=None, metavar="POINT.NAME",
              help="The question the module answers, when the caller routes a point's questions by "
                   "name (e.g. mm_backend.bare: the mm point asks it about matmuls without a pointwise "
                   "consumer); also names the module (mm_backend_bare_<gpu>) unless --name is given. "
                   "Default: the dataset's point.")
@click.option("--leaf-ranges/--no-leaf-ranges", default=False, show_default=True,
              help="A leaf answers only for problems whose every feature lies within the range "
                   "of its training problems (outside: unsure); with --default-tie, a leaf of the "
                   "first choice also answers larger problems (the point's size features). The mm "
                   "point's bare module uses it.")
@click.option("--per-choice-thresholds/--one-threshold", default=True, show_default=True,
              help="A separate validation threshold for each choice.")
@click.option("--derived-features/--raw-features", default=True, show_default=True,
              help="Add the point's derived features (alignment of leading dims, copy cost, ...).")
@click.option("--min-dim", type=int, default=0, show_default=True,
              help="Learn and answer only problems with m, k, n all >= this (the A100 reference "
                   "used 512); outside it the module is unsure. 0: every problem.")
@click.option("--min-problems", type=int, default=20, show_default=True,
              help="Refuse to learn from fewer usable problems.")
@click.option("--check-seeds", default="", metavar="S,S,...",
              help="Also re-run the same rules on these other split seeds and report each seed's "
                   "test row and its answers losing > 10% (a robustness check; picks nothing).")
@click.option("--keep", multiple=True, metavar="GLOB:COLUMN=VALUE[|VALUE...]",
              help="Learn only those rows of the files matching GLOB (their name; their path "
                   "where GLOB has a /) whose COLUMN is one of the values (as JSON writes them: "
                   "float32, 4, true); repeatable: values of one column add up, different "
                   "columns must all hold. E.g. --keep 'mm_costly_h200_s1*:dtype=float32' keeps "
                   "a file's fp32 rows where a later template revision changed only the 16-bit "
                   "problems' times. A rule that matches no file, names a column some row lacks "
                   "or leaves a file no row is refused.")
@click.option("--install", is_flag=True,
              help="Also copy the module into heuristics/artifacts/ of this source tree.")
@click.option("--no-plot", is_flag=True, help="Skip the PNG plot (skipped, with a message, "
              "when matplotlib is not installed).")
@click.option("--allow-truncated", is_flag=True,
              help="Learn from the complete rows of a file that ends early (a killed or running "
                   "collector) instead of refusing it.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def learn_cmd(files, out, name, depths, leaves, seed, min_reps, max_spread, tolerance, clip,
              leaf_agreement, leaf_margin, default_tie, leaf_ranges, namespace, per_choice_thresholds,
              derived_features, min_dim,
              min_problems, check_seeds, keep, install, no_plot, allow_truncated, as_json):
    """Learn a heuristic from dataset FILES (shards of one point on one GPU).

    Merges the files (refusing ones whose metadata disagree), drops noisy problems, splits
    problems into train/val/test (60/20/20, seeded), fits a regression tree per grid point,
    lets only leaves whose training problems agree answer, sets each choice's threshold to the
    smallest with no wrong validation answer (within --tolerance), and keeps the tree with the
    most correct validation answers; the test split only reports. Writes <name>.py,
    eval_table.txt/.json, summary.json, report.md and plot.png into --out.
    """
    from tuner.heuristics.learn import (STREAM_COLUMNS, LearnError, dumps, format_table, learn,
                                        stream_table)
    from tuner.heuristics.report import largest_loss

    try:
        seeds = tuple(int(x) for x in check_seeds.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"{check_seeds!r}: expected comma-separated integers",
                                 param_hint="--check-seeds") from None
    try:
        summary = learn(list(files), out, depths=_ints(depths), leaves=_ints(leaves), seed=seed,
                        min_reps=min_reps, max_spread=max_spread, tolerance=tolerance, clip=clip,
                        agreement=leaf_agreement, per_choice=per_choice_thresholds,
                        **({} if leaf_margin is None else {"leaf_margin": leaf_margin}),
                        default_tie=default_tie, ranges=leaf_ranges, namespace=namespace,
                        derived=derived_features, min_dim=min_dim, min_problems=min_problems,
                        name=name, plot=not no_plot, progress=not as_json, check_seeds=seeds,
                        allow_truncated=allow_truncated, keep=keep)
    except LearnError as e:
        raise click.ClickException(str(e))
    module = Path(out) / summary["module"]
    if install:
        dest = Path(__file__).resolve().parent / "artifacts" / summary["module"]
        shutil.copyfile(module, dest)
        summary["installed"] = str(dest)
    if summary.get("plot_skipped"):
        click.echo(f"plot skipped: {summary['plot_skipped']}", err=True)
    for w in summary.get("warnings", ()):
        click.echo(f"warning: {w}", err=True)
    if as_json:
        click.echo(dumps(summary))
        return
    b = summary["best"]
    chosen = (b["max_depth"], b["min_samples_leaf"])
    marked = [{**r, "chosen": "<- chosen" if (r["max_depth"], r["min_samples_leaf"]) == chosen
               else ""} for r in summary["table"]]
    click.echo(format_table(marked, [*summary["columns"], "chosen"]))
    t = b["test"]
    thr = " ".join(f"{c}={b[f'threshold_{c}']:.4f}" for c in reversed(summary["choices"]))
    click.echo(f"\nchosen: max_depth={b['max_depth']} min_samples_leaf={b['min_samples_leaf']} "
               f"leaves={b['leaves']} thresholds {thr}; test ({summary['tolerance']:.0%} tolerance): "
               f"{t['correct']} correct, {t['wrong']} wrong, {t['unsure']} unsure of {t['total']}, "
               f"{largest_loss(t)}")
    by = b.get("test_by_stream") or {}
    if by:
        click.echo("test split per stream (a focused stream over-samples hard problems):")
        click.echo(format_table(stream_table(by), STREAM_COLUMNS))
    for o in summary["test_outliers"]:
        click.echo(f"test answer losing > 10%: {o['problem']} answered {o['answer']}, {o['loss']:.3f}x slower")
    if summary.get("seed_check"):
        click.echo("\nsame rules on other split seeds (test rows):")
        click.echo(format_table(summary["seed_check"], summary["seed_check_columns"]))
    click.echo(f"wrote {module} and the table, report and plot in {out}"
               + (f"; installed {summary['installed']}" if install else ""))
