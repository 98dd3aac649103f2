"""overlap@k of an approximate-nearest-neighbour run against an exact-search run.

For each query, the share of the exact search's top k that the ANN run also returned in
its top k ("recall@k" in ANN benchmarks, not the golden-set recall):

    overlap@k = |ANN_k ∩ Exact_k| / |Exact_k|     (|Exact_k| = k unless the list is shorter)

It needs no relevance judgements (why it helps: docs/retrieval.md, 'ANN against exact
search'). Both runs are ranked with the same trec_eval order (score desc, doc id desc).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ragtriage.data.tables import Qrels, Run
from ragtriage.retrieval.models import OverlapSection, QueryOverlap
from ragtriage.retrieval.ranking import PAD, JudgedQrels, RankedBatch, rank

__all__ = [
    "LOWEST",
    "ROWS_PER_CHUNK",
    "UNKNOWN",
    "compare_runs",
    "cutoffs",
    "overlap_at",
    "top_matrix",
]

UNKNOWN = -2  # a reference doc the main run never returned: counts, never matches
ROWS_PER_CHUNK = 4096
LOWEST = 10


def cutoffs(metric_names: list[str]) -> list[int]:
    """The cutoffs of the report's metrics (``ndcg@10`` -> 10), else 1, 3, 5, 10."""
    ks = {int(m.group(1)) for name in metric_names if (m := re.search(r"@(\d+)$", name))}
    return sorted(ks) or [1, 3, 5, 10]


def top_matrix(batches: list[RankedBatch], n_queries: int, depth: int) -> np.ndarray:
    """``[query code, rank]`` doc codes of the top ``depth`` (PAD past the end)."""
    out = np.full((n_queries, depth), PAD, np.int64)
    for batch in batches:
        width = min(depth, batch.docs.shape[1])
        out[batch.queries, :width] = batch.docs[:, :width]
    return out


def overlap_at(main: np.ndarray, reference: np.ndarray, k: int) -> np.ndarray:
    """Per-row overlap@k of two top matrices in the same doc-code space (NaN: empty ref)."""
    out = np.empty(len(main))
    for start in range(0, len(main), ROWS_PER_CHUNK):
        a = main[start : start + ROWS_PER_CHUNK, :k]
        b = reference[start : start + ROWS_PER_CHUNK, :k]
        shared = ((a[:, :, None] == b[:, None, :]) & (a[:, :, None] >= 0)).any(axis=2).sum(axis=1)
        size = (b != PAD).sum(axis=1)
        out[start : start + ROWS_PER_CHUNK] = np.where(
            size > 0, shared / np.maximum(size, 1), np.nan
        )
    return out


def compare_runs(
    batches: list[RankedBatch],
    qrels: Qrels,
    run: Run,
    reference: Run,
    ks: list[int],
    *,
    precision: str = "float64",
    digest: str | None = None,
    judged: JudgedQrels | None = None,
) -> OverlapSection:
    """overlap@k for each k over the queries of ``qrels`` that the reference run answers
    (``judged``: the qrels structures already built for them, reused)."""
    depth = max(ks)
    ref_batches, ref_stats = rank(reference, judged or qrels, precision=precision)  # type: ignore[arg-type]
    main_top = top_matrix(batches, len(qrels), depth)
    ref_top = top_matrix(ref_batches, len(qrels), depth)
    to_main = pd.Index(run.doc_ids).get_indexer(reference.doc_ids)
    to_main = np.where(to_main >= 0, to_main, UNKNOWN)
    ref_top = np.where(ref_top >= 0, to_main[np.maximum(ref_top, 0)], PAD)
    present = (ref_top != PAD).any(axis=1)
    values = {k: overlap_at(main_top[present], ref_top[present], k) for k in ks}
    ids = qrels.query_ids[present]
    worst = np.argsort(values[depth], kind="stable")[:LOWEST]
    return OverlapSection(
        source=reference.source,
        blake3=digest,
        n_queries=int(present.sum()),
        missing_in_reference=[str(q) for q in qrels.query_ids[~present]],
        means={f"overlap@{k}": float(v.mean()) for k, v in values.items() if len(v)},
        lowest=[
            QueryOverlap(query_id=str(ids[i]), overlap=float(values[depth][i]))
            for i in worst
            if values[depth][i] < 1.0
        ],
    )
