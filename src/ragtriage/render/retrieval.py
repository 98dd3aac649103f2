"""Terminal output of the retrieval report's optional sections: which slice (dev or
held out), access-control leaks, overlap with a reference run, repeated-run spread."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ragtriage.render.console import print_line
from ragtriage.render.format import fmt
from ragtriage.retrieval.models import RetrievalReport

__all__ = ["MAX_LISTED", "render_leaks", "render_overlap", "render_repeat", "render_split"]

MAX_LISTED = 10


def render_split(report: RetrievalReport, console: Console) -> None:
    """One line saying which slice this is, and how often the held-out one was looked at."""
    info = report.split
    if info is None or info.n_holdout == 0:
        return
    if info.evaluated == "holdout":
        text = f"HELD-OUT slice revealed: {info.n_holdout} cases (reveal #{info.reveals}"
        console.print(Text(text + f", logged in {info.reveal_log})", style="bold magenta"))
    else:
        text = f"Slice: {info.evaluated} ({info.n_dev} cases); {info.n_holdout} held-out cases"
        print_line(console, text + " not shown (--holdout reveals them, and logs it)", "dim")


def render_leaks(report: RetrievalReport, console: Console) -> None:
    section = report.leaks
    if section is None:
        return
    style = "bold red" if section.n_leaking else "bold green"
    counts = f"{section.n_leaking} of {section.n_cases_checked} checked cases"
    print_line(
        console, f"Access-control leaks (forbidden chunk in the top {section.k}): {counts}", style
    )
    for leak in section.cases:
        console.print(Text(f"  LEAK {leak.query_id}: {leak.forbidden_id} at rank {leak.rank}"))


def render_overlap(report: RetrievalReport, console: Console) -> None:
    section = report.reference_overlap
    if section is None:
        return
    means = ", ".join(f"{name} {fmt(value)}" for name, value in section.means.items())
    text = f"Overlap with reference run {section.source} ({section.n_queries} queries): {means}"
    print_line(console, text, "bold")
    if section.missing_in_reference:
        missing = len(section.missing_in_reference)
        print_line(
            console, f"  {missing} queries are not in the reference run (left out)", "yellow"
        )
    if section.lowest:
        worst = ", ".join(f"{q.query_id} ({fmt(q.overlap, 2)})" for q in section.lowest[:5])
        console.print(Text(f"  lowest {list(section.means)[-1]}: {worst}", style="dim"))


def render_repeat(report: RetrievalReport, console: Console) -> None:
    section = report.repeat
    if section is None:
        return
    console.print(Text(f"Repeated runs: {section.n_runs}; spread of the run means", style="bold"))
    for m in section.metrics:
        spread = f"min {fmt(m.min)}  max {fmt(m.max)}  std {fmt(m.std)}"
        print_line(console, f"  {m.metric:<14} mean {fmt(m.mean)}  {spread}")
    changed = section.changed_queries
    listed = ", ".join(changed[:MAX_LISTED]) + (", ..." if len(changed) > MAX_LISTED else "")
    line = f"  queries whose top {section.k} changed between runs: {len(changed)}"
    print_line(console, line + (f" ({listed})" if changed else ""), "yellow" if changed else "dim")
