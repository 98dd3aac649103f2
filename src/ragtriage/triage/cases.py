"""One :class:`CaseResult` per golden case, and the counts built from them."""

from __future__ import annotations

from collections import Counter

from ragtriage.data.models import GoldenSet
from ragtriage.data.traces import ranked_chunks
from ragtriage.errors import RagtriageError
from ragtriage.judge.types import ContextChunk, JudgeResult, Outcome, Verdict
from ragtriage.retrieval.models import RetrievalReport
from ragtriage.triage.calibrated import Decider, naive_rate
from ragtriage.triage.causes import find_causes, primary
from ragtriage.triage.diagnostics import case_checks, case_figures
from ragtriage.triage.models import CaseResult, GenerationSummary, Label, Trace
from ragtriage.triage.rules import Evidence, triage

__all__ = [
    "build",
    "contradicted_claims",
    "generation_summary",
    "label_counts",
    "stage1_facts",
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


def build(
    golden: GoldenSet,
    traces: dict[str, Trace],
    judged: dict[str, JudgeResult],
    decider: Decider,
    retrieval: RetrievalReport,
    reference: dict[str, JudgeResult] | None = None,
    unjudged: dict[str, str] | None = None,
    texts: dict[str, str] | None = None,
    escalated: dict[str, tuple[JudgeResult, Decider, str]] | None = None,
    judge_name: str | None = None,
) -> list[CaseResult]:
    """One row per golden case. ``unjudged``: why a traced answer was not judged (a failed
    generation, a context chunk without text): such a case is ``unscored`` with that
    reason once triage reaches the judge, and carries it as a warning when an earlier
    stage (retrieval, ranking) already decided its label. ``texts``: the text of every
    chunk by id (the audit's ``chunk_texts``), which the causes of a generation failure
    read; else the texts the traces carry. ``escalated``: case -> the result, decider and
    name of the ``--escalate-to`` judge that judged it again (the first judge, named
    ``judge_name``, was unsure of it): that judge's result decides it."""
    unjudged = unjudged or {}
    escalated = escalated or {}
    first_rank, confident = stage1_facts(retrieval)
    leaked = _leaks_by_case(retrieval)
    rows = []
    for case in golden.cases:
        trace = traces.get(case.id)
        expected = case.expected()
        result = judged.get(case.id)
        case_decider, decided_by = decider, judge_name
        if case.id in escalated:
            result, case_decider, decided_by = escalated[case.id]
        if trace is None:
            rows.append(_untraced(case, expected))
            continue
        ranked = ranked_chunks(trace)
        in_context = bool(set(expected) & set(trace.context_ids))
        faithful = case_decider.decide(result) if result else None
        contradicted = contradicted_claims((reference or {}).get(case.id))
        contexts = _contexts(trace, texts)
        figures = None
        if result is not None and result.outcome != Outcome.UNSCORED and case.reference_answer:
            checks = case_checks(trace.answer, contexts, expected, case.reference_answer, result)
            figures = case_figures(checks)
        causes = []
        if result is not None and (in_context or not expected):
            causes = find_causes(
                query=case.query,
                answer=trace.answer,
                contexts=contexts,
                expected=expected,
                judge=result,
                faithful=faithful,
                reference_answer=case.reference_answer,
                reference_contradicted=contradicted,
            )
        evidence = Evidence(
            answerable=bool(expected),
            first_relevant_rank=first_rank.get(case.id),
            relevant_in_context=in_context,
            judge=result,
            faithful=faithful,
            unsure=case_decider.unsure(result) if result else False,
            contradicted=contradicted,
            causes=tuple(causes),
        )
        label, reason = triage(evidence)
        if label != Label.GENERATION:
            causes = []
        warnings = []
        if result is None and label == Label.UNSCORED:
            reason = unjudged.get(case.id, "the judge returned no result for it")
        elif case.id in unjudged:
            warnings.append(unjudged[case.id])
        if not expected and case.id in confident:
            warnings.append(
                "retrieval warning: unanswerable query retrieved as confidently as a typical "
                "answerable one"
            )
        warnings += leaked.get(case.id, [])
        rows.append(
            CaseResult(
                case_id=case.id,
                query=case.query,
                tags=list(case.tags),
                answerable=bool(expected),
                expected=expected,
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
                diagnostics=figures,
                warnings=warnings,
            )
        )
    return rows


def _contexts(trace: Trace, texts: dict[str, str] | None) -> list[ContextChunk]:
    """The chunks passed to the generator with their text (a chunk without one is left
    out: such an answer is not judged, :func:`ragtriage.flows.audit.unjudgeable`)."""
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


def _untraced(case, expected: list[str]) -> CaseResult:
    return CaseResult(
        case_id=case.id,
        query=case.query,
        tags=list(case.tags),
        answerable=bool(expected),
        expected=expected,
        label=Label.UNSCORED,
        reason="the system produced no trace for it",
    )


def label_counts(rows: list[CaseResult]) -> dict[str, int]:
    counts = Counter(row.label.value for row in rows)
    return {label.value: counts.get(label.value, 0) for label in Label}


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
