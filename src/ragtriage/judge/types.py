"""The judge's inputs and results: the contract between judge, calibration and triage.

A judge result always has an explicit ``outcome``. A score exists only when the outcome
is ``scored``; a judge failure is ``unscored`` with a reason, never a silent NaN, 0 or 1.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from ragtriage.models.base import Usage

__all__ = [
    "Claim",
    "ContextChunk",
    "JudgeFingerprint",
    "JudgeItem",
    "JudgeResult",
    "Outcome",
    "Verdict",
]


class ContextChunk(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    text: str


class JudgeItem(BaseModel):
    """One answer to judge: the question, the context it was generated from, the answer."""

    model_config = ConfigDict(frozen=True)

    id: str
    question: str
    contexts: tuple[ContextChunk, ...]
    answer: str


class Verdict(StrEnum):
    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    NOT_IN_CONTEXT = "not_in_context"


class Outcome(StrEnum):
    SCORED = "scored"
    NO_CLAIMS = "no_claims"  # the answer asserts nothing (e.g. a refusal)
    ABSTAINED = "abstained"  # the answer says the context does not contain the answer
    UNSCORED = "unscored"  # the judge failed; ``reason`` says why


class Claim(BaseModel):
    text: str
    verdict: Verdict | None = None
    probability: float | None = None  # P(supported), for probabilistic judges
    chunk_ids: list[str] = Field(default_factory=list)
    reason: str = ""


class JudgeFingerprint(BaseModel):
    """What a calibration is valid for: change any field and the calibration is stale."""

    model_config = ConfigDict(frozen=True)

    judge: str  # strategy, e.g. "claims", "sentences", "lexical"
    model: str
    params: dict[str, float | int | str | bool | None] = Field(default_factory=dict)
    prompt_sha256: dict[str, str] = Field(default_factory=dict)
    package_version: str = ""


class JudgeResult(BaseModel):
    """One judged answer.

    ``score`` is the judge's continuous faithfulness score in [0, 1] (supported-claim
    fraction or probability), present only when ``outcome == scored``. ``signals`` holds
    every number calibration may weigh (e.g. ``model_prob``, ``min_sentence_prob``,
    ``lexical``, ``answer_tokens``); ``lexical`` is always there, model or not.
    """

    item_id: str
    outcome: Outcome
    score: float | None = None
    signals: dict[str, float] = Field(default_factory=dict)
    claims: list[Claim] = Field(default_factory=list)
    reason: str = ""
    fingerprint: JudgeFingerprint
    usage: Usage = Field(default_factory=Usage)
