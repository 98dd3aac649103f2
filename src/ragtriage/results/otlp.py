"""An audit's verdicts where people look at traces: each audited case's verdict as an
OpenTelemetry ``gen_ai.evaluation.result`` event (OTLP/JSON logs, linked to the trace and
span the answer came from) and as Phoenix span annotations; the attributes and labels are
docs/verdicts-in-tracing.md's tables.

OTLP/JSON writes ids as hex and 64-bit integers as strings (the OTLP specification's
JSON encoding, not protobuf's default JSON mapping). Texts stay data: nothing here
renders them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragtriage.triage.models import CaseResult

__all__ = ["EVENT", "Export", "Linked", "otlp_logs", "phoenix_annotations", "verdict_label"]

EVENT = "gen_ai.evaluation.result"
SEVERITY_INFO = 9
Linked = list[tuple[CaseResult, str, str]]  # case, trace id, span id (hex)


@dataclass
class Export:
    """What ``ragtriage export`` did: cases linked to a span, those not, files written."""

    linked: int
    unlinked: list[str] = field(default_factory=list)  # case ids with no trace in the file
    written: list[Path] = field(default_factory=list)
    sent: int | None = None  # annotations Phoenix accepted (with --phoenix-url)


def verdict_label(case: CaseResult) -> str:
    """``faithful``/``unfaithful``; else why there is no verdict: ``unsure``, ``unstable``,
    the judge's outcome (``abstained``, ``no_claims``, ``unscored``) or ``not_judged``."""
    if case.faithful is not None:
        return "faithful" if case.faithful else "unfaithful"
    if case.label.value in ("unsure", "unstable"):
        return case.label.value
    if case.judge is not None and case.judge.outcome.value != "scored":
        return case.judge.outcome.value
    return "not_judged"


def _score(case: CaseResult) -> float | None:
    judge = case.judge
    return judge.score if judge is not None and judge.score is not None else None


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": str(value)}


def _attributes(pairs: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in pairs.items() if v is not None]


def otlp_logs(linked: Linked, now_ns: int | None = None) -> dict[str, Any]:
    """An OTLP/JSON ``ExportLogsServiceRequest``: one ``gen_ai.evaluation.result`` event per
    linked case."""
    from ragtriage import __version__

    now = str(now_ns if now_ns is not None else time.time_ns())
    records = []
    for case, trace_id, span_id in linked:
        attributes = {
            "gen_ai.evaluation.name": "faithfulness",
            "gen_ai.evaluation.score.value": _score(case),
            "gen_ai.evaluation.score.label": verdict_label(case),
            "gen_ai.evaluation.explanation": case.reason,
            "ragtriage.triage.label": case.label.value,
            "ragtriage.case_id": case.case_id,
            "ragtriage.decided_by": case.decided_by,
        }
        records.append(
            {
                "timeUnixNano": now,
                "observedTimeUnixNano": now,
                "severityNumber": SEVERITY_INFO,
                "severityText": "INFO",
                "eventName": EVENT,
                "traceId": trace_id,
                "spanId": span_id,
                "attributes": _attributes(attributes),
            }
        )
    return {
        "resourceLogs": [
            {
                "resource": {"attributes": _attributes({"service.name": "ragtriage"})},
                "scopeLogs": [
                    {"scope": {"name": "ragtriage", "version": __version__}, "logRecords": records}
                ],
            }
        ]
    }


def phoenix_annotations(linked: Linked) -> dict[str, Any]:
    """The body of Phoenix's ``POST /v1/span_annotations``: two annotations per case."""
    data = []
    for case, _, span_id in linked:
        faithfulness: dict[str, Any] = {
            "label": verdict_label(case),
            "explanation": case.reason,
        }
        if (score := _score(case)) is not None:
            faithfulness["score"] = score
        meta = {"case_id": case.case_id, "triage_label": case.label.value}
        triage = {"label": case.label.value, "explanation": case.reason}
        for name, kind, result in (
            ("faithfulness", "LLM", faithfulness),
            ("triage", "CODE", triage),
        ):
            data.append(
                {
                    "span_id": span_id,
                    "name": f"ragtriage.{name}",
                    "annotator_kind": kind,
                    "result": result,
                    "metadata": meta,
                    "identifier": "ragtriage",
                }
            )
    return {"data": data}
