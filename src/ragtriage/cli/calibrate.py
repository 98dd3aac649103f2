"""``ragtriage calibrate``: measure a faithfulness judge against human grades."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import MAX_RESAMPLES, MAX_SEED, ColumnsOption, finite, output_dir
from ragtriage.errors import EXIT_FAILED, InputError
from ragtriage.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = ["HELP", "calibrate_command", "register"]

HELP = (
    "Calibrate the faithfulness judge against human grades.\n\n"
    "Runs the judge on every graded answer (recorded results of the same judge fingerprint "
    "are reused; --judged FILE reads others), reports agreement per dataset and pooled "
    "(Cohen's kappa with a bootstrap 95 % interval), the kappa-maximising threshold chosen "
    "by cross-validation, baselines (majority class, lexical overlap), a logistic "
    "combination of the judge's signals and the PPI-corrected faithful rate, and writes "
    "<out>/<judge>/calibration.json with PNG plots. Several judges are ranked by "
    "cross-validated kappa. Offline by default."
)


def calibrate_command(
    grades: Annotated[Path, typer.Argument(help="grade file or directory")] = Path("human_grades"),
    judge: Annotated[
        list[str] | None,
        typer.Option(
            "--judge",
            "-j",
            help="judge spec: 'embedded' (default), 'lexical', a litellm model id or "
            "STRATEGY@MODEL (repeatable: judges are ranked)",
        ),
    ] = None,
    judged: Annotated[
        list[Path] | None,
        typer.Option(
            "--judged",
            help="recorded judge results (JSONL of JudgeResult, or an audit's results.json "
            "whose answers you graded), repeatable",
        ),
    ] = None,
    out: Annotated[Path, typer.Option(help="output directory")] = Path("calibration"),
    folds: Annotated[int, typer.Option(min=2, max=20, help="cross-validation folds")] = 5,
    seed: Annotated[
        int, typer.Option(min=0, max=MAX_SEED, help="seed for folds, bootstrap and splits")
    ] = DEFAULT_SEED,
    resamples: Annotated[
        int, typer.Option(min=100, max=MAX_RESAMPLES, help="bootstrap resamples")
    ] = DEFAULT_RESAMPLES,
    plots: Annotated[bool, typer.Option(help="write PNG plots")] = True,
    audit: Annotated[
        Path | None,
        typer.Option(
            help="an audit's results.json (or JSONL of its judge results): print the "
            "PPI-corrected faithful rate of its answers"
        ),
    ] = None,
    ppi_labelled: Annotated[
        float,
        typer.Option(
            min=0.1,
            max=0.9,
            callback=finite,
            help="share of graded items kept labelled in the PPI check",
        ),
    ] = 0.5,
    require_beats_lexical: Annotated[
        bool,
        typer.Option(
            help="exit 1 if a judge does not beat the lexical baseline's CV kappa (pooled)"
        ),
    ] = False,
    columns: ColumnsOption = None,
) -> None:
    from ragtriage.calibration.pipeline import run_calibration
    from ragtriage.data.formats.columns import parse_columns
    from ragtriage.judge.spec import JudgeSpec
    from ragtriage.render.calibration import print_judge_comparison, print_run
    from ragtriage.render.calibration_plots import write_plots
    from ragtriage.render.console import print_line, wide_console

    output_dir(out, "--out")
    mapping = parse_columns(columns)  # a bad mapping fails here, before any file is read
    for spec in judge or []:
        JudgeSpec.parse(spec)  # every spec checked before any judge runs
    if not grades.exists():
        raise InputError("no such grade file or directory", path=grades)
    console = wide_console()
    start = time.perf_counter()
    runs = run_calibration(
        grades,
        judges=judge or [],
        judged=judged or [],
        out=out,
        folds=folds,
        seed=seed,
        resamples=resamples,
        plots=write_plots if plots else None,
        audit=audit,
        ppi_fraction=ppi_labelled,
        columns=mapping,
    )
    for run in runs:
        print_run(run, console)
    if len(runs) > 1:
        print_judge_comparison(runs, console)
    console.print(f"took {time.perf_counter() - start:.1f} s")
    losers = [r.name for r in runs if next(iter(r.record.scopes.values())).beats_lexical is False]
    if require_beats_lexical and losers:
        text = "judge(s) not beating the lexical baseline: " + ", ".join(losers)
        print_line(console, text, "red")
        raise typer.Exit(EXIT_FAILED)


def register(app: typer.Typer) -> None:
    app.command("calibrate", help=HELP)(calibrate_command)
