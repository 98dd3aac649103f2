"""The retrieval report's schema: ``RetrievalReport`` and its sections as pydantic models,
what ``--output`` writes and what Python callers get (computed in ``evaluate.py``).

Per-query rows come first; every aggregate, interval and slice is computed from them.
``per_query`` is a pandas DataFrame (query id x metric) and serialises to
``{query_id: {metric: value}}``.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

from ragtriage.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = [
    "Leak",
    "LeakSection",
    "MetricSpread",
    "MetricSummary",
    "MissedQuery",
    "OverlapSection",
    "QueryOverlap",
    "RepeatSection",
    "RetrievalConfig",
    "RetrievalReport",
    "SCHEMA_VERSION",
    "ScoreSummary",
    "SplitInfo",
    "TagSlice",
    "ThresholdAnalysis",
    "UnanswerableQuery",
    "UnanswerableSection",
]

SCHEMA_VERSION = "ragtriage.retrieval/1"


class _Documented(BaseModel):
    """Every model of the report: each field's docstring is its schema description (the
    results-file reference is generated from them)."""

    model_config = ConfigDict(use_attribute_docstrings=True)


class RetrievalConfig(_Documented):
    """The settings that shaped the figures: with the same inputs they reproduce them."""

    metrics: list[str]
    """Metrics scored (e.g. ``ndcg@10``): one entry of ``aggregates`` and one column of
    ``per_query`` each."""
    relevance_level: int = 1
    """A chunk counts as relevant when its grade is at least this (trec_eval ``-l``)."""
    precision: Literal["float32", "float64"] = "float64"
    """Scores compared as doubles (trec_eval 9.0.8, 10.0) or at float32 (pytrec_eval,
    trec_eval <= 9.0.7) when ranking."""
    duplicates: Literal["max", "error"] = "max"
    """A (query, doc) row listed twice: keep the best-ranked copy and count it (``max``), or
    refuse the run (``error``)."""
    missing: Literal["zero", "skip"] = "zero"
    """A golden query absent from the run: scored 0 and averaged in (``zero``, trec_eval
    ``-c``) or left out (``skip``)."""
    # the default is the reading of results files written before this field
    nothing_relevant: Literal["zero", "unanswerable"] = "unanswerable"
    """Queries with nothing relevant: scored 0 and averaged in (``zero``, trec_eval) or left
    out of the means and reported in ``unanswerable``."""
    miss_k: int = 10
    """Rank depth of ``missed`` (nothing relevant in the top ``miss_k``) and of
    ``threshold``."""
    seed: int = DEFAULT_SEED
    """Seed of the bootstrap behind every interval."""
    resamples: int = DEFAULT_RESAMPLES
    """Bootstrap resamples per interval (count)."""


class MetricSummary(_Documented):
    """A metric's mean over the answerable queries with its 95% interval.

    With no answerable query (every ``expected`` empty, or a ``--relevance-level`` above
    every grade) there is no mean: ``mean``, ``low`` and ``high`` are null with ``n`` 0,
    and the report's warnings say why. That is a result, not an error. Its fields are
    named ``mean`` rather than ``estimate`` (:class:`ragtriage.stats.Estimate`) because
    results files and their readers use those names.
    """

    metric: str
    """The metric's name; its per-query value equals trec_eval's: ``precision@k`` ``P_k``,
    ``recall@k`` ``recall_k``, ``hit_rate@k`` ``success_k``, ``mrr`` ``recip_rank``,
    ``ndcg@k`` ``ndcg_cut_k``, ``map`` ``map``, ``r_precision`` ``Rprec`` (``ndcg_exp``:
    none; docs/reference/metrics.md)."""
    mean: float | None
    """Mean over the ``n`` queries of ``per_query``, as trec_eval's ``all`` line sums it;
    range that of the metric (0-1 for every built-in one); null when ``n`` is 0."""
    low: float | None
    """Lower end of the 95% percentile-bootstrap interval of the mean; null when ``n`` is 0."""
    high: float | None
    """Upper end of the 95% percentile-bootstrap interval of the mean; null when ``n`` is 0."""
    n: int
    """Number of queries averaged (the rows of ``per_query``)."""


class TagSlice(_Documented):
    """The metric means over the queries of one golden-set tag."""

    tag: str
    """The tag."""
    n: int
    """Number of scored queries with the tag (a query with several tags counts in each)."""
    means: dict[str, float]
    """Metric -> plain mean over those queries (no interval)."""


class MissedQuery(_Documented):
    """An answerable query with nothing relevant in the top ``miss_k``: read these, they cluster."""

    query_id: str
    """The query's id."""
    query: str = ""
    """The question; empty when scored from bare qrels."""
    tags: list[str] = Field(default_factory=list)
    """The query's golden-set tags; empty from bare qrels."""
    expected: list[str] = Field(default_factory=list)
    """Ids graded relevant at the relevance level; empty from bare qrels."""
    first_relevant_rank: int | None = None
    """1-based rank of the first relevant result (past ``miss_k``); null when none was
    retrieved at any rank."""
    top_ids: list[str] = Field(default_factory=list)
    """Ids of the top 3 results, in rank order."""


