"""What every report shares (terminal, Markdown, HTML): case order, headline counts."""

from __future__ import annotations

import re
from pathlib import Path

from ragtriage.calibration.answers import NO_ANSWER_GRADES, AnswerCheck
from ragtriage.notices import Notice, Severity
from ragtriage.render.format import count, describe_rule, fmt
from ragtriage.render.notices import texts as notice_texts
from ragtriage.results.gate import policy
from ragtriage.results.run import AuditResult
from ragtriage.retrieval.models import RetrievalReport
from ragtriage.triage.cause_types import CAUSE_ORDER, Cause, CauseEvidence
from ragtriage.triage.models import FAILURES, CaseResult, Cluster, Label

__all__ = [
    "MISMATCH_FIRST",
    "LABEL_ORDER",
    "LABEL_TITLES",
    "assumptions_line",
    "audit_title",
    "recorded_line",
    "calibration_source",
    "caveats",
    "few_grades_words",
    "judge_words",
    "later_notices",
    "lead_messages",
    "answer_check_line",
    "calibration_answer_line",
    "causes_by_primary",
    "decision_words",
    "evidence_line",
    "gate_fails",
    "gate_line",
    "audit_notices",
    "ordered_cases",
    "ordered_clusters",
    "ordered_counts",
    "slice_title",
    "stale_message",
    "threshold_line",
    "unanswerable_line",
]

LABEL_TITLES = {
    Label.RETRIEVAL: "retrieval failure",
    Label.RANKING: "ranking failure",
    Label.GENERATION: "generation failure",
    Label.UNSCORED: "unscored",
    Label.UNSURE: "unsure (judge undecided)",
    Label.UNSTABLE: "unstable (the judge's samples disagree)",
    Label.PASS: "pass",
}
# Failures first, in pipeline order, then cases the judge could not score or decide, then
# passes.
LABEL_ORDER = tuple(LABEL_TITLES)


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


def ordered_clusters(result: AuditResult) -> list[Cluster]:
    """Failure clusters by label (failures first), the largest first within a label."""
    return sorted(result.clusters, key=lambda c: (LABEL_ORDER.index(c.label), -c.count))


def audit_notices(result: AuditResult) -> list[str]:
    """The warnings of the audit and of its retrieval stage, as the reports list them (the
    lead notices are not among them: :func:`lead_messages` puts them first)."""
    return notice_texts([*later_notices(result), *result.retrieval.warnings])


def later_notices(result: AuditResult) -> list[Notice]:
    """The run's notices a report lists after its figures: all but the lead ones."""
    return [w for w in result.warnings if w.severity != Severity.LEAD]


def audit_title(result: AuditResult) -> str:
    """The one headline of the terminal, Markdown and HTML reports: the gate's verdict
    first when it fails, then what makes the result meaningless (mismatched files), then
    cases failing by label, then the slice."""
    counts = ordered_counts(result)
    failed = sum(counts[label] for label in FAILURES)
    lead = "gate fails; " if gate_fails(result) else ""
    lead += "".join(f"MEANINGLESS: {reason}; " for reason in result.meaningless.values())
    total = sum(counts.values())
    # an undecided answer is neither pass nor failure: said beside the failures it is not in
    unsure = f", {counts[Label.UNSURE]} unsure" if counts[Label.UNSURE] else ""
    return f"ragtriage audit: {lead}{failed} of {total} cases failing{unsure}{slice_title(result)}"


# the figures each mismatch (AuditResult.meaningless) or assumption changes the meaning of
_AFFECTS = {
    "golden_without_trace": ("retrieval", "generation"),
    "trace_ids_not_in_corpus": ("retrieval",),
    "expected_not_in_corpus": ("retrieval",),
    "scores_rising": ("retrieval",),
    "ids_by_text": ("retrieval",),
    "context_top_k": ("generation",),
}
MISMATCH_FIRST = (
    "These failures follow from the mismatched files named in the headline: fix the files "
    "before acting on the next actions."
)
_ASIDE = re.compile(r" \([^)]*\)")


