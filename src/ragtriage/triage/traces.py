"""Load trace files: what the system under test retrieved, passed on and answered.

One JSONL line per golden query: ``query_id``, ``retrieved`` (ranked; items ``{id, score?,
text?}`` or plain ids), ``context_ids`` (the chunks passed to the generator) or
``context_k`` (the top k were passed), and ``answer``. The same rows may come as CSV
(list cells as JSON text) or Parquet, and other tools' files are read too: ragas samples
and OpenInference spans, whose queries are matched to the golden cases by their text.
The parsing of those lives in ``data/formats/``; this module validates the rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragtriage.data.formats.columns import Columns
from ragtriage.data.formats.detect import trace_rows
from ragtriage.data.formats.text import QueryIndex, text_id
from ragtriage.data.ids import check_id
from ragtriage.data.models import GoldenSet
from ragtriage.data.readers import check_type, require, unique_items
from ragtriage.errors import InputError
from ragtriage.triage.models import RetrievedChunk, Trace

__all__ = ["TraceFile", "load_traces", "parse_trace", "read_traces"]


@dataclass
class TraceFile:
    """The traces of one file, keyed by query id, with the format read and notes."""

    traces: dict[str, Trace]
    format: str
    notes: list[str] = field(default_factory=list)


def load_traces(
    path: str | Path,
    default_k: int,
    golden: GoldenSet | None = None,
    columns: Columns = None,
) -> dict[str, Trace]:
    """Traces keyed by query id; a query listed twice is an error."""
    return read_traces(path, default_k, golden, columns).traces


def read_traces(
    path: str | Path,
    default_k: int,
    golden: GoldenSet | None = None,
    columns: Columns = None,
) -> TraceFile:
    """:func:`load_traces` with the detected format; traces that carry a query but no id
    are matched to ``golden``'s cases by their normalised query text."""
    path = Path(path)
    index = None
    if golden is not None:
        index = QueryIndex(((c.id, c.query) for c in golden.cases), source=golden.source)
    adapted = trace_rows(path, columns, index)
    traces = unique_items(
        path,
        adapted.records,
        lambda record, line: parse_trace(record, path, line, default_k),
        lambda trace: trace.query_id,
        field="query_id",
        duplicate=lambda k, first: f"query {k!r} already traced on line {first}",
        empty="trace file is empty",
    )
    traces, found = corpus_ids(traces, golden)
    notes = adapted.notes + (
        [f"{path}: {found} retrieved passages without a corpus id were given the id of the "
         "corpus chunk with the same text"] if found else []
    )  # fmt: skip
    return TraceFile({t.query_id: t for t in traces}, adapted.format, notes)


def corpus_ids(traces: list[Trace], golden: GoldenSet | None) -> tuple[list[Trace], int]:
    """Traces whose retrieved passages came without ids (a ragas dataset of texts, spans
    without document ids: their ids are text hashes) get the id of the golden set's corpus
    chunk with the same normalised text (or title and text), so stage 1 can match them:
    without it every retrieval metric read 0. Returns the traces and how many ids changed."""
    if golden is None or not golden.corpus:
        return traces, 0
    by_text: dict[str, str] = {}
    for chunk in golden.corpus.values():
        for text in (chunk.text, chunk.passage):
            by_text.setdefault(text_id(text), chunk.id)
    out, changed = [], 0
    for trace in traces:
        renamed = {
            c.id: by_text[key]
            for c in trace.retrieved
            if c.id not in golden.corpus and c.text and (key := text_id(c.text)) in by_text
        }
        changed += len(renamed)
        out.append(_renamed(trace, renamed) if renamed else trace)
    return out, changed


def _renamed(trace: Trace, renamed: dict[str, str]) -> Trace:
    retrieved = [c.model_copy(update={"id": renamed.get(c.id, c.id)}) for c in trace.retrieved]
    context = [renamed.get(i, i) for i in trace.context_ids]
    return trace.model_copy(update={"retrieved": retrieved, "context_ids": context})


def parse_trace(record: dict[str, Any], path: Path, line: int, default_k: int) -> Trace:
    query_id = str(require(record, "query_id", (str, int), path, line))
    check_id(query_id, path=path, line=line, field="query_id")
    items = require(record, "retrieved", list, path, line)
    retrieved = [_chunk(item, i, path, line) for i, item in enumerate(items)]
    answer = require(record, "answer", str, path, line)
    return Trace(
        query_id=query_id,
        retrieved=retrieved,
        context_ids=_context_ids(record, retrieved, path, line, default_k),
        answer=answer,
    )


def _chunk(item: Any, rank: int, path: Path, line: int) -> RetrievedChunk:
    field = f"retrieved[{rank}]"
    if isinstance(item, str | int) and not isinstance(item, bool):
        return RetrievedChunk(id=check_id(str(item), path=path, line=line, field=field))
    check_type(item, field, dict, path, line)
    chunk_id = str(require(item, "id", (str, int), path, line))
    check_id(chunk_id, path=path, line=line, field=f"{field}.id")
    score = item.get("score")
    if score is not None:
        score = float(check_type(score, f"{field}.score", (int, float), path, line))
    text = check_type(item.get("text") or "", f"{field}.text", str, path, line)
    return RetrievedChunk(id=chunk_id, score=score, text=text)


def _context_ids(
    record: dict[str, Any], retrieved: list[RetrievedChunk], path: Path, line: int, k: int
) -> list[str]:
    if "context_ids" in record and "context_k" in record:
        raise InputError(
            "give either 'context_ids' or 'context_k', not both",
            path=path,
            line=line,
            field="context_ids",
        )
    if "context_ids" in record:
        ids = check_type(record["context_ids"], "context_ids", list, path, line)
        for value in ids:
            check_type(value, "context_ids[]", (str, int), path, line)
        return [str(v) for v in ids]
    if "context_k" in record:
        k = check_type(record["context_k"], "context_k", int, path, line)
        if k < 0:
            raise InputError("must be >= 0", path=path, line=line, field="context_k")
    return [c.id for c in retrieved[:k]]
