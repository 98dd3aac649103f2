"""Read JSON, JSONL and tabular text so that every failure names file, line and field.

Users hand us files written by other tools and by hand: BOMs, CRLF line ends, blank
lines and a JSON list where JSONL was expected are all accepted; anything we cannot
read is an :class:`~ragtriage.errors.InputError`, never a traceback.
"""

from __future__ import annotations

import json
import math
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from ragtriage.errors import InputError

__all__ = [
    "check_type",
    "finite_float",
    "iter_records",
    "may_hold_surrogates",
    "parse_json",
    "read_bytes",
    "read_json_document",
    "read_text",
    "refuse_nul",
    "refuse_surrogates",
    "require",
    "split_lines",
    "unique_items",
    "unique_records",
]

T = TypeVar("T")


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
    writes to blocks forever (``--golden`` given a FIFO hung, issue 26)."""
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
        elif in_str:
            in_str, escape = _string_step(ch, escape)
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return line
        elif ch in "]}":
            depth -= 1
    return line


def _string_step(ch: str, escape: bool) -> tuple[bool, bool]:
    """Inside a JSON string: ``(still inside, next char escaped)`` after ``ch``."""
    if escape:
        return True, False
    return ch != '"', ch == "\\"


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
    path: Path,
    parse: Callable[[dict[str, Any], int], T],
    key: Callable[[T], str],
    *,
    field: str,
    duplicate: Callable[[str, int], str],
    empty: str,
) -> list[T]:
    """Every record of ``path`` parsed, in file order; a repeated ``key`` is an error naming
    both lines (``duplicate(key, first line)``), and so is a file with no record."""
    return unique_items(
        path, iter_records(path), parse, key, field=field, duplicate=duplicate, empty=empty
    )


def unique_items(
    path: Path,
    records: Iterable[tuple[int, dict[str, Any]]],
    parse: Callable[[dict[str, Any], int], T],
    key: Callable[[T], str],
    *,
    field: str,
    duplicate: Callable[[str, int], str],
    empty: str,
) -> list[T]:
    """:func:`unique_records` over records already read (a CSV or Parquet table, or rows
    an adapter mapped from another tool's shape), with the same checks and messages."""
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
    """Yield ``(line_number, object)`` from a JSON list or a JSONL file.

    Line numbers are 1-based; for a JSON list they point at the line where each
    element starts, so an error can still be found in the file.
    """
    text = read_text(path)
    stripped = text.lstrip()
    if stripped.startswith("["):
        yield from _iter_json_list(path, text)
        return
    if stripped.startswith("{") and not _first_line_parses(text):
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


def _first_line_parses(text: str) -> bool:
    """Whether the first non-blank line is a whole JSON value (JSON Lines), not the
    opening of a pretty-printed document."""
    first = next((line for line in split_lines(text) if line.strip()), "")
    try:
        json.loads(first, parse_constant=_reject_constant)
    except RecursionError:
        return True  # a whole line, nested too deeply: refused at its line as JSON Lines
    except ValueError:
        return False
    return True


def _iter_json_stream(path: Path, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """JSON objects one after another, each over any number of lines: one pretty-printed
    document (an OTLP/JSON request as a person saves it) or several (OpenTelemetry's
    ``ConsoleSpanExporter``). Each object's line is the line where it starts."""
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    check = may_hold_surrogates(text)
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos] in " \t\r\n":
            pos += 1
        if pos >= end:
            return
        line = text.count("\n", 0, pos) + 1
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except RecursionError:
            raise InputError("invalid JSON: nested too deeply", path=path, line=line) from None
        except ValueError as exc:
            at = text.count("\n", 0, getattr(exc, "pos", pos)) + 1
            raise InputError(f"invalid JSON: {exc}", path=path, line=at) from None
        if check:
            refuse_surrogates(obj, path, line)
        if not isinstance(obj, dict):
            raise InputError(
                f"expected a JSON object, got {type(obj).__name__}", path=path, line=line
            )
        yield line, obj


def _iter_json_list(path: Path, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    items = parse_json(text, path, surrogates=False)
    if not isinstance(items, list):
        raise InputError("expected a JSON list of objects", path=path, line=1)
    starts = _element_lines(text, len(items))
    check = may_hold_surrogates(text)
    for index, obj in enumerate(items):
        line = starts[index] if index < len(starts) else None
        if check:
            refuse_surrogates(obj, path, line)
        if not isinstance(obj, dict):
            raise InputError(
                f"element {index} is {type(obj).__name__}, expected an object", path=path, line=line
            )
        yield line or index + 1, obj


def _element_lines(text: str, count: int) -> list[int]:
    """Line numbers of the top-level elements of a JSON list (best effort, for messages)."""
    lines: list[int] = []
    depth, line, in_str, escape, expect = 0, 1, False, False, False
    for ch in text:
        if ch == "\n":
            line += 1
        if in_str:
            in_str, escape = _string_step(ch, escape)
            continue
        if ch == '"':
            in_str = True
        if depth == 1 and expect and not ch.isspace() and ch not in ",]":
            lines.append(line)
            expect = False
        if ch in "[{":
            depth += 1
            if depth == 1:
                expect = True
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 1:
            expect = True
        if len(lines) >= count:
            break
    return lines


def require(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], path: Path, line: int):
    """``obj[key]`` checked for presence and type, or an error naming file, line and field."""
    if key not in obj:
        raise InputError("missing required field", path=path, line=line, field=key)
    return check_type(obj[key], key, kind, path, line)


def check_type(value: Any, key: str, kind: type | tuple[type, ...], path: Path, line: int):
    """Reject the wrong JSON type (and bools posing as numbers, and NaN/inf)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    is_bool_as_number = isinstance(value, bool) and bool not in kinds
    if not isinstance(value, kinds) or is_bool_as_number:
        names = " or ".join(k.__name__ for k in kinds)
        raise InputError(
            f"expected {names}, got {type(value).__name__}", path=path, line=line, field=key
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError("must be a finite number", path=path, line=line, field=key)
    return value


def finite_float(value: Any, key: str, path: Path, line: int) -> float:
    """A JSON number as a float; an integer too large for a 64-bit float (JSON allows a
    ``1`` followed by 400 zeros, and ``float()`` raises OverflowError on it) is an error
    naming file, line and field, not a traceback."""
    number = check_type(value, key, (int, float), path, line)
    try:
        return float(number)
    except OverflowError:
        raise InputError(
            "integer is out of range for a 64-bit float (beyond 1.8e308)",
            path=path,
            line=line,
            field=key,
        ) from None


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
