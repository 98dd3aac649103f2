"""Repeated runs of a non-deterministic retriever: how much do the figures move?

``--repeat N`` runs every query N times, scores each run, and reports per metric the min,
max and sample standard deviation (ddof=1) of the N run means, plus the queries whose top
k changed between runs (docs/retrieval.md, 'A non-deterministic retriever').
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from ragtriage.errors import InputError
from ragtriage.retrieval.models import MetricSpread, RepeatSection, RetrievalReport
from ragtriage.retrieval.retrievers import Hit

__all__ = ["changed_queries", "repeat_section", "repeated", "spread", "top_ids"]

R = TypeVar("R")  # one draw's run, whatever the scorer takes


def top_ids(hits: dict[str, list[Hit]], k: int) -> dict[str, tuple[str, ...]]:
    return {query_id: tuple(h.id for h in ranked[:k]) for query_id, ranked in hits.items()}


def changed_queries(runs: Sequence[dict[str, list[Hit]]], k: int) -> list[str]:
    """Queries (first run's order) whose top ``k`` ids, in order, differ in any later run."""
    first = top_ids(runs[0], k)
    later = [top_ids(run, k) for run in runs[1:]]
    return [q for q, ids in first.items() if any(other.get(q) != ids for other in later)]


def spread(reports: Sequence[RetrievalReport]) -> list[MetricSpread]:
    """Per metric: mean, min, max and sample std of the run means."""
    out = []
    for summary in reports[0].aggregates:
        means = np.array([r.aggregate(summary.metric).mean for r in reports], dtype=float)
        if not np.isfinite(means).all():  # no answerable query: no mean to spread
            continue
        out.append(
            MetricSpread(
                metric=summary.metric,
                mean=float(means.mean()),
                min=float(means.min()),
                max=float(means.max()),
                std=float(means.std(ddof=1)) if len(means) > 1 else 0.0,
            )
        )
    return out


def repeat_section(
    reports: Sequence[RetrievalReport], runs: Sequence[dict[str, list[Hit]]], k: int
) -> RepeatSection:
    return RepeatSection(
        n_runs=len(reports), k=k, metrics=spread(reports), changed_queries=changed_queries(runs, k)
    )


def repeated(
    n: int,
    retrieve: Callable[[], tuple[R, dict[str, list[Hit]]]],
    score: Callable[[R], RetrievalReport],
    k: int | None = None,
) -> RetrievalReport:
    """Run ``retrieve`` ``n`` times, ``score`` each run; the first run's report, with the
    spread over all runs attached as ``repeat``. Rankings are compared over the top ``k``
    (default: the report's largest cutoff, the depth of its missed-query list).

    ``score`` is meant to be one :class:`RetrievalEvaluator`'s ``evaluate``, built once:
    every draw is then scored against the same qrels structures, with no side effect."""
    if n < 2:
        raise InputError(f"must be at least 2, got {n}", field="repeat")
    reports, runs = [], []
    for _ in range(n):
        run, hits = retrieve()
        reports.append(score(run))
        runs.append(hits)
    k = k or reports[0].config.miss_k
    return reports[0].model_copy(update={"repeat": repeat_section(reports, runs, k)})
