"""The lexical judge: word overlap between answer and context, no model at all.

A real baseline, not a toy: the share of the answer's content words (lower-cased,
stopwords and citation markers such as ``[1]`` removed) that occur in the context. Every
judge result carries it, so calibration can always ask whether a model beats it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "CITATION",
    "STOPWORDS",
    "content_words",
    "lexical_support",
    "sentence_support",
    "split_sentences",
]

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers herself him himself his how
    i if in into is it its itself just me more most my myself no nor not now of off on
    once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves may might must shall one""".split()
)
CITATION = re.compile(r"\[\s*\d+(?:\s*[,-]\s*\d+)*\s*\]")  # [1], [1, 3], [2-4]
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
# A period after these ends an abbreviation, not a sentence: "Dr. Monica Quartermaine",
# "Robert S.P. Beekes" (a single capital is an initial). Not "No.": it is also an answer.
_ABBREVIATIONS = frozenset(
    """dr mr mrs ms st jr sr prof gen lt col capt sgt rev hon gov sen rep mt vol fig vs
    etc inc ltd co corp dept univ approx est""".split()
)
_LAST_WORD = re.compile(r"(?:^|[\s(\"'.])([A-Za-z]{1,5})\.$")


def content_words(text: str) -> list[str]:
    """Lower-cased words of ``text`` without stopwords and citation markers."""
    text = CITATION.sub(" ", text).lower()
    return [w for w in _WORD.findall(text) if w not in STOPWORDS]


def split_sentences(text: str) -> list[str]:
    """Deterministic sentence split: punctuation followed by a capital or digit, except
    after an abbreviation or an initial (:func:`_abbreviated`)."""
    parts = (p.strip() for block in text.splitlines() for p in _split_block(block))
    return [p for p in parts if p]


def _split_block(block: str) -> list[str]:
    out, start = [], 0
    for gap in _SENTENCE.finditer(block):
        if not _abbreviated(block[start : gap.start()]):
            out.append(block[start : gap.start()])
            start = gap.end()
    return [*out, block[start:]]


def _abbreviated(head: str) -> bool:
    """``head`` ends with an initial ("S.P.", "U.S.") or a listed abbreviation ("Dr.")."""
    last = _LAST_WORD.search(head)
    if last is None:
        return False
    word = last.group(1)
    return (len(word) == 1 and word.isupper()) or word.lower() in _ABBREVIATIONS


def lexical_support(answer: str, contexts: Sequence[str]) -> float | None:
    """Share of the answer's content words found in the context; ``None`` if it has none."""
    words = content_words(answer)
    if not words:
        return None
    vocabulary = set(content_words(" ".join(contexts)))
    return sum(w in vocabulary for w in words) / len(words)


def sentence_support(answer: str, contexts: Sequence[str]) -> list[tuple[str, float | None]]:
    """``(sentence, lexical support)`` for each sentence of the answer."""
    vocabulary = set(content_words(" ".join(contexts)))
    out: list[tuple[str, float | None]] = []
    for sentence in split_sentences(answer):
        words = content_words(sentence)
        out.append((sentence, sum(w in vocabulary for w in words) / len(words) if words else None))
    return out
