"""Checks of what a page sends: every field of a save, before it reaches the user's file."""

from __future__ import annotations

from typing import Any

from ragtriage.errors import InputError

__all__ = ["MAX_TEXT", "seconds", "strings", "text", "version"]

MAX_TEXT = 20_000  # a note or reference answer longer than this is a paste gone wrong


def strings(value: Any, field: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError("expected a list of strings", field=field)
    return value


def text(value: Any, field: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise InputError(f"expected a string of at most {MAX_TEXT} characters", field=field)
    return value


def seconds(value: Any) -> float:
    """Time on the item since the last save, as the page measured it (0 to an hour: a tab
    left open overnight is not a slow query)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return 0.0
    return min(max(float(value), 0.0), 3600.0)


def version(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError("expected the item's version number", field="version")
    return value
