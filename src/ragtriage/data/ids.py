"""Checks every id loader applies: no control characters, at most ``MAX_ID_BYTES`` bytes.

Doc ids are compared as NUL-padded 8-byte words (data/tables.py), so an id ending in NUL
would equal the same id without it and score a hit that is not one; and each row of a
run costs the width of its longest doc id, so one 100 KB id in a run of a million rows
costs gigabytes. trec_eval cannot read either (a NUL ends its C strings). Refusing both
where the file is read keeps comparisons exact, memory bounded, and the error on the
line at fault.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragtriage.data.containers import Given
from ragtriage.errors import InputError

__all__ = [
    "MAX_ID_BYTES",
    "all_clean",
    "check_id",
    "check_ids",
    "id_problem",
    "ids_clean",
    "shown",
    "string_bytes",
    "visible_ascii",
]

MAX_ID_BYTES = 1024
# C0 controls, DEL, C1 controls (Unicode category Cc) and lone surrogates (no UTF-8 form)
_BAD = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_SHOWN = 40


def id_problem(value: str) -> str | None:
    """What is wrong with ``value`` as an id, in words, or ``None`` when it is usable."""
    match = _BAD.search(value)
    if match is not None:
        code, at = ord(match.group()), match.start() + 1
        if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, surrogate-escaped
            return f"is not valid UTF-8 (byte 0x{code - 0xDC00:02x} at character {at})"
        kind = "a lone surrogate" if 0xD800 <= code <= 0xDFFF else "a control character"
        return f"contains {kind} (U+{code:04X} at character {at})"
    size = len(value.encode("utf-8"))
    if size > MAX_ID_BYTES:
        return f"is {size:,} bytes long; ids may be at most {MAX_ID_BYTES:,} bytes"
    return None


def shown(value: str) -> str:
    """``value`` for a message: its repr, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 4] + "...'"


def check_id(value: str, *, path: str | Path | Given | None, line: int | None, field: str) -> str:
    """``value`` itself, or an :class:`InputError` naming file, line and field."""
    problem = id_problem(value)
    if problem is not None:
        raise InputError(f"id {shown(value)} {problem}", path=path, line=line, field=field)
    return value


def ids_clean(values: pa.Array | pa.ChunkedArray) -> bool:
    """Whether every string is a usable id, checked on arrow's bytes (no Python strings).

    For the fast readers: a ``False`` sends the file to the line parser, which names the
    line. A control character is a byte below 0x20 or 0x7F, or (C1) 0xC2 followed by
    0x80-0x9F; arrow strings are valid UTF-8, so there are no surrogates to look for.
    """
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    for chunk in chunks:
        if len(chunk) == 0:
            continue
        if (pc.max(pc.binary_length(chunk)).as_py() or 0) > MAX_ID_BYTES:
            return False
        data = string_bytes(chunk)
        if visible_ascii(data):
            continue  # the common case: two vectorised passes, no temporaries
        if ((data < 0x20) | (data == 0x7F)).any():
            return False
        if len(data) > 1 and ((data[:-1] == 0xC2) & (data[1:] >= 0x80) & (data[1:] <= 0x9F)).any():
            return False
    return True


def visible_ascii(data: np.ndarray) -> bool:
    """Whether every byte is a visible ASCII character (0x21-0x7E: no control character,
    no space, nothing past ASCII): the ids of nearly every real run, decided by a min and
    a max over the bytes, where the exact checks build a temporary array per test."""
    return not len(data) or (int(data.min()) > 0x20 and int(data.max()) < 0x7F)


def string_bytes(chunk: pa.Array) -> np.ndarray:
    """The UTF-8 bytes of a string chunk's values, as a view of arrow's buffer."""
    chunk = chunk.cast(pa.string()) if not pa.types.is_large_string(chunk.type) else chunk
    kind = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
    n = len(chunk)
    offsets = np.frombuffer(chunk.buffers()[1], kind, n + 1, chunk.offset * np.dtype(kind).itemsize)
    first, last = int(offsets[0]), int(offsets[-1])
    if last == first:
        return np.zeros(0, np.uint8)
    return np.frombuffer(chunk.buffers()[2], np.uint8, last - first, first)


def all_clean(values: Sequence[str] | np.ndarray) -> bool:
    """The common case in two C-speed passes (one regex over the joined ids, one length
    bound); ``False`` means "look closer", not necessarily "bad"."""
    try:
        if _BAD.search("".join(values)) is not None:
            return False
        return max(map(len, values), default=0) * 4 <= MAX_ID_BYTES  # <= 4 bytes a char
    except TypeError:  # not all strings
        return False


def check_ids(
    values: pa.Array | pa.ChunkedArray | Sequence[str] | np.ndarray,
    *,
    path: str | Path | None,
    field: str,
) -> None:
    """An :class:`InputError` naming the first unusable id, for tables built in Python
    (golden sets, traces, callers' dicts): the last guard before ids become words."""
    if isinstance(values, pa.Array | pa.ChunkedArray):
        if ids_clean(values):
            return
        values = values.to_pylist()
    elif all_clean(values):
        return
    for value in values:
        if isinstance(value, str):
            check_id(value, path=path or None, line=None, field=field)
