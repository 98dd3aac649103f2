"""OpenInference spans (Arize Phoenix and other OpenTelemetry tools) as our traces.

Read per trace id: the first ``RETRIEVER`` span's documents are the ranked list, the root
``CHAIN``/``AGENT`` span's output (else the last ``LLM`` span's) the answer, the root
span's input (else the retriever's) the query. Spans under the OpenTelemetry GenAI
conventions (``gen_ai.operation.name``: :data:`GENAI_KINDS`) are read beside them. The
layouts and what is lost (which documents reached the prompt: the top ``--context-k``
are taken) are in docs/file-formats.md ("Other tools' files"). The three layouts of a
span: the SDK's ``span.to_json()`` (flat dotted ``attributes``), a Phoenix spans
DataFrame (``attributes.*`` columns) and OTLP/JSON (``resourceSpans``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragtriage.data.containers import Given
from ragtriage.data.formats.base import Format
from ragtriage.data.formats.otlp_values import decode_attributes
from ragtriage.data.formats.text import text_id
from ragtriage.data.jsontext import NOT_JSON, check_depth, decode_json_text
from ragtriage.data.rows import checked, finite_float
from ragtriage.errors import InputError

__all__ = [
    "FORMAT",
    "Span",
    "documents",
    "is_openinference",
    "metadata_values",
    "root_spans",
    "spans",
    "spans_by_trace",
    "text_value",
    "trace_answer",
    "trace_query",
    "trace_records",
]

Rows = Iterable[tuple[int, dict[str, Any]]]
_DOC = re.compile(r"retrieval\.documents\.(\d+)\.document\.(id|score|content|metadata)$")
_DOC_META = re.compile(r"retrieval\.documents\.(\d+)\.document\.metadata\.(\w+)$")
# where a document's own id sits in its metadata when the instrumentor wrote no
# document.id (LangChain's writes metadata only: {"id": ..., "score": ...})
META_ID_KEYS = ("id", "doc_id", "document_id", "chunk_id", "_id")
_OUT = re.compile(r"llm\.output_messages\.(\d+)\.message\.content$")
_QUERY_KEYS = ("query", "question", "input", "user_input")
# what a chain returns as its answer, first found wins; a question key never is one
# (LangChain's "RAG with sources" returns {"context", "question", "answer"})
_WHOLE = ("input.value", "output.value")  # JSON text by the conventions, never flattened
_ANSWER_KEYS = ("answer", "output", "result", "response", "text", "content")


@dataclass
class Span:
    trace_id: str
    span_id: str
    parent_id: str | None
    kind: str
    line: int
    attributes: dict[str, Any] = field(default_factory=dict)  # flat, dotted keys
    path: Path | Given | None = None  # the file, for a refusal of embedded JSON text
    start: float | None = None  # seconds since the epoch (:func:`_instant`, :func:`_nanos`)


def is_openinference(keys: set[str]) -> bool:
    """A span row in one of the three layouts (module docstring)."""
    if "resourceSpans" in keys or "span_kind" in keys or "context.span_id" in keys:
        return True
    if any(k.startswith("attributes.") for k in keys):
        return True
    return "attributes" in keys and ("context" in keys or "span_id" in keys)


def flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Nested attributes as OpenTelemetry's flat keys: ``{"a": [{"b": 1}]}`` -> ``a.0.b``."""
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from flatten(sub, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
        for i, sub in enumerate(value):
            yield from flatten(sub, f"{prefix}.{i}")
    else:
        yield prefix, value


def spans(rows: Rows, path: Path | Given) -> list[Span]:
    out: list[Span] = []
    for line, row in rows:
        if "resourceSpans" in row:
            out.extend(_otlp_spans(row, path, line))
        else:
            out.append(_span(row, path, line))
    return out


def spans_by_trace(rows: Rows, path: Path | Given) -> dict[str, list[Span]]:
    """:func:`spans` grouped by trace id, traces in order of their first span."""
    out: dict[str, list[Span]] = {}
    for span in spans(rows, path):
        out.setdefault(span.trace_id, []).append(span)
    return out


def _span(row: dict[str, Any], path: Path | Given, line: int) -> Span:
    # flatten recurses: a row nested past the limit is refused before it is walked
    attrs = dict(flatten(check_depth(row.get("attributes") or {}, path=path, line=line,
                                     field="attributes")))  # fmt: skip
    for key, value in row.items():
        name = key.removeprefix("attributes.")
        if name in _WHOLE and isinstance(value, dict | list):
            check_depth(value, path=path, line=line, field=key)
            attrs[name] = json.dumps(value)  # a CSV cell of JSON text, parsed on reading
        elif key.startswith("attributes."):
            attrs.update(flatten(check_depth(value, path=path, line=line, field=key), name))
    context: dict[str, Any] = row["context"] if isinstance(row.get("context"), dict) else {}
    trace_id = row.get("context.trace_id", context.get("trace_id", row.get("trace_id")))
    span_id = row.get("context.span_id", context.get("span_id", row.get("span_id")))
    ids = (trace_id, span_id, row.get("parent_id"))
    start = _instant(row.get("start_time"))
    return _new_span(ids, "context.trace_id", row.get("span_kind", ""), attrs, path, line, start)


def _otlp_spans(row: dict[str, Any], path: Path | Given, line: int) -> Iterator[Span]:
    """Spans of one OTLP/JSON request (``resourceSpans[].scopeSpans[].spans[]``)."""
    for resource in _list(row.get("resourceSpans"), path, line, "resourceSpans"):
        for scope in _list(resource.get("scopeSpans"), path, line, "scopeSpans"):
            for span in _list(scope.get("spans"), path, line, "spans"):
                attrs = decode_attributes(span.get("attributes"), path=path, line=line)
                ids = (span.get("traceId"), span.get("spanId"), span.get("parentSpanId"))
                start = _nanos(span.get("startTimeUnixNano"))
                yield _new_span(ids, "traceId", "", attrs, path, line, start)


def _new_span(
    ids: tuple[Any, Any, Any],
    field: str,
    kind: Any,
    attrs: dict[str, Any],
    path: Path | Given,
    line: int,
    start: float | None,
) -> Span:
    """A span of either layout: ``ids`` its trace, span and parent ids as written (no trace
    id: refused, naming ``field``), ``kind`` the layout's own, unless ``attrs`` name one."""
    trace_id, span_id, parent = ids
    if trace_id is None:
        raise InputError("span has no trace id", path=path, line=line, field=field)
    kind = attrs.get("openinference.span.kind", kind) or genai_kind(attrs)
    parent_id, kind = _parent(parent), str(kind).upper()
    return Span(str(trace_id), str(span_id), parent_id, kind, line, attrs, path, start)


def _parent(value: Any) -> str | None:
    """A parent span id as text (a list there was looked up in a set: a traceback)."""
    return str(value) if value not in (None, "") else None


def _nanos(value: Any) -> float | None:
    """OTLP/JSON's nanoseconds (a string: 64-bit integers are written as text)."""
    try:
        return int(value) / 1e9
    except (TypeError, ValueError, OverflowError):
        return None


_FRACTION = re.compile(r"(\.\d{6})\d+")


def _instant(value: Any) -> float | None:
    """An ISO 8601 time stamp as seconds since the epoch (``start_time`` of the SDK's
    ``span.to_json()`` and of Phoenix rows, any UTC offset: compared as instants, not as
    text); no offset reads as UTC."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return value / 1e9 if value > 1e12 else float(value)
        except OverflowError:  # an integer past any float: no time to order by
            return None
    if not isinstance(value, str):
        return None
    text = _FRACTION.sub(r"\1", value.strip().replace("Z", "+00:00").replace(" ", "T", 1))
    try:
        stamp = datetime.fromisoformat(text)
    except ValueError:
        return None
    return (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)).timestamp()


# OpenTelemetry GenAI semantic conventions (gen_ai.operation.name) -> the span kind read
GENAI_KINDS = {
    "retrieval": "RETRIEVER",
    "chat": "LLM",
    "text_completion": "LLM",
    "generate_content": "LLM",
    "invoke_agent": "AGENT",
    "execute_tool": "TOOL",
    "embeddings": "EMBEDDING",
}
GENAI_DOCUMENTS = "gen_ai.retrieval.documents"
GENAI_QUERY = "gen_ai.retrieval.query.text"
GENAI_OUTPUT = "gen_ai.output.messages"
_GENAI_DOC = re.compile(r"gen_ai\.retrieval\.documents\.(\d+)\.(id|score|content)$")


def genai_kind(attrs: dict[str, Any]) -> str:
    """A span written under the GenAI conventions: its kind from ``gen_ai.operation.name``
    (``retrieval``: a ``gen_ai.retrieval`` span); empty for any other span."""
    return GENAI_KINDS.get(str(attrs.get("gen_ai.operation.name", "")).lower(), "")


def _genai_documents(span: Span, path: Path | Given) -> dict[int, dict[str, Any]]:
    """``gen_ai.retrieval.documents``: a list of ``{"id", "score"}`` objects, structured or
    as a JSON string (the conventions allow both on spans), or flattened to
    ``gen_ai.retrieval.documents.N.id`` by a span layout that flattens lists."""
    docs = _indexed(span, _GENAI_DOC)
    raw = span.attributes.get(GENAI_DOCUMENTS)
    if isinstance(raw, str):
        raw = decode_json_text(raw, path=path, line=span.line, field=GENAI_DOCUMENTS)
    if isinstance(raw, list):
        for i, doc in enumerate(raw):
            if isinstance(doc, dict):
                docs.setdefault(i, {}).update(
                    {k: doc[k] for k in ("id", "score", "content") if doc.get(k) is not None}
                )
    return docs


def _indexed(span: Span, pattern: re.Pattern[str]) -> dict[int, dict[str, Any]]:
    """Flat attributes ``...N.NAME`` matched by ``pattern`` (groups N and NAME) as
    ``{N: {NAME: value}}``; None values left out."""
    out: dict[int, dict[str, Any]] = {}
    for key, value in span.attributes.items():
        if (match := pattern.match(key)) and value is not None:
            out.setdefault(int(match[1]), {})[match[2]] = value
    return out


def _genai_answer(span: Span) -> str | None:
    """The last text part of a GenAI span's ``gen_ai.output.messages`` (JSON, or already
    parsed): ``[{"role": "assistant", "parts": [{"type": "text", "content": ...}]}]``."""
    raw = span.attributes.get(GENAI_OUTPUT)
    if isinstance(raw, str):
        raw = decode_json_text(
            raw, path=span.path, line=span.line, field=GENAI_OUTPUT, lenient=True
        )
    texts = [
        part["content"]
        for message in raw if isinstance(message, dict)
        for part in message.get("parts") or [] if isinstance(part, dict)
        and part.get("type") == "text" and isinstance(part.get("content"), str)
    ] if isinstance(raw, list) else []  # fmt: skip
    return texts[-1] if texts else None


def _list(value: Any, path: Path | Given, line: int, name: str) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise InputError("expected a list of objects", path=path, line=line, field=name)
    return value


def trace_records(
    rows: Rows, path: Path | Given, id_key: str | None = None
) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """One trace record per trace id with a retriever span (in order of first span)."""
    by_trace = spans_by_trace(rows, path)
    out: list[tuple[int, dict[str, Any]]] = []
    skipped = {"no RETRIEVER span": 0, "no answer": 0, "no input.value": 0}
    several = 0
    for trace_id, members in by_trace.items():
        retrievers = [s for s in members if s.kind == "RETRIEVER"]
        if not retrievers:
            skipped["no RETRIEVER span"] += 1
            continue
        several += len(retrievers) > 1
        docs = documents(retrievers[0], path)
        answer = trace_answer(members)
        query = trace_query(members, retrievers[0])
        if answer is None or query is None:
            skipped["no answer" if answer is None else "no input.value"] += 1
            continue
        record: dict[str, Any] = {"query": query, "retrieved": docs, "answer": answer}
        ids = metadata_values(members, (id_key,), path) if id_key else iter(())
        found = (v for _, v in ids if isinstance(v, str | int) and not isinstance(v, bool))
        case_id = next(found, None)
        if case_id is not None:
            record["query_id"] = str(case_id)
        record["trace_id"] = trace_id
        out.append((retrievers[0].line, record))
    notes = [f"{path}: {n} traces skipped ({why})" for why, n in skipped.items() if n]
    if several:
        notes.append(f"{path}: {several} traces have several RETRIEVER spans; the first is read")
    # no note on the hashed ids: detect.adapt_traces counts those the corpus does not name
    return out, notes


def documents(span: Span, path: Path | Given) -> list[dict[str, Any]]:
    """The ranked documents of a retriever span; one without ``document.id`` is named by
    the hash of its text (``text.text_id``)."""
    docs = _indexed(span, _DOC)
    for index, meta in _indexed(span, _DOC_META).items():  # flattened document.metadata
        kept = docs.setdefault(index, {}).setdefault("metadata", {})
        if isinstance(kept, dict):
            kept.update(meta)
    if not docs:  # none under OpenInference's names: the GenAI conventions'
        docs = _genai_documents(span, path)
    _ids_from_output(docs, span)
    out = []
    for _, doc in sorted(docs.items()):
        _from_metadata(doc, span, path)
        text = doc["content"] if isinstance(doc.get("content"), str) else ""
        if doc.get("id") in (None, ""):
            if not text:
                raise InputError(
                    "a retrieved document has neither document.id nor document.content",
                    path=path,
                    line=span.line,
                    field="retrieval.documents",
                )
            doc_id = text_id(text)
        else:
            doc_id = str(doc["id"])
        item: dict[str, Any] = {"id": doc_id, "text": text}
        score = doc.get("score")
        if isinstance(score, int | float) and not isinstance(score, bool):
            item["score"] = checked(finite_float, score, path, span.line, "document.score")
        out.append(item)
    return out


def _ids_from_output(docs: dict[int, dict[str, Any]], span: Span) -> None:
    """Fill missing document ids from the retriever's ``output.value``: LangChain's
    instrumentor writes no ``document.id`` but records the returned ``Document``s there,
    each with its vector-store ``id``. Read only when it lists exactly as many documents,
    in order, whose texts are the span's own."""
    if all(doc.get("id") not in (None, "") for doc in docs.values()):
        return
    returned = _returned_documents(span.attributes.get("output.value"), span)
    if returned is None or len(returned) != len(docs):
        return
    for (_, doc), given in zip(sorted(docs.items()), returned, strict=True):
        same = given.get("page_content", given.get("content")) == doc.get("content")
        if doc.get("id") in (None, "") and same and _usable(given.get("id")):
            doc["id"] = str(given["id"])


