"""Retrieval output as JSONL, CSV or Parquet, and format detection for ``--run``.

One line per query: ``{"query_id", "retrieved": [{"id", "score"?, "text"?}, ...]}`` in
rank order, or ``"retrieved": ["id", ...]``. Without scores the rank order *is* the score
(first = highest); with scores, ties and order follow trec_eval: score descending, then
doc id descending. A CSV or Parquet table holds either those columns (``retrieved`` as
JSON text in CSV, a native list in Parquet) or one row per retrieved chunk: ``query_id``,
``doc_id`` and ``score`` or ``rank``. Anything else is a TREC run.

Other tools' files are read as runs too, recognised by content as ``--traces`` are
(``data/formats/``): a ragas dataset (``retrieved_context_ids``, else ids hashed from
``retrieved_contexts`` exactly as the ragas golden adapter hashes ``reference_contexts``,
so the two meet) and an OpenInference span export (each trace's ``RETRIEVER`` span:
document ids and scores). Their rows name the query by its text, matched to the golden
set's cases (``golden``); ``columns`` maps other column names onto ours.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from itertools import chain, islice
from pathlib import Path
from typing import Any

from ragtriage.atomic import file_blake3
from ragtriage.data.containers import (
    PARQUET_MAGIC,
    Given,
    Table,
    check_type,
    container,
    finite_float,
    is_hf_dataset,
    iter_records,
    read_table,
    read_text,
    require,
)
from ragtriage.data.formats import columns as column_names
from ragtriage.data.formats import ragas
from ragtriage.data.formats.columns import ColumnMap, Columns, parse_columns
from ragtriage.data.formats.detect import adapt_traces
from ragtriage.data.formats.registry import recognise
from ragtriage.data.ids import check_id
from ragtriage.data.models import GoldenSet
from ragtriage.data.sniff import wrong_file
from ragtriage.data.tables import Run
from ragtriage.data.trec import read_trec_run
from ragtriage.errors import InputError

__all__ = ["load_run", "read_table_run", "run_from_records"]

_CSV_HEADS = (b"query_id,", b'"query_id",', b"qid,")
_SAMPLE = 20  # records whose fields decide the shape


def load_run(path: str | Path, columns: Columns = None, golden: GoldenSet | None = None) -> Run:
    """A run file in any format (module docstring): JSON/JSONL if it starts with ``{`` or
    ``[``, Parquet by its magic bytes, CSV by a header naming a field we read, else TREC."""
    path = Path(path)
    mapping = parse_columns(columns)
    if is_hf_dataset(path):
        return read_table_run(path, mapping, golden)
    try:
        with path.open("rb") as handle:
            head = handle.read(1024).lstrip(b"\xef\xbb\xbf").lstrip()
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=path) from None
    if head[:1] in (b"{", b"[") and (wrong := wrong_file(path, "traces")) is not None:
        raise wrong  # a golden set, grades, results.json...: named, with its command
    if head[:1] in (b"{", b"["):
        table = _json_run(path, mapping, golden)
    elif head.startswith(PARQUET_MAGIC) or _csv_header(head, mapping):
        table = read_table_run(path, mapping, golden)
    elif not head:
        read_text(path)
        raise InputError("run file is empty", path=path)
    else:
        return read_trec_run(path)
    table.digest = file_blake3(path)
    return table


def _csv_header(head: bytes, mapping: ColumnMap) -> bool:
    """A CSV table's first line: ours (``query_id,``), or a header naming any field we
    read, a ragas field or a column ``--columns`` maps (a TREC line has no comma)."""
    if head.startswith(_CSV_HEADS):
        return True
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    if "," not in first:
        return False
    cells = {cell.strip() for cell in next(csv.reader([first]), [])}
    known = column_names.FIELDS | set(ragas.OLD_NAMES) | set(mapping.pairs.values())
    return bool(cells & known) or recognise([(1, dict.fromkeys(cells, ""))], mapping) is not None


def _json_run(path: Path, mapping: ColumnMap, golden: GoldenSet | None) -> Run:
    """JSON/JSONL: ours streams through :func:`run_from_records`; another tool's rows are
    gathered and adapted (:func:`_foreign_run`)."""
    records = iter_records(path)
    head = list(islice(records, _SAMPLE))
    if recognise(head, mapping) is not None:
        table = Table(path, container(path), [*head, *records])
        return _foreign_run(table, mapping, golden)
    rows = chain(head, records)
    return run_from_records(path, ((n, mapping.apply(r)) for n, r in rows) if mapping else rows)


def read_table_run(path: Path, columns: Columns = None, golden: GoldenSet | None = None) -> Run:
    """A CSV or Parquet run: ``retrieved`` lists, one row per chunk (``doc_id``), or
    another tool's rows (ragas)."""
    mapping = parse_columns(columns)
    table = read_table(path, mapping.pairs)
    if not table.rows:
        raise InputError("run file is empty", path=path)
    if recognise(table.rows, mapping) is not None:
        return _foreign_run(table, mapping, golden)
    rows = [(line, mapping.apply(row)) for line, row in table.rows]
    if any("doc_id" in row for _, row in rows[:_SAMPLE]):
        return _long_run(path, rows)
    return run_from_records(path, rows)


def _foreign_run(table: Table, mapping: ColumnMap, golden: GoldenSet | None) -> Run:
    """Another tool's file as a run: the retrieved lists of its trace records, read by
    the one path ``audit --traces`` reads them by (``detect.adapt_traces``: queries and
    passages matched to ``golden`` by text), so the two commands agree on every file."""
    path = table.path
    adapted = adapt_traces(table, mapping, golden)
    if golden is None:
        nameless = next((ln for ln, r in adapted.records if not _named(r)), None)
        if nameless is not None:
            raise InputError(
                f"a {adapted.format} run names its queries by their text, which only a "
                "golden set has: give --golden instead of --qrels",
                path=path,
                line=nameless,
                field="query_id",
            )
    run = run_from_records(path, adapted.records)
    run.format = adapted.format
    # a trace lists what the system retrieved in the order it reached the generator:
    # audit --traces scores that order (ties kept), so retrieval --run does too
    run.order = "given"
    run.warnings.extend(adapted.notes)
    run.warnings.extend(f"{path}: {text}" for text in adapted.assumptions.values())
    return run


def _named(record: dict[str, Any]) -> bool:
    query_id = str(record.get("query_id", ""))
    return bool(query_id) and not query_id.startswith(("unmatched:", "trace:"))


def _long_run(path: Path, rows: list[tuple[int, dict[str, Any]]]) -> Run:
    """One row per (query, chunk), any order: grouped by query (first appearance), each
    chunk scored by ``score``, else by ``-rank``."""
    grouped: dict[str, list[tuple[str, float]]] = {}
    for line, row in rows:
        query_id = str(require(row, "query_id", (str, int), path, line))
        check_id(query_id, path=path, line=line, field="query_id")
        doc = str(require(row, "doc_id", (str, int), path, line))
        check_id(doc, path=path, line=line, field="doc_id")
        if row.get("score") is not None:
            score = finite_float(row["score"], "score", path, line)
        elif row.get("rank") is not None:
            score = -finite_float(row["rank"], "rank", path, line)
        else:
            raise InputError(
                "missing required field (or 'rank')", path=path, line=line, field="score"
            )
        grouped.setdefault(query_id, []).append((doc, score))
    queries = [q for q, pairs in grouped.items() for _ in pairs]
    docs = [d for pairs in grouped.values() for d, _ in pairs]
    scores = [s for pairs in grouped.values() for _, s in pairs]
    run = Run.from_columns(queries, docs, scores, source=str(path))
    run.scored = any(row.get("score") is not None for _, row in rows)
    return run


def run_from_records(path: Path | Given, records: Iterable[tuple[int, dict[str, Any]]]) -> Run:
    """A run from ``{"query_id", "retrieved"}`` records (JSONL lines or table rows)."""
    queries: list[str] = []
    docs: list[str] = []
    scores: list[float] = []
    seen: dict[str, int] = {}
    scored = False
    for line, record in records:
        query_id = str(require(record, "query_id", (str, int), path, line))
        check_id(query_id, path=path, line=line, field="query_id")
        if query_id in seen:
            raise InputError(
                f"query {query_id!r} already listed on line {seen[query_id]}",
                path=path,
                line=line,
                field="query_id",
            )
        seen[query_id] = line
        items = require(record, "retrieved", list, path, line)
        pairs, has_scores = _ranked(items, path, line)
        scored |= has_scores
        for doc, score in pairs:
            queries.append(query_id)
            docs.append(doc)
            scores.append(score)
    run = Run.from_columns(queries, docs, scores, source=str(path))
    run.scored = scored or not docs  # rank order alone is no score (issue 26)
    return run


def _ranked(
    items: list[Any], path: Path | Given, line: int
) -> tuple[list[tuple[str, float]], bool]:
    """``(doc id, score)`` pairs and whether scores were given; a missing score becomes
    ``-rank`` so rank order is kept (and the run says it has no scores)."""
    pairs = []
    has_scores = None
    for rank, item in enumerate(items):
        field = f"retrieved[{rank}]"
        if isinstance(item, str | int) and not isinstance(item, bool):
            doc, score = str(item), None
            check_id(doc, path=path, line=line, field=field)
        else:
            check_type(item, field, dict, path, line)
            doc = str(require(item, "id", (str, int), path, line))
            check_id(doc, path=path, line=line, field=f"{field}.id")
            score = item.get("score")
            if score is not None:
                score = finite_float(score, f"{field}.score", path, line)
        if has_scores is None:
            has_scores = score is not None
        elif has_scores != (score is not None):
            raise InputError(
                "either every retrieved item has a score or none has",
                path=path,
                line=line,
                field=f"{field}.score",
            )
        pairs.append((doc, score if score is not None else float(-rank)))
    return pairs, bool(has_scores)
