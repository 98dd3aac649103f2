"""Sentence-level alignment: each answer sentence against its best evidence, model-free.

As SummaC and AlignScore do, every answer sentence is aligned with its best supporting
context and the answer is as good as its weakest sentence (one unsupported sentence makes
it unfaithful), with word overlap instead of an NLI model, so it runs on every result
for free. A sentence's **evidence pool** is the passages it cites (``[2]``: the second
passage, the convention of ExpertQA, Perplexity-style answers and most RAG prompts) when
it cites any that exist, else the whole context; the pool is cut into **windows** (one
sentence and two adjacent ones, so a fact spread over a boundary is still found) ranked by
BM25; its **alignment** is the share of its content words (light-stemmed) in the best
window. The same evidence feeds :mod:`ragtriage.judge.facts` and the windows the embedded
model is shown (:func:`evidence_for`).
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ragtriage.judge.lexical import CITATION, content_words, split_sentences
from ragtriage.judge.types import ContextChunk

__all__ = [
    "SentenceEvidence",
    "align_answer",
    "citation_markers",
    "cited_passages",
    "evidence_for",
    "stem",
    "stems",
    "window_terms",
]

_SUFFIXES = ("ing", "edly", "ed", "es", "s", "ly")


def stem(word: str) -> str:
    """A light suffix strip (``supported`` ~ ``support``): enough for overlap, and
    deterministic; a real stemmer would add a dependency for little gain here."""
    if word[:1].isdigit():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def stems(text: str) -> list[str]:
    return [stem(w) for w in content_words(text)]


def citation_markers(sentence: str) -> list[int]:
    """1-based passage numbers a sentence cites with ``[k]``/``[k, m]``/``[k-m]`` markers,
    as written (past the last passage included); a range counts at most 51 numbers."""
    out: list[int] = []
    for marker in CITATION.findall(sentence):
        for part in re.split(r"\s*,\s*", marker.strip("[] ")):
            low, _, high = part.partition("-")
            out += range(int(low), min(int(high or low), int(low) + 50) + 1)
    return sorted(set(out))


def cited_passages(sentence: str, n_passages: int) -> list[int]:
    """0-based passage indices a sentence cites (:func:`citation_markers`), keeping only
    those that exist (a marker past the last passage cites nothing)."""
    return [k - 1 for k in citation_markers(sentence) if 1 <= k <= n_passages]


@dataclass(frozen=True)
class _Window:
    passage: int
    text: str
    terms: tuple[str, ...]


def _windows(chunks: Sequence[ContextChunk]) -> list[_Window]:
    """Single sentences and adjacent pairs of every passage."""
    return [
        _Window(index, text, terms)
        for index, chunk in enumerate(chunks)
        for text, terms in _passage_windows(chunk.text)
    ]


@functools.lru_cache(maxsize=4096)
def _passage_windows(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(text, stems)`` of one passage's windows, kept for the passages seen last: a
    conversation's history chunks come back with every later turn (issue 52 item 6)."""
    out: list[tuple[str, tuple[str, ...]]] = []
    sentences = split_sentences(text)
    for i, sentence in enumerate(sentences):
        out.append((sentence, tuple(stems(sentence))))
        if i + 1 < len(sentences):
            pair = f"{sentence} {sentences[i + 1]}"
            out.append((pair, tuple(stems(pair))))
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def window_terms(text: str) -> tuple[frozenset[str], ...]:
    """The stem sets of one passage's windows (:func:`_windows`), kept for the texts seen
    last: a conversation's history chunks are aligned with every later turn's sentences."""
    return tuple(frozenset(terms) for _, terms in _passage_windows(text))


def _bm25(query: list[str], windows: list[_Window], k1: float = 1.2, b: float = 0.75):
    """BM25 of every window for ``query`` (idf over the windows themselves)."""
    if not windows:
        return []
    df: Counter[str] = Counter()
    for w in windows:
        df.update(set(w.terms))
    n = len(windows)
    avg = sum(len(w.terms) for w in windows) / n or 1.0
    scores = []
    for w in windows:
        tf = Counter(w.terms)
        s = 0.0
        for term in set(query):
            if tf[term]:
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                s += idf * tf[term] * (k1 + 1) / (tf[term] + k1 * (1 - b + b * len(w.terms) / avg))
        scores.append(s)
    return scores


@dataclass(frozen=True)
class SentenceEvidence:
    """One answer sentence, its evidence windows (best first) and its alignment."""

    sentence: str
    cited: tuple[int, ...]
    windows: tuple[str, ...]
    pool: str
    alignment: float
    # Where the sentence's facts must be found: its cited passages, or, uncited, the
    # passages of its best windows that score at least half the best one (a year in a
    # neighbouring search result that matches little else does not support it).
    sources: str = ""


def _pool(chunks: Sequence[ContextChunk], cited: list[int]) -> list[ContextChunk]:
    return [chunks[i] for i in cited] if cited else list(chunks)


def align_sentence(
    sentence: str, chunks: Sequence[ContextChunk], top: int = 3
) -> SentenceEvidence | None:
    """The evidence of one sentence; ``None`` when it has no content words."""
    terms = stems(sentence)
    if not terms:
        return None
    cited = cited_passages(sentence, len(chunks))
    pool = _pool(chunks, cited)
    windows = _windows(pool)
    scores = _bm25(terms, windows)
    wanted = set(terms)
    alignment = max((len(wanted.intersection(w.terms)) for w in windows), default=0) / len(wanted)
    best: list[_Window] = []
    held: set[int] = set()  # passages of the windows scoring at least half the best
    top_score = max(scores, default=0.0)
    for i in sorted(range(len(windows)), key=lambda i: (-scores[i], i)):
        text = windows[i].text
        if not any(text in b.text or b.text in text for b in best):
            best.append(windows[i])
            if scores[i] >= 0.5 * top_score:
                held.add(windows[i].passage)
        if len(best) == top:
            break
    text = " ".join(c.text for c in pool)
    return SentenceEvidence(
        sentence=sentence,
        cited=tuple(cited),
        windows=tuple(w.text for w in best),
        pool=text,
        alignment=alignment,
        sources=text if cited else " ".join(pool[i].text for i in sorted(held)),
    )


def align_answer(
    sentences: Sequence[str], chunks: Sequence[ContextChunk]
) -> list[SentenceEvidence]:
    """The evidence of every sentence that has content words, in answer order."""
    out = [align_sentence(s, chunks) for s in sentences]
    return [e for e in out if e is not None]


def evidence_for(aligned: SentenceEvidence, budget: int) -> str:
    """The sentence's best windows, best first, within ``budget`` characters (at least
    the best one, cut at the budget), for the model to read instead of the whole context."""
    parts: list[str] = []
    used = 0
    for text in aligned.windows:
        if parts and used + len(text) + 5 > budget:
            break
        parts.append(text if parts or len(text) <= budget else text[:budget] + " …")
        used += len(parts[-1]) + 5
    return " … ".join(parts)
