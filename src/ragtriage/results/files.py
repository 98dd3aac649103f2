"""Writing results: atomically, so a crash never leaves a half-written file."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel

from ragtriage.atomic import write_atomic
from ragtriage.data.ids import string_bytes

__all__ = ["json_bytes", "write_atomic", "write_json"]


def write_json(path: str | Path, payload: BaseModel | dict[str, Any]) -> Path:
    """Pretty JSON, written atomically (see :func:`json_bytes`)."""
    return write_atomic(path, json_bytes(payload))


def json_bytes(payload: BaseModel | dict[str, Any]) -> bytes:
    """Pretty JSON as UTF-8; NaN and infinity are refused, as ``json.dumps(allow_nan=False)``.

    DataFrame fields (a million rows at scale) are written as ``{index: {column: value}}``
    by orjson or arrow, far faster than ``json.dumps`` over dicts. Each member is serialised
    on its own: no text is searched and replaced, so no id or query can move a table or
    corrupt the file. A lone surrogate is written as a JSON ``\\u`` escape, not refused.
    """
    if not isinstance(payload, BaseModel):
        return _encode(lambda ascii: (_dumps(payload, ascii) + "\n").encode("utf-8"))
    frames = {
        name: value
        for name in type(payload).model_fields
        if isinstance(value := getattr(payload, name), pd.DataFrame) and _finite(value)
    }
    dumped = payload.model_dump(mode="json", exclude=set(frames))
    names = [n for n in type(payload).model_fields if n in frames or n in dumped]
    names += [n for n in dumped if n not in names]  # computed fields come last, as in model_dump
    frame_json = {name: _frame_json(frame) for name, frame in frames.items()}

    def member(name: str, ascii: bool) -> bytes:
        key = f" {_dumps(name, ascii)}: "
        if name in frame_json:  # compact JSON, no raw newline: nothing to indent
            return key.encode("utf-8") + frame_json[name]
        # json.dumps(indent=1) never puts a raw newline inside a string, so indenting
        # every line of a member by one space nests it exactly as one big dumps would
        return (key + _dumps(dumped[name], ascii)).replace("\n", "\n ").encode("utf-8")

    def compose(ascii: bool) -> bytes:
        if not names:
            return b"{}\n"
        return b"{\n" + b",\n".join(member(name, ascii) for name in names) + b"\n}\n"

    return _encode(compose)


def _encode(render: Callable[[bool], bytes]) -> bytes:
    """``render(ascii=False)``, or ``render(ascii=True)`` (every string escaped by
    ``json``; a per-query table's text is valid UTF-8 already) when that cannot encode."""
    try:
        return render(False)
    except UnicodeEncodeError:
        return render(True)


def _dumps(data: Any, ascii: bool = False) -> str:
    return json.dumps(data, indent=1, ensure_ascii=ascii, allow_nan=False)


def _finite(frame: pd.DataFrame) -> bool:
    """Only all-float, all-finite frames take the fast path (the rest keep json's errors)."""
    values = frame.to_numpy()
    return values.dtype.kind == "f" and bool(np.isfinite(values).all())


def _frame_json(frame: pd.DataFrame) -> bytes:
    """``{index: {column: value}}`` as compact JSON (UTF-8), built by arrow column-wise,
    never decoded to ``str``: each float its shortest round-trip text (as ``repr``), so the
    values read back bit for bit; ids that would need JSON escaping take orjson instead."""
    ids = _index_strings(frame.index)
    if len(ids) == 0:
        return b"{}"
    if _needs_escaping(ids):
        return _frame_json_orjson(frame)
    parts: list[pa.Array | str] = ['"', ids, '":{']
    for i, (column, values) in enumerate(zip(frame.columns, _column_texts(frame), strict=True)):
        key = orjson.dumps(str(column)).decode("utf-8")
        parts += [("," if i else "") + key + ":", values]
    parts.append("},")
    rows = pc.binary_join_element_wise(*parts, "")
    body = pa.chunked_array([rows]).combine_chunks()
    offsets = np.frombuffer(body.buffers()[1], np.int32, len(body) + 1, body.offset * 4)
    data = memoryview(body.buffers()[2])[offsets[0] : offsets[-1] - 1]  # no trailing comma
    return b"".join((b"{", data, b"}"))


def _index_strings(index: pd.Index) -> pa.Array:
    """The index as arrow strings: as they are when they are strings already (no Python
    ``str`` per row), else each label's ``str``."""
    if pd.api.types.infer_dtype(index, skipna=False) == "string":  # every label a str
        return pa.array(index.to_numpy(dtype=object), pa.string())
    return pa.array(index.map(str).to_numpy(dtype=object), pa.string())


def _needs_escaping(ids: pa.Array) -> bool:
    """Whether an id holds a character JSON must escape (``"``, ``\\``, a control
    character or DEL): decided on the bytes when every id is printable ASCII, the
    common case, else by arrow's regex."""
    data = string_bytes(ids)
    if not len(data) or (int(data.min()) >= 0x20 and int(data.max()) < 0x7F):
        return bool(((data == 0x22) | (data == 0x5C)).any())
    return bool(pc.any(pc.match_substring_regex(ids, r'["\\\x00-\x1f\x7f]')).as_py())


_PARALLEL_ROWS = 10_000  # below this a thread costs more than it saves


def _column_texts(frame: pd.DataFrame) -> list[pa.Array]:
    """Each column's :func:`_float_text`, the columns of a large table on threads of their
    own (arrow's casts release the GIL)."""
    columns = [frame[column].to_numpy(np.float64) for column in frame.columns]
    if len(frame) < _PARALLEL_ROWS or len(columns) < 2:
        return [_float_text(values) for values in columns]
    with ThreadPoolExecutor(max_workers=min(len(columns), os.cpu_count() or 1)) as pool:
        return list(pool.map(_float_text, columns))


def _float_text(values: np.ndarray) -> pa.Array:
    """Shortest round-trip text of each float, integral ones with ``.0`` (still floats)."""
    text = pc.cast(pa.array(values), pa.string())
    fractional = pc.or_(pc.match_substring(text, "."), pc.match_substring(text, "e"))
    integral = pc.invert(pc.or_(fractional, pc.match_substring(text, "E")))
    return pc.if_else(integral, pc.binary_join_element_wise(text, ".0", ""), text)


def _frame_json_orjson(frame: pd.DataFrame) -> bytes:
    columns = [str(c) for c in frame.columns]
    rows = frame.to_numpy().tolist()
    table = dict(
        zip(map(str, frame.index), (dict(zip(columns, r, strict=True)) for r in rows), strict=True)
    )
    return orjson.dumps(table)
