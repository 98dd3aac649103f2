"""ragas ``EvaluationDataset`` rows (``SingleTurnSample``) as our golden cases and traces.

ragas writes one sample per row: ``user_input``, ``retrieved_contexts`` (the passages the
generator saw, in rank order), ``reference_contexts`` (the passages that answer it),
optionally their ``*_ids``, ``response`` and ``reference``. Older ragas (0.1) named them
``question``, ``contexts``, ``answer`` and ``ground_truth``/``ground_truths``; both read.

Ids come from the ``*_ids`` columns when a row has them; a row with texts only gets ids
from a hash of each normalised text (``text.text_id``), and how many rows were matched
that way is reported: id-based metrics are only as good as the ids.

What is lost: ragas has one ranked list, which is also the context, so every retrieved
passage counts as passed to the generator (a ``ranking`` label cannot arise); there are
no retrieval scores; graded relevance, tags and the corpus beyond the listed passages are
not in the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ragtriage.data.containers import Given, check_type
from ragtriage.data.formats.base import Format
from ragtriage.data.formats.text import text_id
from ragtriage.data.formats.verdicts_ragas import verdict_records
from ragtriage.errors import InputError

__all__ = ["FIELDS", "FORMAT", "OLD_NAMES", "golden_records", "is_ragas", "trace_records"]

FIELDS = (
    "user_input",
    "retrieved_contexts",
    "retrieved_context_ids",
    "reference_contexts",
    "reference_context_ids",
    "response",
    "reference",
)
OLD_NAMES = {
    "question": "user_input",
    "contexts": "retrieved_contexts",
    "answer": "response",
    "ground_truth": "reference",
}
_OURS = ("expected", "relevant_doc_ids", "relevance_grades", "retrieved", "query_id")

Rows = Iterable[tuple[int, dict[str, Any]]]


def is_ragas(keys: set[str]) -> bool:
    """A ragas row: one of its own fields, or the old ``contexts``/``ground_truth``, and
    none of ours (``question`` and ``answer`` alone are also our field names)."""
    if keys & set(_OURS):
        return False
    return bool(keys & (set(FIELDS) | {"contexts", "ground_truth", "ground_truths"}))


def _renamed(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for old, new in OLD_NAMES.items():
        if old in out and new not in out:
            out[new] = out.pop(old)
    truths = out.pop("ground_truths", None)
    if "reference" not in out and isinstance(truths, list) and truths:
        out["reference"] = truths[0]
    return out


def _query(row: dict[str, Any], path: Path | Given, line: int) -> str:
    if "user_input" not in row:
        raise InputError("missing required field", path=path, line=line, field="user_input")
    query = check_type(row["user_input"], "user_input", str, path, line)
    if not query.strip():
        raise InputError("must not be empty", path=path, line=line, field="user_input")
    return query


def _listed(
    row: dict[str, Any], key: str, kinds: type | tuple[type, ...], path: Path | Given, line: int
) -> list[Any] | None:
    if row.get(key) is None:
        return None
    values = check_type(row[key], key, list, path, line)
    return [check_type(value, f"{key}[]", kinds, path, line) for value in values]


def _passages(
    row: dict[str, Any], which: str, path: Path | Given, line: int
) -> tuple[list[str], list[str], bool] | None:
    """``(ids, texts, ids derived from texts)`` of the ``retrieved`` or ``reference``
    passages, or None when the row has neither column."""
    texts = _listed(row, f"{which}_contexts", str, path, line)
    ids = _listed(row, f"{which}_context_ids", (str, int), path, line)
    if ids is None and texts is None:
        return None
    if ids is None:
        assert texts is not None
        return [text_id(t) for t in texts], texts, True
    if texts is not None and len(texts) != len(ids):
        raise InputError(
            f"{len(ids)} ids for {len(texts)} {which}_contexts",
            path=path,
            line=line,
            field=f"{which}_context_ids",
        )
    return [str(i) for i in ids], texts or [""] * len(ids), False


def _case_id(row: dict[str, Any], path: Path | Given, line: int) -> dict[str, Any]:
    for key in ("id", "query_id"):
        if row.get(key) is not None:
            return {key: check_type(row[key], key, (str, int), path, line)}
    return {}


Record = dict[str, Any]
# which passages -> (the error for a row without them, its field, what the rows are)
_NEEDS = {
    "reference": (
        "missing required field: the golden set needs reference_context_ids or "
        "reference_contexts (an empty list marks an unanswerable query)",
        "reference_context_ids",
        "golden",
    ),
    "retrieved": (
        "missing required field (retrieved_context_ids or retrieved_contexts)",
        "retrieved_contexts",
        "trace",
    ),
}


def _records(
    rows: Rows, path: Path | Given, which: str, make: Callable[..., Record]
) -> tuple[list[tuple[int, Record]], list[str]]:
    """Each row renamed, its query and ``which`` passages checked, as ``make`` makes it
    into our record; and a note on how many rows' ids were hashed from their texts."""
    out, hashed = [], 0
    missing, field, kind = _NEEDS[which]
    for line, raw in rows:
        row = _renamed(raw)
        query = _query(row, path, line)
        found = _passages(row, which, path, line)
        if found is None:
            raise InputError(missing, path=path, line=line, field=field)
        ids, texts, derived = found
        hashed += derived and bool(ids)
        out.append((line, make(row, query, ids, texts, path, line)))
    notes = [
        f"{path}: {hashed} of {len(out)} {kind} rows have {which} texts but no "
        f"{which}_context_ids; their ids are hashes of the normalised text"
    ] if hashed else []  # fmt: skip
    return out, notes


def golden_records(rows: Rows, path: Path | Given) -> tuple[list[tuple[int, Record]], list[str]]:
    """Our golden records from ragas rows, and notes on how ids were made."""
    return _records(rows, path, "reference", _golden)


def _golden(
    row: Record, query: str, ids: list[str], _: list[str], path: Path | Given, line: int
) -> Record:
    record: Record = {**_case_id(row, path, line), "query": query, "expected": ids}
    if row.get("reference") is not None:
        record["reference_answer"] = check_type(row["reference"], "reference", str, path, line)
    if row.get("tags") is not None:
        record["tags"] = row["tags"]
    return record


def trace_records(rows: Rows, path: Path | Given) -> tuple[list[tuple[int, Record]], list[str]]:
    """Our trace records (with the query text, matched to a golden case later)."""
    return _records(rows, path, "retrieved", _trace)


def _trace(
    row: Record, query: str, ids: list[str], texts: list[str], path: Path | Given, line: int
) -> Record:
    if row.get("response") is None:
        raise InputError("missing required field", path=path, line=line, field="response")
    answer = check_type(row["response"], "response", str, path, line)
    ident = list(_case_id(row, path, line).values())
    return {
        **({"query_id": ident[0]} if ident else {}),
        "query": query,
        "retrieved": [{"id": i, "text": t} for i, t in zip(ids, texts, strict=True)],
        "context_ids": list(ids),  # ragas: the retrieved contexts are the context
        "answer": answer,
    }


FORMAT = Format(
    name="ragas",
    tool="ragas 0.4.3 EvaluationDataset (to_jsonl, to_csv, to_pandas); HF datasets",
    recognises=is_ragas,
    golden=lambda rows, path, _: golden_records(rows, path),
    traces=lambda rows, path, _: trace_records(rows, path),
    verdicts=verdict_records,  # an evaluate() result: the samples with metric columns
)
