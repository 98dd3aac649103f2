"""Stage 1: score a retriever against a golden set, per query first.

:class:`RetrievalEvaluator` is bound once to the golden set and its options;
``evaluate(run)`` ranks, applies every metric to the ranked batches, and builds the
report from the per-query rows: means with bootstrap intervals over answerable queries,
per-tag slices, missed queries, the unanswerable section and the threshold analysis.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragtriage.atomic import RUN_DIGEST, file_blake3
from ragtriage.data.golden import load_golden
from ragtriage.data.holdout import Split, filter_run, golden_qrels
from ragtriage.data.models import GoldenSet
from ragtriage.data.runs import load_run
from ragtriage.data.tables import Qrels, Run
from ragtriage.errors import InputError
from ragtriage.retrieval import sections
from ragtriage.retrieval.defaults import DEFAULT_KS, DEFAULT_METRICS
from ragtriage.retrieval.leaks import find_leaks, leak_warnings
from ragtriage.retrieval.metrics import Measure, expand, topic_order, trec_mean
from ragtriage.retrieval.models import (
    MetricSummary,
    OverlapSection,
    RetrievalConfig,
    RetrievalReport,
)
from ragtriage.retrieval.overlap import compare_runs, cutoffs
from ragtriage.retrieval.ranking import JudgedQrels, RankedBatch, rank
from ragtriage.retrieval.split import select_split
from ragtriage.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_mean

__all__ = [
    "GoldenLike",
    "READINGS",
    "RetrievalEvaluator",
    "RunLike",
    "evaluate_retrieval",
    "per_query_frame",
]

GoldenLike = GoldenSet | Qrels | str | Path | Sequence[Mapping[str, Any]]
RunLike = Run | str | Path | Mapping[str, Sequence[str] | Mapping[str, float]]


class RetrievalEvaluator:
    """Stage 1 bound once to a golden set (or qrels) and its options; scores any number
    of runs, as ir_measures' evaluator does.

    The qrels side (the slice, the relevant counts, ideal lists and judged doc ids, the
    golden and corpus hashes, a reference run) is built here, once; :meth:`evaluate`
    ranks and scores one run and has no side effects: it writes no file and runs no
    command (the held-out reveal log is written by ``retrieval.split.log_reveal``, which
    the CLI and the audit call).

    ``metrics`` are names such as ``"ndcg@10"``; a name without a cutoff that needs one
    (``"recall"``) is expanded over ``k``. Defaults reproduce trec_eval 9.0.8 and 10.0.
    ``nothing_relevant``: how to read a query whose judgements are all below the
    relevance level. ``"zero"`` scores it 0 and averages it in, as trec_eval,
    pytrec_eval and ranx do; ``"unanswerable"`` leaves it out of ``per_query`` and the
    means and reports it on its own. Default: ``"zero"`` for qrels (a :class:`Qrels`,
    as read from a TREC file), where such a query is one the assessors judged;
    ``"unanswerable"`` for a golden set, where ``expected: []`` marks a question the
    corpus cannot answer.
    ``split``: which slice of a golden set with held-out cases to score (default ``dev``;
    see data/holdout.py). ``leak_k``: depth of the access-control check (default: the
    largest cutoff). ``reference``: an exact-search run to report overlap@k against.
    """

    def __init__(
        self,
        golden: GoldenLike,
        metrics: Sequence[str] | Sequence[Measure] = DEFAULT_METRICS,
        *,
        k: Sequence[int] = DEFAULT_KS,
        relevance_level: int = 1,
        precision: str = "float64",
        duplicates: str = "max",
        missing: str = "zero",
        nothing_relevant: str | None = None,
        miss_k: int | None = None,
        seed: int = DEFAULT_SEED,
        resamples: int = DEFAULT_RESAMPLES,
        split: Split | None = None,
        leak_k: int | None = None,
        reference: RunLike | None = None,
    ) -> None:
        full_golden, qrels = _as_qrels(golden)
        self._full_golden = full_golden  # ragas or span runs are matched to it by query text
        reading = _reading(nothing_relevant, full_golden)
        self.golden, self.qrels, self._keep, self._split = select_split(full_golden, qrels, split)
        self.measures = _measures(metrics, k)
        miss_k = miss_k or max((m.k for m in self.measures if m.k), default=10)
        self.config = RetrievalConfig(
            metrics=[str(m) for m in self.measures],
            relevance_level=relevance_level,
            precision=precision,  # type: ignore[arg-type]
            duplicates=duplicates,  # type: ignore[arg-type]
            missing=missing,  # type: ignore[arg-type]
            nothing_relevant=reading,  # type: ignore[arg-type]
            miss_k=miss_k,
            seed=seed,
            resamples=resamples,
        )
        self.leak_k = leak_k or miss_k
        self.judged = JudgedQrels.build(self.qrels, relevance_level)
        self.answerable = self.judged.num_rel > 0  # a chunk graded >= the level
        self._golden_info = sections.golden_info(full_golden, self.qrels)
        self._reference = None if reference is None else _as_run(reference)
        self._reference_digest = (
            None if reference is None else _run_digest(reference, self._reference).get(RUN_DIGEST)
        )

    def evaluate(self, run: RunLike) -> RetrievalReport:
        """Score ``run``; see :class:`RetrievalReport` for what comes back."""
        config, qrels, golden_set = self.config, self.qrels, self.golden
        answerable, miss_k = self.answerable, config.miss_k
        given = _as_run(run, self._full_golden)
        run_table = given if self._keep is None else filter_run(given, self._keep)
        batches, stats = rank(
            run_table,
            self.judged,
            precision=config.precision,
            duplicates=config.duplicates,
        )
        unanswerable_reading = config.nothing_relevant == "unanswerable"
        scored = answerable if unanswerable_reading else np.ones(len(qrels), bool)
        with ThreadPoolExecutor(max_workers=1) as pool:  # its sorts release the GIL
            threshold = pool.submit(
                sections.scored_threshold, run_table, batches, answerable, miss_k
            )
            frame = per_query_frame(batches, self.measures, qrels)
            skip = set(stats.missing_queries) if config.missing == "skip" else set()
            per_query = _scored_rows(frame, qrels, scored, skip)
            facts = sections.QueryFacts.build(batches, answerable, scored=run_table.scored)
            if not unanswerable_reading:  # no query is read as unanswerable: none is flagged
                facts = replace(facts, confident=np.zeros(len(qrels), bool))
            unanswerable = None
            if unanswerable_reading and run_table.scored:
                unanswerable = sections.unanswerable(batches, qrels, answerable, golden_set, facts)
            listed, n_missed = sections.missed_queries(
                batches, qrels, answerable & ~_skipped(qrels, skip), golden_set, miss_k, facts
            )
            report = RetrievalReport(
                config=config,
                versions=sections.versions(),
                golden=dict(self._golden_info),
                run={},
                n_queries=len(qrels),
                n_answerable=int(answerable.sum()),
                n_unanswerable=int((~answerable).sum()),
                aggregates=_aggregates(per_query, config.seed, config.resamples),
                slices=sections.tag_slices(per_query, golden_set),
                missed=listed,
                n_missed=n_missed,
                missing_queries=stats.missing_queries,
                unanswerable=unanswerable,
                threshold=threshold.result(),
                warnings=self._warnings(per_query, stats, run_table, given, n_missed, unanswerable),
                per_query=per_query,
                query_facts=facts.frame(qrels),
                split=None if self._split is None else self._split.model_copy(),
                leaks=find_leaks(batches, qrels, golden_set, self.leak_k),
                reference_overlap=self._overlap(batches, run_table),
            )
        # last: a run file's digest may still be being taken, on a thread that had the
        # idle core while the sections above were built (data/_trec_fast.py)
        report.run = _run_record(run, given, run_table)
        return report

    def _warnings(self, per_query, stats, run_table, given, n_missed, unanswerable) -> list[str]:
        """What the figures depend on, in the report's order."""
        config = self.config
        return (
            _empty_warning(per_query, len(self.qrels), config.relevance_level)
            + sections.warnings(stats, config.missing)
            + sections.unscored_warning(run_table)
            + list(given.warnings)  # a split's filtered run does not carry them
            + sections.missed_cap_warning(n_missed, config.miss_k)
            + sections.unanswerable_cap_warning(unanswerable)
            + leak_warnings(self.golden)
        )

    def _overlap(self, batches, run_table) -> OverlapSection | None:
        if self._reference is None:
            return None
        return compare_runs(
            batches,
            self.qrels,
            run_table,
            self._reference,
            cutoffs(self.config.metrics),
            precision=self.config.precision,
            digest=self._reference_digest,
            judged=self.judged,
        )


