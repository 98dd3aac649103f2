"""The container of a table, recognised by its bytes: Parquet, JSON/JSONL or CSV.

A suffix says what a file was meant to be; the first bytes say what it is (a ``.txt``
export of JSONL, a Parquet file saved without a suffix). Every row comes out as
``(row number, dict)``: the line for JSON Lines and CSV (a CSV record's first line), the
1-based row for Parquet, so errors point at the same place a person would look.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import math
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragtriage.data.formats.columns import ColumnMap
from ragtriage.data.readers import (
    iter_records,
    parse_json,
    read_bytes,
    read_json_document,
    read_text,
    refuse_nul,
)
from ragtriage.errors import InputError

__all__ = ["CSV_NUMBERS", "PARQUET_MAGIC", "Table", "container", "parse_cell", "read_table"]

PARQUET_MAGIC = b"PAR1"
# CSV cells are text; these fields are numbers wherever they appear in our shapes
CSV_NUMBERS = frozenset({"context_k", "score", "rank"})
_LITERAL_LIMIT = 1_000_000  # a Python-literal cell longer than this is refused, not parsed


@dataclass
class Table:
    """Rows of one file and the container they were read from."""

    path: Path
    container: str  # "jsonl", "json", "csv" or "parquet"
    rows: list[tuple[int, dict[str, Any]]]


def container(path: Path) -> str:
    """``parquet``, ``json``, ``jsonl``, ``csv`` or ``arrow`` (an HF ``datasets``
    ``save_to_disk`` folder), from the file's first bytes."""
    if is_hf_dataset(path):
        return "arrow"
    head = read_bytes(path, 4096)
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if text[:1] == b"[":
        return "json"
    if text[:1] == b"{":
        return "jsonl" if _whole_line(text) else "json"
    return "csv"


def _whole_line(head: bytes) -> bool:
    """Whether the first line is a whole JSON value (JSON Lines), not the first line of
    a pretty-printed document (read as a stream of objects, ``readers.iter_records``)."""
    first = head.split(b"\n", 1)[0]
    try:
        json.loads(first)
    except RecursionError:
        return True  # one line nested too deeply: JSON Lines, refused where it is read
    except ValueError:
        return len(first) >= 4000  # a long first line cut by the 4 KiB head: JSON Lines
    return True


def is_hf_dataset(path: Path) -> bool:
    """A folder written by HF ``datasets``' ``Dataset.save_to_disk``."""
    return (
        path.is_dir() and (path / "state.json").is_file() and (path / "dataset_info.json").is_file()
    )


def read_table(path: Path, columns: ColumnMap | None = None, *, text: bool = False) -> Table:
    """Every row of ``path`` with its row number (module docstring). ``columns``: the
    ``--columns`` mapping, so that a CSV column read as one of our number fields
    (``rank=position``) is converted like the field itself; the rows keep their names.
    ``text``: CSV cells as the text they are, empty ones too (what a grades reader takes,
    ``base``), instead of parsed and converted."""
    kind = container(path)
    if kind == "arrow":
        rows = _hf_rows(path)
    elif kind == "parquet":
        rows = _parquet_rows(path)
    elif kind == "csv" and text:
        rows = [(line, {k.strip(): v for k, v in raw.items()}) for line, raw in _csv_records(path)]
    elif kind == "csv":
        numbers = CSV_NUMBERS
        if columns:
            numbers |= {theirs for ours, theirs in columns.pairs.items() if ours in CSV_NUMBERS}
        rows = _csv_rows(path, numbers)
    else:
        rows = list(iter_records(path))
    return Table(path, kind, rows)


def _parquet_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Parquet rows as plain values (native lists stay lists); nulls and NaN are absent."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds on a bad file
        raise InputError(f"cannot read Parquet: {exc}", path=path) from None
    return [
        (number, {k: v for k, v in row.items() if not _missing(v)})
        for number, row in enumerate(table.to_pylist(), start=1)
    ]