def _returned_documents(value: Any, span: Span) -> list[dict[str, Any]] | None:
    """The documents a retriever's output lists: JSON text, or already parsed (a CSV
    cell of JSON text is parsed when the table is read)."""
    parsed = value
    if isinstance(value, str):
        if not value.lstrip().startswith(("{", "[")):
            return None
        parsed = decode_json_text(
            value, path=span.path, line=span.line, field="output.value", lenient=True
        )
        if parsed is NOT_JSON:
            return None
    if isinstance(parsed, dict):
        parsed = parsed.get("documents")
    if not isinstance(parsed, list) or not all(isinstance(d, dict) for d in parsed):
        return None
    return parsed


def _usable(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool) and value != ""


def _from_metadata(doc: dict[str, Any], span: Span, path: Path | Given) -> None:
    """Fill a document's missing id and score from its metadata (a JSON string, as the
    conventions write it, or already a dict): without this a LangChain export's passages
    got text-hash ids that match no corpus id, and every retrieval metric read 0."""
    meta = doc.get("metadata")
    if isinstance(meta, str):
        meta = decode_json_text(meta, path=path, line=span.line, field="document.metadata")
    if not isinstance(meta, dict):
        return
    if doc.get("id") in (None, ""):
        found = next((meta[k] for k in META_ID_KEYS if meta.get(k) not in (None, "")), None)
        if _usable(found):
            doc["id"] = str(found)
    if doc.get("score") is None and isinstance(meta.get("score"), int | float):
        doc["score"] = meta["score"]


