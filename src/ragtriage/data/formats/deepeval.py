"""DeepEval ``EvaluationDataset.save_as`` files (``json``, ``jsonl``, ``csv``) as our
golden cases and traces (the fields: docs/file-formats.md).

``jsonl`` and ``csv`` join lists with ``|``, split back exactly as DeepEval's own
``add_goldens_from_csv_file`` splits it (an empty cell is an empty list); a passage that
itself contains ``|`` cannot be told apart there. DeepEval keeps texts, not ids: ids are
hashes of the normalised texts (``text.text_id``) or the corpus ids of the same texts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, ValidationInfo, model_validator

from ragtriage.data.containers import Given
from ragtriage.data.formats.base import Format, Records, Rows
from ragtriage.data.formats.text import text_id
from ragtriage.data.rows import MaybeText, Row, Text, fail, kinds, validated

__all__ = ["DELIMITER", "FORMAT", "golden_records", "is_deepeval", "trace_records"]

DELIMITER = "|"  # deepeval.dataset.utils DELIMITER, for list cells in jsonl and csv
_OURS = {"query", "query_id", "retrieved", "expected", "relevant_doc_ids"}


def is_deepeval(keys: set[str]) -> bool:
    """A DeepEval golden or test case: ``input`` with one of its own output fields."""
    if keys & _OURS or "input" not in keys:
        return False
    return bool(keys & {"actual_output", "expected_output", "retrieval_context"})


def _passages(value: Any) -> list[Any]:
    """A passage list, or the ``|``-joined text of one (jsonl, csv; empty: none)."""
    if value in (None, ""):
        return []
    return value.split(DELIMITER) if isinstance(value, str) else kinds(list)(value)


def _given(value: Any) -> Any:
    return value if value not in (None, "") else fail("missing required field")


Passages = Annotated[list[Text], BeforeValidator(_passages)]


class DeepEvalRow(Row):
    """A DeepEval ``Golden`` or test case: its ``input`` (required, not empty), the
    passage lists and the outputs; a trace (``trace`` in the validation context) needs
    its ``actual_output``."""

    input: Annotated[Text, BeforeValidator(_given)]
    context: Passages = []
    retrieval_context: Passages = []
    expected_output: Any = None
    actual_output: MaybeText = None

    @model_validator(mode="after")
    def _answered(self, info: ValidationInfo) -> DeepEvalRow:
        if (info.context or {}).get("trace") and self.actual_output is None:
            fail("missing required field (the system's answer)", "actual_output")
        return self


def golden_records(rows: Rows, path: Path | Given) -> tuple[Records, list[str]]:
    out: Records = []
    for line, raw in rows:
        row = validated(DeepEvalRow, raw, path, line, trace=False)
        record: dict[str, Any] = {"query": row.input, "expected": list(map(text_id, row.context))}
        if isinstance(row.expected_output, str) and row.expected_output:
            record["reference_answer"] = row.expected_output
        out.append((line, record))
    hashed = sum(bool(r["expected"]) for _, r in out)  # every id is a hash of its text
    return out, [
        f"{path}: {hashed} of {len(out)} golden rows name their passages by text (DeepEval "
        "context); their ids are hashes of the normalised text"
    ] if hashed else []  # fmt: skip


def trace_records(rows: Rows, path: Path | Given) -> tuple[Records, list[str]]:
    out: Records = []
    for line, raw in rows:
        row = validated(DeepEvalRow, raw, path, line, trace=True)
        texts = row.retrieval_context
        ids = [text_id(t) for t in texts]
        out.append((line, {
            "query": row.input,
            "retrieved": [{"id": i, "text": t} for i, t in zip(ids, texts, strict=True)],
            "context_ids": ids,  # DeepEval: the retrieval context is the context
            "answer": row.actual_output,
        }))  # fmt: skip
    # no note on the hashed ids: detect.adapt_traces counts those the corpus does not name
    return out, []


FORMAT = Format(
    name="deepeval",
    tool="DeepEval 4.3 EvaluationDataset.save_as (json, jsonl, csv)",
    recognises=is_deepeval,
    golden=lambda rows, path, _: golden_records(rows, path),
    traces=lambda rows, path, _: trace_records(rows, path),
)
