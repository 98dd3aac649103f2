"""Mismatches between the golden set, the corpus and the traces: counted, listed, and
handled by a documented policy (``--on-mismatch fail|warn|error``; docs/audit-your-system.md,
"When the files disagree").

Chunks passed to the generator whose text neither the trace nor the corpus holds leave
the answer unjudgeable: the case is ``unscored``. :func:`meaningless` names the mismatches
past which the figures mean nothing (docs/ci-gate.md, "Mismatched files"): most retrieved
ids unknown (``UNKNOWN_SHARE``: every case reads as a retrieval failure), most golden
cases untraced (``TRACED_SHARE``: the rates rest on the few left), any expected id
missing (``EXPECTED_MISSING``: that case can never find it).
"""

from __future__ import annotations

from typing import Literal

from ragtriage.data.models import GoldenSet
from ragtriage.errors import InputError
from ragtriage.notices import Notice
from ragtriage.triage.models import Trace

__all__ = [
    "EXPECTED_MISSING",
    "LISTED",
    "POLICIES",
    "Policy",
    "TRACED_SHARE",
    "UNKNOWN_SHARE",
    "apply",
    "find",
    "meaningless",
    "rising_scores",
]

Policy = Literal["fail", "warn", "error"]
POLICIES = ("fail", "warn", "error")
LISTED = 10
UNKNOWN_SHARE = 0.5  # more than this share of retrieved ids unknown: meaningless
TRACED_SHARE = 0.5  # fewer than this share of golden cases traced: meaningless
EXPECTED_MISSING = 1  # this many expected ids missing from the corpus: meaningless
SHOWN = 3  # ids named in a headline reason


def find(
    golden: GoldenSet, traces: dict[str, Trace], texts: dict[str, str] | None = None
) -> dict[str, list[str]]:
    """Every kind of mismatch with the ids involved (empty lists when none). ``texts``:
    every chunk text known (data/traces.py:chunk_texts), to find context without one."""
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


def apply(found: dict[str, list[str]], policy: Policy | str, source: str) -> list[Notice]:
    """``mismatch`` notices for ``fail`` and ``warn`` (counts: the kind's ids); an
    :class:`InputError` naming the ids for ``error``."""
    if policy not in POLICIES:
        raise InputError(f"must be 'fail', 'warn' or 'error', got {policy!r}", field="on_mismatch")
    lines = [
        f"{len(ids)} {kind.replace('_', ' ')}: {', '.join(ids[:LISTED])}"
        + (" ..." if len(ids) > LISTED else "")
        for kind, ids in found.items()
        if ids
    ]
    if lines and policy == "error":
        raise InputError("; ".join(lines) + " (--on-mismatch warn to continue)", path=source)
    kinds = [(kind, len(ids)) for kind, ids in found.items() if ids]
    pairs = zip(lines, kinds, strict=True)
    return [Notice(code="mismatch", text=line, counts={kind: n}) for line, (kind, n) in pairs]


def _some(ids: list[str]) -> str:
    return ", ".join(ids[:SHOWN]) + (", ..." if len(ids) > SHOWN else "")


def meaningless(
    found: dict[str, list[str]], golden: GoldenSet, traces: dict[str, Trace]
) -> dict[str, str]:
    """The mismatches past the module's thresholds, by kind (a key of :func:`find`), each
    one short sentence for the headline of every report (empty: the figures mean what
    they say)."""
    reasons: dict[str, str] = {}
    cases = len(golden.cases)
    traced = cases - len(found["golden_without_trace"])
    if cases and traced < TRACED_SHARE * cases:
        other = found["traced_not_in_golden"]
        hint = f" (the traces' query ids: {_some(other)})" if other else ""
        reasons["golden_without_trace"] = (
            f"{traced} of {cases} golden cases have a trace{hint}: the trace query_ids "
            "must be the golden set's case ids"
        )
    known = {c.id for c in golden.cases}
    retrieved = sum(len({c.id for c in t.retrieved}) for q, t in traces.items() if q in known)
    unknown = len(found["trace_ids_not_in_corpus"])
    if retrieved and unknown > UNKNOWN_SHARE * retrieved:
        reasons["trace_ids_not_in_corpus"] = (
            f"{unknown} of {retrieved} retrieved ids are not in the corpus "
            f"({_some(found['trace_ids_not_in_corpus'])}): the traces must use the corpus's "
            "chunk ids (re-indexed?)"
        )
    expected = found["expected_not_in_corpus"]
    if len(expected) >= EXPECTED_MISSING:
        ids = "1 expected id is" if len(expected) == 1 else f"{len(expected)} expected ids are"
        reasons["expected_not_in_corpus"] = (
            f"{ids} not in the corpus ({_some(expected)}): a case can never retrieve "
            "it and reads as a retrieval failure (ragtriage golden check)"
        )
    return reasons


def nothing_retrieved(golden: GoldenSet, traces: dict[str, Trace]) -> dict[str, str]:
    """A headline reason when no traced case retrieved anything (a ragas file without
    contexts): every answerable case would read as a retrieval failure."""
    known = {c.id for c in golden.cases}
    traced = [t for q, t in traces.items() if q in known]
    if not traced or any(t.retrieved for t in traced):
        return {}
    return {
        "nothing_retrieved": (
            f"none of the {len(traced)} traced cases has a retrieved passage: the file holds "
            "no retrieval its reader could read (ragas: retrieved_contexts or a retriever "
            "tool's messages; DeepEval: retrieval_context), so every answerable case reads "
            "as a retrieval failure"
        )
    }


def _rises(trace: Trace) -> bool:
    scores = [c.score for c in trace.retrieved if c.score is not None]
    pairs = list(zip(scores, scores[1:], strict=False))
    return (
        len(scores) == len(trace.retrieved) > 1
        and all(a <= b for a, b in pairs)
        and (scores[-1] > scores[0])
    )


def rising_scores(traces: dict[str, Trace], known: set[str]) -> dict[str, str]:
    """``{"scores_rising": sentence}`` when some traced golden cases list their retrieved
    chunks with scores rising down the list: stage 1 ranks them as listed, so a list
    written worst first gets every rank metric wrong, and distances (lower is closer) read
    backwards in the score sections. Empty otherwise."""
    scored = [t for q, t in traces.items() if q in known and len(t.retrieved) > 1]
    rising = [t.query_id for t in scored if _rises(t)]
    if not rising:
        return {}
    return {
        "scores_rising": (
            f"retrieved lists were ranked as listed, though their scores rise down the list "
            f"in {len(rising)} of {len(scored)} traces ({_some(rising)}): reversed lists, or "
            "distances (lower is closer), read backwards"
        )
    }
