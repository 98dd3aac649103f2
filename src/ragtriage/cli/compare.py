"""``ragtriage compare``: which differences between two results are real."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ragtriage.cli.common import MAX_RESAMPLES, MAX_SEED, console, output_file
from ragtriage.report.compare import Comparison, Diff, compare
from ragtriage.report.files import write_atomic, write_json
from ragtriage.report.markdown import render_comparison_markdown
from ragtriage.report.results import load_result
from ragtriage.report.text import clean

TAG_METRICS = 2  # per-tag rows shown in the terminal per tag (all are in the JSON)
PREFERRED = ("ndcg@10", "mrr", "recall@10", "recall@5")
MAX_FLIPS = 20


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.4f}"


def _style(diff: Diff) -> str:
    if not diff.real():
        return ""
    return "green" if diff.low is not None and diff.low > 0 else "red"


def _row(diff: Diff) -> list[Text]:
    interval = "-" if diff.low is None else f"[{_signed(diff.low)}, {_signed(diff.high)}]"
    cells = [
        clean(diff.name),
        str(diff.n),
        "-" if diff.base is None else f"{diff.base:.4f}",
        "-" if diff.candidate is None else f"{diff.candidate:.4f}",
        _signed(diff.diff),
        interval,
        "-" if diff.p_holm is None else f"{diff.p_holm:.4f}",  # raw p: JSON and markdown
    ]
    return [Text(cell, style=_style(diff)) for cell in cells]


def _table(title: str, diffs: list[Diff], tagged: bool = False) -> Table:
    table = Table(title=title, title_justify="left")
    if tagged:
        table.add_column("tag")
    for column in ("metric", "n", "base", "candidate", "diff", "95% CI", "p (Holm)"):
        table.add_column(
            column, justify="left" if column == "metric" else "right", no_wrap=column != "metric"
        )
    for diff in diffs:
        table.add_row(*([Text(clean(diff.tag, 40))] if tagged else []), *_row(diff))
    return table


def print_comparison(result: Comparison, out: Console) -> None:
    """Metrics, rates, per-tag differences (key metrics), flipped labels and warnings."""
    for warning in result.warnings:
        out.print(Text(f"warning: {warning}", style="yellow"))
    out.print(
        f"{result.n_common} queries in common; {len(result.only_base)} only in base, "
        f"{len(result.only_candidate)} only in candidate"
    )
    out.print(_table("Retrieval metrics (candidate - base, paired)", result.metrics))
    if result.rates:
        out.print(_table("Audit rates (candidate - base, paired over cases)", result.rates))
    names = [d.name for d in result.metrics]
    key = ([m for m in PREFERRED if m in names] or names)[:TAG_METRICS]
    tags = [d for d in result.tags if d.name in key]
    if tags:
        out.print(_table(f"Per tag ({', '.join(key)}; all metrics in --output)", tags, True))
    if result.kind == "audit":
        out.print(Text(f"Label flips: {len(result.flips)}", style="bold"))
        for flip in result.flips[:MAX_FLIPS]:
            out.print(Text(f"  {clean(flip.case_id, 60)}: {flip.old.value} -> {flip.new.value}"))
        if len(result.flips) > MAX_FLIPS:
            out.print(f"  ... {len(result.flips) - MAX_FLIPS} more in --output")


def compare_command(
    base: Annotated[Path, typer.Argument(help="Baseline: results.json or a retrieval report.")],
    candidate: Annotated[Path, typer.Argument(help="Candidate, of either kind.")],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write JSON here.")] = None,
    markdown: Annotated[
        Path | None, typer.Option(help="Write a markdown summary here (for a PR comment).")
    ] = None,
    seed: Annotated[
        int, typer.Option(min=0, max=MAX_SEED, help="Seed for bootstrap and permutations.")
    ] = 20261129,
    resamples: Annotated[
        int, typer.Option(min=1, max=MAX_RESAMPLES, help="Bootstrap resamples.")
    ] = 2000,
    permutations: Annotated[
        int, typer.Option(min=1, max=MAX_RESAMPLES, help="Randomization-test permutations.")
    ] = 10000,
    quiet: Annotated[bool, typer.Option(help="No terminal output.")] = False,
) -> None:
    """Compare two results over their common queries: per metric and tag the difference,
    a paired bootstrap 95% interval and a randomization p-value; rates; label flips."""
    output_file(output, "--output")
    output_file(markdown, "--markdown")
    result = compare(
        load_result(base),
        load_result(candidate),
        seed=seed,
        resamples=resamples,
        permutations=permutations,
    )
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
