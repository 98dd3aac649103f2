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


class RetrievalConfig(BaseModel):
    metrics: list[str]
    relevance_level: int = 1
    precision: Literal["float32", "float64"] = "float64"
    duplicates: Literal["max", "error"] = "max"
    missing: Literal["zero", "skip"] = "zero"
    # queries with nothing judged relevant: scored 0 and averaged in ("zero", trec_eval's
    # reading) or reported on their own ("unanswerable"; what files without it did)
    nothing_relevant: Literal["zero", "unanswerable"] = "unanswerable"
    miss_k: int = 10
    seed: int = DEFAULT_SEED
    resamples: int = DEFAULT_RESAMPLES


class MetricSummary(BaseModel):
    """A metric's mean over the answerable queries with its 95% interval.

    With no answerable query (every ``expected`` empty, or a ``--relevance-level`` above
    every grade) there is no mean: ``mean``, ``low`` and ``high`` are null with ``n`` 0,
    and the report's warnings say why. That is a result, not an error. Its fields are
    named ``mean`` rather than ``estimate`` (:class:`ragtriage.stats.Estimate`) because
    results files and their readers use those names.
    """

    metric: str
    mean: float | None
    low: float | None
    high: float | None
    n: int


class TagSlice(BaseModel):
    tag: str
    n: int
    means: dict[str, float]


class MissedQuery(BaseModel):
    """An answerable query with nothing relevant in the top ``miss_k``: read these, they cluster."""

    query_id: str
    query: str = ""
    tags: list[str] = Field(default_factory=list)
    expected: list[str] = Field(default_factory=list)
    first_relevant_rank: int | None = None
    top_ids: list[str] = Field(default_factory=list)


class UnanswerableQuery(BaseModel):
    query_id: str
    query: str = ""
    top1_score: float | None = None
    top_ids: list[str] = Field(default_factory=list)
    confident: bool = False


class ScoreSummary(BaseModel):
    n: int
    mean: float | None = None
    median: float | None = None
    p10: float | None = None
    p90: float | None = None


class UnanswerableSection(BaseModel):
    """How confident the retriever was on questions the corpus cannot answer."""

    n: int
    answerable_top1: ScoreSummary
    unanswerable_top1: ScoreSummary
    auc: float | None = None
    confident_threshold: float | None = None
    n_confident: int = 0  # of all n, not only the listed ones
    queries: list[UnanswerableQuery] = Field(default_factory=list)


class ThresholdAnalysis(BaseModel):
    """Scores of relevant vs non-relevant results within the top ``depth``."""

    depth: int
    relevant: ScoreSummary
    non_relevant: ScoreSummary
    auc: float | None = None
    best_threshold: float | None = None
    best_youden: float | None = None
    separable: bool = False
    verdict: str = ""
    # Optional raw scores ("relevant", "non_relevant") for the HTML report's histograms;
    # without them the report plots the summaries above.
    score_samples: dict[str, list[float]] | None = None


class Leak(BaseModel):
    """A forbidden chunk (another tenant's, admin-only...) in a query's top k."""

    query_id: str
    forbidden_id: str
    rank: int  # 1-based


class LeakSection(BaseModel):
    """Access-control check over the cases that carry ``forbidden``/``tenant``/``acl``."""

    k: int
    n_cases_checked: int
    n_leaking: int  # cases with any forbidden id in the top k: the gate fails above 0
    cases: list[Leak] = Field(default_factory=list)


class SplitInfo(BaseModel):
    """Which slice of the golden set this report evaluated (data/holdout.py)."""

    evaluated: Literal["dev", "holdout", "all"]
    n_dev: int
    n_holdout: int
    reveal_log: str | None = None
    reveals: int | None = None  # how many times the held-out slice has been looked at


class QueryOverlap(BaseModel):
    query_id: str
    overlap: float


class OverlapSection(BaseModel):
    """overlap@k between this run and a reference (exact-search) run of the same queries."""

    source: str
    sha256: str | None = None
    n_queries: int
    missing_in_reference: list[str] = Field(default_factory=list)
    means: dict[str, float]  # "overlap@k" -> mean over queries in both runs
    lowest: list[QueryOverlap] = Field(default_factory=list)  # at the largest k


class MetricSpread(BaseModel):
    metric: str
    mean: float
    min: float
    max: float
    std: float  # sample standard deviation (ddof=1) of the run means


class RepeatSection(BaseModel):
    """The same retriever run ``n_runs`` times: how much the metrics and rankings move."""

    n_runs: int
    k: int
    metrics: list[MetricSpread]
    changed_queries: list[str] = Field(default_factory=list)  # top k differs between runs


class RetrievalReport(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    schema_version: str = SCHEMA_VERSION
    config: RetrievalConfig
    versions: dict[str, str] = Field(default_factory=dict)
    golden: dict[str, Any] = Field(default_factory=dict)
    run: dict[str, Any] = Field(default_factory=dict)
    n_queries: int
    n_answerable: int  # queries with a document judged relevant at the relevance level
    # queries with none: in per_query and the means (scored 0) when
    # config.nothing_relevant is "zero", else reported in ``unanswerable``
    n_unanswerable: int
    aggregates: list[MetricSummary]
    slices: list[TagSlice] = Field(default_factory=list)
    missed: list[MissedQuery] = Field(default_factory=list)  # at most the first 1,000
    n_missed: int = 0  # all of them
    missing_queries: list[str] = Field(default_factory=list)
    unanswerable: UnanswerableSection | None = None
    threshold: ThresholdAnalysis | None = None
    warnings: list[str] = Field(default_factory=list)
    per_query: pd.DataFrame
    split: SplitInfo | None = None
    leaks: LeakSection | None = None
    reference_overlap: OverlapSection | None = None
    repeat: RepeatSection | None = None
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
