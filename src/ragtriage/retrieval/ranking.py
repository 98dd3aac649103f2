"""Turn a run and qrels into ranked label matrices: the one input every metric reads.

trec_eval's semantics, vectorised: within each query, results are ordered by score
descending and ties broken by doc id descending; scores compare at float32 precision
(trec_eval 9.0.8 stores them as ``float``) unless ``precision="float64"``. Each batch is a
``[queries, depth]`` matrix sorted row-wise with numpy, so a hundred million rows cost
one row-wise argsort and no Python object per row. Queries are batched by result-list
length so that one long list does not pad every other row.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from ragtriage.data.tables import Qrels, Run
from ragtriage.errors import InputError

Precision = Literal["float32", "float64"]
DuplicatePolicy = Literal["max", "error"]
PAD = -1
BATCH_CELLS = 1 << 24


@dataclass(frozen=True)
class RankedBatch:
    """Judged labels in rank order for a batch of queries.

    ``labels[i, r]`` is the label of the result at rank ``r + 1`` of query ``queries[i]``;
    ``-1`` stands for an unjudged result and for ranks past the end of the list.
    ``ideal`` holds each query's positive labels sorted descending (0-padded).
    """

    queries: np.ndarray
    labels: np.ndarray
    scores: np.ndarray
    docs: np.ndarray
    num_rel: np.ndarray
    ideal: np.ndarray
    level: int

    def relevant(self) -> np.ndarray:
        return self.labels >= self.level


@dataclass(frozen=True)
class RankingStats:
    """What the join of run and qrels found, for warnings and the report."""

    missing_queries: list[str]
    unknown_queries: int
    duplicates: int


def score_keys(score: np.ndarray, precision: Precision) -> np.ndarray:
    """uint32 keys that order like the scores (at the chosen precision)."""
    if precision == "float32":
        # + 0.0 turns -0.0 into 0.0: trec_eval compares them equal (a tie, not an order)
        bits = (score.astype(np.float32) + np.float32(0.0)).view(np.uint32)
        negative = (bits & np.uint32(0x80000000)) != 0
        return np.where(negative, ~bits, bits | np.uint32(0x80000000)).astype(np.uint32)
    _, inverse = np.unique(score, return_inverse=True)
    return (inverse.astype(np.uint64) + 1).astype(np.uint32)


def _row_labels(run: Run, qrels: Qrels, golden_code: np.ndarray) -> np.ndarray:
    """Label of each run row (``-1`` when unjudged), by a sorted-key join on codes."""
    n_docs = np.int64(len(run.doc_ids) + 1)
    qrels_doc = pd.Index(run.doc_ids).get_indexer(qrels.doc) if len(run.doc_ids) else None
    if qrels_doc is None or len(qrels.label) == 0:
        return np.full(len(run), PAD, np.int64)
    keep = qrels_doc >= 0
    if not keep.any():
        return np.full(len(run), PAD, np.int64)
    keys = qrels.query[keep].astype(np.int64) * n_docs + qrels_doc[keep]
    order = np.argsort(keys)
    keys, labels = keys[order], qrels.label[keep][order]
    row_keys = golden_code.astype(np.int64) * n_docs + run.doc
    pos = np.searchsorted(keys, row_keys).clip(max=max(len(keys) - 1, 0))
    hit = (golden_code >= 0) & (keys[pos] == row_keys) if len(keys) else np.zeros(len(run), bool)
    return np.where(hit, labels[pos], PAD)


def _ideal_matrix(qrels: Qrels, queries: np.ndarray) -> np.ndarray:
    positive = qrels.label > 0
    q, lab = qrels.query[positive], qrels.label[positive]
    order = np.lexsort((-lab, q))
    q, lab = q[order], lab[order]
    starts = np.searchsorted(q, queries)
    counts = np.searchsorted(q, queries, side="right") - starts
    width = max(int(counts.max(initial=0)), 1)
    ideal = np.zeros((len(queries), width), np.int64)
    rows = np.repeat(np.arange(len(queries)), counts)
    cols = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    ideal[rows, cols] = lab[np.repeat(starts, counts) + cols]
    return ideal


def rank(
    run: Run,
    qrels: Qrels,
    *,
    level: int = 1,
    precision: Precision = "float32",
    duplicates: DuplicatePolicy = "max",
    batch_cells: int = BATCH_CELLS,
) -> tuple[list[RankedBatch], RankingStats]:
    """Ranked label batches for every query in ``qrels`` (missing queries get empty rows)."""
    to_golden = pd.Index(qrels.query_ids).get_indexer(run.query_ids) if len(run) else None
    golden_code = to_golden[run.query] if to_golden is not None else np.zeros(0, np.int64)
    unknown = int((to_golden < 0).sum()) if to_golden is not None else 0
    labels = _row_labels(run, qrels, golden_code)
    keys = (score_keys(run.score, precision).astype(np.uint64) << np.uint64(32)) | run.doc.astype(
        np.uint64
    )
    order, starts, counts = _group(golden_code, len(qrels.query_ids))
    num_rel = np.bincount(qrels.query[qrels.label >= level], minlength=len(qrels.query_ids)).astype(
        np.int64
    )
    batches: list[RankedBatch] = []
    dup_total = 0
    for queries in _batches(counts, batch_cells):
        batch, dups = _build_batch(
            queries, order, starts, counts, keys, labels, run, qrels, num_rel, level, duplicates
        )
        batches.append(batch)
        dup_total += dups
    missing = qrels.query_ids[counts == 0].tolist()
    return batches, RankingStats(missing, unknown, dup_total)


def _group(golden_code: np.ndarray, n_queries: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A row order grouping rows by query (identity if already grouped), with offsets."""
    counts = np.bincount(golden_code[golden_code >= 0], minlength=n_queries)
    if len(golden_code) and (golden_code >= 0).all() and _is_grouped(golden_code, counts):
        order = np.arange(len(golden_code))
        starts = np.zeros(n_queries, np.int64)
        first = np.flatnonzero(np.r_[True, golden_code[1:] != golden_code[:-1]])
        starts[golden_code[first]] = first
        return order, starts, counts
    valid = np.flatnonzero(golden_code >= 0)
    order = valid[np.argsort(golden_code[valid], kind="stable")]
    starts = np.cumsum(counts) - counts
    return order, starts, counts


