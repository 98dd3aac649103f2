"""``ragtriage compare``: which differences between two results are real."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import console, output_file
from ragtriage.cli.options import OldOutput, flag, one_out, out_option, with_config
from ragtriage.flows.compare import CompareConfig
from ragtriage.flows.compare import run as run_compare
from ragtriage.render.compare import print_comparison
from ragtriage.render.markdown import render_comparison_markdown
from ragtriage.results.files import write_atomic, write_json

__all__ = ["compare_command", "register"]


@with_config(CompareConfig)
def compare_command(
    config: CompareConfig,
    out: Annotated[Path | None, out_option("Write the comparison (JSON) to this file.")] = None,
    output: OldOutput = None,
    markdown: Annotated[
        Path | None, typer.Option(help="Write a markdown summary here (for a PR comment).")
    ] = None,
    quiet: Annotated[bool, flag("--quiet", "No terminal output.")] = False,
) -> None:
    """Compare two results over their common queries: per metric and tag the difference,
    a paired bootstrap 95% interval and a randomization p-value; rates; label flips."""
    output = one_out(out, output)
    output_file(markdown, "--markdown")
    result = run_compare(config)
    if output:
        write_json(output, result)
    if markdown:
        write_atomic(markdown, render_comparison_markdown(result))
    if not quiet:
        term = console()
        print_comparison(result, term)
        if output:
            term.print(f"wrote {output}")


def register(app: typer.Typer) -> None:
    app.command(name="compare")(compare_command)
