"""``ragtriage audit``: both stages, triage, reports.

The options are :class:`AuditConfig`'s fields (``flows/audit.py``); the plots and reports
are imported when the command runs, so that ``ragtriage --help`` does not pay for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import console, output_file
from ragtriage.cli.options import Quiet, ResultsFolder, flag, with_config
from ragtriage.flows.audit import AuditConfig
from ragtriage.render.console import stage_progress

__all__ = ["register", "run"]


def _refuse_old(strategy: str | None, judge: str, **_: object) -> None:
    from ragtriage.judge.spec import refuse_old_options

    refuse_old_options(strategy=strategy, judge=judge)


@with_config(AuditConfig, before=_refuse_old)
def run(
    config: AuditConfig,
    out: ResultsFolder = Path("results"),
    quiet: Quiet = False,
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
    (pass / retrieval / ranking / generation / unscored / unsure / unstable); writes
    results.json and reports."""
    from ragtriage.flows import audit as flow

    if dry_run:
        from ragtriage.render.terminal import print_call_plan

        print_call_plan(flow.plan_calls(config), console(False))
        return
    from ragtriage.render.terminal import audit_summary
    from ragtriage.render.writer import audit_paths, check_audit_folder, write_audit

    check_audit_folder(out, "--out")
    output_file(config.cache, "--cache")
    term = console(quiet)
    with stage_progress(term, quiet) as tick:
        result = flow.run(config, tick, out, write_audit)
    if not quiet:
        audit_summary(result, term)
        for name, path in audit_paths(out).items():
            term.print(f"wrote {name}: {path}")


def register(app: typer.Typer) -> None:
    app.command(name="audit")(run)
