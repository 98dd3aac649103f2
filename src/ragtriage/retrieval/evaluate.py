"""Stage 1: score a retriever against a golden set, per query first.

``evaluate_retrieval`` ranks, applies every metric to the ranked batches, and builds the
report from the per-query rows: means with bootstrap intervals over answerable queries,
per-tag slices, missed queries, the unanswerable section and the threshold analysis.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragtriage.data.golden import load_golden
from ragtriage.data.holdout import Split, golden_qrels
from ragtriage.data.models import GoldenSet, corpus_sha256, file_sha256
from ragtriage.data.runs import load_run
from ragtriage.data.tables import Qrels, Run
from ragtriage.errors import InputError
from ragtriage.retrieval import sections
from ragtriage.retrieval.analysis import threshold_analysis
from ragtriage.retrieval.defaults import DEFAULT_KS, DEFAULT_METRICS  # noqa: E402
from ragtriage.retrieval.leaks import find_leaks, leak_warnings
from ragtriage.retrieval.metrics import Measure, expand
from ragtriage.retrieval.overlap import compare_runs, cutoffs
from ragtriage.retrieval.ranking import RankedBatch, rank
from ragtriage.retrieval.report import (
    MetricSummary,
    OverlapSection,
    RetrievalConfig,
    RetrievalReport,
)
from ragtriage.retrieval.split import apply_split, log_reveal
from ragtriage.stats import bootstrap_mean

GoldenLike = GoldenSet | Qrels | str | Path | Sequence[Mapping[str, Any]]
RunLike = Run | str | Path | Mapping[str, Sequence[str] | Mapping[str, float]]


def evaluate_retrieval(
    golden: GoldenLike,
    run: RunLike,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    k: Sequence[int] = DEFAULT_KS,
    relevance_level: int = 1,
    precision: str = "float32",
    duplicates: str = "max",
    missing: str = "zero",
    nothing_relevant: str | None = None,
    miss_k: int | None = None,
    seed: int = 20261129,
    resamples: int = 2000,
    split: Split | None = None,
    leak_k: int | None = None,
    reference: RunLike | None = None,
    record_holdout: bool = True,
) -> RetrievalReport:
    """Score ``run`` against ``golden``; see :class:`RetrievalReport` for what comes back.

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
    ``record_holdout``: log a held-out evaluation in ``holdout_reveals.jsonl`` beside the
    golden file (the CLI turns it off to log once per command, not once per repeat).
    """
    full_golden, qrels = _as_qrels(golden)
    reading = _reading(nothing_relevant, full_golden)
    run_table = _as_run(run)
    run_warnings = list(run_table.warnings)  # a split's filtered run does not carry them
    golden_set, qrels, run_table, split_section = apply_split(full_golden, qrels, run_table, split)
    measures = expand(list(metrics), list(k))
    miss_k = miss_k or max((m.k for m in measures if m.k), default=10)
    config = RetrievalConfig(
        metrics=[str(m) for m in measures],
        relevance_level=relevance_level,
        precision=precision,
        duplicates=duplicates,
        missing=missing,
        nothing_relevant=reading,
        miss_k=miss_k,
        seed=seed,
        resamples=resamples,
    )
    batches, stats = rank(
        run_table, qrels, level=relevance_level, precision=precision, duplicates=duplicates
    )
    answerable = _answerable(qrels, relevance_level)
    scored = answerable if reading == "unanswerable" else np.ones(len(qrels), bool)
    with ThreadPoolExecutor(max_workers=1) as pool:  # its sorts release the GIL
        threshold = pool.submit(threshold_analysis, batches, answerable, miss_k)
        frame = per_query_frame(batches, measures, qrels)
        skip = set(stats.missing_queries) if missing == "skip" else set()
        if skip:
            kept = frame.index[scored[_codes(qrels, frame.index)]].difference(pd.Index(skip))
            per_query = frame.loc[kept]
        else:  # frame rows are qrels.query_ids in order: a mask, not a million-label lookup
            per_query = frame[scored]
        unanswerable = None
        if reading == "unanswerable":
            unanswerable = sections.unanswerable(batches, qrels, answerable, run_table, golden_set)
        report = RetrievalReport(
            config=config,
            versions=sections.versions(),
            golden=_golden_info(full_golden, qrels),
            run={
                "source": run_table.source,
                "rows": len(run_table),
                "queries": len(run_table.query_ids),
                **_run_sha256(run, run_table),
            },
            n_queries=len(qrels),
            n_answerable=int(answerable.sum()),
            n_unanswerable=int((~answerable).sum()),
            aggregates=_aggregates(per_query, seed, resamples),
            slices=sections.tag_slices(per_query, golden_set),
            missed=sections.missed_queries(
                batches, qrels, answerable, run_table, golden_set, miss_k
            ),
            n_missed=sections.count_missed(batches, answerable, miss_k),
            missing_queries=stats.missing_queries,
            unanswerable=unanswerable,
            threshold=threshold.result(),
            warnings=_empty_warning(per_query, len(qrels), relevance_level)
            + sections.warnings(stats, missing)
            + run_warnings
            + sections.missed_cap_warning(batches, answerable, miss_k)
            + sections.unanswerable_cap_warning(unanswerable)
            + leak_warnings(golden_set),
            per_query=per_query,
            split=split_section,
            leaks=find_leaks(batches, qrels, run_table, golden_set, leak_k or miss_k),
            reference_overlap=_overlap(batches, qrels, run_table, reference, config),
        )
    if split == "holdout" and record_holdout and _is_file_source(full_golden):
        report = log_reveal(report, full_golden.source)  # type: ignore[union-attr]
    return report


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


def _is_file_source(golden: GoldenSet | None) -> bool:
    return golden is not None and bool(golden.source) and Path(golden.source).exists()


def _overlap(batches, qrels, run_table, reference, config) -> OverlapSection | None:
    if reference is None:
        return None
    return compare_runs(
        batches,
        qrels,
        run_table,
        _as_run(reference),
        cutoffs(config.metrics),
        precision=config.precision,
        sha256=_run_sha256(reference).get("sha256"),
    )


def _golden_info(golden: GoldenSet | None, qrels: Qrels) -> dict[str, Any]:
    """Source, size and content hashes of the golden set (all of it) and of its corpus."""
    info: dict[str, Any] = dict(sections.golden_info(golden, qrels))
    if golden is not None and golden.corpus is not None:
        info["corpus_sha256"] = corpus_sha256(golden.corpus)
        info["corpus_chunks"] = len(golden.corpus)
    return info


def _run_sha256(run: RunLike, table: Run | None = None) -> dict[str, str]:
    if table is not None and table.sha256:  # taken while reading: no second pass
        return {"sha256": table.sha256}
    if isinstance(run, str | Path) and Path(run).is_file():
        return {"sha256": file_sha256(Path(run))}
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
    """Mean and interval per metric; null (not NaN, which JSON cannot hold) over no query."""
    out = []
    for column in per_query.columns:
        interval = bootstrap_mean(per_query[column].to_numpy(), resamples=resamples, seed=seed)
        empty = interval.n == 0
        out.append(
            MetricSummary(
                metric=column,
                mean=None if empty else interval.estimate,
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


def _answerable(qrels: Qrels, level: int) -> np.ndarray:
    counts = np.bincount(qrels.query[qrels.label >= level], minlength=len(qrels))
    return counts > 0


def _codes(qrels: Qrels, ids: pd.Index) -> np.ndarray:
    return pd.Index(qrels.query_ids).get_indexer(ids)


def _as_qrels(golden: GoldenLike) -> tuple[GoldenSet | None, Qrels]:
    if isinstance(golden, Qrels):
        return None, golden
    if isinstance(golden, str | Path):
        golden = load_golden(golden)
    elif not isinstance(golden, GoldenSet):
        from ragtriage.data.golden import parse_case

        cases = [parse_case(dict(r), Path("<python>"), i + 1) for i, r in enumerate(golden)]
        golden = GoldenSet(cases=cases, source="<python>")
    return golden, golden_qrels(golden)


def _as_run(run: RunLike) -> Run:
    if isinstance(run, Run):
        return run
    if isinstance(run, str | Path):
        return load_run(run)
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
