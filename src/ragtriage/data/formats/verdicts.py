"""Other evaluators' verdicts: the scores and labels ragas, DeepEval, Phoenix or MLflow
wrote for each answer, as records of one shape (:class:`Verdict`, issue 51).

A verdicts reader (``base.Format.verdicts``) gives one record per answer and metric; each
metric of a file is a judge of its own. ``score`` is None where the tool wrote none,
``passed`` its own pass/fail where it wrote one (DeepEval ``success``, a label read by
:func:`label_passed`). ``lower_is_better``: the metric scores unfaithfulness (DeepEval's
``Hallucination``, Phoenix's ``hallucinated``), and calibration turns it round. ``tool``,
``tool_version``, ``model``, ``threshold`` and ``digest`` make the judge's fingerprint
(None where the file names nothing). ``id`` is the answer's id where the file has one,
``question``/``answer`` the graded texts, joined to human grades by text where there is
no id (``calibration/foreign.py``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ragtriage.data.containers import Given
from ragtriage.errors import InputError

__all__ = [
    "FAIL_LABELS",
    "ID_KEYS",
    "PASS_LABELS",
    "Verdict",
    "label_passed",
    "number",
    "verdict",
]

ID_KEYS = ("id", "item_id", "case_id", "query_id")
# labels evaluators write, read as the answer passing (faithful) or failing
PASS_LABELS = {
    "faithful", "factual", "pass", "passed", "yes", "true", "correct", "supported",
    "grounded", "relevant", "1",
}  # fmt: skip
FAIL_LABELS = {
    "unfaithful", "hallucinated", "hallucination", "fail", "failed", "no", "false",
    "incorrect", "unsupported", "ungrounded", "irrelevant", "not_relevant", "0",
}  # fmt: skip


def label_passed(label: Any) -> bool | None:
    """A label as pass (True) / fail (False), None when it says neither."""
    if isinstance(label, bool):
        return label
    if not isinstance(label, str):
        return None
    key = label.strip().lower().replace(" ", "_").replace("-", "_")
    return True if key in PASS_LABELS else False if key in FAIL_LABELS else None


def number(value: Any, field: str, path: Path | Given, line: int) -> float | None:
    """A score cell: a finite number, None when empty or NaN (the tool wrote no score);
    text that is not a number is refused, naming the cell."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        if not value.strip() or value.strip().lower() in ("nan", "none", "null"):
            return None
        try:
            value = float(value)
        except ValueError:
            raise InputError(
                f"not a number: {value[:40]!r}", path=path, line=line, field=field
            ) from None
    if not isinstance(value, int | float):
        raise InputError(
            f"expected a number, got {type(value).__name__}", path=path, line=line, field=field
        )
    try:
        value = float(value)
    except OverflowError:  # an integer past any float
        value = math.inf
    if math.isnan(value):
        return None
    if math.isinf(value):
        raise InputError("not a finite number", path=path, line=line, field=field)
    return value


def text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Verdict:
    """One verdict record (module docstring), in the order its dict lists the fields."""

    tool: str
    metric: str
    score: float | None = None
    passed: bool | None = None
    label: str | None = None
    reason: str = ""
    id: str | None = None
    question: str | None = None
    answer: str | None = None
    tool_version: str | None = None
    model: str | None = None
    threshold: float | None = None
    lower_is_better: bool = False
    span_id: str | None = None
    trace_id: str | None = None
    digest: str | None = None  # the tool's digest of its scorer (MLflow), when it writes one


def verdict(**fields: Any) -> dict[str, Any]:
    """One verdict record (:class:`Verdict`) as the dict calibration reads."""
    return asdict(Verdict(**fields))


def row_id(row: dict[str, Any]) -> str | None:
    for key in ID_KEYS:
        value = row.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
            return str(value)
    return None
