"""One :class:`CaseResult` per golden case, and the counts built from them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from ragtriage.data.models import GoldenCase, GoldenSet
from ragtriage.data.traces import ranked_chunks
from ragtriage.errors import RagtriageError
from ragtriage.judge.diagnostics import case_diagnostics
from ragtriage.judge.types import ContextChunk, JudgeResult, Outcome, Verdict
from ragtriage.retrieval.models import RetrievalReport
from ragtriage.triage.calibrated import Decider, naive_rate
from ragtriage.triage.cause_types import is_note
from ragtriage.triage.causes import ANSWER_CHECK_KAPPA, find_causes, primary
from ragtriage.triage.diagnostics import case_checks
from ragtriage.triage.models import CaseResult, GenerationSummary, Label, Trace
from ragtriage.triage.rules import Evidence, triage

__all__ = [
    "answer_check_backs",
    "Judgments",
    "build",
    "contradicted_claims",
    "generation_summary",
    "label_counts",
    "stage1_facts",
    "unjudgeable",
]


def _leaks_by_case(retrieval: RetrievalReport) -> dict[str, list[str]]:
    """A warning per forbidden chunk a case retrieved: its label is about what it answered,
    so without this a leaking case read "pass" in every report (the gate still fails)."""
    out: dict[str, list[str]] = {}
    for leak in retrieval.leaks.cases if retrieval.leaks else []:
        out.setdefault(leak.query_id, []).append(
            f"LEAK: forbidden chunk {leak.forbidden_id} retrieved at rank {leak.rank} "
            "(access control)"
        )
    return out


# a case row's warning when the rule's verdict stands inside an inert band
# (band_fallback "rule"): the label a user acts on is not backed at the stated agreement
UNBACKED = (
    "undecided by the band: the calibration's band decides too few answers, so the rule's "
    "verdict stands without the agreement the band promises (grade more answers, or "
    "calibrate with --band-fallback unsure to leave such answers unsure)"
)


@dataclass(frozen=True)
class Judgments:
    """What stage 2 left for the rows: the first judge's (``judge_name``) results by case
    and the decider of its calibration; ``escalated``: case -> the result, decider and name
    of the judge that decides it in the first judge's place; ``unjudged``: why a traced
    answer was not judged (:func:`unjudgeable`)."""

    results: dict[str, JudgeResult]
    decider: Decider
    reference: dict[str, JudgeResult] = field(default_factory=dict)
    escalated: dict[str, tuple[JudgeResult, Decider, str]] = field(default_factory=dict)
    judge_name: str | None = None
    unjudged: dict[str, str] = field(default_factory=dict)

    def of(self, case_id: str) -> tuple[JudgeResult | None, Decider, str | None]:
        """The result that decides a case, its decider and the judge's name."""
        if case_id in self.escalated:
            return self.escalated[case_id]
        return self.results.get(case_id), self.decider, self.judge_name


@dataclass(frozen=True)
class _Stage1:
    """What stage 1 and the traces say of every case, read once for all rows."""

    traces: dict[str, Trace]
    texts: dict[str, str] | None
    first_rank: dict[str, int]
    confident: set[str]
    leaked: dict[str, list[str]]


def build(
    golden: GoldenSet,
    traces: dict[str, Trace],
    judgments: Judgments,
    retrieval: RetrievalReport,
    texts: dict[str, str] | None = None,
) -> list[CaseResult]:
    """One row per golden case. An unjudged case is ``unscored`` with its reason once
    triage reaches the judge, and carries the reason as a warning when an earlier stage
    (retrieval, ranking) already decided its label. ``texts``: the text of every chunk by
    id (``chunk_texts``), which the causes of a generation failure read; else the texts
    the traces carry."""
    first_rank, confident = stage1_facts(retrieval)
    stage1 = _Stage1(traces, texts, first_rank, confident, _leaks_by_case(retrieval))
    return [_row(case, stage1, judgments) for case in golden.cases]


