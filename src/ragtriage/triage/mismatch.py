"""Mismatches between the golden set, the corpus and the traces: counted, listed, and
handled by a documented policy (``--on-mismatch warn|error``).

* traced queries that are not in the golden set (ignored under ``warn``);
* golden queries without a trace (labelled ``unscored`` under ``warn``);
* chunk ids in the traces, or expected ids in the golden set, that the corpus does not
  have (only checked when the golden set comes with a corpus);
* chunks passed to the generator whose text is known neither from the trace nor from
  the corpus (the answer cannot be judged: the case is labelled ``unscored``).

Under ``error`` any mismatch stops the audit with exit code 2 and the ids.
"""

from __future__ import annotations

from typing import Literal

from ragtriage.data.models import GoldenSet
from ragtriage.errors import InputError
from ragtriage.triage.models import Trace

__all__ = ["LISTED", "Policy", "apply", "find"]

Policy = Literal["warn", "error"]
LISTED = 10


def find(
    golden: GoldenSet, traces: dict[str, Trace], texts: dict[str, str] | None = None
) -> dict[str, list[str]]:
    """Every kind of mismatch with the ids involved (empty lists when none). ``texts``:
    every chunk text known (system/run.py:chunk_texts), to find context without one."""
    known = {c.id for c in golden.cases}
    corpus = golden.corpus
    out: dict[str, list[str]] = {
        "traced_not_in_golden": sorted(set(traces) - known),
        "golden_without_trace": [c.id for c in golden.cases if c.id not in traces],
        "trace_ids_not_in_corpus": [],
        "expected_not_in_corpus": [],
        "context_ids_without_text": [],
    }
    if texts is not None:
        out["context_ids_without_text"] = [
            f"{c.id}:{cid}"
            for c in golden.cases
            if c.id in traces and traces[c.id].generation_error is None
            for cid in traces[c.id].context_ids
            if cid not in texts
        ]
    if corpus is not None:
        out["trace_ids_not_in_corpus"] = sorted(
            {
                f"{q}:{c.id}"
                for q, t in traces.items()
                if q in known
                for c in t.retrieved
                if c.id not in corpus
            }
        )
        out["expected_not_in_corpus"] = [
            f"{c.id}:{d}" for c in golden.cases for d in c.expected() if d not in corpus
        ]
    return out


def apply(found: dict[str, list[str]], policy: Policy | str, source: str) -> list[str]:
    """Warnings for ``warn``; an :class:`InputError` naming the ids for ``error``."""
    if policy not in ("warn", "error"):
        raise InputError(f"must be 'warn' or 'error', got {policy!r}", field="on_mismatch")
    lines = [
        f"{len(ids)} {kind.replace('_', ' ')}: {', '.join(ids[:LISTED])}"
        + (" ..." if len(ids) > LISTED else "")
        for kind, ids in found.items()
        if ids
    ]
    if lines and policy == "error":
        raise InputError("; ".join(lines) + " (--on-mismatch warn to continue)", path=source)
    return lines
