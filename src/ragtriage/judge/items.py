"""Load answers to judge (the answers file of docs/judges.md; extra fields, e.g. a human
label, are ignored), and fence their contexts as data for a prompt. Every problem is an
InputError naming file, line and field.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, model_validator

from ragtriage.data.containers import unique_records
from ragtriage.data.rows import Name, Row, Text, fail, validated
from ragtriage.judge.types import ContextChunk, JudgeItem

__all__ = [
    "AnswerRow",
    "coerce_items",
    "fence_answer",
    "fence_contexts",
    "fit_contexts",
    "item_from_record",
    "load_answers",
]


class _Chunk(Row):
    id: Name
    text: Text


def _contexts(value: Any) -> list[Any]:
    """A list of contexts, each an ``{id, text}`` object; a bare string gets the id
    ``c<index>``."""
    if not isinstance(value, list):
        fail(f"expected list, got {type(value).__name__}")
    out = []
    for i, entry in enumerate(value):
        if not isinstance(entry, str | dict):
            kind = type(entry).__name__
            fail(f"expected a string or an {{id, text}} object, got {kind}", f"contexts[{i}]")
        out.append({"id": f"c{i}", "text": entry} if isinstance(entry, str) else entry)
    return out


class AnswerRow(Row):
    """One record of an answers file (module docstring), checked field by field in order."""

    id: Name
    question: Text
    contexts: Annotated[list[_Chunk], BeforeValidator(_contexts)]
    answer: Text

    @model_validator(mode="after")
    def _unique(self) -> AnswerRow:
        ids = [c.id for c in self.contexts]
        if len(set(ids)) != len(ids):
            fail("context ids must be unique", "contexts")
        return self

    def item(self) -> JudgeItem:
        contexts = tuple(ContextChunk(id=c.id, text=c.text) for c in self.contexts)
        return JudgeItem(id=self.id, question=self.question, contexts=contexts, answer=self.answer)


def item_from_record(obj: Mapping[str, Any], path: Path, line: int) -> JudgeItem:
    """One validated item from one parsed record."""
    return validated(AnswerRow, dict(obj), path, line).item()


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
    for line, item in enumerate(items, start=1):
        yield item if isinstance(item, JudgeItem) else item_from_record(item, Path("<items>"), line)


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
    return "\n".join(
        f'<chunk id="{c.id}">\n{c.text.replace("</chunk>", "</ chunk>")}\n</chunk>' for c in chunks
    )


def fence_answer(answer: str) -> str:
    return "<answer>\n" + answer.replace("</answer>", "</ answer>") + "\n</answer>"
