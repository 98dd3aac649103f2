"""Growing a golden set (``ragtriage golden add``): the target file and its planned new
records (made from an audit's cases in :mod:`ragtriage.results.golden`).

A new record is refused when its id or query is already in the target set (the one
duplicate test of :mod:`ragtriage.data.check`), so the set never weighs one question
twice, or when an expected id is not in the target's corpus (the case would be invalid at
birth). Each record must also load like any other case of the set. :func:`plan` says what
would be written, :func:`apply` appends it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ragtriage.atomic import write_atomic
from ragtriage.data.check import duplicate_of, normalise
from ragtriage.data.containers import iter_records, read_text
from ragtriage.data.formats.columns import ColumnMap, Columns, parse_columns
from ragtriage.data.golden import GOLDEN_FILES, TABLE_FILES, load_chunks, parse_case
from ragtriage.data.holdout import rewrite
from ragtriage.errors import InputError

__all__ = [
    "Candidate",
    "GrowPlan",
    "REWRITABLE",
    "Refusal",
    "Target",
    "apply",
    "corpus_ids",
    "duplicate_reason",
    "existing",
    "expected_ids",
    "golden_file",
    "open_target",
    "plan",
    "unknown_ids",
]

REWRITABLE = (".jsonl", ".json")


class Refusal(BaseModel):
    case_id: str
    reason: str


class GrowPlan(BaseModel):
    target: str
    records: list[dict[str, Any]] = Field(default_factory=list)
    refused: list[Refusal] = Field(default_factory=list)
    retrieved: dict[str, list[str]] = Field(default_factory=dict)  # to help mark expected ids
    columns: dict[str, str] = Field(default_factory=dict)  # --columns: the file's own names

    def written(self) -> list[dict[str, Any]]:
        """``records`` as they go into the file: under its column names (``columns``)."""
        names = ColumnMap(self.columns)
        return [names.restore(r) for r in self.records]


@dataclass
class Target:
    """The golden file to extend, as it is: its records (under our column names) and the
    ids of the corpus beside it (``None``: no corpus to check against)."""

    path: Path
    mapping: ColumnMap
    taken: list[dict[str, Any]]
    known: set[str] | None


@dataclass
class Candidate:
    """A record to add, made from case ``case_id``, and the ids it retrieved (shown to help
    mark the expected ones)."""

    case_id: str
    record: dict[str, Any]
    retrieved: list[str] = field(default_factory=list)


def golden_file(target: Path) -> Path:
    """The golden file to extend or re-split: the path itself, or ``golden.jsonl`` in a
    directory. Only JSON and JSONL files are rewritten (each record kept as written); a
    CSV or Parquet set is refused by name rather than read as broken JSON."""
    path = target
    if target.is_dir():
        found = [target / n for n in (*GOLDEN_FILES, *TABLE_FILES) if (target / n).is_file()]
        path = found[0] if found else target / GOLDEN_FILES[0]
    if path.suffix.lower() not in REWRITABLE:
        raise InputError(
            "golden split and golden add rewrite JSON or JSONL golden files only; "
            "convert this one to JSONL first (every other command reads it as it is)",
            path=path,
        )
    return path


def existing(target: Path) -> list[dict[str, Any]]:
    return [r for _, r in iter_records(target)] if target.is_file() else []


def corpus_ids(path: Path) -> set[str] | None:
    return set(load_chunks(path)) if path.is_file() else None


def open_target(target: Path, columns: Columns = None) -> Target:
    """The golden file ``target`` names (a file, or a directory's ``golden.jsonl``), read
    by ``columns`` (the file's other column names), with its corpus's ids."""
    mapping = parse_columns(columns)
    path = golden_file(target)
    taken = [mapping.apply(r) for r in existing(path)]
    return Target(path, mapping, taken, corpus_ids(path.parent / "corpus.jsonl"))


def _text(rec: dict[str, Any]) -> str:
    return normalise(str(rec.get("query", rec.get("question", ""))))


def _id(rec: dict[str, Any]) -> str:
    return str(rec.get("id", rec.get("query_id", "")))


def duplicate_reason(rec: dict[str, Any], others: list[dict[str, Any]]) -> str | None:
    """Why ``rec`` duplicates one of ``others`` (same id, or an exact or near-duplicate
    query by :func:`ragtriage.data.check.duplicate_of`); the earliest of them is named."""
    same_id = next((i for i, other in enumerate(others) if _id(other) == rec["id"]), None)
    found = duplicate_of([*map(_text, others), normalise(rec["query"])]).get(len(others))
    return _reason(same_id, found[0] if found else None, others)


def _reason(
    same_id: int | None, same_query: int | None, records: list[dict[str, Any]]
) -> str | None:
    """The refusal naming the earlier of the record sharing the id and the one sharing the
    query (the id first, when one record shares both)."""
    if same_id is not None and (same_query is None or same_id <= same_query):
        return f"id {_id(records[same_id])!r} is already in the golden set"
    if same_query is not None:
        return f"query duplicates case {_id(records[same_query])!r}"
    return None


def unknown_ids(rec: dict[str, Any], known: set[str] | None) -> str | None:
    """Expected ids must exist in the target's corpus, or the new case is invalid at birth."""
    missing = [doc for doc in rec["expected"] if known is not None and doc not in known]
    return f"expected ids not in the corpus: {', '.join(missing)}" if missing else None


def plan(target: Target, candidates: Iterable[Candidate]) -> GrowPlan:
    """What ``golden add`` would write to ``target`` (nothing is written here): a duplicate
    of the target's records or of the new ones kept before it is refused. The duplicate
    test runs once over every text, old and new: a new record's earliest duplicate is the
    one :func:`duplicate_reason` names when that record is kept; only when it was refused
    is the test run again, over the records kept."""
    chosen = list(candidates)
    records = [*target.taken, *(c.record for c in chosen)]
    texts = [_text(r) for r in records]
    found = duplicate_of(texts)
    kept = list(range(len(target.taken)))  # indices in ``records``, ascending
    kept_set = set(kept)
    first_id: dict[str, int] = {}
    for index in kept:
        first_id.setdefault(_id(records[index]), index)
    out = GrowPlan(target=str(target.path), columns=target.mapping.public())
    for index, candidate in enumerate(chosen, start=len(target.taken)):
        rec = candidate.record
        parse_case(dict(rec), target.path, len(kept) + 1)  # the record must load like any other
        match = found.get(index)
        if match is not None and match[0] not in kept_set:  # a refused record: test the kept
            again = duplicate_of([*(texts[i] for i in kept), texts[index]]).get(len(kept))
            match = (kept[again[0]], again[1]) if again else None
        same = _reason(first_id.get(rec["id"]), match[0] if match else None, records)
        reason = same or unknown_ids(rec, target.known)
        if reason:
            out.refused.append(Refusal(case_id=candidate.case_id, reason=reason))
            continue
        kept.append(index)
        kept_set.add(index)
        first_id.setdefault(_id(rec), index)
        out.records.append(rec)
        out.retrieved[candidate.case_id] = candidate.retrieved[:10]
    return out


def apply(grow: GrowPlan) -> Path:
    """Append the planned records to the target (JSONL; a JSON list stays a list)."""
    path = Path(grow.target)
    text = read_text(path) if path.is_file() else ""
    if text.lstrip().startswith("["):
        return rewrite(path, [*existing(path), *grow.written()], None)
    if text and not text.endswith("\n"):
        text += "\n"
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in grow.written())
    return write_atomic(path, text + lines)


def expected_ids(values: list[str], case_ids: list[str]) -> dict[str, list[str]]:
    """``--expected CASE=id1,id2`` by case (or ``--expected id1,id2`` with a single
    ``--case``)."""
    out: dict[str, list[str]] = {}
    for value in values:
        case, sep, ids = value.partition("=")
        if not sep:
            if len(case_ids) != 1:
                raise InputError(
                    "with several cases write --expected CASE=id1,id2", field="expected"
                )
            case, ids = case_ids[0], value
        if case_ids and case not in case_ids:  # with --failed the plan checks it
            raise InputError(f"case {case!r} is not among --case", field="expected")
        out[case] = [part.strip() for part in ids.split(",") if part.strip()]
        if not out[case]:
            raise InputError(
                f"no chunk ids for {case!r}: an unanswerable case is added without --expected",
                field="expected",
            )
    return out
