"""OTLP/JSON ``AnyValue`` decoded and checked: a Python value, or one refusal naming file,
line and attribute.

An attribute value is an object with exactly one of ``stringValue``, ``boolValue``,
``intValue`` (a 64-bit integer, as a string or a number), ``doubleValue``, ``bytesValue``
(base64 text), ``arrayValue`` and ``kvlistValue`` (each ``{"values": [...]}``); ``{}`` is
an empty value. Every OTLP value goes through :func:`decode_any_value`, so a malformed
one (``intValue: "not-a-number"``, a bare list) is a refusal, never a traceback.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from pathlib import Path
from typing import Any

from ragtriage.data.containers import Given
from ragtriage.data.jsontext import MAX_DEPTH
from ragtriage.data.rows import checked, fail

__all__ = ["decode_any_value", "decode_attributes"]

_INT = re.compile(r"-?\d{1,19}")  # int64 is at most 19 digits: checked before int()
_INT64 = (-(2**63), 2**63 - 1)
_DOUBLE_WORDS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def decode_attributes(
    items: Any, *, path: str | Path | Given | None, line: int | None, field: str = "attributes"
) -> dict[str, Any]:
    """An OTLP ``attributes`` list (``[{"key", "value"}...]``) as a dict."""
    return checked(lambda v: _kvlist(v, field, 0), items, path, line, field)


def decode_any_value(
    value: Any, *, path: str | Path | Given | None, line: int | None, field: str
) -> Any:
    """One ``AnyValue`` as the Python value it means (``bytesValue`` stays base64 text)."""
    return checked(lambda v: _value(v, field, 0), value, path, line, field)


def _value(value: Any, field: str, depth: int) -> Any:
    if depth > MAX_DEPTH:
        fail(f"OTLP value nested more than {MAX_DEPTH} deep", field)
    if not isinstance(value, dict):
        fail(f"an OTLP value must be an object, got {type(value).__name__}", field)
    if not value:
        return None  # an empty AnyValue: OTLP's way to write no value
    if len(value) != 1:
        fail(f"an OTLP value has one key, got {sorted(value)[:4]}", field)
    ((kind, raw),) = value.items()
    decode = _DECODERS.get(kind)
    if decode is None:
        fail(f"unknown OTLP value {kind!r}; expected one of {', '.join(_DECODERS)}", field)
    return decode(raw, f"{field}.{kind}", depth)


def _string(raw: Any, field: str, depth: int) -> str:
    if not isinstance(raw, str):
        fail(f"must be a string, got {type(raw).__name__}", field)
    return raw


def _bool(raw: Any, field: str, depth: int) -> bool:
    if not isinstance(raw, bool):
        fail(f"must be true or false, got {type(raw).__name__}", field)
    return raw


def _int(raw: Any, field: str, depth: int) -> int:
    """A 64-bit integer, as OTLP/JSON writes it (a decimal string) or as a number.
    The digits are matched before ``int()``: 5,000 of them hit Python's int-string limit."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        number = raw
    elif isinstance(raw, str) and _INT.fullmatch(raw.strip()):
        number = int(raw.strip())
    else:
        shown = raw[:40] if isinstance(raw, str) else type(raw).__name__
        fail(f"must be a 64-bit integer, got {shown!r}", field)
    if not _INT64[0] <= number <= _INT64[1]:
        fail("must be a 64-bit integer (out of range)", field)
    return number


def _double(raw: Any, field: str, depth: int) -> float:
    """A number, or the protobuf JSON words ``NaN``/``Infinity``/``-Infinity``."""
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, str) and raw in _DOUBLE_WORDS:
        return _DOUBLE_WORDS[raw]
    if isinstance(raw, str) and len(raw) <= 40:
        try:
            return float(raw)
        except ValueError:
            pass
    shown = raw[:40] if isinstance(raw, str) else type(raw).__name__
    fail(f"must be a number, got {shown!r}", field)


def _bytes(raw: Any, field: str, depth: int) -> str:
    """Kept as its base64 text (no reader takes bytes), checked to be base64."""
    text = _string(raw, field, depth)
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        fail("must be base64 text", field)
    return text


def _values(raw: Any, field: str) -> list[Any]:
    """The ``values`` list of an ``arrayValue``/``kvlistValue`` object."""
    if not isinstance(raw, dict):
        got = type(raw).__name__
        fail(f'must be an object {{"values": [...]}}, got {got}', field)
    values = raw.get("values", [])
    if not isinstance(values, list):
        fail(f"'values' must be a list, got {type(values).__name__}", field)
    return values


def _array(raw: Any, field: str, depth: int) -> list[Any]:
    items = _values(raw, field)
    return [_value(v, f"{field}.values[{i}]", depth + 1) for i, v in enumerate(items)]


def _kvlist_value(raw: Any, field: str, depth: int) -> dict[str, Any]:
    return _kvlist(_values(raw, field), f"{field}.values", depth + 1)


def _kvlist(items: Any, field: str, depth: int) -> dict[str, Any]:
    """``[{"key": str, "value": AnyValue}...]`` as a dict (a missing value is ``{}``)."""
    if items is None:
        return {}
    if not isinstance(items, list):
        fail(f"must be a list of {{key, value}}, got {type(items).__name__}", field)
    out: dict[str, Any] = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            fail(f"item {i} must be an object with a string 'key'", field)
        out[item["key"]] = _value(item.get("value") or {}, f"{field}[{item['key']}]", depth)
    return out


_DECODERS = {
    "stringValue": _string,
    "boolValue": _bool,
    "intValue": _int,
    "doubleValue": _double,
    "bytesValue": _bytes,
    "arrayValue": _array,
    "kvlistValue": _kvlist_value,
}