def _short(sentence: str) -> str:
    """A headline sentence as the few words set beside a figure: ``45 of 45 retrieved ids
    are not in the corpus (q01:x, ...): the traces must ...`` -> its first clause."""
    return _ASIDE.sub("", sentence).split(": ")[0]


def recorded_line(result: AuditResult) -> str | None:
    """Where the answers came from when the embedded model wrote them earlier (the demo's
    shipped answers), so no report passes them off as written on this machine."""
    r = result.traces.recorded
    if r is None:
        return None
    return (
        f"Answers: {r.answers} of {result.golden.cases} were written by the embedded model "
        f"({r.model}, weights sha256 {r.weights_sha256[:12]}, prompt {r.prompt}) on "
        f"{r.written} and ship in {r.file}; not generated on this machine. To have the "
        f"model write them now: bash scripts/setup.sh --local, then add --live (or rewrite "
        f"the file: {r.command})."
    )


def assumptions_line(result: AuditResult) -> str | None:
    """What the audit assumed about the files, once, with counts, for the headline area."""
    if not result.assumptions:
        return None
    return "Assumed: " + "; ".join(result.assumptions.values()) + "."


def caveats(result: AuditResult) -> dict[str, list[str]]:
    """The caveats each figure carries beside it, by figure (``retrieval``: stage 1's
    metrics, ``generation``: the faithful rates, ``corrected``: the corrected rate alone):
    the mismatches and assumptions that change what it means, in a few words each."""
    out: dict[str, list[str]] = {"retrieval": [], "generation": [], "corrected": []}
    for kind, sentence in [*result.meaningless.items(), *result.assumptions.items()]:
        for figure in _AFFECTS.get(kind, ("retrieval", "generation")):
            out[figure].append(_short(sentence))
    if (few := few_grades_words(result)) is not None:
        out["corrected"].append(few)
    return out


def judge_words(result: AuditResult) -> str:
    """The judge as the report's header names it: one whose calibrated rule reads only
    model-free signals ran without its model, and its fingerprint reads ``lexical (none)``."""
    fp = result.judge_fingerprint
    asked = result.config.judge
    if not result.calibration.model_consulted and asked:
        return (
            f"judge {asked}, decided by its calibrated rule on model-free signals "
            f"({fp.judge} strategy; the model was not called)"
        )
    return f"judge {fp.judge} ({fp.model})"


def few_grades_words(result: AuditResult) -> str | None:
    """``FEW GRADES: calibrated on 10`` when the calibration rests on too few grades."""
    cal = result.calibration
    if not cal.few_grades:
        return None
    return f"FEW GRADES: calibrated on {cal.n_grades}" if cal.n_grades else "FEW GRADES"


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


def decision_words(result: AuditResult) -> str:
    """How the audit decided faithful: its calibrated rule, else the score threshold."""
    cal = result.calibration
    return describe_rule(cal.rule) if cal.rule else f"score >= {fmt(cal.threshold, 3)}"


def gate_fails(result: AuditResult) -> bool:
    """Whether ``ragtriage gate`` fails this audit with no bar given (leak, stale)."""
    return policy(result).fails()


def gate_line(result: AuditResult) -> str:
    """What ``ragtriage gate results.json`` says with no bar: every report leads with it,
    so a leaking case labelled ``pass`` cannot read as "no failures" while CI fails."""
    rules = policy(result)
    few = few_grades_words(result) if not rules.uncalibrated else None
    rough = f"{few}: its kappa and corrected rate are rough" if few else ""
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
        if rules.meaningless and not rules.mismatch_allowed:
            reasons.append(
                "the files mismatch (see the headline; audit --on-mismatch warn goes on)"
            )
        # the first screen says FEW GRADES whichever way the gate goes (docs/calibration.md)
        calibration = f" {rough}." if rough and not rules.stale else ""
        return f"Gate fails whatever the bars: {'; '.join(reasons)}.{calibration}"
    checked = "no leak" if rules.leaks_checked else "no access-control fields to check for leaks"
    calibration = (
        "judge uncalibrated (a warning, not a failure)"
        if rules.uncalibrated
        else "calibration current"
    )
    allowed = "; files mismatch (allowed by --on-mismatch warn)" if rules.meaningless else ""
    calibration += f" ({rough})" if rough else ""
    return f"Gate passes without bars: {checked}; {calibration}{allowed}."


