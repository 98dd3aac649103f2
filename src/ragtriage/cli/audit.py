"""``ragtriage audit``: both stages, triage, reports.

The options are :class:`AuditConfig`'s fields (``flows/audit.py``); the plots and reports
are imported when the command runs, so that ``ragtriage --help`` does not pay for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import console, output_dir, output_file
from ragtriage.cli.options import flag, out_option, with_config
from ragtriage.errors import InputError
from ragtriage.flows.audit import AuditConfig
from ragtriage.render.console import stage_progress

__all__ = ["OUTPUTS", "register", "run"]

OUTPUTS = ("results.json", "report.md", "report.html")


def _refuse_old(strategy: str | None, judge: str, **_: object) -> None:
    from ragtriage.judge.spec import refuse_old_options

    refuse_old_options(strategy=strategy, judge=judge)


@with_config(AuditConfig, before=_refuse_old)
def run(
    config: AuditConfig,
    out: Annotated[Path, out_option("Output folder: results.json, report.md, report.html.")] = Path(
        "results"
    ),
    quiet: Annotated[bool, flag("--quiet", "No terminal summary.")] = False,
    dry_run: Annotated[
        bool,
        flag(
            "--dry-run",
            "Print the judges' expected calls and cost (with --escalate-to: per judge of "
            "the cascade) and stop before anything runs.",
        ),
    ] = False,
) -> None:
    """Audit a RAG system: retrieval metrics, faithfulness, and one label per case
    (pass / retrieval / ranking / generation / unscored); writes results.json and reports."""
    from ragtriage.flows.audit import audit
    from ragtriage.render.terminal import audit_summary

    if dry_run:
        from ragtriage.flows.audit import plan_calls
        from ragtriage.render.terminal import print_call_plan

        print_call_plan(plan_calls(config), console(False))
        return

    output_dir(out, "--out", OUTPUTS)
    output_dir(out / "calibration", "--out")  # where a calibration's plots go
    output_file(config.cache, "--cache")
    term = console(quiet)
    with stage_progress(term, quiet) as tick:
        result = audit(config, tick)
    paths = _write_outputs(result, out)
    if not quiet:
        audit_summary(result, term)
        for name, path in paths.items():
            term.print(f"wrote {name}: {path}")


def _write_outputs(result, out: Path) -> dict[str, Path]:
    """results.json, report.md and report.html as one all-or-nothing set; the calibration's
    plots (written first, beside them) go into the HTML when one was used."""
    from ragtriage.calibration.record import load_calibration
    from ragtriage.render.calibration_plots import write_plots
    from ragtriage.render.writer import write_reports
    from ragtriage.results.files import json_bytes

    pngs: list[Path] = []
    if result.calibration.source:
        record = load_calibration(result.calibration.source)
        try:
            pngs = write_plots(record, out / "calibration")
        except OSError as exc:  # e.g. a directory where a PNG goes
            raise InputError(
                f"cannot write the calibration plots: {exc.strerror or exc}",
                path=exc.filename or out / "calibration",
                field="--out",
            ) from None
    results = {"results.json": json_bytes(result)}
    reports = write_reports(result, out, extra_pngs=pngs, extra_files=results)
    return {"results": out / "results.json", **reports}


def register(app: typer.Typer) -> None:
    app.command(name="audit")(run)
