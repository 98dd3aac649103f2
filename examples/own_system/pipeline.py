"""A RAG system of your own, as ragtriage calls it: a retriever and a generator.

This one needs no model and no index: a small BM25 over ``corpus.jsonl`` and an
extractive generator that answers with the context sentence closest to the question (or
says the documents do not say). Swap the bodies for your vector store and your LLM call;
the two signatures are all ragtriage needs:

    ragtriage audit --golden examples/own_system \\
        --retriever pipeline:search --generator pipeline:answer --judge lexical

(run with ``examples/own_system`` on ``PYTHONPATH``, so ``pipeline`` imports).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).with_name("corpus.jsonl")
STOPWORDS = frozenset(
    "a an and are at be by can do does for from how i in is it my of on or the to what "
    "where which who why with you your".split()
)
MIN_SHARED_WORDS = 2  # fewer question words in any sentence: say the documents do not say
ABSTAIN = "The documents do not say."


def words(text: str) -> list[str]:
    """Lower-cased content words (digits kept: prices and ages matter here)."""
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS]


@cache
def _index() -> tuple[list[dict], list[Counter[str]], dict[str, float], float]:
    """Documents, their term counts, each term's IDF and the mean length (built once)."""
    docs = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    counts = [Counter(words(f"{d['title']} {d['text']}")) for d in docs]
    n = len(docs)
    df = Counter(term for c in counts for term in c)
    idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
    mean_len = sum(sum(c.values()) for c in counts) / n
    return docs, counts, idf, mean_len


def search(query: str, k: int) -> list[dict]:
    """The top ``k`` documents by BM25 (k1 1.2, b 0.75), best first: ``{id, score, text}``
    (ids alone, or ``(id, score)`` pairs, would do too)."""
    docs, counts, idf, mean_len = _index()
    terms = words(query)
    scored = []
    for doc, tf in zip(docs, counts, strict=True):
        length = sum(tf.values())
        score = sum(
            idf.get(t, 0.0) * tf[t] * 2.2 / (tf[t] + 1.2 * (0.25 + 0.75 * length / mean_len))
            for t in terms
        )
        if score > 0:
            scored.append({"id": doc["id"], "score": score, "text": doc["text"]})
    return sorted(scored, key=lambda h: (-h["score"], h["id"]))[:k]


def answer(query: str, chunks: list[Any]) -> str:
    """The context sentence sharing most words with the question, or an abstention.

    ``chunks`` are the top ``--context-k`` hits, each with ``.id`` and ``.text``."""
    wanted = set(words(query))
    best, shared = ABSTAIN, MIN_SHARED_WORDS - 1
    for chunk in chunks:
        for sentence in re.split(r"(?<=[.!?])\s+", chunk.text):
            overlap = len(wanted & set(words(sentence)))
            if overlap > shared:
                best, shared = sentence, overlap
    return best
