"""JSON text inside a field, decoded with a depth limit: the one helper every reader of
embedded JSON uses (span ``input.value``/``output.value``/``document.metadata``, span
``attributes``, ragas tool messages).

A file's own lines go through ``containers.parse_json``; text *inside* a field comes
here, so that deep nesting is a refusal, not a ``RecursionError`` traceback. A value
deeper than :data:`MAX_DEPTH` is refused naming file, line and field, so the readers that
walk parsed values recursively (``openinference.flatten``) are safe below it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragtriage.data.containers import Given
from ragtriage.errors import InputError

__all__ = ["MAX_DEPTH", "NOT_JSON", "check_depth", "decode_json_text", "value_depth"]

# Deeper than any span attribute or tool message a tool writes (OpenInference documents
# nest 4-6 levels), far below Python's recursion limit of 1,000 frames.
MAX_DEPTH = 100
NOT_JSON: Any = object()  # what a lenient decode returns for text that is not JSON


def value_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deep lists and dicts nest in a parsed value, walked with a stack (no recursion);
    stops once past ``limit``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            if depth > limit:
                return depth
            deepest = max(deepest, depth)
            stack.extend(
                (sub, depth) for sub in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def _too_deep(path: str | Path | Given | None, line: int | None, field: str) -> InputError:
    return InputError(f"JSON nested more than {MAX_DEPTH} deep", path=path, line=line, field=field)


def check_depth(
    value: Any, *, path: str | Path | Given | None, line: int | None, field: str
) -> Any:
    """``value`` as it is, or a refusal when its lists and dicts nest past the limit."""
    if value_depth(value) > MAX_DEPTH:
        raise _too_deep(path, line, field)
    return value


def decode_json_text(
    text: str,
    *,
    path: str | Path | Given | None,
    line: int | None,
    field: str,
    lenient: bool = False,
) -> Any:
    """The value JSON ``text`` holds. Nesting past :data:`MAX_DEPTH` is always refused
    (naming the field); text that is not JSON is refused too, or with ``lenient`` gives
    :data:`NOT_JSON` (a field that may hold plain text, such as an answer)."""
    try:
        value = json.loads(text)
    except RecursionError:  # deeper than the parser can follow: deeper than the limit
        raise _too_deep(path, line, field) from None
    except ValueError:
        if lenient:
            return NOT_JSON
        raise InputError("is not valid JSON", path=path, line=line, field=field) from None
    return check_depth(value, path=path, line=line, field=field)
