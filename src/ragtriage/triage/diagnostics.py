"""RAGChecker's run-level diagnostics on an audit: the entailment labels of each case, and
their means per run and per tag with 95% bootstrap intervals.

The figures are RAGChecker's (:mod:`ragtriage.judge.diagnostics`); where the claims, the
entailment and the relevant chunks differ from its, and why, is docs/triage-causes.md
("RAGChecker's diagnostics"). Entailment is :func:`ragtriage.triage.causes.entails`, or
with the claims judge an answer claim's verdict: ``supported`` in the chunks it cites (in
all it was shown when it cites none), any other verdict in none; :data:`ENTAILMENT`
names which. A case counts with a trace, a judged answer (scored, abstained or asserting
nothing) and a reference answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ragtriage.judge.diagnostics import DIAGNOSTICS, ClaimChecks
from ragtriage.judge.lexical import CITATION, claim_sentences, split_sentences
from ragtriage.judge.types import ContextChunk, JudgeResult, Outcome, Verdict
from ragtriage.stats import Estimate, bootstrap_mean
from ragtriage.triage.causes import entails

__all__ = [
    "ENTAILMENT",
    "DiagnosticsSummary",
    "case_checks",
    "reference_claims",
    "summarize",
]

ENTAILMENT = {
    "alignment": "model-free sentence alignment (triage/causes.py: 60 % of a claim's content "
    "words and its facts in one window)",
    "claims": "the claims judge's verdicts for answer claims against chunks; model-free "
    "sentence alignment for the reference's claims and the answer-reference checks",
}
_CLAUSE = re.compile(r"\s*;\s*|\s*[\r\n]+\s*")


class DiagnosticsSummary(BaseModel):
    """RAGChecker's diagnostics over the audit (triage/diagnostics.py)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    entailment: str
    """Where the entailment labels came from, in words (model-free alignment, or the claims
    judge for answer claims against chunks)."""
    n: int
    """Cases counted: a trace, a judged answer and a reference answer."""
    run: dict[str, Estimate] = Field(default_factory=dict)
    """Diagnostic -> its mean 0-1 over the counted cases with a 95% bootstrap interval
    (RAGChecker's definitions; relevant chunks are the golden ones)."""
    by_tag: dict[str, dict[str, Estimate]] = Field(default_factory=dict)
    """Tag -> diagnostic -> mean and 95% bootstrap interval over that tag's counted cases."""


def reference_claims(reference: str) -> list[str]:
    """The reference answer's claims: its sentences, cut at semicolons and line breaks."""
    return [p for s in split_sentences(reference) for p in _CLAUSE.split(s) if p.strip()]


def _answer_claims(answer: str, judge: JudgeResult) -> list[tuple[str, Verdict | None, list]]:
    if judge.outcome != Outcome.SCORED:
        return []  # an abstention states nothing: RAGChecker's empty response
    if any(c.verdict is not None for c in judge.claims):
        return [(c.text, c.verdict, list(c.chunk_ids)) for c in judge.claims]
    return [(p, None, []) for s in claim_sentences(answer) for p in _CLAUSE.split(s) if p.strip()]


def case_checks(
    answer: str,
    contexts: Sequence[ContextChunk],
    expected: Sequence[str],
    reference: str,
    judge: JudgeResult,
) -> ClaimChecks:
    """One case's four entailment checks (module doc)."""
    claims = _answer_claims(answer, judge)
    ref = reference_claims(reference)
    plain = CITATION.sub(" ", answer)
    return ClaimChecks(
        answer_in_reference=tuple(entails(reference, text) for text, _, _ in claims),
        reference_in_answer=tuple(entails(plain, r) for r in ref),
        answer_in_chunks=tuple(_in_chunks(t, verdict, ids, contexts) for t, verdict, ids in claims),
        reference_in_chunks=tuple(tuple(entails(c.text, r) for c in contexts) for r in ref),
        relevant=tuple(c.id in set(expected) for c in contexts),
    )


def _in_chunks(
    text: str, verdict: Verdict | None, ids: Sequence[str], contexts: Sequence[ContextChunk]
) -> tuple[bool, ...]:
    if verdict is None:
        return tuple(entails(c.text, text) for c in contexts)
    if verdict != Verdict.SUPPORTED:
        return tuple(False for _ in contexts)
    return tuple((c.id in ids) if ids else True for c in contexts)


def summarize(
    rows: Sequence[tuple[dict[str, float], Sequence[str]]], entailment: str
) -> DiagnosticsSummary | None:
    """Means with intervals, per run and per tag; ``rows``: (a case's figures, its tags).
    ``None`` when no case counted."""
    if not rows:
        return None
    tags = sorted({t for _, ts in rows for t in ts})
    return DiagnosticsSummary(
        entailment=ENTAILMENT[entailment],
        n=len(rows),
        run=_means([f for f, _ in rows]),
        by_tag={t: _means([f for f, ts in rows if t in ts]) for t in tags},
    )


def _means(figures: Sequence[dict[str, float]]) -> dict[str, Estimate]:
    means = {n: bootstrap_mean(np.array([f[n] for f in figures], np.float64)) for n in DIAGNOSTICS}
    return {n: Estimate.model_validate(m, from_attributes=True) for n, m in means.items()}
