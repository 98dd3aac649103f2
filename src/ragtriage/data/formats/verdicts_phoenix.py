"""Phoenix evaluations as verdicts, per span: what ``phoenix.evals`` writes.

Three tables, each row one span (Parquet; CSV/JSONL too): ``evaluate_dataframe``'s
result, a ``NAME_score`` column per evaluator holding its Score (``score``, ``label``,
``explanation``, ``direction``), the span id in ``context.span_id``;
``to_annotation_dataframe``'s (``annotation_name``, ``score``, ``label``,
``explanation``); and the older ``llm_classify`` output (``label``, ``score``,
``explanation``, the metric named by ``annotation_name``/``eval_name``, else
``phoenix_eval``). The span id is the verdict's id; a Score whose ``direction`` is
``minimize`` is turned round (:func:`_directions` when none is named).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragtriage.data.containers import Given
from ragtriage.data.formats.base import Format, Records, Rows
from ragtriage.data.formats.verdicts import label_passed, number, text, verdict

__all__ = ["FORMAT", "is_phoenix_evaluations", "verdict_records"]

_SPAN_KEYS = ("context.span_id", "span_id")
_FAILING = {"hallucinated", "hallucination"}  # a label that names the failure


def _score_columns(keys: set[str]) -> list[str]:
    return sorted(k for k in keys if k.endswith("_score") and k != "_score")


def is_phoenix_evaluations(keys: set[str]) -> bool:
    """A span id beside an evaluator's result, and no span attributes."""
    if not keys & set(_SPAN_KEYS) or any(k.startswith("attributes.") for k in keys):
        return False
    if "attributes" in keys or "span_kind" in keys:
        return False
    # a score or explanation beside the span id: a grades file keyed by span ids has a
    # ``label`` only, and stays grades
    found = {"score", "explanation", "annotation_name", "annotator_kind", "eval_name"}
    return bool(keys & found) or bool(_score_columns(keys))


def _span(row: dict[str, Any]) -> str | None:
    for key in _SPAN_KEYS:
        if isinstance(row.get(key), str) and row[key]:
            return row[key]
    return None


def _as_dict(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or nested past any Score
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


def _one(
    result: dict[str, Any],
    name: str,
    row: dict[str, Any],
    path: Path | Given,
    line: int,
    where: str,
) -> dict[str, Any]:
    label = text(result.get("label"))
    meta = _as_dict(result.get("metadata")) or {}
    direction = text(result.get("direction")) or text(meta.get("direction")) or ""
    passed = label_passed(label)
    return verdict(
        tool="phoenix",
        metric=name,
        score=number(result.get("score"), f"{where}score", path, line),
        passed=passed,
        label=label,
        reason=text(result.get("explanation")) or "",
        id=_span(row),
        span_id=_span(row),
        question=text(row.get("input")),
        answer=text(row.get("output")),
        model=text(meta.get("model")),
        lower_is_better=direction == "minimize",
    ) | {"direction": direction}


def verdict_records(rows: Rows, path: Path | Given, _: dict[str, str]) -> tuple[Records, list[str]]:
    out: Records = []
    for line, row in rows:
        columns = _score_columns(set(row))
        if columns:  # evaluate_dataframe's result: one Score per evaluator column
            for column in columns:
                result = _as_dict(row[column])
                name = column.removesuffix("_score")
                if result is None:  # the evaluator failed on this span: no Score
                    result = {"explanation": f"no {name} score for this span"}
                name = str(result.get("name") or name)
                out.append((line, _one(result, name, row, path, line, f"{column}.")))
            continue
        name = text(row.get("annotation_name")) or text(row.get("eval_name")) or "phoenix_eval"
        out.append((line, _one(row, name, row, path, line, "")))
    return _directions(out), []


def _directions(records: Records) -> Records:
    """A metric whose rows name no ``direction`` scores what is wrong when its labels name
    the failure (``hallucinated``): turned round for all its rows, not row by row."""
    failing = {
        r["metric"]
        for _, r in records
        if not r["direction"] and (r["label"] or "").strip().lower() in _FAILING
    }
    out = []
    for line, record in records:
        record = {k: v for k, v in record.items() if k != "direction"}
        if record["metric"] in failing and not record["lower_is_better"]:
            record["lower_is_better"] = True
        out.append((line, record))
    return out


FORMAT = Format(
    name="phoenix-evaluations",
    tool="Arize Phoenix 20 evaluations (phoenix.evals evaluate_dataframe, "
    "to_annotation_dataframe; llm_classify)",
    recognises=is_phoenix_evaluations,
    verdicts=verdict_records,
    renamed=False,
    what="Phoenix evaluations export",
)
