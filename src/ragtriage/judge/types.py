"""The judge's inputs and results: the contract between judge, calibration and triage.

A judge result always has an explicit ``outcome``. A score exists only when the outcome
is ``scored``; a judge failure is ``unscored`` with a reason, never a silent NaN, 0 or 1.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from ragtriage.llm.base import Usage

__all__ = [
    "Claim",
    "ContextChunk",
    "JudgeFingerprint",
    "JudgeItem",
    "JudgeResult",
    "Outcome",
    "Sample",
    "Stability",
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


# No docstring: Verdict is part of the claims judge's JSON schema (ClaimsOutput), which is
# sent with every request, so a description here would change every request and with it
# every cache key and recorded response. Claim.verdict's description says what it holds.
class Verdict(StrEnum):
    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    NOT_IN_CONTEXT = "not_in_context"


class Outcome(StrEnum):
    """How the judge ended on an answer: ``scored`` (a score), ``no_claims`` (it asserts
    nothing), ``abstained`` (it says the context lacks the answer), ``unscored`` (the judge
    failed), ``unstable`` (repeated samples of the answer reached no majority)."""

    SCORED = "scored"
    NO_CLAIMS = "no_claims"  # the answer asserts nothing (e.g. a refusal)
    ABSTAINED = "abstained"  # the answer says the context does not contain the answer
    UNSCORED = "unscored"  # the judge failed; ``reason`` says why
    # repeated samples (``--samples K``) reached no majority of K: neither pass nor fail
    UNSTABLE = "unstable"


class Claim(BaseModel):
    """One claim (or sentence) of the answer and what the judge found for it."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    text: str
    """The claim as the judge extracted it, or the answer's sentence."""
    verdict: Verdict | None = None
    """The claims judge's verdict: ``supported``, ``contradicted`` or ``not_in_context``;
    null for the other judges."""
    probability: float | None = None  # P(supported), for probabilistic judges
    """0-1: P(supported) from the sentences judge, content-word support from the lexical
    one; null for the claims judge."""
    chunk_ids: list[str] = Field(default_factory=list)
    """Context chunk ids the claims judge cited for it (ids not in the context dropped)."""
    reason: str = ""
    """The claims judge's reason for the verdict, in its words; empty for the other judges."""


class JudgeFingerprint(BaseModel):
    """What a calibration is valid for: change any field and the calibration is stale."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    judge: str  # strategy, e.g. "claims", "sentences", "lexical"
    """The judge's strategy: ``claims``, ``sentences`` or ``lexical``."""
    model: str
    """The model's name; ``none`` for a judge without a model."""
    params: dict[str, float | int | str | bool | None] = Field(default_factory=dict)
    """The model's and the strategy's settings that change its output, by name."""
    prompt_sha256: dict[str, str] = Field(default_factory=dict)
    """Prompt file -> SHA-256 of its text; empty for a judge without a prompt."""
    package_version: str = ""
    """The ragtriage version that judged."""


class Sample(BaseModel):
    """One of an answer's repeated judgements (``--samples``)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    outcome: Outcome
    """How this sample ended."""
    score: float | None = None
    """This sample's score; null unless it was scored."""
    signals: dict[str, float] = Field(default_factory=dict)
    """This sample's signals (a rule chosen later can decide each sample again)."""
    verdict: str
    """What it voted: ``faithful``/``unfaithful`` (the decision rule's), or its outcome
    when it was not scored; ``unscored`` (a judge failure) casts no vote."""


class Stability(BaseModel):
    """An answer judged up to ``limit`` times (``--samples``): the vote, and how often the
    judge disagreed with itself. Sampling stops as soon as the majority of ``limit`` is
    decided (judge/samples.py)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    limit: int
    """K: the most samples the answer could get."""
    temperature: float | None = None
    """The temperature the samples were drawn at; null: the judge's own (0)."""
    votes: dict[str, int] = Field(default_factory=dict)
    """Verdict -> samples that voted it (failed samples cast no vote)."""
    verdict: str | None = None
    """The verdict of more than half of ``limit`` samples; null when none reached it."""
    flip_rate: float | None = None
    """Share of the voting samples that differ from the leading verdict (0-1; 0.5 at a
    tie); null when no sample voted."""
    flip_low: float | None = None
    """Lower end of the flip rate's 95 % Wilson interval."""
    flip_high: float | None = None
    """Upper end of the flip rate's 95 % Wilson interval."""
    stopped_early: bool = False
    """The majority was decided before ``limit`` samples were drawn."""
    samples: list[Sample] = Field(default_factory=list)
    """Every sample drawn, in order."""

    @property
    def settled(self) -> bool:
        return self.verdict is not None

    @property
    def flaky(self) -> bool:
        """The judge did not give one answer every time: samples voted differently."""
        return len(self.votes) > 1


class JudgeResult(BaseModel):
    """One judged answer.

    ``score`` is the judge's continuous faithfulness score in [0, 1] (supported-claim
    fraction or probability), present only when ``outcome == scored``. ``signals`` holds
    every number calibration may weigh (e.g. ``model_prob``, ``min_sentence_prob``,
    ``lexical``, ``answer_tokens``); ``lexical`` is always there, model or not.
    """

    model_config = ConfigDict(use_attribute_docstrings=True)

    item_id: str
    """The judged item's id (the golden case id in an audit)."""
    outcome: Outcome
    """How the judge ended on the answer."""
    score: float | None = None
    """Faithfulness 0-1 (supported-claim fraction, or probability); null unless ``outcome``
    is ``scored``."""
    signals: dict[str, float] = Field(default_factory=dict)
    """Signal name -> value, every number calibration may weigh; ``lexical`` (0-1) is there
    whenever the answer has content words."""
    claims: list[Claim] = Field(default_factory=list)
    """The answer's claims or sentences with what the judge found; empty unless scored."""
    reason: str = ""
    """Why the outcome, when it is not ``scored`` (for ``unscored``: the failure)."""
    fingerprint: JudgeFingerprint
    """The judge that produced this result."""
    usage: Usage = Field(default_factory=Usage)
    """Model calls, tokens and cost spent on this answer."""
    stability: Stability | None = None
    """The repeated samples' vote and flip rate (``--samples`` above 1); null with one
    sample. The rest of the result is the first sample that voted the majority (or, for
    ``unstable``, the first sample)."""
