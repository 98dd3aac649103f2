"""An MLflow ``genai.evaluate`` result table as verdicts: ``EvaluationResult.result_df``
(also ``tables["eval_results"]``), saved as JSON lines, Parquet or CSV.

One row per evaluated trace: ``trace_id`` (the id), ``request``, ``response``, a
``NAME/value`` and ``NAME/rationale`` column per scorer, and ``assessments``. The
assessments are read when the row has them, since they name the judge model
(``source_id`` of an ``LLM_JUDGE``) and the scorer's digest (:data:`DIGEST`), which join
the fingerprint: a changed scorer makes a calibration stale. A value is a score (a
number) or pass/fail (a boolean, ``yes``/``no``); a feedback with an ``error`` is
unscored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragtriage.data.containers import Given
from ragtriage.data.formats.base import Format, Records, Rows
from ragtriage.data.formats.verdicts import label_passed, number, text, verdict

__all__ = ["FORMAT", "is_mlflow_results", "verdict_records"]

_QUESTION = ("question", "query", "input", "user_input", "messages")
DIGEST = "mlflow.assessment.scorerDigest"


def is_mlflow_results(keys: set[str]) -> bool:
    """A ``trace_id`` with assessments or ``NAME/value`` columns."""
    return "trace_id" in keys and ("assessments" in keys or any(k.endswith("/value") for k in keys))


def _question(request: Any) -> str | None:
    if isinstance(request, str):
        return request
    if isinstance(request, dict):
        return next((request[k] for k in _QUESTION if isinstance(request.get(k), str)), None)
    return None


def _value(
    value: Any, where: str, path: Path | Given, line: int
) -> tuple[float | None, bool | None]:
    """A feedback value: a number is a score, a boolean or a known word pass/fail."""
    if isinstance(value, bool) or isinstance(value, str) and label_passed(value) is not None:
        return None, label_passed(value)
    return number(value, where, path, line), None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _from_assessment(
    a: dict[str, Any], row: dict[str, Any], i: int, path: Path | Given, line: int
) -> dict[str, Any]:
    name = str(a.get("assessment_name") or f"assessment_{i}")
    feedback = _object(a.get("feedback"))
    source = _object(a.get("source"))
    score, passed = _value(feedback.get("value"), f"assessments[{i}].feedback.value", path, line)
    error = feedback.get("error")
    model = text(source.get("source_id")) if source.get("source_type") == "LLM_JUDGE" else None
    reason = text(a.get("rationale")) or ""
    if error and score is None and passed is None:
        reason = f"MLflow scorer error: {error}"
    return _verdict(
        row,
        metric=name,
        score=score,
        passed=passed,
        label=text(feedback.get("value")),
        reason=reason,
        model=model,
        digest=text(_object(a.get("metadata")).get(DIGEST)),
    )


def _verdict(row: dict[str, Any], **judged: Any) -> dict[str, Any]:
    """A verdict on ``row``'s trace: its id, question and answer beside what was judged."""
    return verdict(
        tool="mlflow",
        id=text(row.get("trace_id")),
        trace_id=text(row.get("trace_id")),
        question=_question(row.get("request")),
        answer=text(row.get("response")),
        **judged,
    )


def verdict_records(rows: Rows, path: Path | Given, _: dict[str, str]) -> tuple[Records, list[str]]:
    out: Records = []
    for line, row in rows:
        assessments = row.get("assessments")
        feedback = [
            (i, a) for i, a in enumerate(assessments or [])
            if isinstance(a, dict) and "feedback" in a  # expectations are not verdicts
        ] if isinstance(assessments, list) else []  # fmt: skip
        if feedback:
            out += [(line, _from_assessment(a, row, i, path, line)) for i, a in feedback]
            continue
        for key in sorted(k for k in row if k.endswith("/value")):
            name = key.removesuffix("/value")
            score, passed = _value(row.get(key), key, path, line)
            label, reason = text(row.get(key)), text(row.get(f"{name}/rationale")) or ""
            judged = _verdict(
                row, metric=name, score=score, passed=passed, label=label, reason=reason
            )
            out.append((line, judged))
    return out, []


FORMAT = Format(
    name="mlflow-results",
    tool="MLflow 3.17 genai.evaluate result table (result_df)",
    recognises=is_mlflow_results,
    verdicts=verdict_records,
    renamed=False,
    what="table of MLflow genai.evaluate results",
)
