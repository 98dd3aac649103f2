"""Human grades in our own shape: one row per grader's judgement of one answer.

A row names the graded answer (``id``, or ``case_id``), says whether a person found it
faithful (``label``: a boolean, 0/1 or a word) and may carry an ordinal ``grade``, the
``grader``, ``notes``, the ``dataset`` and what was graded: ``question``, ``contexts``
(a list of passages, or ``{"text": ...}`` items; in CSV a JSON or Python list in one
cell, or one plain passage) with their ``context_ids`` if known (one id per passage: a
graded conversation turn's history chunks are ``history:...``) and ``answer`` with its
``answer_sha256`` (or ``answer_hash``), and for the answer check whether the answer
answers the question (``answers_question``: true, false or absent) with the
``reference_answer`` the check reads. ``ragtriage annotate grades`` writes such files;
``human_grades/`` ships two.

This reader gives each row as a grade record: ``id`` as text, the passages as texts and
the other fields as they stand; ``calibration.grades`` validates the values (labels,
grades, the answer's hash) into its rows and folds several graders of one item.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragtriage.data.containers import check_type, parse_cell, parse_json
from ragtriage.data.formats.base import Format, Records, Rows
from ragtriage.errors import InputError

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


def grade_records(rows: Rows, path: Path) -> tuple[Records, list[str]]:
    """Our grade records (module docstring); no notes: nothing is derived."""
    return [(line, _record(row, path, line)) for line, row in rows], []


def _record(row: dict[str, Any], path: Path, line: int) -> dict[str, Any]:
    key = "id" if row.get("id") not in (None, "") else "case_id"
    if row.get(key) in (None, ""):
        raise InputError("missing required field (or 'case_id')", path=path, line=line, field="id")
    check_type(row[key], key, (str, int), path, line)
    if "label" not in row:
        raise InputError("missing required field", path=path, line=line, field="label")
    record = {k: row[k] for k in FIELDS if k in row and k not in ("case_id", "answer_hash")}
    record["id"] = str(row[key])
    record["contexts"] = _contexts(row.get("contexts"), path, line)
    record["context_ids"] = _context_ids(
        row.get("context_ids"), len(record["contexts"]), path, line
    )
    if row.get("answer_sha256") in (None, "") and row.get("answer_hash") is not None:
        record["answer_sha256"] = check_type(row["answer_hash"], "answer_hash", str, path, line)
    return record


def _contexts(value: Any, path: Path, line: int) -> list[str]:
    """The graded passages as texts (module docstring); anything else is an input error."""
    value = value or []
    if isinstance(value, str):  # CSV: a list in one cell (JSON or as csv.DictWriter
        # writes it), or one plain passage
        listed = parse_cell(value, "contexts", path, line)
        if not isinstance(listed, list) and value.strip()[:1] + value.strip()[-1:] == "[]":
            parse_json(value, path, line)  # looks like a list, is none: its JSON error
        value = listed if isinstance(listed, list) else [value]
    check_type(value, "contexts", list, path, line)
    return [_context_text(c, path, line) for c in value]


def _context_ids(value: Any, n: int, path: Path, line: int) -> list[str]:
    """The passages' ids: none given, or one text per passage (a calibrated conversation
    turn tells its history from its passages by them, so a list that does not pair up
    is refused rather than guessed)."""
    if value in (None, "", []):
        return []
    if isinstance(value, str):
        value = parse_cell(value, "context_ids", path, line)
    check_type(value, "context_ids", list, path, line)
    for chunk_id in value:
        check_type(chunk_id, "context_ids[]", str, path, line)
    if len(value) != n:
        raise InputError(f"{len(value)} ids for {n} contexts", path=path, line=line,
                         field="context_ids")  # fmt: skip
    return list(value)


def _context_text(chunk: Any, path: Path, line: int) -> str:
    """A context is a string or ``{"text": ...}``; anything else is an input error."""
    if isinstance(chunk, str):
        return chunk
    check_type(chunk, "contexts[]", dict, path, line)
    return check_type(chunk.get("text", ""), "contexts[].text", str, path, line)


FORMAT = Format(
    name="ragtriage-grades",
    tool="ragtriage (annotate grades; the shipped human_grades/)",
    recognises=is_grades,
    grades=lambda rows, path, _: grade_records(rows, path),
    what="human grades file",
)