class UnanswerableQuery(_Documented):
    """A query with nothing relevant, and how sure the retriever was of it."""

    query_id: str
    """The query's id."""
    query: str = ""
    """The question; empty when scored from bare qrels."""
    top1_score: float | None = None
    """The retriever's score of its top result; null when nothing was retrieved."""
    top_ids: list[str] = Field(default_factory=list)
    """Ids of the top 3 results, in rank order."""
    confident: bool = False
    """True when ``top1_score`` reaches ``confident_threshold``."""


class ScoreSummary(_Documented):
    """Retrieval scores summarised (in the retriever's own units); nulls when ``n`` is 0."""

    n: int
    """Number of scores (finite ones only)."""
    mean: float | None = None
    """Their mean; null when ``n`` is 0."""
    median: float | None = None
    """Their median; null when ``n`` is 0."""
    p10: float | None = None
    """Their 10th percentile (numpy's linear quantile); null when ``n`` is 0."""
    p90: float | None = None
    """Their 90th percentile (numpy's linear quantile); null when ``n`` is 0."""


class UnanswerableSection(_Documented):
    """How confident the retriever was on questions the corpus cannot answer."""

    n: int
    """Number of queries with nothing relevant (all of them, listed or not)."""
    answerable_top1: ScoreSummary
    """Top-1 scores of the answerable queries."""
    unanswerable_top1: ScoreSummary
    """Top-1 scores of the unanswerable queries."""
    auc: float | None = None
    """P(an answerable query's top-1 score > an unanswerable one's), ties counting half,
    0-1 (0.5: no signal to abstain on); null when either side has no score."""
    confident_threshold: float | None = None
    """The answerable queries' median top-1 score; null when they have none."""
    n_confident: int = 0
    """Unanswerable queries whose top-1 score reaches ``confident_threshold`` (of all
    ``n``, not only the listed ones)."""
    queries: list[UnanswerableQuery] = Field(default_factory=list)
    """At most 1,000 unanswerable queries, the most confidently retrieved, in golden-set
    order."""


class ThresholdAnalysis(_Documented):
    """Scores of relevant vs non-relevant results within the top ``depth``."""

    depth: int
    """Rank depth looked at (``miss_k``), over the answerable queries."""
    relevant: ScoreSummary
    """Scores of the results graded relevant within the top ``depth``."""
    non_relevant: ScoreSummary
    """Scores of the other results within the top ``depth``."""
    auc: float | None = None
    """P(a relevant result's score > a non-relevant one's), ties counting half, 0-1; null
    when either side is empty."""
    best_threshold: float | None = None
    """The score cut-off (keep results scoring at least it) with the highest Youden's J;
    null when either side is empty."""
    best_youden: float | None = None
    """Youden's J (TPR - FPR, 0-1) at ``best_threshold``; null when either side is empty."""
    separable: bool = False
    """True when every relevant score is above every non-relevant one."""
    verdict: str = ""
    """What the figures mean for a score cut-off, in one sentence."""
    # Optional raw scores ("relevant", "non_relevant") for the HTML report's histograms;
    # without them the report plots the summaries above.
    score_samples: dict[str, list[float]] | None = None
    """Raw scores (``relevant``, ``non_relevant``) the HTML report plots as histograms when
    present; ragtriage itself leaves it null."""


class Leak(_Documented):
    """A forbidden chunk (another tenant's, admin-only...) in a query's top k."""

    query_id: str
    """The case that retrieved it."""
    forbidden_id: str
    """The chunk it must not see."""
    rank: int  # 1-based
    """1-based rank at which it was retrieved, at most ``k``."""


