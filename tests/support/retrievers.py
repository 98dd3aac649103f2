"""Retrievers for the lifecycle tests: exact BM25, an "approximate" one that misses chunks,
and a non-deterministic one (``module:function`` callables, as users plug them in)."""

from __future__ import annotations

import functools
import random

from ragtriage.data.golden import load_golden
from ragtriage.retrieval.retrievers import BM25Retriever, Hit
from tests.conftest import ROOT

HANDBOOK = ROOT / "golden_sets/handbook"
MISSED = {"raid-setup", "warranty"}  # chunks the "ANN index" never returns
_rng = random.Random(0)


@functools.cache
def _bm25(skip: frozenset[str] = frozenset()) -> BM25Retriever:
    corpus = load_golden(HANDBOOK).corpus
    return BM25Retriever({k: v for k, v in corpus.items() if k not in skip})


def exact(query: str, k: int) -> list[Hit]:
    return _bm25()(query, k)


def approximate(query: str, k: int) -> list[Hit]:
    return _bm25(frozenset(MISSED))(query, k)


def flaky(query: str, k: int) -> list[Hit]:
    """Exact results, but on about half the calls ranks 1 and 2 swap places."""
    hits = exact(query, k)
    if len(hits) > 1 and _rng.random() < 0.5:
        first, second = hits[0], hits[1]
        hits = [Hit(second.id, first.score), Hit(first.id, second.score), *hits[2:]]
    return hits