def lead_messages(result: AuditResult) -> list[str]:
    """What the first screen says before any figure, since every decision rests on it: a
    record fitted on answers unlike these, and each lead notice of the run."""
    misfit = result.calibration.misfit
    leads = [w.text for w in result.warnings if w.severity == Severity.LEAD]
    return ([". ".join(misfit) + "."] if misfit else []) + leads


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
    return " (held-out slice)" if result.golden.slice == "holdout" else ""


def causes_by_primary(result: AuditResult) -> list[tuple[Cause, list[CaseResult]]]:
    """Generation failures with a cause, grouped by their primary cause, in the documented
    order (triage/cause_types.py); causes without a case left out."""
    groups: dict[Cause, list[CaseResult]] = {}
    for case in result.cases:
        if case.label == Label.GENERATION and case.cause is not None:
            groups.setdefault(case.cause, []).append(case)
    return [(cause, groups[cause]) for cause in CAUSE_ORDER if cause in groups]


def answer_check_line(result: AuditResult) -> str | None:
    """The answer check's counts with its agreement with the graders' "answers the
    question" marks, when the calibration record measured it; else None."""
    status = result.calibration
    if status.answer_check is None:
        return None
    found = dict(causes_by_primary(result))
    k = status.answer_check
    return (
        f"answer check: {len(found.get(Cause.IGNORED, []))} ignored, "
        f"{len(found.get(Cause.INCOMPLETE, []))} incomplete; against the graders' "
        f'"answers the question" marks kappa {fmt(k.estimate, 2)} '
        f"[{fmt(k.low, 2)}, {fmt(k.high, 2)}], n={status.answer_check_n}"
    )


def calibration_answer_line(check: AnswerCheck | None) -> str:
    """What ``calibrate`` says of the answer check: its agreement, or that no grade
    carries the mark."""
    if check is None:
        return NO_ANSWER_GRADES
    a = check.agreement
    (dd, da), (ad, aa) = a.confusion  # rows the graders' mark (does not, does)
    left = []
    if check.no_reference:
        left.append(f"{len(check.no_reference)} marked without a reference answer")
    if check.tied:
        left.append(f"{len(check.tied)} with tied marks")
    shown = (
        f'answer check against the graders\' "answers the question" marks: kappa '
        f"{fmt(a.kappa, 2)} [{fmt(a.kappa_low, 2)}, {fmt(a.kappa_high, 2)}], n={check.n} "
        f"(marked does not answer: check agrees {dd}, says answers {da}; marked answers: "
        f"check says does not {ad}, agrees {aa})"
    )
    return shown + (f"; left out: {', '.join(left)}" if left else "")


def chunk_words(e: CauseEvidence) -> str:
    """Where the evidence sits: ``chunk X (golden)``, ``chunk X (not golden)`` or ``no chunk``."""
    if e.chunk_id is None:
        return "no chunk"
    return f"chunk {e.chunk_id} ({'golden' if e.golden else 'not golden'})"


def evidence_line(case: CaseResult) -> str:
    """The primary cause's evidence in one line: the sentence, the chunk it aligns with (or
    "no chunk") and the chunk's span, or what is missing."""
    if not case.causes:
        return case.reason
    e = case.causes[0]
    if e.sentence is None:  # a cause of the whole answer: what is missing, then where
        return "; ".join(p for p in (e.note, f'"{e.span}"' if e.span else "") if p)
    where = chunk_words(e) + (f' "{e.span}"' if e.span else "")
    return "; ".join(p for p in (f'"{e.sentence}"', where, e.note) if p)