class LeakSection(_Documented):
    """Access-control check over the cases that carry ``forbidden``/``tenant``/``acl``."""

    k: int
    """Rank depth checked (``--leak-k``; default ``miss_k``)."""
    n_cases_checked: int
    """Cases with access rules that the run answered (count)."""
    n_leaking: int  # cases with any forbidden id in the top k: the gate fails above 0
    """Cases with any forbidden chunk in their top ``k``: the gate fails above 0."""
    cases: list[Leak] = Field(default_factory=list)
    """Every forbidden chunk found, one entry per (case, chunk)."""


class SplitInfo(_Documented):
    """Which slice of the golden set this report evaluated (data/holdout.py)."""

    evaluated: Literal["dev", "holdout", "all"]
    """The slice scored: ``dev`` (the default when the set has a holdout), ``holdout``, or
    ``all``."""
    n_dev: int
    """Cases of the golden set in the dev slice."""
    n_holdout: int
    """Cases of the golden set in the held-out slice."""
    reveal_log: str | None = None
    """Path of the ``holdout_reveals.jsonl`` this reveal was logged to; null unless the
    held-out slice was scored by the CLI or the audit."""
    reveals: int | None = None  # how many times the held-out slice has been looked at
    """Reveals the log holds, this one included; null when ``reveal_log`` is."""


class QueryOverlap(_Documented):
    """One query's overlap with the reference run."""

    query_id: str
    """The query's id."""
    overlap: float
    """Fraction 0-1 of the reference's top k ids found in this run's top k, at the largest
    k."""


class OverlapSection(_Documented):
    """overlap@k between this run and a reference (exact-search) run of the same queries."""

    source: str
    """Where the reference run was read from (``--reference-run``)."""
    blake3: str | None = None
    """BLAKE3 digest of the reference run file (what ``b3sum`` prints); null when it was
    not read from a file."""
    n_queries: int
    """Golden queries the reference run has results for (count)."""
    missing_in_reference: list[str] = Field(default_factory=list)
    """Ids of the golden queries the reference run has no result for."""
    means: dict[str, float]  # "overlap@k" -> mean over queries in both runs
    """``overlap@k`` -> mean over those queries of the fraction 0-1 of the reference's top k
    that this run's top k holds; k from the report's metrics, else 1, 3, 5, 10."""
    lowest: list[QueryOverlap] = Field(default_factory=list)  # at the largest k
    """Up to 10 queries with overlap below 1 at the largest k, lowest first."""


class MetricSpread(_Documented):
    """One metric's mean over repeated runs, and how far it moved."""

    metric: str
    """The metric's name, as in ``aggregates``."""
    mean: float
    """Mean of the ``n_runs`` run means."""
    min: float
    """Lowest run mean."""
    max: float
    """Highest run mean."""
    std: float  # sample standard deviation (ddof=1) of the run means
    """Sample standard deviation (ddof=1) of the run means; 0 for one run."""


class RepeatSection(_Documented):
    """The same retriever run ``n_runs`` times: how much the metrics and rankings move."""

    n_runs: int
    """How many times every query was retrieved (``--repeat``)."""
    k: int
    """Rank depth compared between runs (default: the report's largest cutoff)."""
    metrics: list[MetricSpread]
    """Spread per metric; a metric without a mean (no answerable query) is left out."""
    changed_queries: list[str] = Field(default_factory=list)  # top k differs between runs
    """Ids of the queries whose top ``k`` ids, in order, differed in any later run."""


