"""Terminal output of ``ragtriage compare``: which differences between two results are real."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ragtriage.render.format import fmt, signed
from ragtriage.render.notices import lines as notice_lines
from ragtriage.render.text import clean
from ragtriage.results.compare import Comparison, Diff
from ragtriage.triage.models import Label

__all__ = [
    "MAX_FLIPS",
    "PREFERRED",
    "TAG_METRICS",
    "figures",
    "flip_summary",
    "key_tag_diffs",
    "label_line",
    "print_comparison",
    "verdict",
]

TAG_METRICS = 2  # per-tag rows shown in the terminal per tag (all are in the JSON)
PREFERRED = ("ndcg@10", "mrr", "recall@10", "recall@5")
MAX_FLIPS = 20


def verdict(comparison: Comparison) -> str:
    """One line: which differences are beyond noise (interval excludes 0, Holm p < 0.05),
    worse first; every metric and rate here is better when higher."""
    diffs = [*comparison.metrics, *comparison.rates]
    worse = [d for d in diffs if d.real() and (d.diff or 0) < 0]
    better = [d for d in diffs if d.real() and (d.diff or 0) > 0]
    if not worse and not better:
        return f"no difference beyond noise in {len(diffs)} metrics and rates"

    def named(group: list[Diff]) -> str:
        return ", ".join(f"{clean(d.name)} {signed(d.diff)}" for d in group[:6]) + (
            f", +{len(group) - 6} more" if len(group) > 6 else ""
        )

    parts = [f"worse: {named(worse)}"] if worse else []
    parts += [f"better: {named(better)}"] if better else []
    return f"beyond noise in {len(worse) + len(better)} of {len(diffs)}: " + "; ".join(parts)


def label_line(comparison: Comparison) -> str | None:
    """``cases per label: ranking 3 -> 20, pass 315 -> 301``: which stage moved."""
    if not comparison.label_changes:
        return None
    moved = ", ".join(f"{k} {b} -> {c}" for k, (b, c) in comparison.label_changes.items())
    return f"cases per label: {moved}"


def key_tag_diffs(comparison: Comparison) -> list[Diff]:
    """The per-tag differences of the key metrics (all of them are in ``--output``)."""
    names = [d.name for d in comparison.metrics]
    key = ([m for m in PREFERRED if m in names] or names)[:TAG_METRICS]
    return [d for d in comparison.tags if d.name in key]


def flip_summary(comparison: Comparison) -> str:
    """How many flips, and how many were regressions (a pass that now fails) or fixes."""
    flips = comparison.flips
    worse = sum(f.old == Label.PASS and f.new != Label.PASS for f in flips)
    better = sum(f.new == Label.PASS and f.old != Label.PASS for f in flips)
    other = len(flips) - worse - better
    detail = f"{worse} pass -> failure, {better} failure -> pass"
    line = f"{len(flips)} ({detail}{f', {other} between failures' if other else ''})"
    if comparison.noise_flips:
        line += (
            f"; {len(comparison.noise_flips)} more set aside as judge noise (the same answer, "
            "and the judge's samples of it disagreed)"
        )
    return line


def _style(diff: Diff) -> str:
    if not diff.real():
        return ""
    return "green" if diff.low is not None and diff.low > 0 else "red"


def figures(diff: Diff) -> list[str]:
    """The cells every table of differences shows after the name: n, base, candidate and
    the signed difference."""
    return [str(diff.n), fmt(diff.base), fmt(diff.candidate), signed(diff.diff)]


def _row(diff: Diff) -> list[Text]:
    interval = "-" if diff.low is None else f"[{signed(diff.low)}, {signed(diff.high)}]"
    cells = [clean(diff.name), *figures(diff), interval, fmt(diff.p_holm)]  # raw p: JSON, md
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
    for line, style in notice_lines(result.warnings):
        out.print(Text(line, style=style))
    out.print(
        f"{result.n_common} queries in common; {len(result.only_base)} only in base, "
        f"{len(result.only_candidate)} only in candidate"
    )
    out.print(Text(f"Verdict: {verdict(result)}", style="bold"))
    if (labels := label_line(result)) is not None:
        out.print(Text(labels, style="bold"))
    out.print(_table("Retrieval metrics (candidate - base, paired)", result.metrics))
    if result.rates:
        out.print(_table("Audit rates (candidate - base, paired over cases)", result.rates))
    if result.diagnostics:
        out.print(
            _table(
                "RAGChecker diagnostics (candidate - base, paired over cases; noise sensitivity "
                "and hallucination are better lower)",
                result.diagnostics,
            )
        )
    tags = key_tag_diffs(result)
    if tags:
        key = ", ".join(dict.fromkeys(d.name for d in tags))
        out.print(_table(f"Per tag ({key}; all metrics in --output)", tags, True))
    if result.kind != "retrieval":  # an audit's cases, a conversations result's turns
        out.print(Text(f"Label flips: {flip_summary(result)}", style="bold"))
        for flip in result.flips[:MAX_FLIPS]:
            out.print(Text(f"  {clean(flip.case_id, 60)}: {flip.old.value} -> {flip.new.value}"))
        if len(result.flips) > MAX_FLIPS:
            out.print(f"  ... {len(result.flips) - MAX_FLIPS} more in --output")
