"""Rich terminal rendering of reports. Untrusted text is printed with markup disabled."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ragtriage.retrieval.report import RetrievalReport

KEY_SLICE_METRICS = 3
MAX_LISTED = 10


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def retrieval_summary(report: RetrievalReport, console: Console) -> None:
    """Metrics with intervals, slices, missed and unanswerable queries, threshold verdict."""
    title = f"Retrieval: {report.n_answerable} answerable queries"
    if report.n_unanswerable:
        title += f" (+{report.n_unanswerable} unanswerable, reported separately)"
    table = Table(title=title, title_justify="left")
    for column in ("metric", "mean", "95% CI"):
        table.add_column(column, justify="right" if column != "metric" else "left")
    for agg in report.aggregates:
        table.add_row(agg.metric, _fmt(agg.mean), f"[{_fmt(agg.low)}, {_fmt(agg.high)}]")
    console.print(table)
    _slices(report, console)
    _missed(report, console)
    _unanswerable(report, console)
    if report.threshold:
        t = report.threshold
        console.print(
            Text(f"Score threshold (top {t.depth}): AUC {_fmt(t.auc)}; {t.verdict}", style="bold")
        )
    for warning in report.warnings:
        console.print(Text(f"warning: {warning}", style="yellow"))


def _slice_metrics(report: RetrievalReport) -> list[str]:
    names = [a.metric for a in report.aggregates]
    preferred = [f"recall@{report.config.miss_k}", "mrr", "ndcg@10"]
    chosen = [m for m in preferred if m in names]
    return (chosen or names)[:KEY_SLICE_METRICS]


def _slices(report: RetrievalReport, console: Console) -> None:
    if not report.slices:
        return
    metrics = _slice_metrics(report)
    table = Table(title="Per tag", title_justify="left")
    table.add_column("tag")
    table.add_column("n", justify="right")
    for metric in metrics:
        table.add_column(metric, justify="right")
    for s in report.slices:
        table.add_row(Text(s.tag), str(s.n), *(_fmt(s.means.get(m)) for m in metrics))
    console.print(table)


def _missed(report: RetrievalReport, console: Console) -> None:
    k = report.config.miss_k
    console.print(
        Text(
            f"Missed queries (nothing relevant in the top {k}): {len(report.missed)}", style="bold"
        )
    )
    for miss in report.missed[:MAX_LISTED]:
        rank = (
            f"first relevant at rank {miss.first_relevant_rank}"
            if miss.first_relevant_rank
            else "relevant never retrieved"
        )
        line = Text(f"  {miss.query_id}  ")
        line.append(miss.query[:80] or "")
        line.append(
            f"  [{', '.join(miss.tags)}] {rank}; top: {', '.join(miss.top_ids)}", style="dim"
        )
        console.print(line)
    if len(report.missed) > MAX_LISTED:
        console.print(f"  ... {len(report.missed) - MAX_LISTED} more in the JSON output")


def _unanswerable(report: RetrievalReport, console: Console) -> None:
    section = report.unanswerable
    if section is None:
        return
    confident = [q for q in section.queries if q.confident]
    median = _fmt(section.unanswerable_top1.median)
    console.print(
        Text(
            f"Unanswerable queries: {section.n}; median top-1 score {median} "
            f"vs {_fmt(section.answerable_top1.median)} on answerable (AUC {_fmt(section.auc)}); "
            f"{len(confident)} retrieved as confidently as a typical answerable query",
            style="bold",
        )
    )
