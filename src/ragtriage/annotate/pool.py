"""Candidate chunks for a query, pooled as TREC pools them, and a keyword search.

Labels judged only on the system under test's own results are biased toward it: a chunk
it never retrieves can never become relevant. So a query's candidates are the union of
the embedded BM25's top ``depth`` over the whole corpus (``retrieval.retrievers``, the
same bm25s settings as the demo retriever), the user's run's top ``depth`` when one is
given, and whatever the person finds with the free keyword search. The lists are
interleaved (first of each, then second of each, ...) without saying which system found
what, so the person judges the chunk, not the system.

The keyword search is a case-insensitive substring match of every term (a quoted phrase
is one term) over the whole corpus: an exact product code or error number that BM25's
tokenizer splits or drops is still found. Matches are ranked by how often the terms
occur; the corpus is lower-cased once at load.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

import numpy as np

from ragtriage.data.models import Chunk
from ragtriage.data.tables import Run
from ragtriage.retrieval.retrievers import BM25Retriever

__all__ = ["Corpus", "SearchResult", "interleave", "run_lists", "search_terms"]

DEPTH = 10  # candidates from each pooled system
SEARCH_LIMIT = 20  # keyword matches shown
_SCAN_LIMIT = 5000  # matches counted before ranking stops scanning (a term in every chunk)


@dataclass(frozen=True)
class SearchResult:
    ids: list[str]
    total: int  # matches in the corpus (at least this many when ``capped``)
    capped: bool


class Corpus:
    """The corpus as the pages use it: chunks by id and position, BM25, keyword search.

    For the search, every passage is case-folded once and joined into one string
    (``\\x00`` between passages, a character no search term holds), so finding a term is
    ``str.find`` over one buffer in C, not a Python loop over 100,000 strings; after each
    hit the scan jumps to the next passage, so a term in every passage costs one step
    per passage, up to ``_SCAN_LIMIT``.
    """

    def __init__(self, chunks: dict[str, Chunk]) -> None:
        self.chunks = chunks
        self.ids = list(chunks)
        lowered = [c.passage.casefold().replace("\x00", " ") for c in chunks.values()]
        lengths = np.fromiter((len(t) + 1 for t in lowered), np.int64, len(lowered))
        self._starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        self._text = "\x00".join(lowered)
        self._bm25: BM25Retriever | None = None

    def bm25(self) -> BM25Retriever:
        """Built on first use (indexing 100k chunks takes seconds; grading needs none)."""
        if self._bm25 is None:
            self._bm25 = BM25Retriever(self.chunks)
        return self._bm25

    def bm25_ids(self, query: str, depth: int = DEPTH) -> list[str]:
        return [hit.id for hit in self.bm25()(query, depth)]

    def passage(self, index: int) -> str:
        """The case-folded passage at ``index``, as the search sees it."""
        end = self._starts[index + 1] - 1 if index + 1 < len(self._starts) else len(self._text)
        return self._text[self._starts[index] : end]

    def search(self, text: str, limit: int = SEARCH_LIMIT) -> SearchResult:
        terms = search_terms(text)
        if not terms:
            return SearchResult([], 0, False)
        found, capped = self._containing(terms[0])
        rest = terms[1:]
        matches = [i for i in found if all(t in self.passage(i) for t in rest)]
        counts = np.array([sum(self.passage(i).count(t) for t in terms) for i in matches], int)
        order = np.argsort(-counts, kind="stable")[:limit]
        return SearchResult([self.ids[matches[int(k)]] for k in order], len(matches), capped)

    def _containing(self, term: str) -> tuple[list[int], bool]:
        """Passages holding ``term``, in corpus order, at most ``_SCAN_LIMIT`` (and whether
        the scan stopped there)."""
        out: list[int] = []
        starts, text = self._starts, self._text
        at = text.find(term)
        while at != -1:
            index = int(np.searchsorted(starts, at, side="right")) - 1
            if len(out) == _SCAN_LIMIT:
                return out, True  # one more passage holds it: the count is a floor
            out.append(index)
            if index + 1 == len(starts):
                break
            at = text.find(term, int(starts[index + 1]))
        return out, False


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
