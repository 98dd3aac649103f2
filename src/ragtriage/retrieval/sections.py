"""The report's sections that are not metric means: slices, missed and unanswerable queries."""

from __future__ import annotations

import platform
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

import numpy as np
import pandas as pd

from ragtriage.data.models import GoldenSet, corpus_sha256
from ragtriage.data.tables import Qrels, Run
from ragtriage.retrieval.models import (
    MissedQuery,
    TagSlice,
    ThresholdAnalysis,
    UnanswerableQuery,
    UnanswerableSection,
)
from ragtriage.retrieval.ranking import RankedBatch, RankingStats
from ragtriage.retrieval.score_threshold import auc, summarize, threshold_analysis

__all__ = [
    "MAX_MISSED",
    "QueryFacts",
    "TOP_IDS",
    "golden_info",
    "missed_cap_warning",
    "missed_queries",
    "tag_slices",
    "unanswerable",
    "unanswerable_cap_warning",
    "versions",
    "warnings",
]

TOP_IDS = 3
MAX_MISSED = 1000


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for package in ("ragtriage", "numpy", "pandas", "pyarrow"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            out[package] = "unknown"
    return out


def golden_info(golden: GoldenSet | None, qrels: Qrels) -> dict[str, str | int]:
    """Source, size and content hashes of the golden set (all of it) and of its corpus."""
    info: dict[str, str | int] = {"source": qrels.source, "queries": len(qrels)}
    if golden is not None:
        info["sha256"] = golden.content_hash()
    if golden is not None and golden.corpus is not None:
        info["corpus_sha256"] = corpus_sha256(golden.corpus)
        info["corpus_chunks"] = len(golden.corpus)
    return info


def tag_slices(per_query: pd.DataFrame, golden: GoldenSet | None) -> list[TagSlice]:
    """The same metric means per tag (a query with several tags counts in each)."""
    if golden is None or per_query.empty:
        return []
    tags = golden.tags_by_case()
    members: dict[str, list[str]] = {}
    for query_id in per_query.index:
        for tag in tags.get(query_id, ()):
            members.setdefault(tag, []).append(query_id)
    return [
        TagSlice(tag=tag, n=len(ids), means=per_query.loc[ids].mean().to_dict())
        for tag, ids in sorted(members.items())
    ]


@dataclass(frozen=True)
class QueryFacts:
    """Per golden query (qrels order), what the sections and triage read: one definition.

    ``first_relevant_rank``: 1-based rank, in the ranking every metric reads (the run's
    own order for a trace or a retriever ragtriage ran, else trec_eval's: score
    descending, doc id descending), of the first result judged relevant at the relevance
    level; 0 if none.
    ``top1``: the top result's score (NaN: nothing retrieved). ``confident``: a query with
    nothing relevant whose top-1 score reaches ``threshold``, the answerable queries'
    median top-1 score.
    """

    first_relevant_rank: np.ndarray
    top1: np.ndarray
    confident: np.ndarray
    threshold: float | None

    @classmethod
    def build(
        cls, batches: list[RankedBatch], answerable: np.ndarray, scored: bool = True
    ) -> QueryFacts:
        """``scored=False``: the run gave ranks only, so ``top1`` stays NaN and nothing is
        confident (a -rank "score" of 0 read every query as confidently retrieved)."""
        n = len(answerable)
        first = np.zeros(n, np.int64)
        top1 = np.full(n, np.nan)
        for batch in batches:
            relevant = batch.labels >= batch.level
            found = relevant.any(axis=1)
            first[batch.queries] = np.where(found, relevant.argmax(axis=1) + 1, 0)
            if scored:
                top1[batch.queries] = batch.top_scores(1)[:, 0]
        pos = top1[answerable]
        median = float(np.nanmedian(pos)) if np.isfinite(pos).any() else None
        confident = np.zeros(n, bool)
        if median is not None:
            with np.errstate(invalid="ignore"):
                confident = ~answerable & (top1 >= median)
        return cls(first, top1, confident, median)

    def frame(self, qrels: Qrels) -> pd.DataFrame:
        """``first_relevant_rank`` (nullable Int64), ``top1_score``, ``confident`` by query id."""
        ranks = pd.arrays.IntegerArray(self.first_relevant_rank, self.first_relevant_rank == 0)
        return pd.DataFrame(
            {"first_relevant_rank": ranks, "top1_score": self.top1, "confident": self.confident},
            index=pd.Index(qrels.query_ids, name="query_id"),
        )


def _top_ids_of(batch: RankedBatch, rows: np.ndarray) -> list[list[str]]:
    """Top ids of many rows with one decode (tens of thousands of unanswerable queries)."""
    top = batch.rows[rows, :TOP_IDS]
    if batch.run is None or not len(batch.run):
        return [[] for _ in rows]
    flat = batch.run.doc_strings(top[top >= 0])
    ends = np.cumsum((top >= 0).sum(axis=1))
    return [
        flat[end - count : end] for end, count in zip(ends, (top >= 0).sum(axis=1), strict=True)
    ]


def missed_queries(
    batches: list[RankedBatch],
    qrels: Qrels,
    answerable: np.ndarray,
    golden: GoldenSet | None,
    k: int,
    facts: QueryFacts,
) -> tuple[list[MissedQuery], int]:
    """Answerable queries with nothing relevant in the top ``k``, and how many there are:
    at most ``MAX_MISSED`` listed (the first in golden-set order), since a list of a
    million misses is read by nobody and costs a pydantic object each."""
    missed = np.zeros(len(answerable), bool)
    for batch in batches:
        hit = (batch.labels[:, :k] >= batch.level).any(axis=1)
        missed[batch.queries] = answerable[batch.queries] & ~hit
    codes = np.flatnonzero(missed)[:MAX_MISSED]
    where = _listed(batches, codes)
    out: list[MissedQuery] = []
    for code in codes:
        batch, top_ids = where[int(code)]
        query_id = str(qrels.query_ids[code])
        case = golden.case(query_id) if golden else None
        out.append(
            MissedQuery(
                query_id=query_id,
                query=case.query if case else "",
                tags=list(case.tags) if case else [],
                expected=case.expected(batch.level) if case else [],
                first_relevant_rank=int(facts.first_relevant_rank[code]) or None,
                top_ids=top_ids,
            )
        )
    return out, int(missed.sum())


def missed_cap_warning(n: int, k: int) -> list[str]:
    """A warning when :func:`missed_queries` listed only the first ``MAX_MISSED`` of ``n``."""
    if n <= MAX_MISSED:
        return []
    return [
        f"{n} answerable queries have nothing relevant in the top {k}; "
        f"the report lists the first {MAX_MISSED} (golden-set order)"
    ]


def _listed(
    batches: list[RankedBatch], codes: np.ndarray
) -> dict[int, tuple[RankedBatch, list[str]]]:
    """``query code -> (batch, top ids)`` for the given codes only, batch by batch (rows in
    batch order), each batch's top ids decoded at once."""
    out: dict[int, tuple[RankedBatch, list[str]]] = {}
    for batch in batches:  # a query is in one batch
        rows = np.flatnonzero(np.isin(batch.queries, codes))
        for row, top_ids in zip(rows, _top_ids_of(batch, rows), strict=True):
            out[int(batch.queries[row])] = (batch, top_ids)
    return out


def unanswerable(
    batches: list[RankedBatch],
    qrels: Qrels,
    answerable: np.ndarray,
    golden: GoldenSet | None,
    facts: QueryFacts,
) -> UnanswerableSection | None:
    """Top-1 confidence on unanswerable vs answerable queries.

    A retriever that is as sure of itself on questions the corpus cannot answer as on the
    ones it can gives the generator no signal to abstain (``confident``: see
    :class:`QueryFacts`). At most ``MAX_MISSED`` queries are listed (the most confidently
    retrieved, in golden-set order); ``n`` counts them all.
    """
    if answerable.all():
        return None
    top1, median = facts.top1, facts.threshold
    listed = _listed(batches, _most_confident(np.flatnonzero(~answerable), top1))
    queries = []
    for code, (_, top_ids) in listed.items():
        score = top1[code]
        query_id = str(qrels.query_ids[code])
        queries.append(
            UnanswerableQuery(
                query_id=query_id,
                query=golden.case(query_id).query if golden else "",
                top1_score=float(score) if np.isfinite(score) else None,
                top_ids=top_ids,
                confident=bool(facts.confident[code]),
            )
        )
    pos, neg = top1[answerable], top1[~answerable]
    return UnanswerableSection(
        n=int((~answerable).sum()),
        answerable_top1=summarize(pos),
        unanswerable_top1=summarize(neg),
        auc=auc(pos[np.isfinite(pos)], neg[np.isfinite(neg)]),
        confident_threshold=float(median) if median is not None else None,
        n_confident=int(facts.confident.sum()),
        queries=queries,
    )


NEEDS_SCORES = (
    "the run has no retrieval scores (ranks only): the score threshold and the confidence "
    "of unanswerable queries need scores and are skipped"
)


def scored_threshold(
    run: Run, batches: list[RankedBatch], answerable: np.ndarray, depth: int
) -> ThresholdAnalysis | None:
    """The score threshold section, or None for a run without scores (NEEDS_SCORES)."""
    return threshold_analysis(batches, answerable, depth) if run.scored else None


def unscored_warning(run: Run) -> list[str]:
    return [] if run.scored else [NEEDS_SCORES]


def _most_confident(codes: np.ndarray, top1: np.ndarray) -> np.ndarray:
    """``codes``, or those of their ``MAX_MISSED`` highest top-1 scores."""
    if len(codes) <= MAX_MISSED:
        return codes
    score = np.nan_to_num(top1[codes], nan=-np.inf)
    return codes[np.argsort(-score, kind="stable")[:MAX_MISSED]]


def unanswerable_cap_warning(section: UnanswerableSection | None) -> list[str]:
    """A warning when :func:`unanswerable` listed only some of the unanswerable queries."""
    if section is None or section.n <= len(section.queries):
        return []
    return [
        f"{section.n} unanswerable queries; the report lists the {len(section.queries)} "
        "retrieved most confidently (golden-set order)"
    ]


def warnings(stats: RankingStats, missing: str) -> list[str]:
    out = []
    if stats.missing_queries:
        action = "skipped" if missing == "skip" else "scored 0"
        out.append(f"{len(stats.missing_queries)} golden queries are not in the run ({action})")
    if stats.unknown_queries:
        out.append(f"{stats.unknown_queries} run queries are not in the golden set (ignored)")
    if stats.duplicates:
        out.append(
            f"{stats.duplicates} duplicate (query, doc) rows in the run: kept the best-ranked copy"
        )
    return out
