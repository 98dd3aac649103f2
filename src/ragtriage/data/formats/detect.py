"""Which tool wrote a table, by its content, and its rows in our own shapes.

The container comes from the file's bytes (``data/containers.py``), the shape from the
rows' fields (``registry.FORMATS``, else ours). The result names the format
(``ragas-jsonl``, ``openinference-parquet``, ``ragtriage-csv``...) so the terminal and
``results.json`` can say what was read. Trace records, read as traces (``audit
--traces``) or as a run (``retrieval --run``), come from one function,
:func:`adapt_traces`, so the two commands cannot disagree about a file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragtriage.data import grades
from ragtriage.data.containers import Given, Table, read_table
from ragtriage.data.formats.base import Format, Reader, Records
from ragtriage.data.formats.columns import ColumnMap, Columns, parse_columns
from ragtriage.data.formats.registry import recognise, shape_keys
from ragtriage.data.formats.text import QueryIndex, query_key, text_id
from ragtriage.data.models import GoldenSet
from ragtriage.data.sniff import wrong_file
from ragtriage.errors import InputError

__all__ = [
    "Adapted",
    "adapt_traces",
    "golden_rows",
    "grade_rows",
    "match_queries",
    "shape_keys",
    "trace_rows",
    "verdict_rows",
]


@dataclass
class Adapted:
    """Rows in our shape, with the format they were read from and what to tell the user."""

    records: Records
    format: str
    notes: list[str] = field(default_factory=list)
    foreign: bool = False  # another tool's rows (ours are validated as they stand)
    # what was assumed to read them (kind -> sentence): ``ids_by_text``
    assumptions: dict[str, str] = field(default_factory=dict)


def _mapped(rows: Records, columns: ColumnMap) -> Records:
    return [(line, columns.apply(row)) for line, row in rows] if columns else rows


_WHAT = {"golden": "golden set", "traces": "trace file", "grades": "grades file"}
_GIVE = {"golden": "as --golden", "traces": "as --traces", "grades": "to calibrate"}


def _read(fmt: Format, kind: str, table: Table, columns: ColumnMap) -> tuple[Records, list[str]]:
    reader: Reader | None = getattr(fmt, kind)  # kind: golden, traces or grades
    if reader is None:
        raise _elsewhere(fmt, kind, table)
    rows = _mapped(table.rows, columns) if fmt.renamed else table.rows
    return reader(rows, table.path, columns.pairs)


def _elsewhere(fmt: Format, kind: str, table: Table, lacks: str | None = None) -> InputError:
    """The error for a file of ``fmt`` given as a ``kind`` it does not yield; ``lacks``:
    the field of ours it has no column for, named as our own reader would name it."""
    give = " or ".join(use for other, use in _GIVE.items() if getattr(fmt, other))
    if not fmt.yields and fmt.verdicts is not None:  # another evaluator's verdicts only
        return InputError(
            f"this is a {fmt.what or fmt.name + ' file'} (another evaluator's verdicts), not a "
            f"{_WHAT[kind]}: give it to calibrate --verdicts",
            path=str(table.path),  # a file's path, or where rows given in Python came from
            line=table.rows[0][0] if table.rows else None,
        )
    missing = f"; no {lacks!r} column (--columns {lacks}=NAME maps another)" if lacks else ""
    return InputError(
        f"this is a {fmt.what or fmt.name + ' file'} ({', '.join(fmt.yields)}), not a "
        f"{_WHAT[kind]}{missing}: give it {give}",
        path=table.path,
        line=table.rows[0][0] if table.rows else None,
        field=lacks,
    )


def golden_rows(path: Path | Given, columns: Columns = None) -> Adapted:
    mapping = parse_columns(columns)
    table = read_table(path, mapping.pairs)
    records, name, notes, foreign = _records("golden", table, mapping)
    return Adapted(records, f"{name}-{table.container}", notes, foreign)


def _traces_lack(keys: set[str]) -> str | None:
    """A trace of ours needs ``retrieved`` and its case: a ``query_id``, or a ``query`` to
    match by text (a conversation's turn has neither: it is named, not read)."""
    if not keys & {"query_id", "query"}:
        return "query_id"
    return None if "retrieved" in keys else "retrieved" if "query_id" in keys else "query_id"


# what a table of ours must have to be read as ``kind``: the field it lacks, or None
_OURS_LACKS: dict[str, Callable[[set[str]], str | None]] = {
    "golden": lambda keys: None if keys & {"query", "question"} else "query",
    "traces": _traces_lack,
}
_NO_SHAPE = {
    "golden": "matches no known golden-set shape (ours: query + expected; ragas: user_input "
    "+ reference_context_ids or reference_contexts; DeepEval: input + context); "
    "missing required field (--columns query=NAME maps another column)",
    "traces": "matches no known trace shape (ours: query_id + retrieved + answer; ragas: "
    "user_input + retrieved_contexts + response; DeepEval: input + retrieval_context + "
    "actual_output; OpenInference spans); missing required field (--columns "
    "retrieved=NAME maps another column)",
}


def _records(kind: str, table: Table, columns: ColumnMap) -> tuple[Records, str, list[str], bool]:
    """``table``'s rows as ``kind`` records (golden or traces): read by the format that
    recognises them, else as ours, which must have the field that makes them ``kind``
    (else the file is named when it is another kind of ours, or refused naming the
    field); with the format's name, its notes and whether it is another tool's."""
    fmt = recognise(table.rows, columns)
    if fmt is not None:
        records, notes = _read(fmt, kind, table, columns)
        return records, fmt.name, notes, True
    rows = _mapped(table.rows, columns)
    lacks = _OURS_LACKS[kind](shape_keys(rows)) if rows else None
    if lacks is not None:
        if (wrong := wrong_file(table.path, kind)) is not None:
            raise wrong
        raise InputError(_NO_SHAPE[kind], path=table.path, line=rows[0][0], field=lacks)
    return rows, "ragtriage", [], False


def trace_rows(
    path: Path | Given, columns: Columns = None, golden: GoldenSet | None = None
) -> Adapted:
    """A trace file's rows as our trace records (:func:`adapt_traces`)."""
    mapping = parse_columns(columns)
    return adapt_traces(read_table(path, mapping.pairs), mapping, golden)


def grade_rows(path: Path | Given, columns: Columns = None) -> Adapted:
    """A grades file's rows as grade records (``base``: CSV cells read as text). A table no
    format recognises is read as ours, whose reader names the field it lacks; another
    tool's golden set or traces is refused, saying what it is."""
    mapping = parse_columns(columns)
    table = read_table(path, mapping.pairs, text=True)
    fmt = recognise(table.rows, mapping) or grades.FORMAT
    lacking = fmt is grades.FORMAT and grades.lacks(shape_keys(_mapped(table.rows, mapping)))
    if lacking and (wrong := wrong_file(path, "grades")) is not None:
        raise wrong  # a golden set or traces, named, not "field 'label' missing"
    if fmt.grades is None:
        lacks = grades.lacks(shape_keys(_mapped(table.rows, mapping)))
        raise _elsewhere(fmt, "grades", table, lacks)
    records, notes = _read(fmt, "grades", table, mapping)
    return Adapted(records, f"{fmt.name}-{table.container}", notes, fmt is not grades.FORMAT)


def verdict_rows(path: Path) -> tuple[Records, str, list[str]]:
    """``(records, format name, notes)``: the verdict records of ``path``."""
    table = read_table(path)
    if not table.rows:
        raise InputError("no rows: an empty verdicts file", path=path)
    fmt = recognise(table.rows, ColumnMap())
    if fmt is None or fmt.verdicts is None:
        raise _not_verdicts(fmt, table, path)
    records, notes = fmt.verdicts(table.rows, path, {})
    if not records:
        raise InputError(f"no verdicts in this {fmt.name} file", path=path)
    return records, f"{fmt.name}-{table.container}", notes


def _not_verdicts(fmt: Format | None, table: Table, path: Path) -> InputError:
    """The error for a file without verdicts: what it is, by its format, else by
    :func:`wrong_file` when it is a kind of ours (a golden set, traces), else the reader's
    own sentence; with what ``--verdicts`` takes."""
    if fmt is None and (wrong := wrong_file(path, "verdicts")) is not None:
        return wrong
    what = f"a {fmt.what or fmt.name + ' file'}" if fmt else "no evaluator's verdicts"
    return InputError(
        f"{what}, not verdicts: give a ragas evaluate() result (to_pandas, saved as "
        "Parquet/CSV/JSONL), a DeepEval test run JSON, a Phoenix evaluations export or "
        "an MLflow genai.evaluate result table",
        path=path,
        line=table.rows[0][0],
    )


def adapt_traces(table: Table, columns: ColumnMap, golden: GoldenSet | None) -> Adapted:
    """Trace records of ``table``, each with a ``query_id``: its own, or the golden case
    whose query it asked, or an ``unmatched:`` id; retrieved passages without a corpus id
    get the id of the corpus chunk with the same text (counted in one note)."""
    records, name, notes, foreign = _records("traces", table, columns)
    index = None
    if golden is not None:
        index = QueryIndex(((c.id, c.query) for c in golden.cases), source=golden.source)
    records, matched = match_queries(records, index, table.path)
    records, found = corpus_ids(records, golden)
    assumed = {}
    if found:
        assumed["ids_by_text"] = (
            f"{found} retrieved passages without a corpus id were given the id of the corpus "
            "chunk with the same text"
        )
    notes = notes + matched + _still_hashed(records, golden, table.path)
    return Adapted(records, f"{name}-{table.container}", notes, foreign, assumed)


def _still_hashed(records: Records, golden: GoldenSet | None, path: Path | Given) -> list[str]:
    """The note on retrieved passages whose id is still the hash of their text, counted
    after :func:`corpus_ids`: a reader that hashed them cannot know which the corpus
    will name."""
    hashed = sum(_hashed(item) for _, r in records for item in _items(r.get("retrieved")))
    if not hashed:
        return []
    unmatched = " and match no corpus text" if golden is not None and golden.corpus else ""
    return [
        f"{path}: {hashed} retrieved passages came without an id{unmatched}; their ids are "
        "hashes of the normalised text"
    ]


def _items(retrieved: Any) -> list[Any]:
    return retrieved if isinstance(retrieved, list) else []  # the trace's check names it


def _hashed(item: Any) -> bool:
    """An item whose id a reader made from its text (``text.text_id``), not one given."""
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        return False
    return item.get("id") == text_id(item["text"])


def corpus_ids(records: Records, golden: GoldenSet | None) -> tuple[Records, int]:
    """Records whose retrieved passages came without corpus ids (a ragas or DeepEval file
    of texts, spans without document ids: their ids are text hashes) get the id of the
    golden set's corpus chunk with the same normalised text (or title and text), so
    stage 1 can match them: without it every retrieval metric read 0. Returns the records
    and how many ids changed."""
    if golden is None or not golden.corpus:
        return records, 0
    by_text: dict[str, str] = {}
    for chunk in golden.corpus.values():
        for text in (chunk.text, chunk.passage):
            by_text.setdefault(text_id(text), chunk.id)
    out, changed = [], 0
    for line, record in records:
        renamed = _renames(record.get("retrieved"), golden.corpus, by_text)
        changed += len(renamed)
        out.append((line, _renamed(record, renamed) if renamed else record))
    return out, changed


def _renames(items: Any, corpus: dict[str, Any], by_text: dict[str, str]) -> dict[str, str]:
    if not isinstance(items, list):
        return {}  # the trace's own check names the field
    renamed = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            continue
        old = str(item.get("id"))
        if old not in corpus and item["text"] and (key := text_id(item["text"])) in by_text:
            renamed[old] = by_text[key]
    return renamed


def _renamed(record: dict[str, Any], renamed: dict[str, str]) -> dict[str, Any]:
    retrieved = [
        {**item, "id": renamed.get(str(item.get("id")), item.get("id"))}
        if isinstance(item, dict) else item
        for item in record["retrieved"]
    ]  # fmt: skip
    out = {**record, "retrieved": retrieved}
    if isinstance(record.get("context_ids"), list):
        out["context_ids"] = [renamed.get(str(i), i) for i in record["context_ids"]]
    return out


def match_queries(
    records: Records, queries: QueryIndex | None, path: Path | Given
) -> tuple[Records, list[str]]:
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
