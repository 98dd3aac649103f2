"""The retrieval report as data: what ``--output`` writes and what Python callers get.

Per-query rows come first; every aggregate, interval and slice is computed from them.
``per_query`` is a pandas DataFrame (query id x metric) and serialises to
``{query_id: {metric: value}}``.
"""

from __future__ import annotations

from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

SCHEMA_VERSION = "ragtriage.retrieval/1"


class RetrievalConfig(BaseModel):
    metrics: list[str]
    relevance_level: int = 1
    precision: Literal["float32", "float64"] = "float32"
    duplicates: Literal["max", "error"] = "max"
    missing: Literal["zero", "skip"] = "zero"
    miss_k: int = 10
    seed: int = 20261129
    resamples: int = 2000


class MetricSummary(BaseModel):
    metric: str
    mean: float
    low: float
    high: float
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


class RetrievalReport(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    schema_version: str = SCHEMA_VERSION
    config: RetrievalConfig
    versions: dict[str, str] = Field(default_factory=dict)
    golden: dict[str, Any] = Field(default_factory=dict)
    run: dict[str, Any] = Field(default_factory=dict)
    n_queries: int
    n_answerable: int
    n_unanswerable: int
    aggregates: list[MetricSummary]
    slices: list[TagSlice] = Field(default_factory=list)
    missed: list[MissedQuery] = Field(default_factory=list)
    missing_queries: list[str] = Field(default_factory=list)
    unanswerable: UnanswerableSection | None = None
    threshold: ThresholdAnalysis | None = None
    warnings: list[str] = Field(default_factory=list)
    per_query: pd.DataFrame

    @field_serializer("per_query")
    def _dump_per_query(self, frame: pd.DataFrame) -> dict[str, dict[str, float]]:
        return {str(q): row for q, row in frame.to_dict(orient="index").items()}

    @field_validator("per_query", mode="before")
    @classmethod
    def _load_per_query(cls, value: Any) -> pd.DataFrame:
        if isinstance(value, pd.DataFrame):
            return value
        frame = pd.DataFrame.from_dict(value or {}, orient="index")
        frame.index.name = "query_id"
        return frame

    def aggregate(self, metric: str) -> MetricSummary:
        for summary in self.aggregates:
            if summary.metric == metric:
                return summary
        raise KeyError(metric)
