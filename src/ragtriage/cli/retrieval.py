"""``ragtriage retrieval``: stage 1 on its own."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import console, output_file
from ragtriage.cli.options import with_config
from ragtriage.flows.retrieval import RetrievalConfig, check
from ragtriage.flows.retrieval import run as run_retrieval
from ragtriage.render.console import reading_progress
from ragtriage.render.retrieval import render_leaks, render_overlap, render_repeat, render_split
from ragtriage.render.terminal import retrieval_summary
from ragtriage.results.files import write_json
from ragtriage.retrieval.metrics import expand

__all__ = ["register", "retrieval"]


@with_config(RetrievalConfig)
def retrieval(
    config: RetrievalConfig,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write JSON here.")] = None,
    quiet: Annotated[bool, typer.Option(help="No terminal summary.")] = False,
) -> None:
    """Score a retriever against a golden set: metrics per query, means with 95% CIs,
    per-tag slices, missed queries, unanswerable queries and a score-threshold analysis."""
    check(config)
    output_file(output, "--output")
    expand(config.metrics, config.k)  # a bad metric name fails here, before a 4 GB run is read
    report = run_retrieval(config, lambda: reading_progress(quiet))
    if output:
        write_json(output, report)
    if not quiet:
        out = console()
        retrieval_summary(report, out)
        for render in (render_split, render_leaks, render_overlap, render_repeat):
            render(report, out)
        if output:
            out.print(f"wrote {output}")


def register(app: typer.Typer) -> None:
    app.command(name="retrieval")(retrieval)
