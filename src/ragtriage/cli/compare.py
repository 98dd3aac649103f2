"""``ragtriage compare``: which differences between two results are real."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import MAX_RESAMPLES, MAX_SEED, console, output_file
from ragtriage.flows.compare import CompareConfig
from ragtriage.flows.compare import run as run_compare
from ragtriage.render.compare import print_comparison
from ragtriage.render.markdown import render_comparison_markdown
from ragtriage.results.files import write_atomic, write_json
from ragtriage.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = ["compare_command", "register"]


def compare_command(
    base: Annotated[Path, typer.Argument(help="Baseline: results.json or a retrieval report.")],
    candidate: Annotated[Path, typer.Argument(help="Candidate, of either kind.")],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write JSON here.")] = None,
    markdown: Annotated[
        Path | None, typer.Option(help="Write a markdown summary here (for a PR comment).")
    ] = None,
    seed: Annotated[
        int, typer.Option(min=0, max=MAX_SEED, help="Seed for bootstrap and permutations.")
    ] = DEFAULT_SEED,
    resamples: Annotated[
        int, typer.Option(min=1, max=MAX_RESAMPLES, help="Bootstrap resamples.")
    ] = DEFAULT_RESAMPLES,
    permutations: Annotated[
        int, typer.Option(min=1, max=MAX_RESAMPLES, help="Randomization-test permutations.")
    ] = 10000,
    quiet: Annotated[bool, typer.Option(help="No terminal output.")] = False,
) -> None:
    """Compare two results over their common queries: per metric and tag the difference,
    a paired bootstrap 95% interval and a randomization p-value; rates; label flips."""
    output_file(output, "--output")
    output_file(markdown, "--markdown")
    config = CompareConfig(
        base=base, candidate=candidate, seed=seed, resamples=resamples, permutations=permutations
    )
    result = run_compare(config)
    if output:
        write_json(output, result)
    if markdown:
        write_atomic(markdown, render_comparison_markdown(result))
    if not quiet:
        out = console()
        print_comparison(result, out)
        if output:
            out.print(f"wrote {output}")


def register(app: typer.Typer) -> None:
    app.command(name="compare")(compare_command)