def _row(case: GoldenCase, stage1: _Stage1, judgments: Judgments) -> CaseResult:
    """A case's row: its evidence, the triage rule's label, and what the reader must know."""
    trace = stage1.traces.get(case.id)
    expected = case.expected()
    if trace is None:
        reason = "the system produced no trace for it"
        return CaseResult(**_identity(case, expected), label=Label.UNSCORED, reason=reason)
    result, decider, decided_by = judgments.of(case.id)
    evidence = _evidence(case, trace, result, decider, stage1, judgments)
    label, reason = triage(evidence)
    if result is None and label == Label.UNSCORED:
        reason = judgments.unjudged.get(case.id, "the judge returned no result for it")
    notes = [c for c in evidence.causes if is_note(c)] if label == Label.PASS else []
    causes = [c for c in evidence.causes if not is_note(c)] if label == Label.GENERATION else []
    ranked = ranked_chunks(trace)
    return CaseResult(
        **_identity(case, expected),
        retrieved_ids=[c.id for c in ranked],
        retrieved_scores=[c.score for c in ranked],
        context_ids=trace.context_ids,
        first_relevant_rank=evidence.first_relevant_rank,
        relevant_in_context=evidence.relevant_in_context,
        answer=trace.answer,
        judge=result,
        faithful=evidence.faithful,
        decided_by=decided_by if result is not None else None,
        label=label,
        reason=reason,
        cause=primary(causes),
        causes=causes,
        notes=notes,
        diagnostics=_figures(case, trace, result, stage1),
        warnings=_case_warnings(case, result, label, stage1, judgments),
    )


def _evidence(
    case: GoldenCase,
    trace: Trace,
    result: JudgeResult | None,
    decider: Decider,
    stage1: _Stage1,
    judgments: Judgments,
) -> Evidence:
    """What the triage rules read of a traced case (the causes of a generation failure
    among it: found when the relevant chunk reached the generator, or none was expected)."""
    expected = case.expected()
    in_context = bool(set(expected) & set(trace.context_ids))
    faithful = decider.decide(result) if result else None
    contradicted = contradicted_claims(judgments.reference.get(case.id))
    causes = []
    if result is not None and (in_context or not expected):
        causes = find_causes(
            query=case.query,
            answer=trace.answer,
            contexts=_contexts(trace, stage1.texts),
            expected=expected,
            judge=result,
            faithful=faithful,
            reference_answer=case.reference_answer,
            reference_contradicted=contradicted,
            answer_check=answer_check_backs(decider),
        )
    return Evidence(
        answerable=bool(expected),
        first_relevant_rank=stage1.first_rank.get(case.id),
        relevant_in_context=in_context,
        judge=result,
        faithful=faithful,
        unsure=decider.unsure(result) if result else False,
        contradicted=contradicted,
        causes=tuple(causes),
    )


def answer_check_backs(decider: Decider) -> bool:
    """The calibration's answer check agrees with people well enough (the lower end of its
    kappa interval at least :data:`ANSWER_CHECK_KAPPA`) to fail an answer on any missing
    reference fact; a stale record's check was measured on another judge's audit."""
    check = decider.status.answer_check
    return check is not None and not decider.status.stale and check.low >= ANSWER_CHECK_KAPPA


def _figures(
    case: GoldenCase, trace: Trace, result: JudgeResult | None, stage1: _Stage1
) -> dict[str, float] | None:
    """RAGChecker's diagnostics of a judged answer with a reference answer, else None."""
    if result is None or result.outcome == Outcome.UNSCORED or not case.reference_answer:
        return None
    contexts = _contexts(trace, stage1.texts)
    checks = case_checks(trace.answer, contexts, case.expected(), case.reference_answer, result)
    return case_diagnostics(checks)


def _case_warnings(
    case: GoldenCase,
    result: JudgeResult | None,
    label: Label,
    stage1: _Stage1,
    judgments: Judgments,
) -> list[str]:
    """The row's warnings: why an answer was not judged when an earlier stage decided the
    label, an unbacked verdict, a confident retrieval of an unanswerable query, a leak."""
    warnings = []
    if case.id in judgments.unjudged and not (result is None and label == Label.UNSCORED):
        warnings.append(judgments.unjudged[case.id])
    if unbacked(label, result, judgments.of(case.id)[1]):
        warnings.append(UNBACKED)
    if not case.expected() and case.id in stage1.confident:
        warnings.append(
            "retrieval warning: unanswerable query retrieved as confidently as a typical "
            "answerable one"
        )
    return warnings + stage1.leaked.get(case.id, [])


