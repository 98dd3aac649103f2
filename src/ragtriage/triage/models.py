"""The audit's data: traces in, one labelled row per golden case out.

``AuditResult`` is what ``results.json`` holds (versioned by ``schema_version``) and what
every report renders; ``compare`` and ``gate`` read it back.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from ragtriage.calibration.decision import AnyRule
from ragtriage.data.models import RetrievedChunk, Trace  # read by data/formats, kept here too
from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Usage
from ragtriage.retrieval.models import RetrievalReport
from ragtriage.stats import Estimate

__all__ = [
    "CASE_COLUMNS",
    "AuditResult",
    "CalibrationStatus",
    "CaseResult",
    "Cluster",
    "FAILURES",
    "GenerationSummary",
    "Label",
    "RetrievedChunk",
    "SCHEMA_VERSION",
    "Trace",
]

SCHEMA_VERSION = "ragtriage.audit/1"


if TYPE_CHECKING:
    import pandas as pd


class Label(StrEnum):
    """Exactly one per case. ``unscored`` is never folded into pass or fail."""

    PASS = "pass"
    RETRIEVAL = "retrieval"  # answerable, no relevant chunk anywhere in the retrieved list
    RANKING = "ranking"  # retrieved, but not among the chunks passed to the generator
    GENERATION = "generation"  # right context, unfaithful/wrong answer; or hallucinated
    UNSCORED = "unscored"  # the judge could not score the answer


FAILURES = (Label.RETRIEVAL, Label.RANKING, Label.GENERATION)


class CaseResult(BaseModel):
    case_id: str
    query: str
    tags: list[str] = Field(default_factory=list)
    answerable: bool
    expected: list[str] = Field(default_factory=list)
    retrieved_ids: list[str] = Field(default_factory=list)
    retrieved_scores: list[float | None] = Field(default_factory=list)
    context_ids: list[str] = Field(default_factory=list)
    first_relevant_rank: int | None = None  # 1-based, in the retrieved list
    relevant_in_context: bool = False
    answer: str = ""
    judge: JudgeResult | None = None
    faithful: bool | None = None  # the calibrated decision; None when not scored
    label: Label
    reason: str
    warnings: list[str] = Field(default_factory=list)


class Cluster(BaseModel):
    """Failures sharing a stage and a tag, with the next action the pattern suggests."""

    label: Label
    tag: str
    count: int
    case_ids: list[str]
    action: str


class GenerationSummary(BaseModel):
    n_judged: int
    outcomes: dict[str, int]  # scored / no_claims / abstained / unscored
    naive_faithful_rate: Estimate | None = None  # judge decisions taken at face value
    corrected_faithful_rate: Estimate | None = None  # prediction-powered (calibration set)
    corrected_note: str = ""  # why there is no corrected rate (triage/calibrated.py)


class CalibrationStatus(BaseModel):
    source: str | None = None  # the calibration record used, if any
    fingerprint: JudgeFingerprint | None = None
    stale: list[str] = Field(default_factory=list)  # fingerprint fields that differ
    threshold: float | None = None  # the rule's, when it is one threshold on one feature
    rule: AnyRule | None = None  # the decision rule applied (calibration/decision.py)
    kappa: Estimate | None = None
    note: str = ""
    # False when the rule reads no model signal and the judge's model was not called
    # (triage.calibrated.model_free_decider); the note says which rule and why
    model_consulted: bool = True


class AuditResult(BaseModel):
    schema_version: str = SCHEMA_VERSION
    created_at: str
    config: dict[str, Any]
    versions: dict[str, str]
    golden: dict[str, Any]
    traces: dict[str, Any]
    judge_fingerprint: JudgeFingerprint
    judge_usage: Usage
    judge_cache: dict[str, int] = Field(default_factory=dict)
    calibration: CalibrationStatus
    retrieval: RetrievalReport
    generation: GenerationSummary
    counts: dict[str, int]  # label -> cases
    clusters: list[Cluster]
    cases: list[CaseResult]
    warnings: list[str] = Field(default_factory=list)
    mismatches: dict[str, list[str]] = Field(default_factory=dict)  # kind -> ids
    timings: dict[str, float] = Field(default_factory=dict)

    def to_pandas(self) -> pd.DataFrame:
        """One row per case: label, reason, ranks, judge outcome and score, tags.

        The same frame comes back from a written ``results.json`` (load it with
        :func:`ragtriage.results.load.load_audit`), so notebooks can start from either.
        """
        import pandas as pd

        return pd.DataFrame([_case_row(c) for c in self.cases], columns=list(CASE_COLUMNS))


CASE_COLUMNS = (
    "case_id",
    "query",
    "label",
    "reason",
    "answerable",
    "first_relevant_rank",
    "relevant_in_context",
    "judge_outcome",
    "judge_score",
    "faithful",
    "tags",
    "expected",
    "context_ids",
    "answer",
)


def _case_row(case: CaseResult) -> dict[str, Any]:
    judge = case.judge
    return {
        "case_id": case.case_id,
        "query": case.query,
        "label": str(case.label),
        "reason": case.reason,
        "answerable": case.answerable,
        "first_relevant_rank": case.first_relevant_rank,
        "relevant_in_context": case.relevant_in_context,
        "judge_outcome": None if judge is None else str(judge.outcome),
        "judge_score": None if judge is None else judge.score,
        "faithful": case.faithful,
        "tags": list(case.tags),
        "expected": list(case.expected),
        "context_ids": list(case.context_ids),
        "answer": case.answer,
    }