def _measures(metrics: Sequence[str] | Sequence[Measure], k: Sequence[int]) -> list[Measure]:
    """The measures to score: as given when already parsed (a flow's config parses
    ``--metrics`` over ``--k`` once), else the names expanded over ``k``."""
    if metrics and all(isinstance(m, Measure) for m in metrics):
        return list(metrics)  # type: ignore[arg-type]
    return expand([str(m) for m in metrics], list(k))


def evaluate_retrieval(
    golden: GoldenLike,
    run: RunLike,
    metrics: Sequence[str] | Sequence[Measure] = DEFAULT_METRICS,
    **options: Any,
) -> RetrievalReport:
    """Score one ``run`` against ``golden``: ``RetrievalEvaluator(golden, metrics,
    **options).evaluate(run)`` (see :class:`RetrievalEvaluator` for the options). No side
    effects: a held-out evaluation is not logged here (see ``retrieval.split.log_reveal``).
    To score several runs, build the evaluator once.
    """
    return RetrievalEvaluator(golden, metrics, **options).evaluate(run)


READINGS = ("zero", "unanswerable")


def _reading(nothing_relevant: str | None, golden: GoldenSet | None) -> str:
    """The reading of queries with nothing relevant: as given, else by the input's kind."""
    if nothing_relevant is None:
        return "unanswerable" if golden is not None else "zero"
    if nothing_relevant not in READINGS:
        raise InputError(
            f"must be 'zero' or 'unanswerable', got {nothing_relevant!r}",
            field="nothing_relevant",
        )
    return nothing_relevant


