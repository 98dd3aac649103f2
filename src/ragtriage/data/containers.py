"""Open the containers users hand us into rows, and check their fields, so that every
failure names file, line and field.

A container is JSON (one document, a list, or objects one after another), JSON Lines,
CSV, Parquet or an HF ``datasets`` ``save_to_disk`` folder, told by its first bytes, not
its suffix (:func:`container`). :func:`read_table` numbers every row as a person would
look for it: the line for JSON Lines and CSV (a CSV record's first line; for a JSON list
the line where the element starts), the 1-based row for Parquet. The field checks
(:func:`require`, :func:`check_type`, :func:`unique_items`) are what every reader of our
shapes and of other tools' files validates rows with.

BOMs, CRLF line ends, blank lines and a JSON list where JSONL was expected are all
accepted; anything we cannot read is an :class:`~ragtriage.errors.InputError` (exit 2),
never a traceback.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
import math
import re
import stat
import sys
import tokenize
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ragtriage.atomic import file_sha256
from ragtriage.errors import InputError

__all__ = [
    "CSV_NUMBERS",
    "PARQUET_MAGIC",
    "Given",
    "Source",
    "Table",
    "as_source",
    "source_sha256",
    "check_type",
    "container",
    "iter_records",
    "may_hold_surrogates",
    "parse_cell",
    "parse_json",
    "read_bytes",
    "read_json_document",
    "read_table",
    "read_text",
    "refuse_nul",
    "refuse_surrogates",
    "require",
    "split_lines",
    "type_problem",
    "unique_items",
    "unique_records",
]

T = TypeVar("T")
PARQUET_MAGIC = b"PAR1"
# CSV cells are text; these fields are numbers wherever they appear in our shapes
CSV_NUMBERS = frozenset({"context_k", "score", "rank"})
_LITERAL_LIMIT = 1_000_000  # a Python-literal cell longer than this is refused, not parsed


def read_bytes(path: Path, limit: int = -1) -> bytes:
    """The file's bytes (the first ``limit`` of them when given); a missing file, a
    directory or an unreadable file is an input error naming it."""
    try:
        _refuse_special(path)
        with path.open("rb") as handle:
            return handle.read(limit)
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except IsADirectoryError:
        raise InputError("expected a file, got a directory", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=path) from None


def _refuse_special(path: Path) -> None:
    """A FIFO, socket or device is refused before it is opened: opening a pipe nobody
    writes to blocks forever."""
    mode = path.stat().st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError(
            "not a regular file (a pipe, socket or device): save it to a file and give that",
            path=path,
        )


def read_text(path: Path) -> str:
    """The file's text as UTF-8 (a BOM is dropped); undecodable bytes are an input error."""
    raw = read_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", path=path, line=line
        ) from None
    return text.removeprefix("\ufeff")


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a valid JSON number")