def root_spans(members: list[Span]) -> list[Span]:
    ids = {s.span_id for s in members}
    return [s for s in members if s.parent_id is None or s.parent_id not in ids]


def trace_answer(members: list[Span]) -> str | None:
    for span in root_spans(members):
        if span.kind in ("CHAIN", "AGENT"):
            value = text_value(span, "output")
            if value is not None:
                return value
    for span in reversed([s for s in members if s.kind == "LLM"]):
        messages = sorted(
            (int(m[1]), v)
            for k, v in span.attributes.items()
            if (m := _OUT.match(k)) and isinstance(v, str)
        )
        if messages:
            return messages[-1][1]
        value = text_value(span, "output") or _genai_answer(span)
        if value is not None:
            return value
    return None


def trace_query(members: list[Span], retriever: Span) -> str | None:
    for span in [*root_spans(members), retriever]:
        value = text_value(span, "input")
        if value is not None:
            return value
    query = retriever.attributes.get(GENAI_QUERY)  # a gen_ai.retrieval span's query
    return query if isinstance(query, str) and query.strip() else None


def text_value(span: Span, which: str) -> str | None:
    """``input.value``/``output.value`` as text; a JSON object value gives its text field
    by what the chain means: an input its query (``{"query": ...}``, as LangChain records
    a chain's input), an output its answer (:data:`_ANSWER_KEYS`)."""
    value = span.attributes.get(f"{which}.value")
    if not isinstance(value, str) or not value.strip():
        return None
    if span.attributes.get(f"{which}.mime_type") == "application/json" or value.startswith("{"):
        parsed = decode_json_text(
            value, path=span.path, line=span.line, field=f"{which}.value", lenient=True
        )
        if parsed is NOT_JSON:
            return value
        if isinstance(parsed, dict):
            keys = _QUERY_KEYS if which == "input" else _ANSWER_KEYS
            found = [parsed[k] for k in keys if isinstance(parsed.get(k), str)]
            return found[0] if found else None
    return value


def metadata_values(
    members: list[Span], keys: tuple[str, ...], path: Path | Given, lenient: bool = False
) -> Iterator[tuple[str, Any]]:
    """``(key, value)`` for each of ``keys`` in each span's ``metadata``, root spans first:
    the attribute flattened to ``metadata.KEY``, else the key of the ``metadata`` JSON
    text (as the conventions write it; parsed once per span, only when needed;
    ``lenient``: text that is not JSON is no metadata, not an error)."""
    for span in root_spans(members) + members:
        raw, parsed = span.attributes.get("metadata"), None
        for key in keys:
            value = span.attributes.get(f"metadata.{key}")
            if value is None and isinstance(raw, str):
                if parsed is None:
                    parsed = decode_json_text(
                        raw, path=path, line=span.line, field="metadata", lenient=lenient
                    )
                value = parsed.get(key) if isinstance(parsed, dict) else None
            yield key, value


FORMAT = Format(
    name="openinference",
    tool="OpenInference spans: OpenTelemetry SDK, OTLP/JSON, Arize Phoenix",
    recognises=is_openinference,
    traces=lambda rows, path, pairs: trace_records(rows, path, pairs.get("query_id")),
    renamed=False,
    what="span export",
)
