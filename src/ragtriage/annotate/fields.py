"""Checks of what a page sends: every field of a save, before it reaches the user's file.

A save is refused (400, naming the field) rather than trimmed or coerced: a string is not
a boolean (``"false"`` is not false), a number is finite, a text is one UTF-8 can encode
(a paste that cut an emoji in half sends a lone surrogate, which no file can hold), and
every list and text has a bound, so one bad paste can neither poison the session nor make
every later save slow.
"""

from __future__ import annotations

import math
from typing import Any

from ragtriage.errors import InputError

__all__ = [
    "MAX_ITEMS",
    "MAX_TAG",
    "MAX_TAGS",
    "MAX_TEXT",
    "encodable",
    "flag",
    "seconds",
    "stored_seconds",
    "strings",
    "text",
    "version",
]

MAX_TEXT = 20_000  # a note or reference answer longer than this is a paste gone wrong
MAX_TAGS = 50  # tags on one item
MAX_TAG = 100  # characters in one tag
MAX_ITEMS = 1_000  # chunk ids in one list (marked, added): far more than a pool shows
MAX_SECONDS = 3600.0


def encodable(value: str, field: str) -> str:
    """``value`` if UTF-8 can encode it (no lone surrogate), else an error naming ``field``."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            "holds a character that cannot be saved (half of an emoji or of another "
            "two-part character, as a cut paste leaves); remove it and save again",
            field=field,
        ) from None
    return value


def strings(value: Any, field: str, most: int = MAX_ITEMS, longest: int = MAX_TEXT) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError("expected a list of strings", field=field)
    if len(value) > most:
        raise InputError(f"expected at most {most} values, got {len(value)}", field=field)
    for item in value:
        if len(item) > longest:
            raise InputError(f"a value is longer than {longest} characters", field=field)
        encodable(item, field)
    return value


def text(value: Any, field: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise InputError(f"expected a string of at most {MAX_TEXT} characters", field=field)
    return encodable(value, field)


def flag(value: Any, field: str) -> bool:
    """A JSON boolean; a string such as ``"false"`` is refused, not read as true."""
    if not isinstance(value, bool):
        raise InputError("expected true or false", field=field)
    return value


def seconds(value: Any, field: str = "seconds") -> float:
    """Time on the item since the last save, as the page measured it (0 to an hour: a tab
    left open overnight is not a slow query); absent is 0, anything else not a finite
    number is refused."""
    if value is None:
        return 0.0
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        raise InputError("expected a finite number of seconds", field=field)
    return min(max(float(value), 0.0), MAX_SECONDS)


def stored_seconds(value: Any) -> float:
    """Seconds read back from a session: a value an older version let through (null for
    a NaN it wrote) counts as none rather than failing every later save of the item."""
    try:
        return seconds(value)
    except InputError:
        return 0.0


def version(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**53:
        raise InputError("expected the item's version number", field="version")
    return value