def unbacked(label: Label, result: JudgeResult | None, decider: Decider) -> bool:
    """Whether a label rests on a verdict the calibration's inert band does not back."""
    if result is None or label not in (Label.PASS, Label.GENERATION):
        return False
    return decider.unbacked(result)


def unjudgeable(trace: Trace, texts: dict[str, str]) -> str | None:
    """Why the answer cannot be judged, or ``None``: no answer was generated, or a chunk
    passed to the generator has no known text. Judging on the chunks that are left would
    call an answer unsupported that its missing context may well support."""
    if trace.generation_error is not None:
        return f"generation failed: {trace.generation_error}"
    missing = [cid for cid in trace.context_ids if cid not in texts]
    if missing:
        return (
            f"no text is known for context chunk {', '.join(missing)} (neither in the "
            "trace nor in the corpus), so the answer cannot be judged against its context"
        )
    return None


def _contexts(trace: Trace, texts: dict[str, str] | None) -> list[ContextChunk]:
    """The chunks passed to the generator with their text (a chunk without one is left
    out: such an answer is not judged, :func:`unjudgeable`)."""
    known = dict(texts or {})
    known.update({c.id: c.text for c in trace.retrieved if c.text and c.id not in known})
    return [ContextChunk(id=cid, text=known[cid]) for cid in trace.context_ids if cid in known]


def stage1_facts(retrieval: RetrievalReport) -> tuple[dict[str, int], set[str]]:
    """``(rank of the first relevant chunk by case, cases retrieved confidently though
    unanswerable)`` as stage 1 computed them for every query (trec_eval order, uncapped):
    the case rows and the retrieval section cannot disagree."""
    facts = retrieval.query_facts
    if facts is None:
        raise RagtriageError(
            "the retrieval report carries no per-query facts (a report read back from JSON?): "
            "score the traces with RetrievalEvaluator first"
        )
    ranks = facts["first_relevant_rank"].dropna()
    first_rank = {str(q): int(r) for q, r in ranks.items()}
    confident = {str(q) for q in facts.index[facts["confident"].to_numpy(bool)]}
    return first_rank, confident


def contradicted_claims(result: JudgeResult | None) -> list[str] | None:
    """Claims of the answer that the reference answer contradicts (None if not checked)."""
    if result is None or result.outcome != Outcome.SCORED:
        return None
    return [c.text for c in result.claims if c.verdict == Verdict.CONTRADICTED]


def _identity(case: GoldenCase, expected: list[str]) -> dict:
    """What every row says of its golden case."""
    return {"case_id": case.id, "query": case.query, "tags": list(case.tags),
            "answerable": bool(expected), "expected": expected}  # fmt: skip


def label_counts(labels: Iterable[StrEnum], kinds: type[StrEnum] = Label) -> dict[str, int]:
    """Rows by label (a case's, or a turn's: ``kinds``), every label present (0 if none)."""
    counts = Counter(labels)
    return {label.value: counts.get(label, 0) for label in kinds}


def generation_summary(
    rows: list[CaseResult],
    results: list[JudgeResult],
    decider: Decider,
    rated: list[JudgeResult] | None = None,
) -> GenerationSummary:
    """``results``: those that decided the cases (an escalated case: its escalation judge's),
    whose outcomes are counted; ``rated``: the first judge's, which its calibration's
    corrected rate is computed from (default ``results``)."""
    outcomes = Counter(r.outcome.value for r in results)
    decisions = [row.faithful for row in rows if row.faithful is not None]
    scored = [r for r in (results if rated is None else rated) if r.outcome == Outcome.SCORED]
    corrected, why = decider.corrected_rate(scored) if scored else (None, "")
    return GenerationSummary(
        n_judged=len(results),
        outcomes={o.value: outcomes.get(o.value, 0) for o in Outcome},
        naive_faithful_rate=naive_rate(decisions),
        corrected_faithful_rate=corrected,
        corrected_note=why,
    )
