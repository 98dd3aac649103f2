"""Evidence selection: fit a long context into a small model's reading budget.

On two CPU cores the embedded 1.5B model reads roughly 20-40 prompt tokens a second, so
an ExpertQA-sized context (3,300 characters median, 17,000 at most) would dominate the
run time. Rather than cutting every chunk at its start, we keep the context sentences
that share the most content words with the answer (as a retriever would), in their
original order and under their chunk ids, until ``budget`` characters are used. Short
contexts pass through untouched.
"""

from __future__ import annotations

from ragtriage.judge.lexical import content_words, split_sentences
from ragtriage.judge.types import ContextChunk

__all__ = ["select_evidence"]


def select_evidence(
    chunks: tuple[ContextChunk, ...], answer: str, budget: int
) -> tuple[tuple[ContextChunk, ...], bool]:
    """``(chunks, truncated)``: the most answer-relevant sentences within ``budget`` chars."""
    if budget <= 0 or sum(len(c.text) for c in chunks) <= budget:
        return chunks, False
    wanted = set(content_words(answer))
    units = [
        (ci, si, sentence)
        for ci, chunk in enumerate(chunks)
        for si, sentence in enumerate(split_sentences(chunk.text))
    ]
    ranked = sorted(
        range(len(units)),
        key=lambda u: (-len(wanted.intersection(content_words(units[u][2]))), u),
    )
    keep, used = set(), 0
    for u in ranked:
        size = len(units[u][2]) + 1
        if used + size <= budget:
            keep.add(u)
            used += size
    selected: list[ContextChunk] = []
    for ci, chunk in enumerate(chunks):
        parts = [units[u][2] for u in sorted(keep) if units[u][0] == ci]
        if parts:
            selected.append(ContextChunk(id=chunk.id, text=" … ".join(parts)))
    return tuple(selected), True
