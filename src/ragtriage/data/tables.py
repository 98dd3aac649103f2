"""Columnar qrels and runs: integer codes and arrays, never one Python object per pair.

A run of a million queries holds a hundred million (query, doc, score) rows; the
evaluator only ever sees these arrays. Doc codes are *order-preserving* (code order is
the doc ids' string order), which is what trec_eval's tie-break on doc id needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def encode(values: pa.Array | pa.ChunkedArray | Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, uniques)`` with ``uniques`` sorted ascending and ``uniques[codes] == values``.

    Sorting the dictionary (not the rows) keeps this linear in the number of rows.
    Python string order is code-point order, which equals strcmp's byte order on UTF-8:
    the order trec_eval breaks ties in.
    """
    array = (
        values if isinstance(values, pa.Array | pa.ChunkedArray) else pa.array(values, pa.string())
    )
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if len(array) == 0:
        return np.zeros(0, np.int32), np.zeros(0, object)
    encoded = pc.dictionary_encode(array)
    dictionary = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
    order = np.argsort(dictionary, kind="stable")
    remap = np.empty(len(order), np.int32)
    remap[order] = np.arange(len(order), dtype=np.int32)
    codes = remap[encoded.indices.to_numpy(zero_copy_only=False)]
    return codes, dictionary[order]


@dataclass(frozen=True)
class Qrels:
    """Relevance judgements of a set of queries.

    ``query_ids`` is the universe of queries being evaluated, *including* queries with no
    judged-relevant document (unanswerable ones). ``query`` indexes into it.
    """

    query_ids: np.ndarray
    query: np.ndarray
    doc: np.ndarray
    label: np.ndarray
    source: str = ""

    @classmethod
    def from_pairs(
        cls,
        query_ids: Iterable[str],
        judgements: Iterable[tuple[str, str, int]],
        source: str = "",
    ) -> Qrels:
        """Build from ``(query_id, doc_id, label)`` triples over a given query universe."""
        ids = np.asarray(list(dict.fromkeys(query_ids)), dtype=object)
        index = {qid: i for i, qid in enumerate(ids)}
        rows = list(judgements)
        query = np.fromiter((index[q] for q, _, _ in rows), np.int64, len(rows))
        doc = np.asarray([d for _, d, _ in rows], dtype=object)
        label = np.fromiter((lab for _, _, lab in rows), np.int64, len(rows))
        return cls(ids, query, doc, label, source)

    def __len__(self) -> int:
        return len(self.query_ids)


@dataclass(frozen=True)
class Run:
    """A retriever's ranked output: one row per (query, doc) with its score.

    ``doc_ids`` is sorted, so ``doc`` codes compare like the doc id strings.
    """

    query_ids: np.ndarray
    doc_ids: np.ndarray
    query: np.ndarray
    doc: np.ndarray
    score: np.ndarray
    source: str = ""

    @classmethod
    def from_columns(
        cls,
        queries: pa.Array | Sequence[str],
        docs: pa.Array | Sequence[str],
        scores: np.ndarray | Sequence[float],
        source: str = "",
    ) -> Run:
        query, query_ids = encode(queries)
        doc, doc_ids = encode(docs)
        score = np.asarray(scores, dtype=np.float64)
        return cls(query_ids, doc_ids, query, doc, score, source)

    def __len__(self) -> int:
        return len(self.score)
