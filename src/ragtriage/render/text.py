"""Untrusted text, made safe to show: control characters out, long strings shortened.

Queries, answers, chunk ids and tags come from the system under test and its corpus, so
every renderer passes them through here before its own escaping (markdown or HTML).
Bidi overrides and zero-width characters are stripped too: they can make a report show
something other than what the data says ("Trojan Source").
"""

from __future__ import annotations

import re

__all__ = ["clean", "shorten", "strip_controls"]

_INVISIBLE = "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
_CONTROLS = re.compile(f"[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f{_INVISIBLE}]")
_LINE_BREAKS = re.compile(r"[\t\r\n\u2028\u2029]+")


def strip_controls(text: object, *, keep_newlines: bool = False) -> str:
    """``text`` as a string without control or invisible formatting characters. Tabs and
    line breaks become one space (a table cell must not be split by the data it shows)
    unless ``keep_newlines``: then every line break becomes ``\\n`` and tabs stay."""
    value = "" if text is None else str(text)
    if keep_newlines:
        value = value.replace("\r\n", "\n").replace("\r", "\n")
        value = value.replace("\u2028", "\n").replace("\u2029", "\n")
        return _CONTROLS.sub("", value)
    return _CONTROLS.sub("", _LINE_BREAKS.sub(" ", value)).strip()


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters, with an ellipsis when cut (cut before escaping)."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "\u2026"


def clean(text: object, limit: int | None = None) -> str:
    """One line of untrusted text, controls stripped and optionally shortened."""
    value = strip_controls(text)
    return shorten(value, limit) if limit else value
