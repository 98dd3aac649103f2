"""What the ``ragtriage golden`` commands produced: a held-out :class:`Split` and the
cases ``golden add`` plans to append (:class:`GrowPlan`, with its :class:`Refusal` s,
planned in :mod:`ragtriage.data.grow`); and the golden records an audit's cases become.

The failures an audit finds are the queries a golden set most needs: real, hard, and after
a fix a guard against regressions. A chosen case becomes a golden record with a ``source``
note saying which audit, case and label it came from (:func:`candidates`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ragtriage.atomic import file_sha256
from ragtriage.data.golden import load_golden
from ragtriage.data.grow import Candidate, GrowPlan, Refusal
from ragtriage.data.models import GoldenCase
from ragtriage.errors import InputError
from ragtriage.results.run import AuditResult
from ragtriage.triage.models import FAILURES, CaseResult

__all__ = [
    "GrowPlan",
    "Refusal",
    "Split",
    "candidates",
    "originals",
    "record",
    "select",
    "source_note",
]


class Split(BaseModel):
    held: list[str]  # ids of the held-out cases
    total: int
    written: Path
    seed: int = 0


def select(result: AuditResult, case_ids: list[str], failed: bool) -> list[CaseResult]:
    """The named cases, or every failing one (retrieval, ranking, generation)."""
    if bool(case_ids) == failed:
        raise InputError("give --case ID (repeatable) or --failed, not both", field="case")
    if failed:
        return [c for c in result.cases if c.label in FAILURES]
    by_id = {c.case_id: c for c in result.cases}
    unknown = [c for c in case_ids if c not in by_id]
    if unknown:
        raise InputError(f"not in the results: {', '.join(unknown)}", field="case")
    return [by_id[c] for c in case_ids]


def record(
    case: CaseResult,
    expected: list[str] | None,
    tags: list[str],
    note: str,
    original: GoldenCase | None = None,
) -> dict:
    """The golden record of an audited case; ``original``: the case in the audit's own
    golden set, whose grades, reference answer and access-control fields are kept."""
    rec: dict[str, Any] = {
        "id": case.case_id,
        "query": case.query,
        "expected": expected if expected is not None else list(case.expected),
        "tags": list(dict.fromkeys([*case.tags, *tags])),
    }
    if original is not None:
        # the grades of the ids still expected, and the judged non-relevant (0): a positive
        # grade of an id the user left out would make it relevant again
        relevance = original.relevance.items()
        kept = {k: v for k, v in relevance if k in rec["expected"] or v <= 0}
        if any(v != 1 for v in kept.values()):
            rec["relevance_grades"] = kept
        extra = {
            "reference_answer": original.reference_answer,
            "forbidden": list(original.forbidden),
            "tenant": original.tenant,
            "acl": list(original.acl),
        }
        rec.update({k: v for k, v in extra.items() if v})
    rec["source"] = note
    return rec


def originals(result: AuditResult) -> dict[str, GoldenCase]:
    """The audit's golden cases by id, when its golden set can still be read (else none:
    the audit's own fields are all there is)."""
    source = result.golden.source
    try:
        return {c.id: c for c in load_golden(source).cases} if source else {}
    except InputError:
        return {}


def source_note(results: Path, case: CaseResult, extra: str = "") -> str:
    note = (
        f"audit {results.name} (sha256 {file_sha256(results)[:12]}) case {case.case_id}: "
        f"{case.label.value}: {case.reason}"
    )
    return f"{note}; {extra}" if extra else note


def candidates(
    result: AuditResult,
    results: Path,
    case_ids: list[str],
    failed: bool,
    expected: dict[str, list[str]],
    tags: list[str],
    note: str = "",
) -> list[Candidate]:
    """The golden records of the chosen cases of ``result`` (read from ``results``):
    ``case_ids``, or every failing case; ``expected``: the ids the user marks, by case."""
    chosen = select(result, case_ids, failed)
    unused = sorted(set(expected) - {case.case_id for case in chosen})
    if unused:  # ids given for a case that is not being added must not vanish silently
        raise InputError(
            f"--expected names cases not being added: {', '.join(unused)}", field="expected"
        )
    known = originals(result)
    return [
        Candidate(
            case.case_id,
            record(
                case,
                expected.get(case.case_id),
                tags,
                source_note(results, case, note),
                known.get(case.case_id),
            ),
            list(case.retrieved_ids),
        )
        for case in chosen
    ]
