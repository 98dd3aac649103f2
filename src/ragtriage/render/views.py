"""What every report shares (terminal, Markdown, HTML): case order, headline counts."""

from __future__ import annotations

from pathlib import Path

from ragtriage.flows.gate import policy
from ragtriage.render.format import count, fmt
from ragtriage.retrieval.models import RetrievalReport
from ragtriage.triage.models import FAILURES, AuditResult, CaseResult, Label

__all__ = [
    "LABEL_ORDER",
    "LABEL_TITLES",
    "audit_title",
    "calibration_source",
    "gate_fails",
    "gate_line",
    "ordered_cases",
    "ordered_counts",
    "slice_title",
    "stale_message",
    "threshold_line",
    "unanswerable_line",
]

# Failures first, in pipeline order, then cases the judge could not score, then passes.
LABEL_ORDER = (
    Label.RETRIEVAL,
    Label.RANKING,
    Label.GENERATION,
    Label.UNSCORED,
    Label.UNSTABLE,
    Label.PASS,
)
LABEL_TITLES = {
    Label.RETRIEVAL: "retrieval failure",
    Label.RANKING: "ranking failure",
    Label.GENERATION: "generation failure",
    Label.UNSCORED: "unscored",
    Label.UNSTABLE: "unstable (the judge's samples disagree)",
    Label.PASS: "pass",
}


def ordered_counts(result: AuditResult) -> dict[Label, int]:
    """Cases per label, every label present; counted from the cases when ``counts`` is empty."""
    if result.counts:
        found = {label: int(result.counts.get(label.value, 0)) for label in LABEL_ORDER}
    else:
        found = {label: sum(c.label == label for c in result.cases) for label in LABEL_ORDER}
    if not found[Label.UNSTABLE]:  # only audits with --samples can have any
        del found[Label.UNSTABLE]
    return found


def ordered_cases(result: AuditResult) -> list[CaseResult]:
    """Worst first: by label (failures first), then the lowest judge score, then file order."""
    rank = {label: i for i, label in enumerate(LABEL_ORDER)}

    def key(item: tuple[int, CaseResult]) -> tuple[int, float, int]:
        index, case = item
        score = case.judge.score if case.judge and case.judge.score is not None else 1.0
        return rank[case.label], score, index

    return [case for _, case in sorted(enumerate(result.cases), key=key)]


def audit_title(result: AuditResult) -> str:
    """The one headline of the terminal, Markdown and HTML reports: the gate's verdict
    first when it fails, then cases failing by label, then the slice."""
    counts = ordered_counts(result)
    failed = sum(counts[label] for label in FAILURES)
    lead = "gate fails; " if gate_fails(result) else ""
    total = sum(counts.values())
    return f"ragtriage audit: {lead}{failed} of {total} cases failing{slice_title(result)}"


def calibration_source(source: str | None) -> str:
    """The calibration record a report names, without this machine's absolute paths: a
    shipped record by its name, another relative to the working directory (else its name)."""
    if not source:
        return "none (judge decisions are uncalibrated)"
    from ragtriage.triage.calibrated import SHIPPED

    path = Path(source)
    if not path.is_absolute():
        return source
    if path.resolve().parent == SHIPPED.resolve():
        return f"{path.name} (shipped with ragtriage)"
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return path.name


def gate_fails(result: AuditResult) -> bool:
    """Whether ``ragtriage gate`` fails this audit with no bar given (leak, stale)."""
    return policy(result).fails()


def gate_line(result: AuditResult) -> str:
    """What ``ragtriage gate results.json`` says with no bar: every report leads with it,
    so a leaking case labelled ``pass`` cannot read as "no failures" while CI fails."""
    rules = policy(result)
    if rules.fails():
        reasons = []
        if rules.leaks:
            ids = ", ".join(rules.leaking_cases[:5])
            more = "" if len(rules.leaking_cases) <= 5 else ", ..."
            reasons.append(f"{count(len(rules.leaks), 'leak')} ({ids}{more})")
        if rules.stale:
            reasons.append(
                f"stale calibration ({', '.join(rules.stale)}; --allow-stale gates anyway)"
            )
        return f"Gate fails whatever the bars: {'; '.join(reasons)}."
    checked = "no leak" if rules.leaks_checked else "no access-control fields to check for leaks"
    calibration = (
        "judge uncalibrated (a warning, not a failure)"
        if rules.uncalibrated
        else "calibration current"
    )
    return f"Gate passes without bars: {checked}; {calibration}."


def stale_message(result: AuditResult) -> str | None:
    """The warning a stale calibration deserves, or None when it is current."""
    stale = result.calibration.stale
    if not stale:
        return None
    return (
        "The judge calibration is STALE: the judge differs from the calibrated one in "
        f"{', '.join(stale)}. Faithfulness decisions and corrected rates are not "
        "validated until the judge is re-calibrated (ragtriage calibrate)."
    )


# a run of ranks only (ragas, DeepEval, LangChain spans): the sections that read scores
_NEEDS_SCORES = "%s skipped: it needs retrieval scores, and the run has ranks only"


def unanswerable_line(report: RetrievalReport) -> str | None:
    """The unanswerable queries in one sentence (every report says "reported separately")."""
    section = report.unanswerable
    if section is None:
        if report.n_unanswerable and report.run.get("scored") is False:
            return f"Unanswerable queries: {report.n_unanswerable}; {_NEEDS_SCORES % 'confidence'}"
        return None
    return (
        f"Unanswerable queries: {section.n}; median top-1 score "
        f"{fmt(section.unanswerable_top1.median)} vs {fmt(section.answerable_top1.median)} on "
        f"answerable (AUC {fmt(section.auc)}); {section.n_confident} retrieved as confidently "
        "as a typical answerable query"
    )


def threshold_line(report: RetrievalReport) -> str | None:
    """The score-threshold verdict with the depth and AUC it rests on."""
    t = report.threshold
    if t is None:
        if report.run.get("scored") is False:
            return f"Score threshold: {_NEEDS_SCORES % 'analysis'}"
        return None
    return f"Score threshold (top {t.depth}): AUC {fmt(t.auc)}; {t.verdict}"


def slice_title(result: AuditResult) -> str:
    """`` (held-out slice)`` for an audit of the held-back cases, else nothing: a report of
    the slice nobody may tune on must say so where it is read first."""
    return " (held-out slice)" if result.golden.get("slice") == "holdout" else ""