class RetrievalReport(_Documented):
    """What ``ragtriage retrieval -o`` writes, and the ``retrieval`` section of an audit."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    schema_version: str = SCHEMA_VERSION
    """``ragtriage.retrieval/1``: what ``compare``, ``gate`` and ``load_result`` read it as."""
    config: RetrievalConfig
    """The settings that shaped the figures."""
    versions: dict[str, str] = Field(default_factory=dict)
    """Package -> version: python, ragtriage, numpy, pandas, pyarrow (``unknown`` if absent)."""
    golden: dict[str, Any] = Field(default_factory=dict)
    """The judgments: ``source``, ``queries``, and for a golden set its ``sha256`` (and the
    corpus's ``corpus_sha256``, ``corpus_chunks``)."""
    run: dict[str, Any] = Field(default_factory=dict)
    """The run: ``source``, ``rows``, ``queries``, ``order`` (``score``: trec_eval's,
    ``given``: as listed), ``blake3`` (the file's BLAKE3 digest, what ``b3sum`` prints),
    ``format``; ``scored`` false for ranks only."""
    n_queries: int
    """Queries of the golden set (or qrels) in the evaluated slice (count)."""
    n_answerable: int  # queries with a document judged relevant at the relevance level
    """Queries with a document graded at least ``relevance_level`` (count)."""
    n_unanswerable: int
    """Queries with nothing relevant (count): averaged in as 0 when
    ``config.nothing_relevant`` is ``zero``, else reported in ``unanswerable``."""
    aggregates: list[MetricSummary]
    """One mean with its interval per metric, in ``config.metrics`` order."""
    slices: list[TagSlice] = Field(default_factory=list)
    """Metric means per golden-set tag, by tag name; empty from bare qrels."""
    missed: list[MissedQuery] = Field(default_factory=list)  # at most the first 1,000
    """Answerable queries with nothing relevant in the top ``miss_k`` (not those
    ``--skip-missing`` left out): the first 1,000 in golden-set order."""
    n_missed: int = 0  # all of them
    """All such queries (count), listed or not."""
    missing_queries: list[str] = Field(default_factory=list)
    """Ids of the golden queries absent from the run (scored 0 or skipped, per
    ``config.missing``)."""
    unanswerable: UnanswerableSection | None = None
    """Top-1 confidence on queries with nothing relevant; null when there are none, the run
    has no scores, or ``nothing_relevant`` is ``zero``."""
    threshold: ThresholdAnalysis | None = None
    """Whether a score cut-off separates relevant from non-relevant results; null when the
    run has no scores."""
    warnings: list[str] = Field(default_factory=list)
    """Everything counted, skipped or capped that the figures depend on, in words."""
    per_query: pd.DataFrame
    """Query id -> metric -> the value trec_eval ``-q`` prints for it; the queries
    averaged, in qrels order."""
    split: SplitInfo | None = None
    """The golden-set slice evaluated; null when the set has no held-out slice and none was
    asked for, and always with bare qrels."""
    leaks: LeakSection | None = None
    """The access-control check; null when no case carries ``forbidden``, ``tenant`` or
    ``acl``."""
    reference_overlap: OverlapSection | None = None
    """Overlap with a reference run; null without ``--reference-run``."""
    repeat: RepeatSection | None = None
    """Spread over repeated runs; null without ``--repeat``."""
    # Every query of the evaluated slice (uncapped, unlike ``missed`` and ``unanswerable``):
    # ``first_relevant_rank`` (trec_eval order, NA if none retrieved), ``top1_score`` and
    # ``confident`` (see retrieval/sections.py:QueryFacts). What triage reads per case;
    # for Python callers only, not written to the JSON file.
    query_facts: pd.DataFrame | None = Field(default=None, exclude=True, repr=False)

    @field_serializer("per_query")
    def _dump_per_query(self, frame: pd.DataFrame) -> dict[str, dict[str, float]]:
        return {str(q): row for q, row in frame.to_dict(orient="index").items()}

    @field_validator("per_query", mode="before")
    @classmethod
    def _load_per_query(cls, value: Any) -> pd.DataFrame:
        if isinstance(value, pd.DataFrame):
            return value
        rows = _per_query_rows(value)
        frame = pd.DataFrame.from_dict(rows, orient="index", dtype=float)
        frame.index = pd.Index(list(rows), dtype=object, name="query_id")
        return frame

    def aggregate(self, metric: str) -> MetricSummary:
        for summary in self.aggregates:
            if summary.metric == metric:
                return summary
        raise KeyError(metric)


def _per_query_rows(value: Any) -> dict[str, dict[str, float]]:
    """``{query_id: {metric: value}}`` checked before pandas sees it, so a results file
    edited by hand (or corrupted) is an error naming the entry, never a traceback or a
    silently wrong table: every row must hold the same metrics, each a finite number."""
    if not isinstance(value, dict):
        raise ValueError(f"expected an object {{query_id: {{metric: value}}}}, got {_kind(value)}")
    columns: list[str] | None = None
    for query_id, row in value.items():
        if not isinstance(row, dict):
            raise ValueError(f"entry {query_id!r}: expected an object of metrics, got {_kind(row)}")
        if columns is None:
            columns = list(row)
        elif row.keys() != set(columns):
            raise ValueError(f"entry {query_id!r}: metrics differ from the first entry's")
        for metric, number in row.items():
            if not _finite_number(number):
                raise ValueError(
                    f"entry {query_id!r}, metric {metric!r}: expected a finite number, "
                    f"got {_kind(number)}"
                )
    return value


def _finite_number(value: Any) -> bool:
    """A JSON number that is a finite float64 (a 400-digit integer is not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__
