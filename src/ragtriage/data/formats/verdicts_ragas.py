"""A ragas ``evaluate()`` result as verdicts: ``result.to_pandas()`` saved as Parquet,
CSV or JSONL (docs/judge-against-people.md).

Every numeric column that is not a sample field (:data:`_SAMPLE`) is a metric; NaN is an
answer ragas could not score. ragas writes neither its version nor the model into the
table, so the fingerprint names the tool and metric only.
"""

from __future__ import annotations

from pathlib import Path

from ragtriage.data.containers import Given
from ragtriage.data.formats.base import Records, Rows
from ragtriage.data.formats.verdicts import ID_KEYS, number, row_id, text, verdict

__all__ = ["verdict_records"]

# sample fields of ragas 0.4 (SingleTurnSample) and 0.1, never metrics
_SAMPLE = {
    "user_input", "retrieved_contexts", "retrieved_context_ids", "reference_contexts",
    "reference_context_ids", "response", "reference", "multi_responses", "rubrics",
    "persona_name", "query_style", "query_length", "question", "contexts", "answer",
    "ground_truth", "ground_truths", "tags", "trace_id", "span_id", *ID_KEYS,
}  # fmt: skip


def _metrics(rows: Rows) -> list[str]:
    """Columns holding numbers (or nothing) in every row, in first-seen order."""
    seen: dict[str, bool] = {}
    for _, row in rows:
        for key, value in row.items():
            if key in _SAMPLE:
                continue
            numeric = (
                value is None
                or (isinstance(value, int | float) and not isinstance(value, bool))
                or (isinstance(value, str) and _numeric_text(value))
            )
            seen[key] = seen.get(key, True) and numeric
    return [k for k, ok in seen.items() if ok]


def _numeric_text(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return not value.strip() or value.strip().lower() == "nan"
    return True


def verdict_records(rows: Rows, path: Path | Given, _: dict[str, str]) -> tuple[Records, list[str]]:
    metrics = _metrics(rows)
    out: Records = []
    for line, row in rows:
        question = text(row.get("user_input", row.get("question")))
        answer = text(row.get("response", row.get("answer")))
        for metric in metrics:
            score = number(row.get(metric), metric, path, line)
            record = verdict(
                tool="ragas",
                metric=metric,
                score=score,
                reason="" if score is not None else "ragas wrote no score (NaN)",
                id=row_id(row),
                question=question,
                answer=answer,
            )
            out.append((line, record))
    notes = [] if metrics else [f"{path}: a ragas table without metric columns"]
    return out, notes
