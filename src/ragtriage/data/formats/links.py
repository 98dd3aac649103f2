"""Where each traced answer sits in its trace: the trace id, the span that produced the
answer and the query, read from the span export an audit read (``openinference``), so
that a verdict can be written back onto its span (``results/otlp.py``).

The span is the trace's root span (the GenAI conventions parent an evaluation to the
operation evaluated). Ids are written as OTLP/JSON and Phoenix write them: lower-case hex
without ``0x`` (the SDK's ``span.to_json()`` prints ``0x...``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragtriage.data.containers import read_table
from ragtriage.data.formats.openinference import root_spans, spans_by_trace, trace_query
from ragtriage.data.formats.text import query_form
from ragtriage.errors import InputError

__all__ = ["TraceLink", "hex_id", "query_form", "trace_links"]


@dataclass(frozen=True)
class TraceLink:
    trace_id: str  # 32 hex digits
    span_id: str  # 16 hex digits: the root span's
    query: str | None


def hex_id(value: str, digits: int, path: Path, line: int, field: str) -> str:
    """An id as lower-case hex of ``digits`` digits (``0x`` dropped); else refused."""
    text = value.lower().removeprefix("0x")
    if len(text) != digits or any(c not in "0123456789abcdef" for c in text):
        raise InputError(
            f"not a {digits}-digit hex id: {value[:40]!r}", path=path, line=line, field=field
        )
    return text


def trace_links(path: Path) -> tuple[dict[str, TraceLink], dict[str, TraceLink]]:
    """``(by trace id, by normalised query)`` of every trace in a span export; a query
    asked in several traces links to its first."""
    by_trace = spans_by_trace(read_table(path).rows, path)
    traces: dict[str, TraceLink] = {}
    queries: dict[str, TraceLink] = {}
    for members in by_trace.values():
        root = root_spans(members)[0]
        retrievers = [s for s in members if s.kind == "RETRIEVER"]
        query = trace_query(members, retrievers[0] if retrievers else root)
        link = TraceLink(
            trace_id=hex_id(root.trace_id, 32, path, root.line, "trace_id"),
            span_id=hex_id(root.span_id, 16, path, root.line, "span_id"),
            query=query,
        )
        traces[link.trace_id] = link
        traces.setdefault(root.trace_id, link)  # as the trace reader names it
        if query:
            queries.setdefault(query_form(query), link)
    return traces, queries
