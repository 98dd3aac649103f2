"""Beyond the averages: missed queries, unanswerable queries and the score threshold.

All three read the ranked batches the metrics read, so they cost one pass and agree with
the metrics on what was retrieved and at which rank.
"""

from __future__ import annotations

import numpy as np

from ragtriage.retrieval.models import ScoreSummary, ThresholdAnalysis
from ragtriage.retrieval.ranking import RankedBatch

__all__ = ["auc", "best_cutoff", "summarize", "threshold_analysis"]


def summarize(values: np.ndarray) -> ScoreSummary:
    values = np.asarray(values, np.float64)
    values = values[np.isfinite(values)]
    if not len(values):
        return ScoreSummary(n=0)
    p10, median, p90 = np.quantile(values, [0.1, 0.5, 0.9])
    return ScoreSummary(
        n=len(values),
        mean=float(values.mean()),
        median=float(median),
        p10=float(p10),
        p90=float(p90),
    )


def auc(positive: np.ndarray, negative: np.ndarray, *, presorted: bool = False) -> float | None:
    """P(score of a positive > score of a negative), ties counting one half (Mann-Whitney).

    Counted with two sorts and binary searches, not a rank transform (the Mann-Whitney U,
    exactly: every term is an integer or a half).
    """
    if not len(positive) or not len(negative):
        return None
    pos, neg = (positive, negative) if presorted else (np.sort(positive), np.sort(negative))
    below = np.searchsorted(neg, pos, side="left").sum(dtype=np.float64)
    at_most = np.searchsorted(neg, pos, side="right").sum(dtype=np.float64)
    return float((below + at_most) / 2.0 / (len(pos) * len(neg)))


def best_cutoff(
    positive: np.ndarray, negative: np.ndarray, *, presorted: bool = False
) -> tuple[float | None, float | None]:
    """The score cut-off maximising Youden's J = TPR - FPR (keep results scoring >= it).

    Only positive scores are tried: between two neighbouring positive scores TPR is
    constant and FPR only falls as the cut-off rises, so J peaks at a positive score, and
    the lowest cut-off with the highest J over every distinct score is that same one.
    """
    if not len(positive) or not len(negative):
        return None, None
    pos, neg = (positive, negative) if presorted else (np.sort(positive), np.sort(negative))
    candidates = pos[np.r_[True, pos[1:] != pos[:-1]]]
    kept_pos = len(pos) - np.searchsorted(pos, candidates, side="left")
    kept_neg = len(neg) - np.searchsorted(neg, candidates, side="left")
    j = kept_pos * len(neg) - kept_neg * len(pos)  # J times |pos||neg|: exact integers
    best = int(np.argmax(j))
    return float(candidates[best]), float(j[best] / (len(pos) * len(neg)))


def threshold_analysis(
    batches: list[RankedBatch], answerable: np.ndarray, depth: int
) -> ThresholdAnalysis:
    """Relevant vs non-relevant scores in the top ``depth`` of answerable queries."""
    rel_scores, non_scores = [], []
    for batch in batches:
        keep = answerable[batch.queries]
        scores = batch.top_scores(depth)[keep]
        relevant = batch.labels[keep, :depth] >= batch.level
        retrieved = np.isfinite(scores)
        rel_scores.append(scores[relevant & retrieved])
        non_scores.append(scores[~relevant & retrieved])
    pos = np.sort(np.concatenate(rel_scores)) if rel_scores else np.zeros(0)
    neg = np.sort(np.concatenate(non_scores)) if non_scores else np.zeros(0)
    cutoff, youden = best_cutoff(pos, neg, presorted=True)
    separable = bool(len(pos) and len(neg) and pos[0] > neg[-1])
    return ThresholdAnalysis(
        depth=depth,
        relevant=summarize(pos),
        non_relevant=summarize(neg),
        auc=auc(pos, neg, presorted=True),
        best_threshold=cutoff,
        best_youden=youden,
        separable=separable,
        verdict=_verdict(pos, neg, cutoff, youden, separable),
    )


def _verdict(pos, neg, cutoff, youden, separable) -> str:
    if cutoff is None:
        return "not enough relevant and non-relevant results to compare their scores"
    if separable:
        return f"a cut-off at {cutoff:.4g} separates relevant from non-relevant results exactly"
    return (
        f"no cut-off separates them: the best, {cutoff:.4g}, keeps "
        f"{(pos >= cutoff).mean():.0%} of relevant and {(neg >= cutoff).mean():.0%} of "
        f"non-relevant results (Youden's J {youden:.2f})"
    )
