"""Candidate chunks for a query, pooled as TREC pools them, and a keyword search.

Labels judged only on the system under test's own results are biased toward it: a chunk
it never retrieves can never become relevant. So the candidates are the union of the
embedded BM25's top ``depth`` over the whole corpus (the demo retriever's settings), the
user's run's top ``depth`` when given, and what the person finds with the keyword search
(:mod:`.search`), interleaved without saying which system found what, so the person
judges the chunk, not the system.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

import numpy as np

from ragtriage.annotate.search import WordIndex
from ragtriage.data.models import Chunk
from ragtriage.data.tables import Run
from ragtriage.retrieval.retrievers import BM25Retriever

__all__ = ["Corpus", "SearchResult", "interleave", "run_lists", "search_terms"]

DEPTH = 10  # candidates from each pooled system
SEARCH_LIMIT = 20  # keyword matches shown
_SCAN_LIMIT = 5000  # matches ranked (a term in every chunk), and substring checks kept


@dataclass(frozen=True)
class SearchResult:
    ids: list[str]
    total: int  # matches in the corpus (at least this many when ``capped``)
    capped: bool


class Corpus:
    """The corpus as the pages use it: chunks by id and position, BM25, keyword search
    (:class:`ragtriage.annotate.search.WordIndex`, built once)."""

    def __init__(self, chunks: dict[str, Chunk]) -> None:
        self.chunks = chunks
        self.ids = list(chunks)
        self.words = WordIndex([c.passage.casefold().replace("\x00", " ") for c in chunks.values()])
        self._bm25: BM25Retriever | None = None

    def bm25(self) -> BM25Retriever:
        """Built on first use (indexing 100k chunks takes seconds; grading needs none)."""
        if self._bm25 is None:
            self._bm25 = BM25Retriever(self.chunks)
        return self._bm25

    def bm25_ids(self, query: str, depth: int = DEPTH) -> list[str]:
        return [hit.id for hit in self.bm25()(query, depth)]

    def search(self, text: str, limit: int = SEARCH_LIMIT) -> SearchResult:
        terms = search_terms(text)
        if not terms:
            return SearchResult([], 0, False)
        found, capped = self.words.matching(terms, _SCAN_LIMIT)
        ranked = found[:_SCAN_LIMIT]  # ranking counts occurrences in the first ones only
        texts = self.words.passages
        bare = [t.rstrip("*") for t in terms]
        counts = np.array([sum(texts[i].count(t) for t in bare) for i in ranked.tolist()], int)
        order = np.argsort(-counts, kind="stable")[:limit]
        return SearchResult([self.ids[int(ranked[k])] for k in order], len(found), capped)


def search_terms(text: str) -> list[str]:
    """Case-folded terms of a search: words, or a quoted phrase as one term; the longest
    first (the rarest, usually, so the first scan leaves the fewest chunks)."""
    try:
        parts = shlex.split(text)
    except ValueError:  # an unbalanced quote: take the words as they are
        parts = text.replace('"', " ").split()
    terms = {re.sub(r"\s+", " ", p).strip().casefold() for p in parts}
    return sorted((t for t in terms if t), key=lambda t: (-len(t), t))


def run_lists(run: Run, query_ids: set[str], depth: int = DEPTH) -> dict[str, list[str]]:
    """The run's top ``depth`` chunk ids (score descending, ties by id) for each query in
    ``query_ids``; queries the run does not answer are absent."""
    wanted = {code: qid for code, qid in enumerate(run.query_ids) if str(qid) in query_ids}
    out: dict[str, list[str]] = {}
    codes, starts, lengths = run.query_runs()
    rows_by_code: dict[int, list[np.ndarray]] = {}
    for code, start, length in zip(codes, starts, lengths, strict=True):
        if int(code) in wanted:
            rows_by_code.setdefault(int(code), []).append(np.arange(start, start + length))
    for code, parts in rows_by_code.items():
        rows = np.concatenate(parts)
        docs = run.doc_strings(rows)
        scores = run.score[rows]
        ranked = sorted(range(len(docs)), key=lambda i: (-scores[i], docs[i]))
        out[str(wanted[code])] = list(dict.fromkeys(docs[i] for i in ranked))[:depth]
    return out


def interleave(*lists: list[str]) -> list[str]:
    """First of each list, then second of each, ...; each id once."""
    out: dict[str, None] = {}
    for rank in range(max((len(x) for x in lists), default=0)):
        for ids in lists:
            if rank < len(ids):
                out.setdefault(ids[rank], None)
    return list(out)
