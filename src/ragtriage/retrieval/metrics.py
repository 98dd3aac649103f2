"""Retrieval metrics: small pure functions over a :class:`RankedBatch`, each declared with
its title, formula, typed parameters and the trec_eval measure it equals (``_declare``).

Each takes the batch and an optional cutoff ``k`` and returns one float64 value per
query. Formulas follow trec_eval 9.0.8 (``m_*.c``) and agree with it per query to 1e-9;
their notation is docs/reference/metrics.md's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragtriage.errors import InputError
from ragtriage.retrieval._declare import (
    REGISTRY,
    MetricFn,
    MetricSpec,
    Param,
    aliases,
    cut_names,
    metric,
)
from ragtriage.retrieval.ranking import RankedBatch

__all__ = [
    "ALIASES",
    "CUTOFF",
    "CUTOFF_OPTIONAL",
    "CUT_NAMES",
    "EXP_GAIN",
    "EXP_GAIN_SAFE",
    "LINEAR_GAIN",
    "MAX_CUTOFF",
    "Measure",
    "MetricFn",
    "MetricSpec",
    "Param",
    "REGISTRY",
    "REL",
    "average_precision",
    "expand",
    "hit_rate",
    "metric",
    "mrr",
    "ndcg",
    "ndcg_exp",
    "parse_measure",
    "parse_measures",
    "precision",
    "r_precision",
    "recall",
    "topic_order",
    "trec_mean",
]

# the parameters the metrics share (ir_measures' ``cutoff`` and ``rel``)
CUTOFF = Param(
    "cutoff", int, None, "rank depth k: only the top k results count", "name", required=True
)
CUTOFF_OPTIONAL = replace(
    CUTOFF, required=False, description="rank depth k; without it, every retrieved result"
)
REL = Param(
    "rel",
    int,
    1,
    "minimum label that counts as relevant: rel_i = 1 when the label at rank i is >= rel",
    "evaluation",
)
LINEAR_GAIN = Param("gain", str, "label", "gain of a result: its label (g_i = label)", "metric")
EXP_GAIN = Param("gain", str, "2^label - 1", "gain of a result: 2 to the label, minus 1", "metric")


def _top(batch: RankedBatch, k: int | None) -> np.ndarray:
    """``rel_i`` of the top k: the labels cut before they are compared (a run of depth
    100 scored at k = 10 compares a tenth of its cells)."""
    labels = batch.labels if k is None else batch.labels[:, :k]
    return labels >= batch.level


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(np.shape(num), np.float64), where=den > 0)


def _discount(width: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(width, dtype=np.float64) + 2.0)


@metric(
    "precision",
    title="Precision at k",
    formula="P@k = sum_{i<=k} rel_i / k",
    trec="P_k",
    params=(CUTOFF, REL),
    aliases=("p",),
)
def precision(batch: RankedBatch, k: int | None) -> np.ndarray:
    """The divisor is k even when fewer than k results were retrieved, as in trec_eval."""
    assert k is not None
    return _top(batch, k).sum(axis=1) / float(k)


@metric(
    "recall",
    title="Recall at k",
    formula="R@k = sum_{i<=k} rel_i / R",
    trec="recall_k",
    params=(CUTOFF, REL),
    aliases=("r",),
)
def recall(batch: RankedBatch, k: int | None) -> np.ndarray:
    """0 when the query has no relevant document (R = 0), as in trec_eval."""
    return _safe_div(_top(batch, k).sum(axis=1).astype(np.float64), batch.num_rel)


@metric(
    "hit_rate",
    title="Hit rate (success) at k",
    formula="Hit@k = 1 if rel_i = 1 for some i <= k, else 0",
    trec="success_k",
    params=(CUTOFF, REL),
    aliases=("success", "hit", "hitrate"),
)
def hit_rate(batch: RankedBatch, k: int | None) -> np.ndarray:
    """Averaged over queries it is the share of queries with a relevant result in the top k."""
    return np.asarray(_top(batch, k).any(axis=1), dtype=np.float64)


@metric(
    "mrr",
    title="Reciprocal rank",
    formula="RR = 1 / (rank of the first result with rel_i = 1), 0 if none (within k when given)",
    trec="recip_rank",
    params=(CUTOFF_OPTIONAL, REL),
    aliases=("recip_rank", "rr"),
)
def mrr(batch: RankedBatch, k: int | None) -> np.ndarray:
    """trec_eval's ``recip_rank`` has no cutoff; ``mrr@k`` only looks at the top k."""
    rel = _top(batch, k)
    first = rel.argmax(axis=1)
    found = rel.any(axis=1)
    return np.where(found, 1.0 / (first + 1.0), 0.0)


