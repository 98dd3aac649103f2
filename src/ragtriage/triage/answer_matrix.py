"""The answer-or-abstain matrix: answerable or not, by answered or abstained.

Users ask for the false-abstention rate beside the correct-abstention rate, and no
evaluator gives both: a system tuned to abstain more looks better on unanswerable
queries and worse on answerable ones, and only the four cells together show the trade.
Each judged case falls in one cell by its golden set (answerable: a chunk graded
relevant) and its judge outcome (abstained: ``abstained`` or ``no_claims``, judge/
abstention.py); an unanswerable query answered is split by its label into answers its
context supports and hallucinated ones (``generation``). The judge's own ``unsure``
(and ``unscored``/``unstable``) answers stand beside the matrix, never in a cell they
were not decided into: an abstention needs no judge decision, an answer's support does.
"""

from __future__ import annotations

from collections.abc import Iterable

from ragtriage.judge.types import Outcome
from ragtriage.triage.models import AnswerMatrix, CaseResult, Label

__all__ = ["AnswerMatrix", "answer_matrix"]

_ABSTAINED = (Outcome.ABSTAINED, Outcome.NO_CLAIMS)
_UNDECIDED = {Label.UNSURE.value, Label.UNSCORED.value, Label.UNSTABLE.value}


def answer_matrix(cases: Iterable[CaseResult], labels: Iterable[str] | None = None) -> AnswerMatrix:
    """Each case in its cell (module doc); ``labels``: the label of each case when it is not
    the case's own (a conversation turn's, which its history may decide)."""
    m = AnswerMatrix()
    cases = list(cases)
    for case, label in zip(cases, labels or [c.label.value for c in cases], strict=True):
        if case.judge is None:
            m.untraced += 1
        elif case.judge.outcome in _ABSTAINED:
            if case.answerable:
                m.false_abstentions += 1
            else:
                m.correct_abstentions += 1
        elif label in _UNDECIDED:
            m.undecided += 1
        elif case.answerable:
            m.answered += 1
        elif label == Label.GENERATION:
            m.hallucinated += 1
        else:
            m.supported_answers += 1
    return m
