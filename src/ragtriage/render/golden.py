"""Terminal output of ``ragtriage golden``: the check report and the growth plan."""

from __future__ import annotations

import json

from rich.console import Console
from rich.text import Text

from ragtriage.data.check import CheckReport
from ragtriage.render.console import print_line
from ragtriage.results.golden import GrowPlan, Split

__all__ = ["print_grow_plan", "print_split", "render_check"]


def print_split(done: Split, console: Console) -> None:
    """``golden split``: how many cases were held out, and where the split went."""
    held = f"{len(done.held)} of {done.total} cases held out (seed {done.seed})"
    print_line(console, f"{held}; wrote {done.written}")


def render_check(report: CheckReport, console: Console) -> None:
    g = report.golden
    text = f"Golden set {g['source']}: {g['cases']} cases, sha256 {g['sha256'][:16]}"
    print_line(console, text, "bold")
    if report.corpus is None:
        console.print(Text("no corpus: expected ids not checked (give --corpus)", style="yellow"))
    else:
        c = report.corpus
        console.print(Text(f"Corpus: {c['chunks']} chunks, sha256 {c['sha256'][:16]}"))
        _section(
            console,
            "Expected/forbidden ids not in the corpus",
            [f"{m.case_id}: {m.doc_id} ({m.field})" for m in report.missing_ids],
        )
        _section(console, "Invalid cases (every relevant id is gone)", report.invalid_cases)
    _section(
        console,
        f"Duplicate queries (normalised equal, or Jaccard >= {report.near_duplicate_threshold})",
        [f"{d.first} ~ {d.second} ({d.kind}, Jaccard {d.jaccard:.2f})" for d in report.duplicates],
    )
    _section(console, "Cases with no tags", report.untagged, warn_only=True)
    verdict = "OK" if report.ok else "FAILED"
    console.print(Text(f"golden check: {verdict}", style="bold green" if report.ok else "bold red"))


def _section(console: Console, title: str, items: list[str], warn_only: bool = False) -> None:
    style = "green" if not items else "yellow" if warn_only else "red"
    console.print(Text(f"{title}: {len(items)}", style=style))
    for item in items:
        console.print(Text(f"  {item}"))


def print_grow_plan(planned: GrowPlan, console: Console, dry_run: bool) -> None:
    """The cases ``golden add`` added (or would add), what each retrieved, the refusals,
    and the file written (unless ``dry_run``)."""
    verb = "would add" if dry_run else "adding"
    console.print(Text(f"{verb} {len(planned.records)} cases to {planned.target}", style="bold"))
    for rec, written in zip(planned.records, planned.written(), strict=True):
        console.print(Text("  " + json.dumps(written, ensure_ascii=False)))
        retrieved = ", ".join(planned.retrieved.get(rec["id"], []))
        console.print(Text(f"    retrieved: {retrieved or '-'}", style="dim"))
    for refusal in planned.refused:
        console.print(Text(f"  refused {refusal.case_id}: {refusal.reason}", style="yellow"))
    if planned.records and not dry_run:
        console.print(Text(f"wrote {planned.target}"))