def _dcg(gains: np.ndarray, k: int | None) -> np.ndarray:
    gains = gains if k is None else gains[:, :k]
    return (gains * _discount(gains.shape[1])).sum(axis=1)


def _ndcg(
    batch: RankedBatch, k: int | None, gain: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    top, best = (
        (batch.labels, batch.ideal) if k is None else (batch.labels[:, :k], batch.ideal[:, :k])
    )
    labels = np.where(top > 0, top, 0).astype(np.float64)
    ideal = np.where(best > 0, best, 0).astype(np.float64)
    return _safe_div(_dcg(gain(labels), k), _dcg(gain(ideal), k))


@metric(
    "ndcg",
    title="Normalised discounted cumulative gain",
    formula="nDCG@k = sum_{i<=k} g_i / log2(i+1), divided by the same sum over the ideal "
    "ordering of all judged positive labels",
    trec="ndcg_cut_k",
    trec_uncut="ndcg",
    params=(CUTOFF_OPTIONAL, LINEAR_GAIN),
    cut_names=("ndcg_cut",),
)
def ndcg(batch: RankedBatch, k: int | None) -> np.ndarray:
    """Gains are the raw labels, whatever the relevance level, as in trec_eval; a
    negative label gains 0."""
    return _ndcg(batch, k, lambda g: g)


EXP_GAIN_SAFE = 1000.0  # 2^1000 is a float64; 2^1024 is not


@metric(
    "ndcg_exp",
    title="nDCG with exponential gain",
    formula="nDCG@k as ndcg, with g_i = 2^label - 1",
    trec=None,
    params=(CUTOFF_OPTIONAL, EXP_GAIN),
    equals="ir_measures' nDCG with exponential gain (Burges et al.); ndcg for binary labels",
)
def ndcg_exp(batch: RankedBatch, k: int | None) -> np.ndarray:
    """Above label 1023, 2^label is beyond float64: a query's gains are then divided by
    2^m, m its largest label (the ratio is unchanged), so a grade of 2000 gives a number,
    not inf / inf = NaN."""
    top = np.where(batch.ideal > 0, batch.ideal, 0).max(axis=1, initial=0).astype(np.float64)
    shift = np.where(top > EXP_GAIN_SAFE, top, 0.0)[:, None]
    return _ndcg(batch, k, lambda g: np.exp2(g - shift) - np.exp2(-shift))


@metric(
    "map",
    title="Average precision",
    formula="AP@k = sum_{i<=k} rel_i * P@i / R",
    trec="map_cut_k",
    trec_uncut="map",
    params=(CUTOFF_OPTIONAL, REL),
    aliases=("ap",),
    cut_names=("map_cut",),
)
def average_precision(batch: RankedBatch, k: int | None) -> np.ndarray:
    """With a cutoff the divisor stays R, all judged relevant documents, as in
    ``map_cut_k``. Summed over the relevant cells only, in rank order as trec_eval sums
    them: a run's rows hold a few relevant results among a hundred."""
    rows, cols = np.nonzero(_top(batch, k))
    n = len(batch.queries)
    per_row = np.bincount(rows, minlength=n)
    seen = np.arange(1, len(rows) + 1) - np.repeat(np.cumsum(per_row) - per_row, per_row)
    total = np.bincount(rows, weights=seen / (cols + 1.0), minlength=n)
    return _safe_div(total, batch.num_rel)


@metric(
    "r_precision",
    title="R-precision",
    formula="R-Prec = sum_{i<=R} rel_i / R",
    trec="Rprec",
    params=(REL,),
    aliases=("rprec",),
)
def r_precision(batch: RankedBatch, k: int | None) -> np.ndarray:
    """Precision at the query's own depth R, so it takes no cutoff."""
    rel = batch.relevant()
    cum = np.concatenate([np.zeros((rel.shape[0], 1)), np.cumsum(rel, axis=1)], axis=1)
    at = np.minimum(batch.num_rel, rel.shape[1])
    return _safe_div(cum[np.arange(rel.shape[0]), at], batch.num_rel)


# every other spelling -> its metric, and trec_eval's cut measures: from the declarations
ALIASES = aliases()
# trec_eval's cut measures: bare, they mean a list of cutoffs, never the uncut measure
CUT_NAMES = cut_names()


@dataclass(frozen=True, order=True)
class Measure:
    """A metric with its cutoff, parsed from text such as ``ndcg@10`` or ``P_5``."""

    name: str
    k: int | None = None

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"

    @property
    def spec(self) -> MetricSpec:
        return REGISTRY[self.name]

    def __call__(self, batch: RankedBatch) -> np.ndarray:
        return self.spec.fn(batch, self.k)


# ``@`` (ir_measures), ``_`` (trec_eval's output names) or ``.`` (trec_eval's ``-m P.5``)
_PATTERN = re.compile(r"^\s*([A-Za-z_]+?)(?:(?:@|_|\.)(-?\d+))?\s*$", re.ASCII)


MAX_CUTOFF = 1_000_000  # far deeper than any ranking scored; keeps k inside 64-bit arrays


def parse_measure(text: str) -> Measure:
    """``"ndcg@10"``, ``"P_5"``, ``"recip_rank"``, ``"success@1"`` -> :class:`Measure`."""
    match = _PATTERN.match(text)
    if not match:
        raise InputError(f"cannot parse metric {text!r}; expected e.g. 'ndcg@10'", field="metrics")
    raw, k_text = match.group(1).lower(), match.group(2)
    name = ALIASES.get(raw, raw)
    if name not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise InputError(f"unknown metric {text!r}; known: {known}", field="metrics")
    spec = REGISTRY[name]
    if raw in CUT_NAMES and k_text is None:
        raise InputError(f"metric {raw!r} needs a cutoff, e.g. '{raw}@10'", field="metrics")
    k = int(k_text) if k_text is not None and len(k_text) <= 7 else None
    if k_text is not None and (k is None or not 1 <= k <= MAX_CUTOFF):
        raise InputError(
            f"cutoff in {text[:40]!r} must be an integer from 1 to {MAX_CUTOFF}", field="metrics"
        )
    if spec.cutoff == "required" and k is None:
        raise InputError(f"metric {name!r} needs a cutoff, e.g. '{name}@10'", field="metrics")
    if spec.cutoff == "none" and k is not None:
        raise InputError(f"metric {name!r} takes no cutoff", field="metrics")
    return Measure(name, k)


def parse_measures(texts: list[str] | tuple[str, ...]) -> list[Measure]:
    return list(dict.fromkeys(parse_measure(t) for t in texts))


def expand(names: list[str], ks: list[int]) -> list[Measure]:
    """``["recall", "ndcg@10", "mrr"]`` with ``ks=[1, 5]`` -> recall@1, recall@5, ndcg@10, mrr.

    A metric that needs a cutoff, and trec_eval's bare ``ndcg_cut`` and ``map_cut``, are
    taken at every ``ks``; trec_eval's ``P.5,10`` (a cutoff list split at its commas)
    continues the dotted metric before it."""
    out: list[str] = []
    for name in _join_cutoff_lists(names):
        key = name.strip().lower()
        spec = REGISTRY.get(ALIASES.get(key, key))
        if spec is not None and (spec.cutoff == "required" or key in CUT_NAMES):
            out.extend(f"{spec.name}@{k}" for k in ks)
            continue
        out.append(name)
    return parse_measures(out)


def _join_cutoff_lists(names: list[str]) -> list[str]:
    """``["P.5", "10", "mrr"]`` -> ``["P.5", "P.10", "mrr"]``: a bare number after a
    dotted metric is another of its cutoffs, as in trec_eval's ``-m P.5,10``."""
    out: list[str] = []
    base: str | None = None
    for name in names:
        text = name.strip()
        if text.isdigit() and base is not None:
            out.append(f"{base}.{text}")
            continue
        base = text.split(".", 1)[0] if "." in text else None
        out.append(text)
    return out


def topic_order(query_ids: np.ndarray) -> np.ndarray:
    """Indices that put ``query_ids`` in trec_eval's topic order: byte-wise (strcmp), as
    ``get_qrels.c`` sorts them; arrow compares UTF-8 bytes."""
    ids = [str(q) for q in query_ids]  # ids are str; a caller's ints still sort
    return pc.sort_indices(pa.array(ids, pa.string())).to_numpy()


def trec_mean(values: np.ndarray, order: np.ndarray) -> float:
    """The mean as trec_eval prints it on its ``all`` line: per-query values added one by
    one in topic order (``order``, from :func:`topic_order`; ``meas_acc.c``), then divided
    once by the number of queries (``meas_avg.c``). numpy's pairwise sum can end one ulp
    away, which flips the fourth printed decimal now and then (0.4937 against trec_eval's
    0.4938 for reciprocal ranks 1/5, 1, 1/3, 1/2, 1/4, 1/3, 1, 1/3)."""
    ordered = np.asarray(values, dtype=np.float64)[order]
    if not len(ordered):
        return float("nan")
    return float(np.cumsum(ordered)[-1] / len(ordered))  # cumsum adds in order
