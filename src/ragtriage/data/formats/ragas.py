"""ragas ``EvaluationDataset`` rows (``SingleTurnSample``) as our golden cases and traces.

The fields, ragas 0.1's older names (:data:`OLD_NAMES`) and what is lost (one ranked
list that is also the context, no scores) are in docs/file-formats.md. Ids come from the
``*_ids`` columns when a row has them, else from a hash of each normalised text
(``text.text_id``), counted in a note: id-based metrics are only as good as the ids.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ragtriage.data.containers import Given
from ragtriage.data.formats.base import Format
from ragtriage.data.formats.text import text_id
from ragtriage.data.formats.verdicts_ragas import verdict_records
from ragtriage.data.rows import RagasRow, validated

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


Record = dict[str, Any]


def _records(
    rows: Rows, path: Path | Given, which: str, make: Callable[[RagasRow, list[str]], Record]
) -> tuple[list[tuple[int, Record]], list[str]]:
    """Each row renamed and checked (``rows.RagasRow``), its ``which`` passages given ids
    (hashes of their texts where the row lists none), as ``make`` makes it into our
    record; and a note on how many golden rows' ids were hashed from their texts (a trace
    file's are counted by ``detect.adapt_traces``, once the corpus has named what it can)."""
    out, hashed = [], 0
    for line, raw in rows:
        row = validated(RagasRow, _renamed(raw), path, line, which=which)
        texts, ids = row.passages(which)
        if ids is None:
            ids = [text_id(t) for t in texts or []]
            hashed += bool(ids)
        out.append((line, make(row, ids)))
    notes = [
        f"{path}: {hashed} of {len(out)} golden rows have reference texts but no "
        "reference_context_ids; their ids are hashes of the normalised text"
    ] if hashed and which == "reference" else []  # fmt: skip
    return out, notes


def golden_records(rows: Rows, path: Path | Given) -> tuple[list[tuple[int, Record]], list[str]]:
    return _records(rows, path, "reference", _golden)


def _golden(row: RagasRow, ids: list[str]) -> Record:
    record: Record = {**row.case_key(), "query": row.user_input, "expected": ids}
    if row.reference is not None:
        record["reference_answer"] = row.reference
    if row.tags is not None:
        record["tags"] = row.tags  # checked as a golden case's
    return record


def trace_records(rows: Rows, path: Path | Given) -> tuple[list[tuple[int, Record]], list[str]]:
    """Our trace records (with the query text, matched to a golden case later)."""
    return _records(rows, path, "retrieved", _trace)


def _trace(row: RagasRow, ids: list[str]) -> Record:
    texts = row.retrieved_contexts or [""] * len(ids)
    ident = list(row.case_key().values())
    return {
        **({"query_id": ident[0]} if ident else {}),
        "query": row.user_input,
        "retrieved": [{"id": i, "text": t} for i, t in zip(ids, texts, strict=True)],
        "context_ids": list(ids),  # ragas: the retrieved contexts are the context
        "answer": row.response,
    }


FORMAT = Format(
    name="ragas",
    tool="ragas 0.4.3 EvaluationDataset (to_jsonl, to_csv, to_pandas); HF datasets",
    recognises=is_ragas,
    golden=lambda rows, path, _: golden_records(rows, path),
    traces=lambda rows, path, _: trace_records(rows, path),
    verdicts=verdict_records,  # an evaluate() result: the samples with metric columns
)