def _hf_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The rows of a ``save_to_disk`` folder: its Arrow stream files in the order
    ``state.json`` lists them, numbered from 1 across them."""
    import pyarrow as pa

    state = read_json_document(path / "state.json")
    files = state.get("_data_files") if isinstance(state, dict) else None
    if not isinstance(files, list) or not files:
        raise InputError("lists no data files", path=path / "state.json", field="_data_files")
    rows: list[tuple[int, dict[str, Any]]] = []
    for entry in files:
        name = entry.get("filename") if isinstance(entry, dict) else None
        if not isinstance(name, str) or "/" in name or name.startswith("."):
            raise InputError("bad data file entry", path=path / "state.json", field="_data_files")
        try:
            with pa.memory_map(str(path / name)) as source:
                table = pa.ipc.open_stream(source).read_all()
        except (OSError, pa.ArrowInvalid) as exc:
            raise InputError(f"cannot read Arrow data: {exc}", path=path / name) from None
        for row in table.to_pylist():
            rows.append((len(rows) + 1, {k: v for k, v in row.items() if not _missing(v)}))
    return rows


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _csv_rows(path: Path, numbers: frozenset[str]) -> list[tuple[int, dict[str, Any]]]:
    """CSV records keyed by the header; empty cells are absent, list and object cells
    are parsed (:func:`parse_cell`), and number fields (:data:`CSV_NUMBERS`) converted."""
    return [
        (start, {
            key.strip(): _cell(key.strip(), value, path, start, numbers)
            for key, value in raw.items()
            if key.strip() and value not in (None, "")
        })
        for start, raw in _csv_records(path)
    ]  # fmt: skip


def _csv_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(first line, cells)`` per CSV record, keyed by the header; a malformed record is
    an error at its line.

    ``strict`` makes an unterminated quote an error instead of one field swallowing the
    rest of the file; the field size limit is raised to the file's size, since a long
    answer or context is valid input (Python's default limit is 128 KiB). A record with
    more cells than the header is refused: csv would key the extra ones by None."""
    text = refuse_nul(read_text(path), path)
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    start = 2  # the header is line 1
    while True:
        try:
            raw = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(f"malformed CSV: {exc}", path=path, line=start) from None
        if None in raw:
            raise InputError("more cells than header columns", path=path, line=start)
        yield start, {key: value for key, value in raw.items() if key}
        start = reader.line_num + 1


def _cell(key: str, value: str, path: Path, line: int, numbers: frozenset[str]) -> Any:
    if key in numbers:
        return _number(value, key, path, line)
    return parse_cell(value, key, path, line)


def _number(value: str, key: str, path: Path, line: int) -> int | float:
    try:
        number = float(value)
    except ValueError:
        raise InputError(
            f"expected a number, got {value[:40]!r}", path=path, line=line, field=key
        ) from None
    if not math.isfinite(number):
        raise InputError("must be a finite number", path=path, line=line, field=key)
    return int(number) if number.is_integer() and "." not in value else number


def parse_cell(value: str, key: str, path: Path, line: int) -> Any:
    """A CSV cell: JSON text when it starts with ``[`` or ``{`` (how we document list
    columns), else a Python literal (how ``csv.DictWriter`` writes a list, e.g. ragas'
    ``EvaluationDataset.to_csv``: ``['a', 'b']``), else the text itself.

    Only ``ast.literal_eval`` ever sees the text: it builds values and runs nothing. A
    cell that is neither stays text (an answer may well start with ``[1]``); a field that
    needs a list then fails its type check, naming the row and the field.
    """
    stripped = value.strip()
    if not stripped.startswith(("[", "{")):
        return value
    try:
        return parse_json(stripped, path, line)
    except InputError:
        pass
    if len(stripped) > _LITERAL_LIMIT:
        return value
    tokens = _tokens(stripped)
    if tokens is None:
        return value
    spaced = _spaced_items(tokens)
    if spaced is not None:
        return spaced
    if _adjacent_strings(tokens):
        return value  # Python would join them into one string: never merge two items
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, RecursionError, MemoryError, TypeError):
        return value


_SKIP = {tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}


def _tokens(text: str) -> list[tokenize.TokenInfo] | None:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    return [t for t in tokens if t.type not in _SKIP]


def _spaced_items(tokens: list[tokenize.TokenInfo]) -> list[Any] | None:
    """numpy's repr of an array, as HF ``datasets``' ``to_csv`` writes a list cell:
    ``['hb-01' 'hb-08']`` or ``[0.9 0.7]``, items separated by white space, no commas.
    Read item by item; ``ast.literal_eval`` would join the strings into one id."""
    if len(tokens) < 4 or tokens[0].string != "[" or tokens[-1].string != "]":
        return None
    items = tokens[1:-1]
    kinds = {t.type for t in items}
    if kinds not in ({tokenize.STRING}, {tokenize.NUMBER}):
        return None
    return [ast.literal_eval(t.string) for t in items]


def _adjacent_strings(tokens: list[tokenize.TokenInfo]) -> bool:
    return any(
        a.type == tokenize.STRING and b.type == tokenize.STRING
        for a, b in zip(tokens, tokens[1:], strict=False)
    )
