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

__all__ = [
    "Adapted",
    "foreign_records",
    "foreign_shape",
    "golden_rows",
    "match_queries",
    "shape_keys",
    "trace_rows",
]

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
    return _mapped_rows(table.rows, columns)


def golden_rows(path: Path, columns: Columns = None) -> Adapted:
    """A golden-set file's rows as our golden records."""
    mapping = parse_columns(columns)
    table = read_table(path, mapping)
    rows = _mapped(table, mapping)
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
    mapping = parse_columns(columns)
    table = read_table(path, mapping)
    kind = foreign_shape(table.rows, mapping)
    notes: list[str] = []
    if kind is None:
        records = _mapped(table, mapping)
        _check_ours(records, shape_keys(records), path)
        kind = "ragtriage"
    else:
        records, notes = foreign_records(table, mapping, kind)
    records, matched = match_queries(records, queries, path)
    return Adapted(records, f"{kind}-{table.container}", notes + matched)


def foreign_shape(rows: list[tuple[int, dict[str, Any]]], columns: ColumnMap) -> str | None:
    """``"openinference"`` or ``"ragas"`` for rows another tool wrote, None for ours. Span
    exports are told by their own keys (``--columns query_id=KEY`` names a metadata key,
    no column); ragas rows after the renames."""
    if openinference.is_openinference(shape_keys(rows)):
        return "openinference"
    if ragas.is_ragas(shape_keys(_mapped_rows(rows[:_SAMPLE], columns))):
        return "ragas"
    return None


def foreign_records(
    table: Table, columns: ColumnMap, kind: str
) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """Trace records (query text, ranked ``retrieved``, answer) from a ``kind`` table
    (:func:`foreign_shape`), before their queries are matched to golden cases."""
    if kind == "openinference":
        return openinference.trace_records(table.rows, table.path, columns.pairs.get("query_id"))
    return ragas.trace_records(_mapped(table, columns), table.path)


def _mapped_rows(
    rows: list[tuple[int, dict[str, Any]]], columns: ColumnMap
) -> list[tuple[int, dict[str, Any]]]:
    return [(line, columns.apply(row)) for line, row in rows] if columns else rows


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


def match_queries(
    records: list[tuple[int, dict[str, Any]]], queries: QueryIndex | None, path: Path
) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """Give every record without a ``query_id`` the golden case asking its query; a
    second trace of one golden query is dropped (first kept) and counted. Traces read
    from the golden set's own file (a ragas dataset given as both) match their own rows:
    that is not reported."""
    out, by_text, unmatched, repeats = [], 0, 0, 0
    missed: list[str] = []  # line and query of the unmatched ones, for the reader
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
            missed.append(f"line {line} ({case_id}): {str(query)[:80]!r}")
        else:
            by_text += 1
        if case_id in taken:
            repeats += 1
            continue
        taken.add(case_id)
        out.append((line, {**record, "query_id": case_id}))
    notes = []
    own_rows = unmatched == 0 and queries is not None and queries.read_from(path)
    if (by_text or unmatched) and not own_rows:
        notes.append(
            f"{path}: {by_text} traces matched to golden cases by their query text, "
            f"{unmatched} matched none"
            + (f": {'; '.join(missed[:5])}" if missed else "")
            + (f"; +{len(missed) - 5} more" if len(missed) > 5 else "")
        )
    if repeats:
        notes.append(f"{path}: {repeats} repeated traces of one golden query ignored (first kept)")
    return out, notes
