"""``ragtriage calibrate``: measure a faithfulness judge against human grades."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from ragtriage.cli.common import output_dir
from ragtriage.cli.options import flag, with_config
from ragtriage.errors import EXIT_FAILED
from ragtriage.flows.calibrate import CalibrateConfig

__all__ = ["HELP", "calibrate_command", "register"]

HELP = (
    "Calibrate the faithfulness judge against human grades.\n\n"
    "Runs the judge on every graded answer (recorded results of the same judge fingerprint "
    "are reused; --judged FILE reads others), reports agreement per dataset and pooled "
    "(Cohen's kappa with a bootstrap 95 % interval), the decision rule chosen by nested "
    "cross-validation among thresholds and logistic combinations of the judge's signals "
    "(checked for transfer between datasets), the unsure band where the grades cannot back "
    "a verdict, baselines (majority class, lexical overlap) and the PPI-corrected faithful "
    "rate, and writes <out>/<judge>/calibration.json with PNG plots. Several judges are "
    "ranked by cross-validated kappa. Offline by default."
)


@with_config(CalibrateConfig)
def calibrate_command(
    config: CalibrateConfig,
    plots: Annotated[bool, typer.Option(help="Write PNG plots.")] = True,
    require_beats_lexical: Annotated[
        bool,
        flag(
            "--require-beats-lexical",
            "Exit 1 if a judge does not beat the lexical baseline's CV kappa (pooled).",
        ),
    ] = False,
) -> None:
    from ragtriage.flows.calibrate import run
    from ragtriage.render.calibration import print_judge_comparison, print_run
    from ragtriage.render.calibration_plots import write_plots
    from ragtriage.render.card import write_card
    from ragtriage.render.console import print_line, wide_console

    output_dir(config.out, "--out")
    console = wide_console()
    start = time.perf_counter()
    runs = run(config, write_plots if plots else None, write_card)
    for one in runs:
        for note in one.notes:
            style = "dim" if note.severity == "info" else "yellow"
            print_line(console, note.text, style, soft_wrap=True)
        print_run(one, console)
        for path in one.card:
            print_line(console, f"validity card: {path}", "green")
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
