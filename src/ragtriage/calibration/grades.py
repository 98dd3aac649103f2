"""Human grades: validate the grade records of CSV/JSON/JSONL/Parquet files and fold
several graders into one item.

The fields are docs/calibration.md's, 'The grades file'. Files are read through the format
registry (``data.formats.detect.grade_rows``, which recognises a grades table by content,
as every command does); this module turns its records into :class:`HumanGrade` rows. Rows
with the same id are several graders of one item: the label is their majority, and a tie
is reported (never silently resolved or dropped).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, ValidationInfo

from ragtriage.data.formats.columns import Columns, parse_columns
from ragtriage.data.formats.detect import grade_rows
from ragtriage.data.rows import MaybeText, fail, validated
from ragtriage.errors import InputError
from ragtriage.judge.types import ContextChunk, JudgeItem

__all__ = [
    "GRADE_LIMIT",
    "GradedItem",
    "HumanGrade",
    "SUFFIXES",
    "fold_grades",
    "grade_files",
    "load_grades",
    "read_grades",
    "sha256_text",
]

_TRUE = {"true", "t", "yes", "y", "1", "faithful", "supported"}
_FALSE = {"false", "f", "no", "n", "0", "unfaithful", "unsupported", "not faithful"}
SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")
GRADE_LIMIT = 1e9  # ordinal grades are small numbers (1-5, 0-100); beyond this, a typo


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class _Answered(BaseModel):
    """What a grade row and a graded item both carry: the graded answer and its context."""

    id: str
    dataset: str
    grade: float | None = None  # ordinal, if given (an item: the mean of its rows')
    question: str = ""
    contexts: tuple[str, ...] = ()
    context_ids: tuple[str, ...] = ()  # one per context when the grade file names them
    answer: str | None = None
    answer_sha256: str | None = None
    # the "answers the question" mark; None: not given (an item: the majority of its
    # graders' marks, None when none gave one or they tie, then ``answers_tied``)
    answers_question: bool | None = None
    reference_answer: str | None = None  # what the answer check compares the answer with
    # the probability with which an active design drew it (calibration.active); None:
    # drawn uniformly
    probability: float | None = None


class HumanGrade(_Answered):
    """One grader's judgement of one answer (one row of a grades file)."""

    model_config = ConfigDict(frozen=True)

    label: bool
    grader: str | None = None
    notes: str = ""
    source: str = ""  # file:line, for messages


class GradedItem(_Answered):
    """An answer with all its grades folded: the unit calibration works on."""

    label: bool | None  # majority label; None when the graders tie
    grades: list[HumanGrade]
    answers_tied: bool = False

    def judge_item(self) -> JudgeItem:
        if self.answer is None:
            raise InputError(
                "the grade has no answer text, so a judge cannot be run on it "
                "(give recorded judge results with --judged)",
                path=self.grades[0].source,
                field="answer",
            )
        # the graded ids when known (a conversation turn's history is told by them)
        ids = self.context_ids or tuple(f"c{i}" for i in range(len(self.contexts)))
        chunks = tuple(ContextChunk(id=c, text=t) for c, t in zip(ids, self.contexts, strict=True))
        return JudgeItem(id=self.id, question=self.question, contexts=chunks, answer=self.answer)


def _label(value: Any) -> bool:
    """Accept JSON booleans, 0/1 and the usual words; anything else is refused."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    fail(f"expected true/false, got {value!r}")


def _mark(value: Any, info: ValidationInfo) -> bool | None:
    """The "answers the question" mark: a boolean, or absent (None). A string is refused
    ("no" or "false" typed into a JSON file is a slip, not a mark to guess at), except in a
    CSV file, whose every cell is text: there ``true``, ``false`` or an empty cell."""
    if value is None or isinstance(value, bool):
        return value
    if (info.context or {})["csv"] and isinstance(value, str):
        word = value.strip().lower()
        if word in ("", "true", "false"):
            return None if not word else word == "true"
    fail(f"expected true, false or no value, got {_shown(value)}")


def _shown(value: Any) -> str:
    return repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."


def _grader(value: Any) -> str | None:
    """A grader named by text or a number, as text; empty or absent is none."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        fail(f"expected str or int, got {type(value).__name__}")  # as check_type words it
    return str(value)


def _digest(value: str | None, info: ValidationInfo) -> str | None:
    """The answer's sha256 as written: one that does not match the answer is refused."""
    answer = info.data.get("answer")
    if answer is not None and value and value.lower() != sha256_text(answer):
        fail("does not match the sha256 of 'answer'")
    return value


def _probability(value: Any) -> float | None:
    """An active design's inclusion probability: a number in (0, 1], or absent."""
    if value is None or value == "":
        return None
    if isinstance(value, str):  # a CSV cell; not a number: refused below
        with contextlib.suppress(ValueError):
            value = float(value)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        fail(f"expected an inclusion probability in (0, 1], got {value!r}")
    return float(value)


def _grade(value: Any) -> float | None:
    """An optional ordinal grade: a finite number of sane size (a string in CSV files)."""
    if value in ("", None):
        return None
    grade = None
    if not isinstance(value, bool):
        try:
            grade = float(value)
        except (TypeError, ValueError, OverflowError):
            grade = None
    if grade is None or not math.isfinite(grade) or abs(grade) > GRADE_LIMIT:
        fail(f"expected a finite number within +-{GRADE_LIMIT:g}, got {_shown(value)}")
    return grade


