"""The triage rules: exactly one label per case, with the reason in words.

The table of rules is docs/audit-your-system.md ("Triage rules"). Its order matters: stage 1
(``retrieval``, ``ranking``) before the judge, so an answerable query's generation failure
always had its golden chunk in context; ``unsure`` (inside the calibration's band) is never
a pass and never a generation failure; ``pass`` means answered and faithful, so a faithful
answer with a cause (triage/causes.py) is ``generation``; on an unanswerable query an
abstention passes and a confident retrieval is a warning, not a label.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ragtriage.judge.types import JudgeResult, Outcome
from ragtriage.triage.cause_types import NOT_ANSWERED, Cause, CauseEvidence, is_note
from ragtriage.triage.models import Label

__all__ = ["Evidence", "triage"]


@dataclass(frozen=True)
class Evidence:
    """What triage needs to know about one case."""

    answerable: bool
    first_relevant_rank: int | None  # 1-based rank of the first relevant retrieved chunk
    relevant_in_context: bool
    judge: JudgeResult | None
    faithful: bool | None  # the calibrated decision on a scored answer
    unsure: bool = False  # the decision lies inside the calibration's band
    contradicted: list[str] | None = None  # answer claims the reference answer contradicts
    # why the answer fails (triage.causes), primary first: a faithful answer that does not
    # answer (ignored, incomplete), contradicts its golden chunk or follows a distractor
    # is no pass
    causes: tuple[CauseEvidence, ...] = field(default_factory=tuple)


def triage(e: Evidence) -> tuple[Label, str]:
    """An unanswerable query's abstention is its pass (module doc)."""
    return _answerable(e) if e.answerable else _judged(e, abstain_is=Label.PASS)


def _answerable(e: Evidence) -> tuple[Label, str]:
    if e.first_relevant_rank is None:
        return Label.RETRIEVAL, "no relevant chunk was retrieved"
    if not e.relevant_in_context:
        return (
            Label.RANKING,
            f"a relevant chunk was retrieved at rank {e.first_relevant_rank} but not passed "
            "to the generator",
        )
    label, reason = _judged(e, abstain_is=Label.GENERATION)
    if label == Label.PASS and e.contradicted:
        return Label.GENERATION, f"the answer contradicts the reference answer: {e.contradicted[0]}"
    failing = [
        c for c in e.causes if (c.cause in NOT_ANSWERED and not is_note(c)) or _judge_unsupported(c)
    ]
    if label == Label.PASS and failing:
        return Label.GENERATION, f"the answer is faithful but {_not_answered(failing[0])}"
    return label, reason


def _not_answered(c: CauseEvidence) -> str:
    """Why a faithful answer is no pass; a missing fact is named, with what backs it."""
    if c.cause != Cause.INCOMPLETE:
        return _NOT_ANSWERED[c.cause]
    why = _BACKED[c.backed_by or "question"]
    return f"lacks the reference fact {c.span!r}, which {why} ({c.note})"


# what makes a missing reference fact a failure (CauseEvidence.backed_by)
_BACKED = {
    "question": "answers a part of the question it leaves unanswered",
    "answer_check": "the calibrated answer check requires",
}


def _judge_unsupported(c: CauseEvidence) -> bool:
    """A claim the claims judge itself found in no chunk (triage/cause_types.py)."""
    return c.cause == Cause.UNSUPPORTED and c.source == "judge"


# why a faithful answer is no pass, by its primary cause
_NOT_ANSWERED = {
    "unsupported": "the judge finds one of its claims in no chunk",
    "contradicted": "contradicts its golden chunk",
    "misled": "follows a chunk that is not golden and none that is",
    "ignored": "does not answer the question (none of the reference answer's facts)",
    "incomplete": "answers only part of the question (reference facts missing)",
    "citation_missing": "cites a passage that is not in its context",
    "citation_unsupported": "cites a passage that does not hold its sentence",
}


# the fact check's parts (judge/facts.py), as a reason names them
_FACT_PARTS = (
    ("novel_numbers", "number"),
    ("novel_names", "name"),
    ("contradictions", "contradiction"),
    ("unstated_negations", "unstated denial"),
)


def _fact_note(signals: dict[str, float]) -> str:
    """What the fact check found, when it flagged the answer: a high score failed by the
    veto must say why ("unfaithful (judge score 1.00)" did not)."""
    # a model's rule vetoes on model_fact_check (its rejections added), others on fact_check
    flagged = max(signals.get("fact_check") or 0.0, signals.get("model_fact_check") or 0.0)
    if flagged <= 0:
        return ""
    parts = [_count(n, word) for key, word in _FACT_PARTS if (n := signals.get(key) or 0.0)]
    rest = flagged - sum(signals.get(key) or 0.0 for key, _ in _FACT_PARTS)
    facts = f"{', '.join(parts)} not in or against its evidence" if parts else ""
    rejected = _count(rest, "sentence") + " the model rejects" if rest > 0 else ""
    return "; fact check: " + (" and ".join(p for p in (facts, rejected) if p) or "flagged")


def _count(n: float, word: str) -> str:
    """``1 number``, ``2 numbers``: "1 sentence(s)" read as a form, not a sentence."""
    return f"{n:g} {word}" + ("" if n == 1 else "s")


def _judged(e: Evidence, abstain_is: Label) -> tuple[Label, str]:
    if e.judge is None or e.judge.outcome == Outcome.UNSCORED:
        reason = e.judge.reason if e.judge else "no judge result"
        return Label.UNSCORED, f"the judge could not score the answer: {reason}"
    if e.judge.outcome == Outcome.UNSTABLE:
        return Label.UNSTABLE, f"the judge's samples disagree: {e.judge.reason}"
    if e.judge.outcome in (Outcome.ABSTAINED, Outcome.NO_CLAIMS):
        what = "abstained" if e.judge.outcome == Outcome.ABSTAINED else "asserted nothing"
        if abstain_is == Label.PASS:
            return Label.PASS, f"unanswerable query and the answer {what}"
        return Label.GENERATION, f"the relevant chunk was in context but the answer {what}"
    if e.faithful is None:
        return Label.UNSCORED, "the judge score could not be turned into a decision"
    if e.unsure:
        leaning = "faithful" if e.faithful else "unfaithful"
        return Label.UNSURE, (
            f"the judge is not sure: its signals sit too near the calibrated rule's cut-off "
            f"for the agreement the calibration asks (leaning {leaning}); grade it or "
            "escalate it to a stronger judge"
        )
    score = f"judge score {e.judge.score:.2f}" if e.judge.score is not None else "judge"
    if not e.faithful:
        score += _fact_note(e.judge.signals)
        if e.answerable:
            return (
                Label.GENERATION,
                f"relevant context was passed but the answer is unfaithful ({score})",
            )
        return Label.GENERATION, f"unanswerable query answered with unsupported claims ({score})"
    if e.answerable:
        return Label.PASS, f"relevant context passed and the answer is faithful ({score})"
    return (
        Label.PASS,
        f"unanswerable query answered only with claims its context supports ({score})",
    )
