"""Deterministic recognition of answers that assert nothing or decline to answer.

Peers turn refusals into NaN (ragas) or a perfect 1.0 (DeepEval). We name them: an
answer that says the context lacks the answer is ``abstained`` (the right outcome for an
unanswerable query), one that asserts nothing checkable is ``no_claims``. Only short
answers (at most two sentences) are classified here, so a long answer that merely
mentions a gap is still judged claim by claim.
"""

from __future__ import annotations

import re

from ragtriage.judge.lexical import content_words, split_sentences
from ragtriage.judge.types import Outcome

__all__ = ["classify_answer"]

_ABSTAIN = re.compile(
    r"(context|passages?|documents?|sources?|information provided|provided (text|information))"
    r"[^.]{0,60}\b(does not|doesn't|do not|don't|did not|didn't)\s+"
    r"(contain|provide|mention|include|say|state|specify|cover|discuss|answer|give)"
    r"|\bno (relevant )?information (about|on|regarding)\b"
    r"|\b(not|insufficient|enough) (enough |sufficient )?information (is )?"
    r"(available|provided|given|in)"
    r"|\bcannot be (answered|determined) (from|based on|with)",
    re.IGNORECASE,
)
_REFUSE = re.compile(
    r"^\s*(i('m| am)? (sorry|afraid)[, ]+)?(but )?"
    r"i (don'?t|do not|cannot|can'?t|am unable to|'m unable to)"
    r" (know|answer|help|say|tell|provide)"
    r"|^\s*(no idea|unknown|n/?a|none)[.!]?\s*$",
    re.IGNORECASE,
)


def classify_answer(answer: str) -> tuple[Outcome | None, str]:
    """``(outcome, reason)`` for answers that need no judge, else ``(None, "")``."""
    if not content_words(answer):
        return Outcome.NO_CLAIMS, "the answer has no content words"
    if len(split_sentences(answer)) > 2:
        return None, ""
    if _ABSTAIN.search(answer):
        return Outcome.ABSTAINED, "the answer says the context does not contain the answer"
    if _REFUSE.search(answer):
        return Outcome.NO_CLAIMS, "the answer is a refusal and asserts nothing"
    return None, ""
