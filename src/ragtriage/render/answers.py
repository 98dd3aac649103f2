"""The answer-or-abstain matrix and the reference-answer counts, one line each, as every
audit and conversations report prints them beside the judge's ``unsure``."""

from __future__ import annotations

from ragtriage.judge.types import Outcome
from ragtriage.results.run import AuditResult
from ragtriage.triage.models import AnswerMatrix, CaseResult

__all__ = ["audit_lines", "matrix_line", "reference_line"]


def audit_lines(result: AuditResult) -> list[str]:
    """The audit's two lines (the matrix beside the judge's unsure; the reference counts),
    those that say something."""
    lines = (
        matrix_line(result.answer_matrix, result.counts.get("unsure", 0)),
        reference_line(result),
    )
    return [line for line in lines if line]


def matrix_line(matrix: AnswerMatrix | None, unsure: int) -> str | None:
    """``answer or abstain: answerable 12 (answered 8, false abstentions 4); ...``."""
    if matrix is None:
        return None
    undecided = f"; the judge's unsure {unsure}"
    if matrix.undecided > unsure:
        undecided += f" (undecided in all {matrix.undecided})"
    return (
        f"answer or abstain: answerable {matrix.answerable} (answered {matrix.answered}, "
        f"false abstentions {matrix.false_abstentions}); unanswerable {matrix.unanswerable} "
        f"(correct abstentions {matrix.correct_abstentions}, supported answers "
        f"{matrix.supported_answers}, hallucinated {matrix.hallucinated}){undecided}"
    )


def reference_line(result: AuditResult) -> str | None:
    """How many answered cases had no reference answer to check completeness against, and
    how many passes lack reference facts the question does not ask for (notes)."""
    # RAGChecker's diagnostics are computed exactly for a judged answer with a reference
    # answer (triage/cases.py), so a judged answer without them had no reference
    answerable = [c for c in result.cases if c.answerable and _judged(c)]
    if not answerable:
        return None
    without = sum(1 for c in answerable if c.diagnostics is None)
    noted = sum(1 for c in result.cases if c.notes)
    parts = []
    if without:
        parts.append(
            f"{without} of {len(answerable)} judged answerable cases have no reference answer "
            "(their answers are not checked for missing facts)"
        )
    if noted:
        parts.append(
            f"{noted} passing answers leave out reference facts the question does not ask "
            "for (notes, not failures)"
        )
    return "reference answers: " + "; ".join(parts) if parts else None


def _judged(case: CaseResult) -> bool:
    return case.judge is not None and case.judge.outcome != Outcome.UNSCORED
