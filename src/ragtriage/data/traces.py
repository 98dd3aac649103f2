"""Load trace files: what the system under test retrieved, passed on and answered.

The shape is in docs/audit-your-system.md ("Your system as a trace file"). Every format's
records come through the registry (``detect.adapt_traces``, the path a run read from such
a file takes too); this module validates them into traces. What a trace converts into
lives here too, for traces read from a file and traces ``system/`` made alike: the
retrieved lists as a run (:func:`run_from_traces`, ranked as :func:`ranked_chunks` gives
them) and the text of every chunk known (:func:`chunk_texts`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragtriage.data.containers import Given, Source, as_source, unique_items
from ragtriage.data.formats.columns import Columns
from ragtriage.data.formats.detect import trace_rows
from ragtriage.data.models import GoldenSet, RetrievedChunk, Trace
from ragtriage.data.rows import TraceRow, validated
from ragtriage.data.tables import Run

__all__ = [
    "TraceFile",
    "chunk_texts",
    "load_traces",
    "parse_trace",
    "ranked_chunks",
    "read_traces",
    "run_from_traces",
]


@dataclass
class TraceFile:
    """The traces of one file, keyed by query id, with the format read, notes, and what
    was assumed to read it (kind -> sentence with counts: ``context_top_k``, the top k
    taken as the context of traces without ``context_ids``; ``ids_by_text``, passages
    given the id of the corpus chunk with their text)."""

    traces: dict[str, Trace]
    format: str
    notes: list[str] = field(default_factory=list)
    queries: dict[str, str] = field(default_factory=dict)  # the text each trace asked
    assumptions: dict[str, str] = field(default_factory=dict)


def load_traces(
    path: Source | Iterable[Mapping[str, Any]],
    default_k: int,
    golden: GoldenSet | None = None,
    columns: Columns = None,
) -> dict[str, Trace]:
    """Traces keyed by query id; a query listed twice is an error."""
    return read_traces(path, default_k, golden, columns).traces


def read_traces(
    path: Source | Iterable[Mapping[str, Any]],
    default_k: int,
    golden: GoldenSet | None = None,
    columns: Columns = None,
) -> TraceFile:
    """:func:`load_traces` with the detected format; traces that carry a query but no id
    are matched to ``golden``'s cases by their normalised query text; ``path`` may be rows
    given in Python (``containers.as_source``)."""
    path = as_source(path, "traces")
    adapted = trace_rows(path, columns, golden)
    traces = unique_items(
        path,
        adapted.records,
        lambda record, line: parse_trace(record, path, line, default_k),
        lambda trace: trace.query_id,
        field="query_id",
        duplicate=lambda k, first: f"query {k!r} already traced on line {first}",
        empty="trace file is empty",
    )
    asked = _queries(adapted.records, golden)
    echoed = [t.query_id for t in traces if _same(t.answer, asked.get(t.query_id))]
    notes = adapted.notes + ([
        f"{path}: {len(echoed)} traces answer with their own query ({', '.join(echoed[:5])}"
        f"{', ...' if len(echoed) > 5 else ''}): check that the answer field is the answer"
    ] if echoed else [])  # fmt: skip
    assumed = dict(adapted.assumptions)
    top_k = sum("context_ids" not in r and "context_k" not in r for _, r in adapted.records)
    if top_k:
        assumed["context_top_k"] = (
            f"the top {default_k} retrieved were taken as the generator's context in {top_k} "
            f"of {len(traces)} traces, which give no context_ids (--context-k sets k)"
        )
    return TraceFile({t.query_id: t for t in traces}, adapted.format, notes, asked, assumed)


def _queries(records: list[tuple[int, dict[str, Any]]], golden: GoldenSet | None) -> dict[str, str]:
    """The query each trace asked: its own text, else its golden case's."""
    asked = {c.id: c.query for c in golden.cases} if golden else {}
    for _, record in records:
        if isinstance(record.get("query"), str):
            asked[str(record.get("query_id"))] = record["query"]
    return asked


def _same(answer: str, query: str | None) -> bool:
    """An answer that is its query (a chain output that carried the question read as the
    answer), which any judge finds faithful, so it is warned about."""
    return bool(query) and " ".join(answer.casefold().split()) == " ".join(
        str(query).casefold().split()
    )


def parse_trace(
    record: dict[str, Any], path: str | Path | Given, line: int, default_k: int
) -> Trace:
    """One trace record (``rows.TraceRow``: errors name file, line and field)."""
    return validated(TraceRow, record, path, line).trace(default_k)


def run_from_traces(traces: dict[str, Trace], golden: GoldenSet) -> Run:
    """The retrieved lists as a run, ranked as listed (``order="given"``): that order is
    what reached the generator, so stage 1, the case rows and every report name the rank
    it gave (scores, kept for the threshold and confidence sections, do not reorder it)."""
    queries, docs, scores = [], [], []
    for case in golden.cases:
        trace = traces.get(case.id)
        for rank, chunk in enumerate(trace.retrieved if trace else []):
            queries.append(case.id)
            docs.append(chunk.id)
            scores.append(chunk.score if chunk.score is not None else float(-rank))
    run = Run.from_columns(queries, docs, scores, source="traces")
    run.order = "given"
    run.scored = not docs or any(  # positions alone are no confidence (issue 26)
        c.score is not None for t in traces.values() for c in t.retrieved
    )
    return run


def ranked_chunks(trace: Trace) -> list[RetrievedChunk]:
    """The retrieved chunks as stage 1 ranks them (``run_from_traces``, order "given"):
    as listed, a chunk listed twice kept at its first place (stage 1 counts the copy in a
    warning), so the rank a card shows is the rank every metric and reason names."""
    first: dict[str, RetrievedChunk] = {}
    for chunk in trace.retrieved:
        first.setdefault(chunk.id, chunk)
    return list(first.values())


def chunk_texts(golden: GoldenSet, traces: dict[str, Trace]) -> dict[str, str]:
    """Text of every chunk we know: from the traces first, then the golden corpus (title
    and text, :attr:`Chunk.passage`)."""
    texts = {cid: c.passage for cid, c in (golden.corpus or {}).items()}
    for trace in traces.values():
        texts.update({c.id: c.text for c in trace.retrieved if c.text})
    return texts
