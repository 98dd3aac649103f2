"""``ragtriage golden``: the golden set's life (split, check, add)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import (
    ColumnsOption,
    console,
    finite,
    output_dir,
    output_file,
    split_list,
)
from ragtriage.cli.options import OldOutput, flag, one_out, out_option
from ragtriage.data.formats.columns import parse_columns
from ragtriage.errors import EXIT_FAILED, InputError
from ragtriage.flows import golden as golden_flow
from ragtriage.render.golden import print_grow_plan, render_check
from ragtriage.results.files import write_json
from ragtriage.results.load import load_audit

__all__ = ["add", "app", "check", "register", "split"]

app = typer.Typer(
    help="Manage a golden set: held-out split, validity check, growth.", no_args_is_help=True
)


def _fraction(value: float) -> float:
    """Strictly between 0 and 1: holding back none or all of the cases is no split."""
    finite(value)
    if not 0.0 < value < 1.0:
        raise typer.BadParameter(f"{value} is not strictly between 0 and 1")
    return value


@app.command()
def split(
    golden: Annotated[Path, typer.Option(help="Golden set file or directory.")],
    fraction: Annotated[
        float, typer.Option(callback=_fraction, help="Share of cases to hold back (0 to 1).")
    ] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed of the choice (recorded nowhere else).")] = 0,
    out: Annotated[
        Path | None,
        out_option(
            "Write here (a folder gets the corpus too) instead of rewriting the golden file."
        ),
    ] = None,
    force: Annotated[bool, flag("--force", "Re-split a set that already has a holdout.")] = False,
    columns: ColumnsOption = None,
) -> None:
    """Mark a seeded fraction of cases (per answerable/unanswerable stratum) as held out."""
    if out is not None:  # write_split: a name with a suffix is a file, else a directory
        (output_file if out.suffix else output_dir)(out, "--out")
    mapping = parse_columns(columns)  # a bad mapping fails here, before any file is read
    done = golden_flow.split(golden, fraction, seed, out, force, mapping)
    console().print(
        f"{len(done.held)} of {done.total} cases held out (seed {seed}); wrote {done.written}"
    )


@app.command()
def check(
    golden: Annotated[Path, typer.Option(help="Golden set file or directory.")],
    corpus: Annotated[Path | None, typer.Option(help="corpus.jsonl (default: beside it).")] = None,
    out: Annotated[Path | None, out_option("Write the check (JSON) to this file.")] = None,
    output: OldOutput = None,
    quiet: Annotated[bool, flag("--quiet", "No terminal summary.")] = False,
    columns: ColumnsOption = None,
) -> None:
    """Expected ids missing from the corpus, duplicate queries, untagged cases.
    Exit 1 on missing ids or duplicates (untagged cases only warn)."""
    output, option = one_out(out, output)
    output_file(output, option)
    mapping = parse_columns(columns)  # a bad mapping fails here, before any file is read
    report = golden_flow.check(golden, corpus, mapping)
    if output:
        write_json(output, report)
    if not quiet:
        render_check(report, console())
    if not report.ok:
        raise typer.Exit(EXIT_FAILED)


def _expected(values: list[str] | None, case_ids: list[str]) -> dict[str, list[str]]:
    """``--expected CASE=id1,id2`` (or ``--expected id1,id2`` with a single ``--case``)."""
    out: dict[str, list[str]] = {}
    for value in values or []:
        case, sep, ids = value.partition("=")
        if not sep:
            if len(case_ids) != 1:
                raise InputError(
                    "with several cases write --expected CASE=id1,id2", field="expected"
                )
            case, ids = case_ids[0], value
        if case_ids and case not in case_ids:  # with --failed the plan checks it
            raise InputError(f"case {case!r} is not among --case", field="expected")
        out[case] = split_list([ids])
        if not out[case]:
            raise InputError(
                f"no chunk ids for {case!r}: an unanswerable case is added without --expected",
                field="expected",
            )
    return out


@app.command()
def add(
    from_: Annotated[Path, typer.Option("--from", help="An audit's results.json.")],
    to: Annotated[Path, typer.Option(help="Golden set file or directory to extend.")],
    case: Annotated[list[str] | None, typer.Option(help="Case id (repeatable).")] = None,
    failed: Annotated[bool, flag("--failed", "Every failing case.")] = False,
    expected: Annotated[
        list[str] | None,
        typer.Option(
            help="CASE=id1,id2: the ids you judge relevant (default: the ones the audit used)."
        ),
    ] = None,
    tag: Annotated[list[str] | None, typer.Option(help="Extra tags for the new cases.")] = None,
    note: Annotated[str, typer.Option(help="Appended to each case's source note.")] = "",
    dry_run: Annotated[bool, flag("--dry-run", "Show what would be added; write nothing.")] = False,
    columns: ColumnsOption = None,
) -> None:
    """Turn audited failures into golden cases (refusing duplicates)."""
    mapping = parse_columns(columns)  # a bad mapping fails here, before any file is read
    case_ids = split_list(case)
    expected_ids = _expected(expected, case_ids)
    planned = golden_flow.plan(
        load_audit(from_), from_, to, case_ids, failed, expected_ids, split_list(tag), note, mapping
    )
    out = console()
    print_grow_plan(planned, out, dry_run)
    if planned.records and not dry_run:
        golden_flow.apply(planned)
        out.print(f"wrote {planned.target}")
    if not planned.records:
        raise typer.Exit(EXIT_FAILED)


def register(parent: typer.Typer) -> None:
    parent.add_typer(app, name="golden")
