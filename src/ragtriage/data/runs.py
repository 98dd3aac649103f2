"""Retrieval output as JSONL, CSV or Parquet, and format detection for ``--run``.

The shapes are in docs/retrieval.md ("Runs"): ``{"query_id", "retrieved"}`` lines, the
same as a table, one row per retrieved chunk (``doc_id`` and ``score`` or ``rank``), or a
TREC run. Without scores the rank order *is* the score (first = highest). Other tools'
files are read as runs through the one path ``--traces`` takes
(``detect.adapt_traces``): their rows name the query by its text, matched to the golden
set's cases (``golden``).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from itertools import chain, islice
from pathlib import Path
from typing import Any, Literal

from ragtriage.atomic import file_blake3
from ragtriage.data.containers import (
    PARQUET_MAGIC,
    Given,
    Table,
    container,
    is_hf_dataset,
    iter_records,
    read_bytes,
    read_table,
    read_text,
)
from ragtriage.data.formats import columns as column_names
from ragtriage.data.formats import ragas
from ragtriage.data.formats.columns import ColumnMap, Columns, parse_columns
from ragtriage.data.formats.detect import adapt_traces
from ragtriage.data.formats.registry import recognise
from ragtriage.data.ids import shown
from ragtriage.data.models import GoldenSet
from ragtriage.data.rows import DocRow, run_line, validated
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
    head = read_bytes(path, 1024).lstrip(b"\xef\xbb\xbf").lstrip()
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
    """Another tool's file as a run: the retrieved lists of its trace records (queries and
    passages matched to ``golden`` by text, module docstring)."""
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
    """One row per (query, chunk), any order (``rows.DocRow``): grouped by query (first
    appearance), each chunk scored by ``score`` when every row has one, else by ``-rank``
    (:func:`_ranked_by`)."""
    docs = [(line, validated(DocRow, row, path, line)) for line, row in rows]
    by = _ranked_by(docs, path)
    if by == "rank":
        _distinct_ranks(docs, path)
    grouped: dict[str, list[DocRow]] = {}
    for _, doc in docs:
        grouped.setdefault(doc.query_id, []).append(doc)
    chunks = [doc for group in grouped.values() for doc in group]
    run = Run.from_columns(
        [d.query_id for d in chunks],
        [d.doc_id for d in chunks],
        [d.value(by) for d in chunks],
        source=str(path),
    )
    run.scored = by == "score"
    return run


_RANKED_BY: tuple[Literal["score", "rank"], ...] = ("score", "rank")


def _ranked_by(docs: list[tuple[int, DocRow]], path: Path) -> Literal["score", "rank"]:
    """``score`` when every row has one, else ``rank`` when every row has one. A run that
    mixes them is refused at the first row lacking what the first row has: a score and
    ``-rank`` on one scale put a rank-1 chunk (-1) below any positive score."""
    for by in _RANKED_BY:
        if all(getattr(doc, by) is not None for _, doc in docs):
            return by
    first_line, first = docs[0]
    need = "score" if first.score is not None else "rank"
    line = next(line for line, doc in docs if getattr(doc, need) is None)
    raise InputError(
        f"missing, though line {first_line} has one: every row of a run has a score, "
        "or every row a rank",
        path=path,
        line=line,
        field=need,
    )


def _distinct_ranks(docs: list[tuple[int, DocRow]], path: Path) -> None:
    """Each rank once per query: two rank-1 chunks leave their order to chance."""
    seen: dict[Any, int] = {}
    for line, doc in docs:
        said = f"rank {doc.rank} of query {shown(doc.query_id)} already given"
        _first_time(seen, (doc.query_id, doc.rank), (path, line, "rank"), said)


def _first_time(seen: dict[Any, int], key: Any, where: tuple[Any, int, str], said: str) -> None:
    """Note ``key`` at ``where`` (path, line, field); a key seen before is refused,
    ``said`` naming it and the line it was first given on."""
    path, line, field = where
    if key in seen:
        raise InputError(f"{said} on line {seen[key]}", path=path, line=line, field=field)
    seen[key] = line


def run_from_records(path: Path | Given, records: Iterable[tuple[int, dict[str, Any]]]) -> Run:
    """A run from ``{"query_id", "retrieved"}`` records (JSONL lines or table rows,
    ``rows.RunRow``); a query listed twice is refused, naming the first line."""
    queries: list[str] = []
    pairs: list[tuple[str, float]] = []
    seen: dict[Any, int] = {}
    scored = False
    for line, record in records:
        query_id, ranked, has_scores = run_line(record, path, line)
        _first_time(seen, query_id, (path, line, "query_id"), f"query {query_id!r} already listed")
        scored |= has_scores
        queries += [query_id] * len(ranked)
        pairs += ranked
    run = Run.from_columns(queries, [d for d, _ in pairs], [s for _, s in pairs], source=str(path))
    run.scored = scored or not pairs  # rank order alone is no score (issue 26)
    return run
