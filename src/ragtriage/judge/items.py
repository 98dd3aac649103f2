"""Load answers to judge, and fence their contexts as data for a prompt.

The answers file is JSON or JSONL with ``id``, ``question``, ``contexts`` (strings, given
ids ``c0, c1, ...``, or ``{id, text}`` objects) and ``answer``; extra fields (e.g. a
human label) are ignored. Every problem is an InputError naming file, line and field.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ragtriage.data.containers import check_type, require, unique_records
from ragtriage.errors import InputError
from ragtriage.judge.types import ContextChunk, JudgeItem

__all__ = [
    "coerce_items",
    "fence_answer",
    "fence_contexts",
    "fit_contexts",
    "item_from_record",
    "load_answers",
]


def _chunks(value: Any, path: Path, line: int) -> tuple[ContextChunk, ...]:
    check_type(value, "contexts", list, path, line)
    chunks: list[ContextChunk] = []
    for index, entry in enumerate(value):
        field = f"contexts[{index}]"
        if isinstance(entry, str):
            chunks.append(ContextChunk(id=f"c{index}", text=entry))
        elif isinstance(entry, dict):
            cid = require(entry, "id", (str, int), path, line)
            text = require(entry, "text", str, path, line)
            chunks.append(ContextChunk(id=str(cid), text=text))
        else:
            raise InputError(
                f"expected a string or an {{id, text}} object, got {type(entry).__name__}",
                path=path,
                line=line,
                field=field,
            )
    ids = [c.id for c in chunks]
    if len(set(ids)) != len(ids):
        raise InputError("context ids must be unique", path=path, line=line, field="contexts")
    return tuple(chunks)


def item_from_record(obj: Mapping[str, Any], path: Path, line: int) -> JudgeItem:
    """One validated item from one parsed record."""
    obj = dict(obj)
    item_id = require(obj, "id", (str, int), path, line)
    return JudgeItem(
        id=str(item_id),
        question=require(obj, "question", str, path, line),
        contexts=_chunks(require(obj, "contexts", list, path, line), path, line),
        answer=require(obj, "answer", str, path, line),
    )


def load_answers(path: Path) -> list[JudgeItem]:
    """Every item of an answers file; duplicate ids are an error (results are keyed by id)."""
    return unique_records(
        path,
        lambda obj, line: item_from_record(obj, path, line),
        lambda item: item.id,
        field="id",
        duplicate=lambda k, first: f"duplicate id {k!r} (first on line {first})",
        empty="no answers in file",
    )


def coerce_items(items: Iterable[JudgeItem | Mapping[str, Any]]) -> Iterator[JudgeItem]:
    """Accept JudgeItems or plain dicts in the answers-file shape (Python API)."""
    for index, item in enumerate(items):
        if isinstance(item, JudgeItem):
            yield item
            continue
        try:
            yield item_from_record(item, Path("<items>"), index + 1)
        except ValidationError as exc:
            raise InputError(str(exc), path="<items>", line=index + 1) from None


def fit_contexts(
    chunks: tuple[ContextChunk, ...], budget: int
) -> tuple[tuple[ContextChunk, ...], bool]:
    """Truncate chunks to ``budget`` characters in total, fairly (water-filling).

    A small local model reads about a hundred tokens a second on two cores, so an
    unbounded context would dominate the run time. Short chunks keep their full text and
    leave their share to the long ones. Returns the chunks and whether any was cut.
    """
    if budget <= 0 or sum(len(c.text) for c in chunks) <= budget:
        return chunks, False
    share, remaining = {}, budget
    pending = sorted(chunks, key=lambda c: len(c.text))
    while pending:
        per = remaining // len(pending)
        chunk = pending.pop(0)
        share[chunk.id] = min(len(chunk.text), per)
        remaining -= share[chunk.id]
    cut = tuple(ContextChunk(id=c.id, text=_cut(c.text, share[c.id])) for c in chunks)
    return cut, True


def _cut(text: str, size: int) -> str:
    return text if size >= len(text) else text[:size].rstrip() + " …"


def fence_contexts(chunks: Iterable[ContextChunk]) -> str:
    """Chunks as fenced data blocks with their ids, so instructions inside are not obeyed."""
    blocks = []
    for chunk in chunks:
        text = chunk.text.replace("</chunk>", "</ chunk>")
        blocks.append(f'<chunk id="{chunk.id}">\n{text}\n</chunk>')
    return "\n".join(blocks)


def fence_answer(answer: str) -> str:
    return "<answer>\n" + answer.replace("</answer>", "</ answer>") + "\n</answer>"