# A JSON escape of a UTF-16 surrogate (``\ud800``): the only way a lone surrogate, which
# UTF-8 cannot encode, gets into a str decoded from valid UTF-8 text.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def split_lines(text: str) -> list[str]:
    r"""Lines split on ``\n`` only (a trailing ``\r`` dropped), never ``str.splitlines()``.

    ``splitlines`` also breaks on U+2028, U+2029, U+0085, form feeds and more, which are
    legal inside JSON strings and TSV fields: it would refuse valid files and shift every
    later line number.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last line; it does not start a new one
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def parse_json(
    text: str, path: str | Path | None, line: int | None = None, *, surrogates: bool = True
) -> Any:
    r"""``json.loads`` for user files: every failure is an :class:`InputError` at ``line``.

    Beyond malformed JSON this refuses NaN/Infinity tokens, nesting deep enough to exhaust
    the parser's recursion (a ``RecursionError``, not a ``ValueError``), and lone UTF-16
    surrogates (``"\ud800"``): no UTF-8 report could ever contain such a string, so it is
    refused here, at the line that holds it, rather than when an output is written.
    """
    try:
        obj = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        where = line if line is not None else _deepest_line(text)
        raise InputError("invalid JSON: nested too deeply", path=path, line=where) from None
    except ValueError as exc:
        at = line if line is not None else getattr(exc, "lineno", None)
        raise InputError(f"invalid JSON: {exc}", path=path, line=at) from None
    if surrogates and may_hold_surrogates(text):
        refuse_surrogates(obj, path, line)
    return obj


def _deepest_line(text: str) -> int:
    """The line where nesting first gets deeper than Python's parser can follow."""
    depth, line, in_str, escape = 0, 1, False, False
    limit = min(500, sys.getrecursionlimit() // 2)
    for ch in text:
        if ch == "\n":
            line += 1
        elif in_str:  # the next char is escaped, or ends the string
            in_str, escape = (True, False) if escape else (ch != '"', ch == "\\")
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return line
        elif ch in "]}":
            depth -= 1
    return line


def may_hold_surrogates(text: str) -> bool:
    """Cheap pre-check: could parsing ``text`` have produced a lone surrogate?"""
    return "\\u" in text and _SURROGATE_ESCAPE.search(text) is not None


def refuse_surrogates(value: Any, path: str | Path | None, line: int | None) -> None:
    """Raise at the first string (value or key) holding an unpaired UTF-16 surrogate."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, name = stack.pop()
        if isinstance(item, str):
            _check_surrogates(item, path, line, name)
        elif isinstance(item, dict):
            for key, sub in item.items():
                shown = key.encode("utf-8", "backslashreplace").decode("utf-8")
                child = f"{name}.{shown}" if name else shown
                _check_surrogates(key, path, line, child)
                stack.append((sub, child))
        elif isinstance(item, list):
            stack.extend((sub, f"{name}[{i}]") for i, sub in enumerate(item))


def _check_surrogates(text: str, path: str | Path | None, line: int | None, field: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"contains an unpaired UTF-16 surrogate (U+{ord(text[exc.start]):04X}), "
            "which no UTF-8 file can hold",
            path=path,
            line=line,
            field=field or None,
        ) from None


def read_json_document(path: Path) -> Any:
    """A whole file as one JSON value (results, calibration records), errors located."""
    return parse_json(read_text(path), path)


def unique_records(
    path: Path, parse: Callable[[dict[str, Any], int], T], key: Callable[[T], str], **checks: Any
) -> list[T]:
    return unique_items(path, iter_records(path), parse, key, **checks)


def unique_items(
    path: Path | Given,
    records: Iterable[tuple[int, dict[str, Any]]],
    parse: Callable[[dict[str, Any], int], T],
    key: Callable[[T], str],
    *,
    field: str,
    duplicate: Callable[[str, int], str],
    empty: str,
) -> list[T]:
    """Every record parsed, in order (the records of a file, a CSV or Parquet table, rows an
    adapter mapped from another tool's shape); a repeated ``key`` is an error naming both
    lines (``duplicate(key, first line)``, at ``field``), and so is no record (``empty``)."""
    items: list[T] = []
    first: dict[str, int] = {}
    for line, record in records:
        item = parse(record, line)
        k = key(item)
        if k in first:
            raise InputError(duplicate(k, first[k]), path=path, line=line, field=field)
        first[k] = line
        items.append(item)
    if not items:
        raise InputError(empty, path=path)
    return items


def iter_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, object)`` from a JSON list, a JSONL file or JSON objects one after another
    (lines numbered as the module docstring says)."""
    text = read_text(path)
    stripped = text.lstrip()
    if stripped.startswith("["):
        yield from _iter_json_stream(path, text, listed=True)
        return
    if stripped.startswith("{") and not _whole_line(stripped.split("\n", 1)[0]):
        yield from _iter_json_stream(path, text)
        return
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        obj = parse_json(line, path, number)
        if not isinstance(obj, dict):
            raise InputError(
                f"expected a JSON object, got {type(obj).__name__}", path=path, line=number
            )
        yield number, obj


def _iter_json_stream(
    path: Path, text: str, listed: bool = False
) -> Iterator[tuple[int, dict[str, Any]]]:
    """JSON objects one after another, each over any number of lines: one pretty-printed
    document (an OTLP/JSON request as a person saves it) or several (OpenTelemetry's
    ``ConsoleSpanExporter``); ``listed``: the elements of one JSON list. Each object's
    line is the line where it starts. A list that does not scan is refused as the whole
    document is (:func:`parse_json`'s error, at its line)."""
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    check = may_hold_surrogates(text)
    pos, line, index = text.index("[") + 1 if listed else 0, 1, 0
    counted = 0  # ``line`` is the line of this position
    while (start := _next_value(path, text, pos, listed, index)) is not None:
        line += text.count("\n", counted, start)
        counted = start
        try:
            obj, pos = decoder.raw_decode(text, start)
        except RecursionError:
            _refuse_list(path, text, listed)
            raise InputError("invalid JSON: nested too deeply", path=path, line=line) from None
        except ValueError as exc:
            _refuse_list(path, text, listed)
            at = text.count("\n", 0, getattr(exc, "pos", start)) + 1
            raise InputError(f"invalid JSON: {exc}", path=path, line=at) from None
        if check:
            refuse_surrogates(obj, path, line)
        if not isinstance(obj, dict):
            got = type(obj).__name__
            raise InputError(
                f"element {index} is {got}, expected an object" if listed
                else f"expected a JSON object, got {got}",
                path=path,
                line=line,
            )  # fmt: skip
        yield line, obj
        index += 1


_SPACE = re.compile(r"[ \t\r\n]*")  # JSON's white space


def _next_value(path: Path, text: str, pos: int, listed: bool, index: int) -> int | None:
    """Where the next value starts (white space skipped; in a list, the comma before it),
    or None at the end (of the text; of a list, with nothing after it)."""
    start = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
    ahead = text[start : start + 1]
    if not listed:
        return start if ahead else None
    if index and ahead == ",":
        start = _SPACE.match(text, start + 1).end()  # type: ignore[union-attr]
        if text[start : start + 1] not in ("]", ""):
            return start
    elif ahead == "]" and _SPACE.match(text, start + 1).end() == len(text):  # type: ignore[union-attr]
        return None
    elif not index and ahead not in ("]", ""):
        return start
    _refuse_list(path, text, listed)
    raise InputError("invalid JSON", path=path)  # not reached: such a list does not parse


def _refuse_list(path: Path, text: str, listed: bool) -> None:
    if listed:
        parse_json(text, path, surrogates=False)


def require(
    obj: dict[str, Any], key: str, kind: type | tuple[type, ...], path: Path | Given, line: int
):
    """``obj[key]`` checked for presence and type, or an error naming file, line and field."""
    if key not in obj:
        raise InputError("missing required field", path=path, line=line, field=key)
    return check_type(obj[key], key, kind, path, line)


def check_type(value: Any, key: str, kind: type | tuple[type, ...], path: Path | Given, line: int):
    """``value``, or an error naming file, line and field (:func:`type_problem`)."""
    problem = type_problem(value, kind if isinstance(kind, tuple) else (kind,))
    if problem is not None:
        raise InputError(problem, path=path, line=line, field=key)
    return value


def type_problem(value: Any, kinds: tuple[type, ...]) -> str | None:
    """What makes ``value`` the wrong JSON type (a bool posing as a number, NaN or an
    infinity included), worded ``expected str or int, got bool``; None when it is fine."""
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        return f"expected {' or '.join(k.__name__ for k in kinds)}, got {type(value).__name__}"
    if isinstance(value, float) and not math.isfinite(value):
        return "must be a finite number"
    return None


def refuse_nul(text: str, path: Path) -> str:
    """``text`` of a CSV file, or an error at the line of its first NUL byte: ``csv``
    reads one as data, and no tool writes one into a CSV cell (a binary file renamed)."""
    at = text.find("\x00")
    if at >= 0:
        raise InputError(
            "contains a NUL byte: not a text CSV (export it again as CSV text)",
            path=path,
            line=text.count("\n", 0, at) + 1,
        )
    return text


@dataclass(frozen=True)
class Given:
    """Rows handed over in Python (dicts, a pandas DataFrame, a ragas
    ``EvaluationDataset``) in place of a file: named for messages and results
    (``<golden given in Python>``), each row numbered by its position (a DataFrame's by its
    index when that is whole numbers), its values as JSON has them (arrays and tuples as
    lists, a missing value absent, any other object as its text)."""

    name: str
    rows: list[tuple[int, dict[str, Any]]]

    def __str__(self) -> str:
        return self.name

    def sha256(self) -> str:
        """Digest of the rows as JSON Lines: what a file of them written out would hash to."""
        lines = (json.dumps(row, ensure_ascii=False) + "\n" for _, row in self.rows)
        return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()


Source = str | Path | Given


def source_sha256(source: Path | Given) -> str:
    return source.sha256() if isinstance(source, Given) else file_sha256(source)


def as_source(value: Any, what: str) -> Path | Given:
    """A path as a :class:`~pathlib.Path`; rows (module docstring of :class:`Given`) as
    :class:`Given` named ``<WHAT given in Python>``."""
    if isinstance(value, Given | Path):
        return value
    if isinstance(value, str):
        return Path(value)
    if hasattr(value, "samples") and hasattr(value, "to_list"):  # ragas EvaluationDataset
        value = value.to_list()
    labels: list[Any] = []
    if hasattr(value, "to_dict"):  # a pandas DataFrame: its index labels the rows
        labels = value.index.tolist()
        value = value.to_dict(orient="records")
    rows = list(value)
    if not all(isinstance(label, int) for label in labels) or not labels:
        labels = list(range(len(rows)))
    name = f"<{what} given in Python>"
    return Given(name, [(n, _row(row, name, n)) for n, row in zip(labels, rows, strict=True)])


def _row(row: Any, name: str, n: int) -> dict[str, Any]:
    if not isinstance(row, Mapping):
        raise InputError(f"expected a dict, got {type(row).__name__}", path=name, line=n)
    return _plain(row)


def _plain(value: Any) -> Any:
    """A value as JSON has it (:class:`Given`)."""
    if hasattr(value, "tolist"):  # numpy arrays and scalars (Parquet list columns)
        value = value.tolist()
    if isinstance(value, list | tuple):  # e.g. a list of span documents, each a dict
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items() if not _missing(v)}
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)  # a span's timestamp and the like: recorded, never needed as a value


