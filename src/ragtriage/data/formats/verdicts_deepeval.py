"""A DeepEval test run as verdicts: the JSON DeepEval writes for an ``evaluate()`` run
(``DEEPEVAL_RESULTS_FOLDER``'s ``test_run_*.json``, ``.deepeval/.latest_run_full.json``).

``testCases``, each with its ``name`` (the id), ``input``, ``actualOutput`` and
``metricsData`` (per metric ``name``, ``score``, ``threshold``, ``success``, ``reason``,
``evaluationModel``). A metric that failed to run has no score (``error`` says why).
Metrics in :data:`LOWER_IS_BETTER` score what is wrong and are turned round.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragtriage.data.containers import Given, check_type
from ragtriage.data.formats.base import Format, Records, Rows
from ragtriage.data.formats.verdicts import number, text, verdict

__all__ = ["FORMAT", "is_deepeval_run", "verdict_records"]

LOWER_IS_BETTER = {"hallucination", "bias", "toxicity", "pii leakage", "misuse"}


def is_deepeval_run(keys: set[str]) -> bool:
    """A DeepEval test run document: its ``testCases`` list beside its run figures."""
    return "testCases" in keys and bool(keys & {"metricsScores", "testPassed", "testFailed"})


def verdict_records(rows: Rows, path: Path | Given, _: dict[str, str]) -> tuple[Records, list[str]]:
    out: Records = []
    for line, row in rows:
        cases = check_type(row.get("testCases") or [], "testCases", list, path, line)
        for i, raw in enumerate(cases):
            case = check_type(raw, f"testCases[{i}]", dict, path, line)
            where = f"testCases[{i}].metricsData"
            metrics = check_type(case.get("metricsData") or [], where, list, path, line)
            out += [
                (line, _verdict(case, m, f"{where}[{j}]", path, line))
                for j, m in enumerate(metrics)
            ]
    return out, []


def _verdict(
    case: dict[str, Any], raw: Any, where: str, path: Path | Given, line: int
) -> dict[str, Any]:
    metric = check_type(raw, where, dict, path, line)
    name = check_type(metric.get("name"), f"{where}.name", str, path, line)
    score = number(metric.get("score"), f"{where}.score", path, line)
    success, error = metric.get("success"), metric.get("error")
    reason = text(metric.get("reason")) or ""
    if score is None and error:
        reason = f"DeepEval metric error: {error}"
    return verdict(
        tool="deepeval",
        metric=name,
        score=score,
        # a metric that errored reports success false: no verdict
        passed=success if isinstance(success, bool) and score is not None else None,
        reason=reason,
        id=text(case.get("name")),
        question=text(case.get("input")),
        answer=text(case.get("actualOutput")),
        model=text(metric.get("evaluationModel")),
        threshold=number(metric.get("threshold"), f"{where}.threshold", path, line),
        lower_is_better=name.strip().lower() in LOWER_IS_BETTER,
    )


FORMAT = Format(
    name="deepeval-run",
    tool="DeepEval 4.3 test run JSON (evaluate() with DEEPEVAL_RESULTS_FOLDER)",
    recognises=is_deepeval_run,
    verdicts=verdict_records,
    renamed=False,
    what="DeepEval test run",
)
