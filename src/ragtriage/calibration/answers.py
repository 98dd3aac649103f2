"""The audit's answer check against the graders' "answers the question" marks.

The audit's ``ignored``/``incomplete`` check (``triage.causes``) is model-free and, like
the judge, only as good as its agreement with people (docs/calibration.md, 'The answer
check's agreement'): measured as the judge is, by Cohen's kappa with its bootstrap
interval, the confusion counts and n. It fits no threshold on the grades, so the figure
is held out by construction.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ragtriage.calibration.agreement import Agreement, agreement
from ragtriage.calibration.grades import GradedItem
from ragtriage.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = ["NO_ANSWER_GRADES", "AnswerCheck", "AnswerChecker", "answer_check"]

# (question, answer, reference answer) -> does the answer state the reference's facts
AnswerChecker = Callable[[str, str, str], bool]
NO_ANSWER_GRADES = "no answer-check grades"


class AnswerCheck(BaseModel):
    """The answer check's agreement with the graders' "answers the question" marks."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    n: int
    """Graded items with a mark, an answer and a reference answer: those measured (count)."""
    agreement: Agreement
    """Kappa with its 95% bootstrap interval, accuracy and confusion of the check against
    the marks. Here class 1 is "answers the question" and 0 "does not" (``ignored`` or
    ``incomplete``): confusion rows the graders' mark (does not, does), columns the check;
    the ``*_unfaithful`` figures are about "does not answer"."""
    marked: int
    """Graded items carrying an "answers the question" mark (count)."""
    no_reference: list[str] = Field(default_factory=list)
    """Ids of marked items without a reference answer or an answer: the check cannot run."""
    tied: list[str] = Field(default_factory=list)
    """Ids of items whose graders' marks split evenly (no mark)."""


def answer_check(
    items: list[GradedItem],
    check: AnswerChecker,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> AnswerCheck | None:
    """The check's agreement on the items with a mark; None when no item carries one."""
    marked = [i for i in items if i.answers_question is not None]
    tied = [i.id for i in items if i.answers_tied]
    if not marked:
        return None
    usable = [i for i in marked if i.reference_answer and i.answer]
    human = np.array([int(bool(i.answers_question)) for i in usable], dtype=int)
    decided = np.array(
        [int(check(i.question, i.answer or "", i.reference_answer or "")) for i in usable],
        dtype=int,
    )
    return AnswerCheck(
        n=len(usable),
        agreement=agreement(human, decided, resamples=resamples, seed=seed),
        marked=len(marked),
        no_reference=[i.id for i in marked if not (i.reference_answer and i.answer)],
        tied=tied,
    )
