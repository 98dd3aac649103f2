"""Deterministic recognition of answers that assert nothing or decline to answer.

Peers turn refusals into NaN (ragas) or a perfect 1.0 (DeepEval). We name them: an
answer that says the context lacks the answer is ``abstained`` (the right outcome for an
unanswerable query), one that asserts nothing checkable (a bare refusal, "I don't
know") is ``no_claims``; the reading, clause by clause, is judge/abstention.py's.
"""

from __future__ import annotations

from ragtriage.judge.abstention import read_abstention
from ragtriage.judge.lexical import content_words
from ragtriage.judge.types import Outcome

__all__ = ["classify_answer"]


def classify_answer(answer: str) -> tuple[Outcome | None, str]:
    """``(outcome, reason)`` for answers that need no judge, else ``(None, "")``."""
    if not content_words(answer):
        return Outcome.NO_CLAIMS, "the answer has no content words"
    reading = read_abstention(answer)
    if not reading.abstains:
        return None, ""
    gap = next(c for c, kind in reading.clauses if kind == "gap")
    if reading.names_source:
        return Outcome.ABSTAINED, f"the answer says its sources do not hold the answer ({gap!r})"
    return Outcome.NO_CLAIMS, f"the answer declines to answer and asserts nothing ({gap!r})"
