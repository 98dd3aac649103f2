"""``ragtriage golden``: the golden set's life (split, check, add)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import FullHelpGroup, console, output_dir, output_file
from ragtriage.cli.options import OldOutput, Quiet, one_out, out_option, with_config
from ragtriage.errors import EXIT_FAILED
from ragtriage.flows.golden import add as add_flow
from ragtriage.flows.golden import check as check_flow
from ragtriage.flows.golden import split as split_flow
from ragtriage.flows.golden.add import AddConfig
from ragtriage.flows.golden.check import CheckConfig
from ragtriage.flows.golden.split import SplitConfig
from ragtriage.render.golden import print_grow_plan, print_split, render_check
from ragtriage.results.files import write_json

__all__ = ["add", "app", "check", "register", "split"]

app = typer.Typer(
    help="Manage a golden set: held-out split, validity check, growth.",
    no_args_is_help=True,
    cls=FullHelpGroup,
)


@app.command()
@with_config(SplitConfig)
def split(config: SplitConfig) -> None:
    """Mark a seeded fraction of cases (per answerable/unanswerable stratum) as held out."""
    if config.out is not None:  # write_split: a name with a suffix is a file, else a directory
        (output_file if config.out.suffix else output_dir)(config.out, "--out")
    print_split(split_flow.run(config), console())


@app.command()
@with_config(CheckConfig)
def check(
    config: CheckConfig,
    out: Annotated[Path | None, out_option("Write the check (JSON) to this file.")] = None,
    output: OldOutput = None,
    quiet: Quiet = False,
) -> None:
    """Expected ids missing from the corpus, duplicate queries, untagged cases.
    Exit 1 on missing ids or duplicates (untagged cases only warn)."""
    output = one_out(out, output)
    report = check_flow.run(config)
    if output:
        write_json(output, report)
    if not quiet:
        render_check(report, console())
    if not report.ok:
        raise typer.Exit(EXIT_FAILED)


@app.command()
@with_config(AddConfig)
def add(config: AddConfig) -> None:
    """Turn audited failures into golden cases (refusing duplicates)."""
    planned = add_flow.run(config)
    print_grow_plan(planned, console(), config.dry_run)
    if not planned.records:
        raise typer.Exit(EXIT_FAILED)


def register(parent: typer.Typer) -> None:
    parent.add_typer(app, name="golden")
