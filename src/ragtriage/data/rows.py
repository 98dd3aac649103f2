"""Our input rows declared once, as pydantic models, and the one way their errors read.

A golden case, a trace, a grade and a conversation turn are each one model: its fields
with their aliases (``query`` or ``question``), types and checks. Every reader of our
shapes, and every adapter of another tool's rows into ours, validates a record with
:func:`validated`, which turns pydantic's ``ValidationError`` into the one-line
:class:`~ragtriage.errors.InputError` naming file, line and field (``retrieved[2].score``).
The checks raise :func:`fail` with the message a person reads. The field types are strict
where JSON is loose: a bool is no number, a number no text, NaN and infinities are
refused, ids are checked as every id is (``data/ids.py``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn, TypeVar, cast

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict

from ragtriage.data.containers import Given, Source, parse_cell, parse_json, type_problem
from ragtriage.data.ids import all_clean, id_problem, shown
from ragtriage.data.models import GoldenCase, RetrievedChunk, Trace
from ragtriage.errors import InputError

__all__ = [
    "GRADE_MAX",
    "GRADE_MIN",
    "CorpusRow",
    "GoldenRow",
    "GoldenTurnRow",
    "DocRow",
    "GradeRow",
    "RagasRow",
    "RankedRow",
    "Row",
    "RunRow",
    "TraceRow",
    "TurnRow",
    "checked",
    "fail",
    "finite_float",
    "kinds",
    "relevance_grade",
    "run_line",
    "input_error",
    "validated",
]


# Relevance grades are stored as 64-bit integers (as TREC qrels labels are); real scales
# are 0-3 or so. A grade beyond 64 bits cannot be stored and is refused where it stands.
GRADE_MIN, GRADE_MAX = -(2**63), 2**63 - 1


def fail(message: str, field: str | None = None) -> NoReturn:
    """Refuse a value with ``message``; ``field`` names it when the error's location
    cannot (a check across fields)."""
    raise PydanticCustomError("input", message, {"field": field} if field else None)


M = TypeVar("M", bound=BaseModel)


def validated(
    model: type[M], record: Any, path: str | Path | Given | None, line: int | None, **context: Any
) -> M:
    """``record`` as a ``model``, or the one-line :class:`InputError` of its first problem."""
    try:
        return model.model_validate(record, context=context or None)
    except ValidationError as exc:
        raise input_error(exc, path, line) from None


def checked(
    check: Callable[[Any], Any], value: Any, path: Source | None, line: int | None, field: str
) -> Any:
    """``check(value)`` for a value read outside a model (``field`` names it); a refusal
    (:func:`fail`) is the one-line :class:`InputError` as in :func:`validated`."""
    try:
        return check(value)
    except PydanticCustomError as exc:
        where = exc.context["field"] if exc.context else field  # a check naming its own
        raise InputError(exc.message(), path=path, line=line, field=where) from None


def input_error(
    exc: ValidationError, path: str | Path | Given | None, line: int | None
) -> InputError:
    """The first problem of ``exc`` as an :class:`InputError` (module docstring)."""
    error = exc.errors(include_url=False)[0]
    field = (error.get("ctx") or {}).get("field") or _field(error["loc"])
    message = error["msg"]
    if error["type"] == "missing":
        message = "missing required field"
    elif error["type"] != "input":  # a pydantic type error: said as our own checks say it
        message = f"{message[0].lower()}{message[1:]}"
    return InputError(message, path=path, line=line, field=field or None)


def _field(loc: tuple[int | str, ...]) -> str:
    """``("retrieved", 2, "id")`` as ``retrieved[2].id``; a key shown printable."""
    if "[key]" in loc:  # a bad dict key: the dict is named, the message shows the key
        loc = loc[: loc.index("[key]") - 1]
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = part if part.isprintable() else shown(part)
            out += f".{text}" if out else text
    return out


# --- field types: each check once, worded as a person reads it ---


@cache  # one check per set of kinds, built once
def kinds(*allowed: type):
    """``containers.type_problem`` as a field check: one of ``allowed`` (a bool is not a
    number; a float must be finite), worded ``expected str or int, got bool``."""

    def check(value: Any) -> Any:
        problem = type_problem(value, allowed)
        return value if problem is None else fail(problem)

    return check


def _id(value: Any) -> str:
    """A text or integer id as text, refused when unusable (``data/ids.py``)."""
    text = str(kinds(str, int)(value))
    problem = id_problem(text)
    if problem is not None:
        fail(f"id {shown(text)} {problem}")
    return text


def finite_float(value: Any) -> float:
    """A JSON number as a float: an integer too large for a 64-bit float (JSON allows a
    ``1`` followed by 400 zeros, and ``float()`` raises OverflowError on it) is refused,
    not raised."""
    problem = type_problem(value, (int, float))
    if problem is not None:
        fail(problem)
    try:
        return float(value)
    except OverflowError:
        fail("integer is out of range for a 64-bit float (beyond 1.8e308)")


def relevance_grade(value: Any) -> int:
    """An integer grade that a 64-bit integer holds (:data:`GRADE_MAX`)."""
    grade = kinds(int)(value)
    if not GRADE_MIN <= grade <= GRADE_MAX:
        fail(f"grade {str(grade)[:40]} is out of range (a 64-bit integer)")
    return grade


def _turn(value: Any) -> int:
    if kinds(int)(value) < 1:
        fail("must be an integer >= 1")
    return value


def _tags(value: Any) -> list[Any]:
    return [value] if isinstance(value, str) else kinds(list)(value)


# repeats dropped (the first kept, in order) once every item is checked
_UNIQUE = AfterValidator(lambda items: tuple(dict.fromkeys(items)))


def _optional(check):
    """``check`` for a field that may be None: one validator before the union, so an
    error names the field, not a branch of ``X | None``."""
    return BeforeValidator(lambda v: None if v is None else check(v))


_LIST = BeforeValidator(kinds(list))  # a list, never coerced from another value
Text = Annotated[str, BeforeValidator(kinds(str))]
Asked = Annotated[Text, AfterValidator(lambda q: q if q.strip() else fail("must not be empty"))]
# a name written as text or a number (an ACL entry, a conversation id), as text
Name = Annotated[str, BeforeValidator(lambda v: str(kinds(str, int)(v)))]
MaybeText = Annotated[str | None, _optional(kinds(str))]
OrEmpty = Annotated[str, BeforeValidator(lambda v: kinds(str)(v or ""))]  # none: ""
Id = Annotated[str, BeforeValidator(_id)]
# ids listed for access control: any text or integer, repeats dropped; none is no list
Names = Annotated[tuple[Name, ...], BeforeValidator(lambda v: kinds(list)(v or [])), _UNIQUE]
Grade = Annotated[int, BeforeValidator(relevance_grade)]
Grades = Annotated[dict[Id, Grade], BeforeValidator(kinds(dict))]
Tags = Annotated[tuple[Text, ...], BeforeValidator(_tags), _UNIQUE]
Turn = Annotated[int, BeforeValidator(_turn)]


class Row(BaseModel):
    """A row of ours: extra fields are the writer's own and ignored; values are checked
    by the field types above, never coerced."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class GoldenRow(Row):
    """A golden case as written (``data/golden.py``); no ``id``: a hash of the query."""

    query: Asked = Field(validation_alias=AliasChoices("query", "question"))
    id: Annotated[str | None, _optional(_id)] = Field(
        None, validation_alias=AliasChoices("id", "query_id")
    )
    # present, it must be a list (``null`` is no list); absent, ``relevance_grades`` must be
    expected: Annotated[list[Id] | None, _LIST] = Field(
        None, validation_alias=AliasChoices("expected", "relevant_doc_ids")
    )
    relevance_grades: Grades = {}
    tags: Tags = ()
    reference_answer: MaybeText = None
    reference_answers: Annotated[str | None, BeforeValidator(lambda v: _first_answer(v))] = None
    forbidden: Names = ()
    acl: Names = ()
    tenant: MaybeText = None
    source: MaybeText = None
    split: Annotated[Literal["dev", "holdout"], BeforeValidator(lambda v: _split(v))] = "dev"

    @model_validator(mode="before")
    @classmethod
    def _one_list(cls, data: Any) -> Any:
        if isinstance(data, dict) and "expected" in data and "relevant_doc_ids" in data:
            fail("give either 'expected' or 'relevant_doc_ids', not both", "expected")
        return data

    @field_validator("id")
    @classmethod
    def _named(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():  # names nothing a report can refer to
            fail("must not be empty (give each case an id, or none)")
        return value

    @model_validator(mode="after")
    def _judged(self) -> GoldenRow:
        if self.expected is None and "relevance_grades" not in self.model_fields_set:
            fail("missing required field (an empty list marks an unanswerable query)", "expected")
        return self

    def case(self) -> GoldenCase:
        relevance = dict.fromkeys(self.expected or [], 1) | self.relevance_grades
        provenance = {k: getattr(self, k) for k in ("tenant", "source") if getattr(self, k)}
        return GoldenCase(
            id=self.id if self.id is not None else _hashed(self.query),
            query=self.query,
            relevance=relevance,
            tags=self.tags,
            reference_answer=self.reference_answer
            if self.reference_answer is not None
            else self.reference_answers,
            forbidden=self.forbidden,
            acl=self.acl,
            split=self.split,
            **provenance,
        )


def _hashed(query: str) -> str:
    return "q-" + hashlib.sha1(query.encode()).hexdigest()[:10]


def _first_answer(value: Any) -> str | None:
    """``reference_answers``: the first one is the reference (none given: no reference)."""
    if not value:
        return None
    answers = kinds(list)(value)
    if not isinstance(answers[0], str):
        fail(f"expected str, got {type(answers[0]).__name__}", "reference_answers[0]")
    return answers[0]


def _split(value: Any) -> str:
    if value is None:
        return "dev"
    if value not in ("dev", "holdout"):
        fail(f"must be 'dev' or 'holdout', got {value!r}")
    return value


class CorpusRow(Row):
    """A corpus chunk (``data/beir.py``; a BEIR query too)."""

    id: Id = Field(validation_alias=AliasChoices("_id", "id"))
    text: Text
    title: OrEmpty = ""
    tenant: MaybeText = None

    @model_validator(mode="before")
    @classmethod
    def _named(cls, data: Any) -> Any:
        if isinstance(data, dict) and "_id" not in data and "id" not in data:
            fail("missing required field", "id")  # named as most corpora name it
        return data


def _item(value: Any) -> Any:
    """A retrieved item: a plain id, or ``{id, score?, text?}``."""
    if isinstance(value, str | int) and not isinstance(value, bool):
        return {"id": _id(value)}  # checked here, so an error names the item itself
    return kinds(dict)(value)


MaybeFloat = Annotated[float | None, _optional(finite_float)]


class RankedRow(Row):
    id: Id
    score: MaybeFloat = None


class ChunkRow(RankedRow):
    text: OrEmpty = ""


def _one_scoring(retrieved: Sequence[RankedRow]) -> None:
    """Every retrieved item has a score or none has: with some, an unscored item has no
    place in the score order (a run and a trace are ranked by the same rule, so both
    refuse it, and ``audit --traces`` cannot accept what ``retrieval --run`` refuses)."""
    scored = [item.score is not None for item in retrieved]
    if any(scored) and not all(scored):
        rank = scored.index(not scored[0])
        fail("either every retrieved item has a score or none has", f"retrieved[{rank}].score")


class RunRow(Row):
    """One query of a run of ours (``data/runs.py``): its ranked items, each a plain id or
    ``{id, score?}``."""

    query_id: Id
    retrieved: Annotated[list[Annotated[RankedRow, BeforeValidator(_item)]], _LIST]

    @model_validator(mode="after")
    def _scored(self) -> RunRow:
        _one_scoring(self.retrieved)
        return self

    def pairs(self) -> list[tuple[str, float]]:
        """``(doc id, score)``; without scores ``-rank``, so rank order is kept."""
        return [
            (c.id, float(-rank) if c.score is None else c.score)
            for rank, c in enumerate(self.retrieved)
        ]


class _ScoredItem(TypedDict):
    __pydantic_config__ = ConfigDict(strict=True, allow_inf_nan=False)  # type: ignore[misc]
    id: str
    score: float


class _CommonRun(TypedDict):
    __pydantic_config__ = ConfigDict(strict=True)  # type: ignore[misc]
    query_id: str
    retrieved: list[_ScoredItem] | list[str]


# The shape of nearly every run line (text ids, every item scored or none), checked by
# pydantic's core alone: RunRow runs a Python check per item, much slower on a large run
# (benchmarks/results/jsonl_run_read.txt). Anything else, or an id to look at closer,
# goes through RunRow, which refuses what it must and names the fault.
_COMMON_RUN = TypeAdapter(_CommonRun)


def run_line(
    record: Any, path: str | Path | Given | None, line: int | None
) -> tuple[str, list[tuple[str, float]], bool]:
    """A run line (:class:`RunRow`) as its query id, its ``(doc id, score)`` pairs (see
    :meth:`RunRow.pairs`) and whether it gave scores."""
    try:
        common = _COMMON_RUN.validate_python(record)
    except ValidationError:
        common = None
    if common is not None:
        items = common["retrieved"]
        scored = bool(items) and isinstance(items[0], dict)
        pairs: list[tuple[str, float]]
        if scored:
            pairs = [(item["id"], item["score"]) for item in cast(list[_ScoredItem], items)]
        else:
            pairs = [(doc, float(-rank)) for rank, doc in enumerate(cast(list[str], items))]
        if all_clean([common["query_id"], *(doc for doc, _ in pairs)]):
            return common["query_id"], pairs, scored
    row = validated(RunRow, record, path, line)
    return row.query_id, row.pairs(), bool(row.retrieved) and row.retrieved[0].score is not None


def _rank(value: Any) -> int:
    """A rank: 1 is the top. A float that is a whole number is one (pandas writes an
    integer column with a gap as ``1.0``); 0, -1 or 1.5 rank nothing."""
    number = kinds(int, float)(value)
    if not float(number).is_integer() or number < 1:
        fail(f"must be an integer >= 1, got {number!r}")
    return int(number)


class DocRow(Row):
    """One retrieved chunk of a run written one row per chunk; whether ``score`` or ``-rank``
    ranks it is the run's choice, not the row's (``runs._ranked_by``)."""

    query_id: Id
    doc_id: Id
    score: MaybeFloat = None
    rank: Annotated[int | None, _optional(_rank)] = None

    @model_validator(mode="after")
    def _ranked(self) -> DocRow:
        if self.score is None and self.rank is None:
            fail("missing required field (or 'rank')", "score")
        return self

    def value(self, by: Literal["score", "rank"]) -> float:
        """The row's score, or ``-rank`` (rank 1 highest) in a run ranked by rank."""
        value = self.score if by == "score" else self.rank
        assert value is not None  # every row has it (runs._ranked_by)
        return float(value if by == "score" else -value)


class TraceRow(Row):
    """One trace as written (``data/traces.py``); neither ``context_ids`` nor ``context_k``:
    the top ``default_k`` (from the validation context) are the context."""

    query_id: Id
    retrieved: Annotated[list[Annotated[ChunkRow, BeforeValidator(_item)]], _LIST]
    answer: Text
    context_ids: Annotated[list[Name], _LIST] = None  # type: ignore[assignment]
    context_k: Annotated[int | None, BeforeValidator(lambda v: _context_k(v))] = None

    @model_validator(mode="before")
    @classmethod
    def _one_context(cls, data: Any) -> Any:
        if isinstance(data, dict) and "context_ids" in data and "context_k" in data:
            fail("give either 'context_ids' or 'context_k', not both", "context_ids")
        return data

    @model_validator(mode="after")
    def _scored(self) -> TraceRow:
        _one_scoring(self.retrieved)
        return self

    def trace(self, default_k: int) -> Trace:
        retrieved = [RetrievedChunk(id=c.id, score=c.score, text=c.text) for c in self.retrieved]
        k = default_k if self.context_k is None else self.context_k
        context = (
            self.context_ids if self.context_ids is not None else [c.id for c in retrieved[:k]]
        )
        return Trace(
            query_id=self.query_id, retrieved=retrieved, context_ids=context, answer=self.answer
        )


def _context_k(value: Any) -> int:
    k = kinds(int)(value)
    if k < 0:
        fail("must be >= 0")
    return k


Ids = Annotated[list[Name] | None, _optional(kinds(list))]
Texts = Annotated[list[Text] | None, _optional(kinds(list))]


CaseKey = Annotated[str | int | None, _optional(kinds(str, int))]


class RagasRow(Row):
    """A ragas ``SingleTurnSample`` (``formats/ragas.py``, which renames ragas 0.1's
    fields first): the passages read (``which`` in the validation context: ``retrieved``
    or ``reference``) must be listed, as texts, ids or both, one id per text; a trace
    needs its ``response``."""

    id: CaseKey = None
    query_id: CaseKey = None
    user_input: Asked
    retrieved_contexts: Texts = None
    retrieved_context_ids: Ids = None
    reference_contexts: Texts = None
    reference_context_ids: Ids = None
    response: MaybeText = None
    reference: MaybeText = None
    tags: Any = None

    @model_validator(mode="after")
    def _listed(self, info: ValidationInfo) -> RagasRow:
        which = (info.context or {})["which"]
        texts, ids = self.passages(which)
        if ids is None and texts is None:
            fail(*_RAGAS_NEEDS[which])
        if ids is not None and texts is not None and len(texts) != len(ids):
            fail(f"{len(ids)} ids for {len(texts)} {which}_contexts", f"{which}_context_ids")
        if which == "retrieved" and self.response is None:
            fail("missing required field", "response")
        return self

    def passages(self, which: str) -> tuple[list[str] | None, list[str] | None]:
        """``(texts, ids)`` of the ``retrieved`` or ``reference`` passages, as given."""
        return getattr(self, f"{which}_contexts"), getattr(self, f"{which}_context_ids")

    def case_key(self) -> dict[str, str | int]:
        """The row's own case id under the name it was given (``id``, else ``query_id``)."""
        return next(({k: v} for k in ("id", "query_id") if (v := getattr(self, k)) is not None), {})


# the error for a ragas row without the passages read, and its field
_RAGAS_NEEDS = {
    "reference": (
        "missing required field: the golden set needs reference_context_ids or "
        "reference_contexts (an empty list marks an unanswerable query)",
        "reference_context_ids",
    ),
    "retrieved": (
        "missing required field (retrieved_context_ids or retrieved_contexts)",
        "retrieved_contexts",
    ),
}


def _conversation(value: Any) -> str:
    text = str(kinds(str, int)(value))
    if not text.strip() or any(ch.isspace() for ch in text) or "#" in text:
        fail("must be non-empty, without white space or '#' (a turn's id is conversation#turn)")
    return _id(text)


def _rewrite(value: Any) -> str | None:
    """A logged rewritten query; an empty one is none."""
    return value if kinds(str)(value).strip() else None


class TurnRow(Row):
    """A traced turn of a conversation as written (empty ``rewritten_query``: none)."""

    conversation_id: Name
    turn: Turn
    user: Text
    rewritten_query: Annotated[str | None, _optional(_rewrite)] = None


class GoldenTurnRow(Row):
    """A golden turn; ``standalone`` is required (the slices are cut by it, and a guess would
    cut them wrong). The rest of the line is a golden case (:class:`GoldenRow`)."""

    conversation_id: Annotated[str, BeforeValidator(_conversation)]
    turn: Turn
    standalone: Annotated[bool, BeforeValidator(kinds(bool))]
    user: Text


def _cells(value: Any) -> Any:
    """A list, or a CSV cell holding one (JSON, or as ``csv.DictWriter`` writes it)."""
    return parse_cell(value, "", None, None) if isinstance(value, str) else value  # type: ignore[arg-type]


def _contexts(value: Any) -> list[Any]:
    """The graded passages: a list, a CSV cell holding one, or one plain passage."""
    value = value or []
    if isinstance(value, str):
        listed = _cells(value)
        if not isinstance(listed, list) and value.strip()[:1] + value.strip()[-1:] == "[]":
            try:  # looks like a list, is none: its JSON error
                parse_json(value, None)
            except InputError as exc:
                fail(exc.message)
        value = listed if isinstance(listed, list) else [value]
    return kinds(list)(value)


def _passage(value: Any) -> str:
    if isinstance(value, str):
        return value
    return kinds(str)(kinds(dict)(value).get("text", ""))


def _listed(value: Any) -> list[Any]:
    """A list, or a CSV cell holding one; empty: none."""
    return [] if value in (None, "", []) else kinds(list)(_cells(value))


Passage = Annotated[str, BeforeValidator(_passage)]


class GradeRow(Row):
    """A grade as written (``data/grades.py``); the ``label`` is validated by
    ``calibration.grades``."""

    id: Name
    label: Any
    contexts: Annotated[list[Passage], BeforeValidator(_contexts)] = []
    context_ids: Annotated[list[Text], BeforeValidator(_listed)] = []
    answer_sha256: Any = None
    answer_hash: MaybeText = None

    @model_validator(mode="before")
    @classmethod
    def _named(cls, data: Any) -> Any:
        """``id``, else ``case_id``: an empty one is none."""
        if not isinstance(data, dict):
            return data
        key = "id" if data.get("id") not in (None, "") else "case_id"
        if data.get(key) in (None, ""):
            fail("missing required field (or 'case_id')", "id")
        return {**data, "id": data[key]}

    @model_validator(mode="after")
    def _paired(self) -> GradeRow:
        """Ids, when given, pair up with the passages (a calibrated conversation turn tells
        its history from its passages by them): a list that does not is refused."""
        if self.context_ids and len(self.context_ids) != len(self.contexts):
            fail(f"{len(self.context_ids)} ids for {len(self.contexts)} contexts", "context_ids")
        return self

    def record(self, row: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
        """The grade record: ``row``'s own ``fields`` as they stand, with the checked ones."""
        record = {k: row[k] for k in fields if k in row and k not in ("case_id", "answer_hash")}
        record.update(id=self.id, contexts=self.contexts, context_ids=self.context_ids)
        if row.get("answer_sha256") in (None, "") and self.answer_hash is not None:
            record["answer_sha256"] = self.answer_hash
        return record
