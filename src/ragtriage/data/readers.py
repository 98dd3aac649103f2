"""Read JSON, JSONL and tabular text so that every failure names file, line and field.

Users hand us files written by other tools and by hand: BOMs, CRLF line ends, blank
lines and a JSON list where JSONL was expected are all accepted; anything we cannot
read is an :class:`~ragtriage.errors.InputError`, never a traceback.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragtriage.errors import InputError


def read_text(path: Path) -> str:
    """The file's text as UTF-8 (a BOM is dropped); undecodable bytes are an input error."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except IsADirectoryError:
        raise InputError("expected a file, got a directory", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=path) from None
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


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


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
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = _loads(line)
        except ValueError as exc:
            raise InputError(f"invalid JSON: {exc}", path=path, line=number) from None
        if not isinstance(obj, dict):
            raise InputError(
                f"expected a JSON object, got {type(obj).__name__}", path=path, line=number
            )
        yield number, obj


def _iter_json_list(path: Path, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    try:
        items = decoder.decode(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(f"invalid JSON: {exc}", path=path, line=line) from None
    if not isinstance(items, list):
        raise InputError("expected a JSON list of objects", path=path, line=1)
    starts = _element_lines(text, len(items))
    for index, obj in enumerate(items):
        line = starts[index] if index < len(starts) else None
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
            escape = not escape and ch == "\\"
            if ch == '"' and not escape:
                in_str = False
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
