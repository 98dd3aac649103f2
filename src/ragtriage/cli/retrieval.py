"""``ragtriage retrieval``: stage 1 on its own."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import console
from ragtriage.cli.options import OldOutput, Quiet, one_out, out_option, with_config
from ragtriage.flows.retrieval import RetrievalConfig, check
from ragtriage.flows.retrieval import run as run_retrieval
from ragtriage.render.console import reading_progress
from ragtriage.results.files import write_json

__all__ = ["register", "retrieval"]


@with_config(RetrievalConfig)
def retrieval(
    config: RetrievalConfig,
    out: Annotated[Path | None, out_option("Write the report (JSON) to this file.")] = None,
    output: OldOutput = None,
    quiet: Quiet = False,
) -> None:
    """Score a retriever against a golden set: metrics per query, means with 95% CIs,
    per-tag slices, missed queries, unanswerable queries and a score-threshold analysis."""
    check(config)
    output = one_out(out, output)
    report = run_retrieval(config, lambda: reading_progress(quiet))
    if output:
        write_json(output, report)
    if not quiet:  # imported here: a --quiet run (CI, benchmarks) never loads them
        from ragtriage.render.retrieval import (
            render_leaks,
            render_overlap,
            render_repeat,
            render_split,
        )
        from ragtriage.render.terminal import retrieval_summary

        term = console()
        retrieval_summary(report, term)
        for render in (render_split, render_leaks, render_overlap, render_repeat):
            render(report, term)
        if output:
            term.print(f"wrote {output}")


def register(app: typer.Typer) -> None:
    app.command(name="retrieval")(retrieval)