def _run_digest(run: RunLike, table: Run | None = None) -> dict[str, str]:
    """The run file's digest under its name (``{"blake3": hex}``); none for a run that
    was not read from a file."""
    if table is not None and table.digest:  # taken while reading: no second pass
        return {RUN_DIGEST: table.digest}
    if isinstance(run, str | Path) and Path(run).is_file():
        return {RUN_DIGEST: file_blake3(Path(run))}
    return {}


def per_query_frame(
    batches: list[RankedBatch], measures: list[Measure], qrels: Qrels
) -> pd.DataFrame:
    """Query id x metric values for every query in ``qrels`` (golden-set order)."""
    order = np.concatenate([b.queries for b in batches]) if batches else np.zeros(0, np.int64)
    columns = {
        str(m): np.concatenate([m(b) for b in batches]) if batches else np.zeros(0)
        for m in measures
    }
    frame = pd.DataFrame(columns, index=pd.Index(qrels.query_ids[order], name="query_id"))
    return frame.iloc[np.argsort(order, kind="stable")]


def _aggregates(per_query: pd.DataFrame, seed: int, resamples: int) -> list[MetricSummary]:
    """Mean (as trec_eval sums it) and interval per metric; null (not NaN, which JSON
    cannot hold) over no query."""
    out = []
    order = topic_order(per_query.index.to_numpy())
    for column in per_query.columns:
        values = per_query[column].to_numpy()
        interval = bootstrap_mean(values, resamples=resamples, seed=seed)
        empty = interval.n == 0
        out.append(
            MetricSummary(
                metric=column,
                mean=None if empty else trec_mean(values, order),
                low=None if empty else interval.low,
                high=None if empty else interval.high,
                n=interval.n,
            )
        )
    return out


def _empty_warning(per_query: pd.DataFrame, n_queries: int, level: int) -> list[str]:
    """Say why every aggregate is null, so an empty result is never mistaken for a score."""
    if len(per_query) or not n_queries:
        return []
    return [
        f"no answerable query scored (none has a chunk graded >= {level}): every aggregate is null"
    ]


def _codes(qrels: Qrels, ids: pd.Index) -> np.ndarray:
    return pd.Index(qrels.query_ids).get_indexer(ids)


def _skipped(qrels: Qrels, skip: set[str]) -> np.ndarray:
    """Which qrels queries ``--skip-missing`` left out: a query the run lacks is then not
    scored, so it is no missed query either (the warning counts it as skipped)."""
    mask = np.zeros(len(qrels), bool)
    if skip:
        mask[_codes(qrels, pd.Index(sorted(skip)))] = True
    return mask


def _as_qrels(golden: GoldenLike) -> tuple[GoldenSet | None, Qrels]:
    if isinstance(golden, Qrels):
        return None, golden
    if not isinstance(golden, GoldenSet):
        golden = load_golden(golden)  # a path, or rows as a file of them is read
    return golden, golden_qrels(golden)


def _as_run(run: RunLike, golden: GoldenSet | None = None) -> Run:
    if isinstance(run, Run):
        return run
    if isinstance(run, str | Path):
        return load_run(run, golden=golden)
    queries, docs, scores = [], [], []
    for qid, ranked in run.items():
        items = (
            ranked.items()
            if isinstance(ranked, Mapping)
            else ((doc, float(-i)) for i, doc in enumerate(ranked))
        )
        for doc, score in items:
            queries.append(str(qid))
            docs.append(str(doc))
            scores.append(float(score))
    return Run.from_columns(queries, docs, scores, source="<python>")


def _scored_rows(frame: pd.DataFrame, qrels, scored: np.ndarray, skip: set[str]) -> pd.DataFrame:
    """The per-query rows the means are over: the scored queries, less skipped ones."""
    if skip:
        kept = frame.index[scored[_codes(qrels, frame.index)]].difference(pd.Index(skip))
        return frame.loc[kept]
    return frame[scored]  # frame rows are qrels.query_ids in order: a mask, not a lookup


def _run_record(run: RunLike, given, run_table) -> dict[str, Any]:
    return {
        "source": given.source,
        "rows": len(run_table),
        "queries": len(run_table.query_ids),
        "order": given.order,  # which ranking the figures read
        **_run_digest(run, given),
        **({"format": given.format} if given.format else {}),
        **({} if run_table.scored else {"scored": False}),
    }
