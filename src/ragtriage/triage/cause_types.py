"""Why a generation failed: the causes, their evidence rows, their order and next actions.

Each cause calls for a different fix (docs/triage-causes.md); :mod:`ragtriage.triage.causes`
names them per case, and this module holds the vocabulary every report shares.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "CAUSE_ACTIONS",
    "CAUSE_ORDER",
    "Cause",
    "CauseEvidence",
    "NOT_ANSWERED",
    "is_note",
]


class Cause(StrEnum):
    """Why a generation failed (several may hold; :data:`CAUSE_ORDER` picks the primary)."""

    CONTRADICTED = "contradicted"  # a sentence states the opposite of the golden chunk
    MISLED = "misled"  # failing sentences follow a non-golden chunk in context
    UNSUPPORTED = "unsupported"  # failing sentences align with no chunk: added facts
    IGNORED = "ignored"  # the golden chunk was in context; the answer used none of it
    INCOMPLETE = "incomplete"  # every sentence supported, reference facts missing
    CITATION_MISSING = "citation_missing"  # cites a passage not in the context
    CITATION_UNSUPPORTED = "citation_unsupported"  # cites a passage that lacks the sentence
    CITATION_NOT_GOLDEN = "citation_not_golden"  # cites a distractor, gold cited elsewhere


# the primary cause is the first that holds, in this order (why: docs/triage-causes.md)
CAUSE_ORDER = tuple(Cause)

# The causes that turn an answer the judge found faithful into a failure. ``unsupported``
# does so only when the claims judge itself found the claim in no chunk (source ``judge``):
# the word-overlap test is no better than the calibrated rule that already decided the
# answer faithful. A distractor cited beside a golden passage never does.
NOT_ANSWERED = frozenset(Cause) - {Cause.UNSUPPORTED, Cause.CITATION_NOT_GOLDEN}

CAUSE_ACTIONS = {
    Cause.CONTRADICTED: (
        "the answer states the opposite of the right passage (a number, name, date, polarity "
        "or the case it applies to): use a stronger model, or ask it to quote before it answers"
    ),
    Cause.MISLED: (
        "the answer follows a wrong chunk that sat beside the right one: add a reranker or "
        "pass fewer chunks"
    ),
    Cause.UNSUPPORTED: (
        "the answer adds facts no chunk holds: instruct it to answer only from the context "
        "and to say when the context lacks the answer"
    ),
    Cause.IGNORED: (
        "the right chunk was in context but the answer did not use it (abstained or answered "
        "something else): make the prompt ask for the question's answer from the context, "
        "or try a stronger model"
    ),
    Cause.INCOMPLETE: (
        "the answer leaves part of the question unanswered (the reference fact named): ask "
        "the model to answer every part of the question"
    ),
    Cause.CITATION_MISSING: (
        "the answer cites passages that were not in its context: check the citation "
        "numbering the prompt shows"
    ),
    Cause.CITATION_UNSUPPORTED: (
        "the answer cites passages that do not hold its sentence: ask for a citation per "
        "sentence, to the passage it came from"
    ),
    Cause.CITATION_NOT_GOLDEN: (
        "the answer cites a distractor where a relevant passage was cited elsewhere: pass "
        "fewer chunks or rerank"
    ),
}


class CauseEvidence(BaseModel):
    """One cause found on a case, with what shows it: the answer's sentence, the chunk."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    cause: Cause
    """The cause this row is evidence of."""
    sentence: str | None = None
    """The answer sentence (or the claims judge's claim) that shows it; null for a cause of
    the whole answer (an abstention, missing reference facts)."""
    chunk_id: str | None = None
    """The context chunk the sentence aligns with (or that it contradicts, or cites); null
    when it aligns with no chunk."""
    golden: bool | None = None
    """Whether ``chunk_id`` is one of the case's golden (expected) chunks; null without a
    chunk."""
    span: str | None = None
    """The chunk's text the sentence aligns with (its best window), or the reference fact
    that is missing; null when there is none."""
    note: str = ""
    """What was found, in words (which fact differs, which reference facts are missing)."""
    source: Literal["alignment", "judge"] = "alignment"
    """What found it: ``alignment``, the model-free sentence-to-chunk alignment (and the
    reference's facts); ``judge``, the claims judge's own verdict on the claim."""
    backed_by: Literal["question", "answer_check"] | None = None
    """For a missing reference fact (``incomplete``): what makes it a failure. ``question``:
    the fact answers a part of the question the answer leaves unanswered;
    ``answer_check``: the calibration record's answer check agrees with people well enough
    to fail any missing fact. Null: neither, so the fact is a note on the case (an aside of
    a long reference answer), not a cause of failure."""


def is_note(e: CauseEvidence) -> bool:
    """A missing reference fact nothing backs (:attr:`CauseEvidence.backed_by`): a note on
    the case, never a cause of its failure."""
    return e.cause == Cause.INCOMPLETE and e.backed_by is None
