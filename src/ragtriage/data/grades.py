"""Human grades in our own shape: one row per grader's judgement of one answer (the
fields: docs/calibration.md, "The grades file"; ``ragtriage annotate grades`` writes
them). ``context_ids``, when given, are one per passage: a graded conversation turn's
history chunks are ``history:...``.

This reader gives each row as a grade record: ``id`` as text, the passages as texts and
the other fields as they stand; ``calibration.grades`` validates the values (labels,
grades, the answer's hash) into its rows and folds several graders of one item.
"""

from __future__ import annotations

from pathlib import Path

from ragtriage.data.containers import Given
from ragtriage.data.formats.base import Format, Records, Rows
from ragtriage.data.rows import GradeRow, validated

__all__ = ["FIELDS", "FORMAT", "grade_records", "is_grades", "lacks"]

FIELDS = (
    "id", "case_id", "label", "grade", "grader", "notes", "dataset",
    "question", "contexts", "context_ids", "answer", "answer_sha256", "answer_hash",
    "probability", "answers_question", "reference_answer",
)  # fmt: skip
# fields that make a row a golden case or a trace in our shapes: such a row is not a
# grade even with a ``label`` column (``context_ids`` is not one: ``annotate grades``
# writes the ids of the graded passages)
_NOT_GRADES = {"expected", "relevant_doc_ids", "relevance_grades", "retrieved"}


def is_grades(keys: set[str]) -> bool:
    """A grade row: a human ``label``, and none of the fields of our golden or trace rows."""
    return "label" in keys and not keys & _NOT_GRADES


def lacks(keys: set[str]) -> str | None:
    """The first required field a table has no column for (``id``, then ``label``)."""
    if not keys & {"id", "case_id"}:
        return "id"
    return None if "label" in keys else "label"


def grade_records(rows: Rows, path: Path | Given) -> tuple[Records, list[str]]:
    """Our grade records (module docstring); no notes: nothing is derived."""
    return [
        (line, validated(GradeRow, row, path, line).record(row, FIELDS)) for line, row in rows
    ], []


FORMAT = Format(
    name="ragtriage-grades",
    tool="ragtriage (annotate grades; the shipped human_grades/)",
    recognises=is_grades,
    grades=lambda rows, path, _: grade_records(rows, path),
    what="human grades file",
)