class _GradeFields(BaseModel):
    """A grade record's own fields, each checked in this order (``data.rows.validated``:
    one line naming file, line and field; the id and the passages are ``GradeRow``'s). An
    optional text field is absent or text: ``str()`` of a list would otherwise become an
    id or a question without a word."""

    model_config = ConfigDict(extra="ignore")

    grade: Annotated[float | None, BeforeValidator(_grade)] = None
    answer: MaybeText = None
    answer_sha256: Annotated[MaybeText, AfterValidator(_digest)] = None
    grader: Annotated[str | None, BeforeValidator(_grader)] = None
    dataset: MaybeText = None
    label: Annotated[bool, BeforeValidator(_label)]
    notes: MaybeText = None
    question: MaybeText = None
    answers_question: Annotated[bool | None, BeforeValidator(_mark)] = None
    reference_answer: MaybeText = None
    probability: Annotated[float | None, BeforeValidator(_probability)] = None


def _record_to_grade(record: dict[str, Any], dataset: str, path: Path, line: int) -> HumanGrade:
    """One grade record (``data.grades``: ``id`` text, ``contexts`` texts) validated."""
    f = validated(_GradeFields, record, path, line, csv=path.suffix.lower() == ".csv")
    answer, digest = f.answer, f.answer_sha256
    return HumanGrade(
        **f.model_dump(include={"label", "grade", "grader", "answer", "answers_question"}),
        id=record["id"],
        dataset=f.dataset or dataset,
        notes=f.notes or "",
        question=f.question or "",
        contexts=tuple(record["contexts"]),
        context_ids=tuple(record.get("context_ids", ())),
        answer_sha256=digest.lower() if digest else (sha256_text(answer) if answer else None),
        reference_answer=f.reference_answer or None,
        probability=f.probability,
        source=f"{path}:{line}",
    )


def read_grades(
    path: Path, dataset: str | None = None, columns: Columns = None
) -> list[HumanGrade]:
    """All grade rows of one file; ``dataset`` defaults to the file's directory name (its
    own name for a file given without one: ``my_grades.jsonl`` is ``my_grades``, never an
    empty scope); ``columns`` maps other column names onto ours (``label=is_faithful``)."""
    dataset = dataset or path.parent.name or path.stem
    records = grade_rows(path, parse_columns(columns)).records
    return [_record_to_grade(record, dataset, path, line) for line, record in records]


def grade_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InputError("no such file or directory", path=path)
    files = sorted(
        p
        for p in path.rglob("*")
        if p.suffix.lower() in SUFFIXES
        and p.is_file()
        and not any(part.startswith(("_", ".")) for part in p.relative_to(path).parts)
    )
    if not files:
        raise InputError(f"no grade files ({', '.join(SUFFIXES)}) found", path=path)
    return files


def fold_grades(grades: list[HumanGrade]) -> list[GradedItem]:
    """Group rows by id: majority label (None on a tie), mean grade, first text seen."""
    by_id: dict[str, list[HumanGrade]] = defaultdict(list)
    for grade in grades:
        by_id[grade.id].append(grade)
    items = []
    for item_id, rows in by_id.items():
        first = rows[0]
        hashes = {r.answer_sha256 for r in rows if r.answer_sha256}
        if len(hashes) > 1:
            raise InputError(
                f"item {item_id!r} is graded on different answers",
                path=rows[1].source,
                field="answer",
            )
        label = _majority([r.label for r in rows])
        marks = [r.answers_question for r in rows if r.answers_question is not None]
        answers = _majority(marks)
        ordinal = [r.grade for r in rows if r.grade is not None]
        items.append(
            GradedItem(
                id=item_id,
                dataset=first.dataset,
                label=label,
                grade=sum(ordinal) / len(ordinal) if ordinal else None,
                grades=rows,
                question=first.question,
                contexts=first.contexts,
                context_ids=first.context_ids,
                answer=next((r.answer for r in rows if r.answer is not None), None),
                answer_sha256=next(iter(hashes), None),
                answers_question=answers,
                answers_tied=bool(marks) and answers is None,
                reference_answer=next(
                    (r.reference_answer for r in rows if r.reference_answer), None
                ),
                probability=next((r.probability for r in rows if r.probability), None),
            )
        )
    return items


def _majority(marks: list[bool]) -> bool | None:
    """The majority of some marks; None without any, or on a tie (never resolved)."""
    yes = sum(marks)
    return None if not marks or 2 * yes == len(marks) else 2 * yes > len(marks)


def load_grades(path: Path | str, columns: Columns = None) -> list[GradedItem]:
    """Every graded item under ``path`` (a file or a directory of grade files; folders
    starting with ``_`` or ``.``, e.g. ``_judged/`` with recorded judge results, are skipped);
    ``columns`` maps other column names onto ours in every file."""
    path = Path(path)
    mapping = parse_columns(columns)
    rows = []
    for file in grade_files(path):
        rows.extend(read_grades(file, columns=mapping))
    return fold_grades(rows)
