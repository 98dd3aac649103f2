"""Rich terminal rendering of reports. Untrusted text is printed with markup disabled."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ragtriage.render import views
from ragtriage.render.answers import audit_lines
from ragtriage.render.format import fmt
from ragtriage.render.notices import lines as notice_lines
from ragtriage.render.retrieval import render_leaks, render_split
from ragtriage.render.text import clean, shorten
from ragtriage.results.run import AuditResult
from ragtriage.retrieval.models import RetrievalReport
from ragtriage.triage.cause_types import CAUSE_ACTIONS
from ragtriage.triage.models import Label

__all__ = [
    "AUDIT_METRICS",
    "KEY_SLICE_METRICS",
    "MAX_LISTED",
    "WORST_CASES",
    "audit_summary",
    "retrieval_summary",
]

KEY_SLICE_METRICS = 3
MAX_LISTED = 10


def retrieval_summary(report: RetrievalReport, console: Console) -> None:
    """Metrics with intervals, slices, missed and unanswerable queries, threshold verdict."""
    table = _table(_title(report), "metric", right=("mean", "95% CI"))
    for agg in report.aggregates:
        table.add_row(agg.metric, fmt(agg.mean), f"[{fmt(agg.low)}, {fmt(agg.high)}]")
    console.print(table)
    console.print(_reading(report))
    _slices(report, console)
    _missed(report, console)
    for line in (views.unanswerable_line(report), views.threshold_line(report)):
        if line is not None:
            console.print(Text(line, style="bold"))
    for warning in report.warnings:
        console.print(Text(f"warning: {warning}", style="yellow"))


def _table(title: str, *left: str, right: tuple[str, ...] = ()) -> Table:
    """A table titled at its left: ``left`` columns, then ``right``-justified ones."""
    table = Table(title=title, title_justify="left")
    for column in left:
        table.add_column(column)
    for column in right:
        table.add_column(column, justify="right")
    return table


def _title(report: RetrievalReport) -> str:
    """How many queries the means are over."""
    n_none = report.n_unanswerable
    # the means are over the per-query rows: with --skip-missing, fewer than the golden set
    # holds (the query the run lacks is neither scored nor missed, but skipped)
    skipped = len(report.missing_queries) if report.config.missing == "skip" else 0
    note = f"; {skipped} not in the run, skipped (--skip-missing)" if skipped else ""
    if report.config.nothing_relevant == "zero":
        n = len(report.per_query) if skipped else report.n_answerable + n_none
        title = f"Retrieval: {n} queries"
        return title + (f" ({n_none} with nothing relevant, scored 0)" if n_none else "") + note
    n = len(report.per_query) if skipped else report.n_answerable
    title = f"Retrieval: {n} answerable queries"
    return title + (f" (+{n_none} unanswerable, reported separately)" if n_none else "") + note


def _reading(report: RetrievalReport) -> Text:
    """Which reading of queries judged with nothing relevant made the means, and the
    option that switches it: the two readings give different numbers."""
    if report.config.nothing_relevant == "zero":
        how = "scored 0 and averaged in, as trec_eval does"
    else:
        how = "left out of the means and reported on their own (unanswerable)"
    option = f"--nothing-relevant {report.config.nothing_relevant}"
    return Text(f"Queries with nothing judged relevant: {how} ({option})", style="dim")


def _slice_metrics(report: RetrievalReport) -> list[str]:
    names = [a.metric for a in report.aggregates]
    preferred = [f"recall@{report.config.miss_k}", "mrr", "ndcg@10"]
    chosen = [m for m in preferred if m in names]
    return (chosen or names)[:KEY_SLICE_METRICS]


def _slices(report: RetrievalReport, console: Console) -> None:
    if not report.slices:
        return
    metrics = _slice_metrics(report)
    table = _table("Per tag", "tag", right=("n", *metrics))
    for s in report.slices:
        table.add_row(Text(s.tag), str(s.n), *(fmt(s.means.get(m)) for m in metrics))
    console.print(table)


def _missed(report: RetrievalReport, console: Console) -> None:
    k = report.config.miss_k
    console.print(
        Text(f"Missed queries (nothing relevant in the top {k}): {report.n_missed}", style="bold")
    )
    for miss in report.missed[:MAX_LISTED]:
        rank = (
            f"first relevant at rank {miss.first_relevant_rank}"
            if miss.first_relevant_rank
            else "relevant never retrieved"
        )
        line = Text(f"  {miss.query_id}  ")
        if miss.query:  # bare qrels have no query text or tags
            line.append(miss.query[:80] + "  ")
        tags = f"[{', '.join(miss.tags)}] " if miss.tags else ""
        line.append(f"{tags}{rank}; top: {', '.join(miss.top_ids)}", style="dim")
        console.print(line)
    if report.n_missed > MAX_LISTED:
        console.print(f"  ... {report.n_missed - MAX_LISTED} more (up to 1,000 in the JSON output)")


AUDIT_METRICS = ("recall@{k}", "hit_rate@{k}", "mrr", "ndcg@10")
WORST_CASES = 8
MAX_CLUSTERS = 12


def escalation_line(step) -> str:
    """One ``--escalate-to`` judge: what it was sent and decided, and what it cost."""
    usage = step.usage
    return (
        f"escalated to {step.judge}: {step.sent} unsure answers sent, {step.decided} decided, "
        + (f"{step.unscored} unscored (the judge failed), " if step.unscored else "")
        + f"{step.sent - step.decided - step.unscored} still unsure ({usage.calls} calls, "
        f"${usage.cost_usd:.4f}; "
        f"calibration {step.calibration or 'none'})"
    )


def print_call_plan(plan, console: Console) -> None:
    """The dry run of ``audit``: each judge of the cascade, its expected answers, calls and
    cost (``flows.audit.plan_calls``)."""
    console.print(Text("dry run: nothing was run", style="bold"))
    for k, judge in enumerate(plan):
        sent = "every case" if k == 0 else "the unsure answers of the judge before"
        calls = "unknown (no calibration record)" if judge.calls is None else f"{judge.calls:.0f}"
        usd = "unknown" if judge.usd is None else f"${judge.usd:.4f}"
        if judge.samples > 1 and judge.calls is not None:
            least = "" if judge.usd is None else f", ${judge.usd * judge.fewest:.4f}"
            calls = (
                f"up to {judge.samples} samples an answer: at most {calls} (at least "
                f"{judge.calls * judge.fewest:.0f}{least})"
            )
        unsure = f"leaves about {100 * judge.unsure_share:.0f} % of them unsure"
        line = f"{k + 1}. {judge.judge}: about {judge.answers:.0f} answers ({sent}), "
        console.print(Text(f"{line}{calls} calls, {usd}; {unsure}"))


def audit_summary(result: AuditResult, console: Console) -> None:
    """Stage metrics with intervals, failures by stage and tag, the worst cases (in the
    order of the Markdown and HTML reports)."""
    k = result.config.context_k
    counts = ", ".join(f"{label} {count}" for label, count in result.counts.items())
    console.print(Text(f"{views.audit_title(result)}: {counts}", style="bold"))
    fails = views.gate_fails(result)  # what CI will say, before anything else
    console.print(Text(views.gate_line(result), style="bold red" if fails else "green"))
    if (recorded := views.recorded_line(result)) is not None:  # before any figure: whose answers
        console.print(Text(recorded, style="yellow"))
    console.print(Text(_formats_read(result)))
    assumed = views.assumptions_line(result)
    if assumed:
        console.print(Text(assumed, style="yellow"))
    for lead in views.lead_messages(result):  # first screen: every decision rests on it
        console.print(Text(f"warning: {lead}", style="bold red"))
    console.print(_stage_table(result, k))
    gen = result.generation
    if gen.corrected_note:
        console.print(f"faithful (bias-corrected): {gen.corrected_note}")
    console.print(_reading(result.retrieval))
    outcomes = ", ".join(f"{o} {c}" for o, c in gen.outcomes.items())
    console.print(f"judge outcomes: {outcomes}")
    for line in audit_lines(result):
        console.print(Text(line))
    leads = {"stale_calibration", "uncalibrated"}
    style = "bold red" if any(n.code in leads for n in result.calibration.notices()) else ""
    console.print(Text(f"calibration: {result.calibration.note}", style=style))
    for step in result.escalations:
        console.print(Text(escalation_line(step)))
    render_split(result.retrieval, console)
    render_leaks(result.retrieval, console)
    _clusters(result, console)
    _causes(result, console)
    # failures, then what the judge could not score or decide: every label but pass
    worst = [c for c in views.ordered_cases(result) if c.label != Label.PASS]
    if worst:
        console.print(Text("Worst cases:", style="bold"))
    for case in worst[:WORST_CASES]:
        row = Text(f"  [{case.label.value}] {case.case_id}: ")
        row.append(shorten(case.query, 70))
        row.append(f" - {case.reason}", style="dim")
        console.print(row)
    for said, style in notice_lines(views.later_notices(result)):  # the leads came first
        console.print(Text(said, style=style))
    timings = ", ".join(f"{k} {v:.1f}" for k, v in result.timings.items())
    console.print(f"timings (s): {timings}")


def _stage_table(result: AuditResult, k: int) -> Table:
    """Stage metrics with intervals, and beside them what changes their meaning (each
    caveat once, on the first row it qualifies)."""
    notes = views.caveats(result)
    wide = any(notes.values())
    table = _table("Stage metrics", "stage", "metric", "value", "95% CI", *("caveat",) * wide)
    pending = {figure: list(texts) for figure, texts in notes.items()}

    def row(stage: str, name: str, est, low, high, *figures: str) -> None:
        caveat = "; ".join(t for f in figures for t in pending[f])
        for figure in figures:
            pending[figure] = []
        cells = [stage, name, fmt(est), f"[{fmt(low)}, {fmt(high)}]"]
        table.add_row(*cells, *[Text(caveat, style="yellow")] * wide)

    wanted = [m.format(k=k) for m in AUDIT_METRICS]
    for agg in result.retrieval.aggregates:
        if agg.metric in wanted:
            row("retrieval", agg.metric, agg.mean, agg.low, agg.high, "retrieval")
    gen = result.generation
    for name, est, figures in (
        ("faithful (judge)", gen.naive_faithful_rate, ("generation",)),
        ("faithful (bias-corrected)", gen.corrected_faithful_rate, ("generation", "corrected")),
    ):
        if est is not None:
            row("generation", name, est.estimate, est.low, est.high, *figures)
    return table


def _formats_read(result: AuditResult) -> str:
    """Which formats the inputs were read as (detected by content), e.g. ``ragas-jsonl``."""
    golden = result.golden.format or "-"
    traces = result.traces.format
    return f"read: golden set {golden}" + (f", traces {traces}" if traces else "")


def _clusters(result: AuditResult, console: Console) -> None:
    if not result.clusters:
        # a leaking case is labelled pass: never say "no failures" beside a failing gate
        text = (
            "No failing cases; the gate still fails (above)." if views.gate_fails(result) else None
        )
        console.print(text or "No failures.")
        return
    if result.meaningless:
        console.print(Text(views.MISMATCH_FIRST, style="yellow"))
    table = _table("Failures by stage and tag", "stage", "cause", "tag", "cases", "next action")
    for cluster in result.clusters[:MAX_CLUSTERS]:
        cause = cluster.cause.value if cluster.cause else "-"
        table.add_row(
            cluster.label.value, cause, Text(cluster.tag), str(cluster.count), cluster.action
        )
    console.print(table)
    hidden = len(result.clusters) - MAX_CLUSTERS
    if hidden > 0:  # a case with several tags is in several rows: the counts overlap
        console.print(f"... {hidden} more in report.md and report.html")


CASES_PER_CAUSE = 3


def _causes(result: AuditResult, console: Console) -> None:
    """Generation failures grouped by primary cause: its action, then a few cases with the
    failing sentence and the chunk it aligns with (all of them in the reports)."""
    groups = views.causes_by_primary(result)
    check = views.answer_check_line(result)
    if not groups and check is None:
        return
    console.print(Text("Generation failures by cause:", style="bold"))
    if check is not None:
        console.print(Text(f"  {check}"))
    for cause, cases in groups:
        console.print(Text(f"  {cause.value} ({len(cases)}): {CAUSE_ACTIONS[cause]}"))
        for case in cases[:CASES_PER_CAUSE]:
            line = Text(f"    {clean(case.case_id, 40)}: ")
            line.append(clean(views.evidence_line(case), 160), style="dim")
            console.print(line)
        if len(cases) > CASES_PER_CAUSE:
            console.print(
                f"    ... {len(cases) - CASES_PER_CAUSE} more in report.md and report.html"
            )