@dataclass
class Table:
    path: Path | Given
    container: str  # "jsonl", "json", "csv", "parquet", "arrow" or "rows" (Given)
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
        return "jsonl" if _whole_line(text.split(b"\n", 1)[0], cut=4000) else "json"
    return "csv"


def _whole_line(first: str | bytes, cut: float = math.inf) -> bool:
    """Whether the first non-blank line is a whole JSON value (JSON Lines), not the
    opening of a pretty-printed document (read as a stream of objects,
    :func:`iter_records`); ``cut``: a line this long that does not parse was cut short
    (by :func:`container`'s 4 KiB head) and is taken as JSON Lines."""
    try:
        json.loads(first)
    except RecursionError:
        return True  # a whole line, nested too deeply: refused at its line as JSON Lines
    except ValueError:
        return len(first) >= cut
    return True


def is_hf_dataset(path: Path) -> bool:
    """A folder written by HF ``datasets``' ``Dataset.save_to_disk``."""
    return (
        path.is_dir() and (path / "state.json").is_file() and (path / "dataset_info.json").is_file()
    )


def read_table(
    path: Path | Given, renames: Mapping[str, str] | None = None, *, text: bool = False
) -> Table:
    """Every row of ``path`` with its row number (module docstring). ``renames``: the
    ``--columns`` pairs (ours -> theirs, ``ColumnMap.pairs``), so that a CSV column read
    as one of our number fields (``rank=position``) is converted like the field itself;
    the rows keep their names.
    ``text``: CSV cells as the text they are, empty ones too (what a grades reader takes,
    ``base``), instead of parsed and converted."""
    if isinstance(path, Given):
        return Table(path, "rows", path.rows)
    kind = container(path)
    if kind == "arrow":
        rows = _hf_rows(path)
    elif kind == "parquet":
        rows = _parquet_rows(path)
    elif kind == "csv" and text:
        rows = [(line, {k.strip(): v for k, v in raw.items()}) for line, raw in _csv_records(path)]
    elif kind == "csv":
        renamed = {theirs for ours, theirs in (renames or {}).items() if ours in CSV_NUMBERS}
        rows = _csv_rows(path, CSV_NUMBERS | renamed)
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
            key: _number(value, key, path, start) if key in numbers
            else parse_cell(value, key, path, start)
            for key, value in ((k.strip(), v) for k, v in raw.items())
            if key and value not in (None, "")
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
