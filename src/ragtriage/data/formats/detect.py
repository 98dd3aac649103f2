"""Which tool wrote a table, by its content, and its rows in our own shapes.

The container comes from the file's bytes (``rows.py``), the shape from the rows' fields:
OpenInference spans, ragas samples, or our golden-case and trace lines. The result names
the format (``ragas-jsonl``, ``openinference-parquet``, ``ragtriage-csv``...) so the
terminal and ``results.json`` can say what was read. A table that fits no shape is an
error naming the file, the first row and the field it lacks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragtriage.data.formats import openinference, ragas
from ragtriage.data.formats.columns import ColumnMap, Columns, parse_columns
from ragtriage.data.formats.rows import Table, read_table
from ragtriage.data.formats.text import QueryIndex, query_key
from ragtriage.errors import InputError

__all__ = ["Adapted", "golden_rows", "shape_keys", "trace_rows"]

_SAMPLE = 20  # rows whose fields decide the shape


@dataclass
class Adapted:
    """Rows in our shape, with the format they were read from and what to tell the user."""

    records: list[tuple[int, dict[str, Any]]]
    format: str
    notes: list[str] = field(default_factory=list)


def shape_keys(rows: list[tuple[int, dict[str, Any]]]) -> set[str]:
    return {key for _, row in rows[:_SAMPLE] for key in row}


def _mapped(table: Table, columns: ColumnMap) -> list[tuple[int, dict[str, Any]]]:
    return [(line, columns.apply(row)) for line, row in table.rows] if columns else table.rows


def golden_rows(path: Path, columns: Columns = None) -> Adapted:
    """A golden-set file's rows as our golden records."""
    table = read_table(path)
    rows = _mapped(table, parse_columns(columns))
    keys = shape_keys(rows)
    if openinference.is_openinference(keys):
        raise InputError(
            "this is a span export (traces), not a golden set: give it as --traces",
            path=path,
            line=rows[0][0],
        )
    if ragas.is_ragas(keys):
        records, notes = ragas.golden_records(rows, path)
        return Adapted(records, f"ragas-{table.container}", notes)
    if rows and not keys & {"query", "question"}:
        raise InputError(
            "matches no known golden-set shape (ours: query + expected; ragas: user_input "
            "+ reference_context_ids or reference_contexts); missing required field "
            "(--columns query=NAME maps another column)",
            path=path,
            line=rows[0][0],
            field="query",
        )
    return Adapted(rows, f"ragtriage-{table.container}")


def trace_rows(
    path: Path,
    columns: Columns = None,
    queries: QueryIndex | None = None,
) -> Adapted:
    """A trace file's rows as our trace records, each with a ``query_id``: its own, or
    the golden case whose query it asked (``queries``), or an ``unmatched:`` id."""
    table = read_table(path)
    mapping = parse_columns(columns)
    if openinference.is_openinference(shape_keys(table.rows)):
        id_key = mapping.pairs.get("query_id")
        records, notes = openinference.trace_records(table.rows, path, id_key)
        kind = "openinference"
    else:
        rows = _mapped(table, mapping)
        keys = shape_keys(rows)
        if ragas.is_ragas(keys):
            records, notes = ragas.trace_records(rows, path)
            kind = "ragas"
        else:
            _check_ours(rows, keys, path)
            records, notes, kind = rows, [], "ragtriage"
    records, matched = _match(records, queries, path)
    return Adapted(records, f"{kind}-{table.container}", notes + matched)


def _check_ours(rows: list[tuple[int, dict[str, Any]]], keys: set[str], path: Path) -> None:
    if not rows or "retrieved" in keys:
        return
    missing = "query_id" if "query_id" not in keys else "retrieved"
    raise InputError(
        "matches no known trace shape (ours: query_id + retrieved + answer; ragas: "
        "user_input + retrieved_contexts + response; OpenInference spans); missing required "
        "field (--columns retrieved=NAME maps another column)",
        path=path,
        line=rows[0][0],
        field=missing,
    )


def _match(
    records: list[tuple[int, dict[str, Any]]], queries: QueryIndex | None, path: Path
) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """Give every record without a ``query_id`` the golden case asking its query; a
    second trace of one golden query is dropped (first kept) and counted."""
    out, by_text, unmatched, repeats = [], 0, 0, 0
    taken: set[str] = set()
    for line, record in records:
        if "query_id" in record or "query" not in record:
            out.append((line, record))
            continue
        query = record["query"]
        case_id = queries.find(query) if queries and isinstance(query, str) else None
        if case_id is None:
            unmatched += 1
            trace_id = record.get("trace_id")
            case_id = f"trace:{trace_id}" if trace_id else query_key(str(query))
        else:
            by_text += 1
        if case_id in taken:
            repeats += 1
            continue
        taken.add(case_id)
        out.append((line, {**record, "query_id": case_id}))
    notes = []
    if by_text or unmatched:
        notes.append(
            f"{path}: {by_text} traces matched to golden cases by their query text, "
            f"{unmatched} matched none"
        )
    if repeats:
        notes.append(f"{path}: {repeats} repeated traces of one golden query ignored (first kept)")
    return out, notes