def _is_grouped(code: np.ndarray, counts: np.ndarray) -> bool:
    changes = int(np.count_nonzero(code[1:] != code[:-1]))
    return changes == int(np.count_nonzero(counts)) - 1


def _batches(counts: np.ndarray, batch_cells: int) -> Iterator[np.ndarray]:
    """Query indices in batches of similar list length, each about ``batch_cells`` cells."""
    width = np.maximum(counts, 1)
    bucket = np.ceil(np.log2(width)).astype(np.int64)
    for b in np.unique(bucket):
        members = np.flatnonzero(bucket == b)
        per_batch = max(batch_cells // int(width[members].max()), 1)
        for i in range(0, len(members), per_batch):
            yield members[i : i + per_batch]


def _build_batch(
    queries: np.ndarray,
    order: np.ndarray,
    starts: np.ndarray,
    counts: np.ndarray,
    keys: np.ndarray,
    labels: np.ndarray,
    run: Run,
    qrels: Qrels,
    num_rel: np.ndarray,
    level: int,
    duplicates: DuplicatePolicy,
) -> tuple[RankedBatch, int]:
    n = counts[queries]
    depth = max(int(n.max(initial=0)), 1)
    rows = np.repeat(np.arange(len(queries)), n)
    cols = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
    src = order[np.repeat(starts[queries], n) + cols]
    key_m = np.zeros((len(queries), depth), np.uint64)
    key_m[rows, cols] = keys[src]
    src_m = np.full((len(queries), depth), -1, np.int64)
    src_m[rows, cols] = src
    ranked = np.take_along_axis(src_m, np.argsort(~key_m, axis=1), axis=1)
    ranked, dups = _drop_duplicates(ranked, run, queries, qrels, duplicates)
    valid = ranked >= 0
    safe = np.where(valid, ranked, 0)
    batch = RankedBatch(
        queries=queries,
        labels=np.where(valid, labels[safe], PAD),
        scores=np.where(valid, run.score[safe] if len(run) else 0.0, np.nan),
        docs=np.where(valid, run.doc[safe] if len(run) else 0, -1),
        num_rel=num_rel[queries],
        ideal=_ideal_matrix(qrels, queries),
        level=level,
    )
    return batch, dups


def _drop_duplicates(
    ranked: np.ndarray, run: Run, queries: np.ndarray, qrels: Qrels, policy: DuplicatePolicy
) -> tuple[np.ndarray, int]:
    """Keep the best-ranked copy of a doc listed twice for one query; count the rest."""
    if not len(run):
        return ranked, 0
    docs = np.where(ranked >= 0, run.doc[np.where(ranked >= 0, ranked, 0)], -1)
    by_doc = np.argsort(docs, axis=1, kind="stable")
    sorted_docs = np.take_along_axis(docs, by_doc, axis=1)
    dup_sorted = np.zeros_like(sorted_docs, bool)
    dup_sorted[:, 1:] = (sorted_docs[:, 1:] == sorted_docs[:, :-1]) & (sorted_docs[:, 1:] >= 0)
    count = int(dup_sorted.sum())
    if count == 0:
        return ranked, 0
    if policy == "error":
        row, col = np.argwhere(dup_sorted)[0]
        doc = run.doc_ids[sorted_docs[row, col]]
        raise InputError(
            f"doc {doc!r} is listed more than once for query "
            f"{qrels.query_ids[queries[row]]!r} (use duplicates='max' to keep the best score)",
            path=run.source or None,
        )
    dup = np.zeros_like(dup_sorted)
    np.put_along_axis(dup, by_doc, dup_sorted, axis=1)
    keep_first = np.argsort(dup, axis=1, kind="stable")
    compacted = np.take_along_axis(np.where(dup, -1, ranked), keep_first, axis=1)
    return compacted, count
