"""Shared statistics: seeded bootstrap intervals and paired tests over per-query rows.

Every mean ragtriage reports comes with an interval, and every interval is seeded so
the same input gives the same report. The percentile bootstrap is used because the
per-query values of IR metrics are bounded and skewed, where normal intervals misbehave.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "Estimate",
    "Interval",
    "NanFloat",
    "NORMAL_ABOVE",
    "bootstrap_mean",
    "bootstrap_statistic",
    "holm",
    "paired_bootstrap_diff",
    "randomization_test",
    "wilson_interval",
]

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 20261129
NORMAL_ABOVE = 50_000


def _null_is_nan(value: Any) -> Any:
    return float("nan") if value is None else value


# A figure that is NaN where it is undefined (kappa of constant raters, precision of a
# rule that never predicts "unfaithful"). JSON has no NaN, so pydantic writes it as null;
# this type reads that null back as NaN, so every record we write loads again.
NanFloat = Annotated[float, BeforeValidator(_null_is_nan)]


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided interval at ``level``: what the functions below
    compute. Results files store the three numbers as an :class:`Estimate`."""

    estimate: float
    low: float
    high: float
    level: float = 0.95
    n: int = 0


class Estimate(BaseModel):
    """A point estimate with its interval, as results files store it (``estimate``,
    ``low``, ``high``); :class:`ragtriage.calibration.ppi.PPIEstimate` extends it.

    Two other result types carry an interval under other field names, which the results
    files fix: ``MetricSummary`` (``mean``, ``low``, ``high``, null when no query is
    answerable, with ``n``) and ``Agreement`` (``kappa``, ``kappa_low``, ``kappa_high``
    among its other figures).
    """

    model_config = ConfigDict(use_attribute_docstrings=True)

    estimate: NanFloat
    """The point estimate; null where it is undefined."""
    low: NanFloat
    """Lower end of its two-sided 95% interval; null where undefined."""
    high: NanFloat
    """Upper end of its two-sided 95% interval; null where undefined."""


def bootstrap_mean(
    values: np.ndarray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Percentile bootstrap interval of the mean of ``values`` (NaN for an empty input).
    Above ``NORMAL_ABOVE`` values the bootstrap distribution of a mean is normal within its
    own Monte-Carlo error, so the far cheaper normal interval is returned instead."""
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n == 0:
        return Interval(float("nan"), float("nan"), float("nan"), level, 0)
    if n > NORMAL_ABOVE:
        return _normal_mean(values, level)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    for start in range(0, resamples, 256):
        stop = min(start + 256, resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = values[idx].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return Interval(float(values.mean()), float(low), float(high), level, n)


def bootstrap_statistic(
    n: int,
    statistic,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float]:
    """Percentile interval of ``statistic(indices)`` over bootstrap resamples of ``range(n)``,
    for statistics that are not means (kappa, AUC); NaN replicates (a resample with one
    class) are dropped."""
    rng = np.random.default_rng(seed)
    stats = np.array([statistic(rng.integers(0, n, size=n)) for _ in range(resamples)])
    stats = stats[np.isfinite(stats)]
    if len(stats) == 0:
        return float("nan"), float("nan")
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(stats, [alpha, 1.0 - alpha])
    return float(low), float(high)


def paired_bootstrap_diff(
    base: np.ndarray,
    candidate: np.ndarray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Interval of mean(candidate - base) over the same queries, resampled in pairs."""
    return bootstrap_mean(
        np.asarray(candidate, np.float64) - np.asarray(base, np.float64),
        resamples=resamples,
        level=level,
        seed=seed,
    )


def randomization_test(
    base: np.ndarray, candidate: np.ndarray, *, permutations: int = 10000, seed: int = DEFAULT_SEED
) -> float:
    """Two-sided paired randomization (sign-flip) test p-value for mean(candidate - base):
    the share of random sign flips at least as extreme as observed, +1 smoothed so p is
    never 0. NaN pairs are the caller's to drop: a NaN difference would make every flip
    less extreme and p spuriously tiny."""
    diff = np.asarray(candidate, np.float64) - np.asarray(base, np.float64)
    if np.isnan(diff).any():
        raise ValueError("randomization_test: drop pairs with a missing value first")
    if len(diff) == 0 or not np.any(diff):
        return 1.0
    observed = abs(diff.mean())
    rng = np.random.default_rng(seed)
    extreme = 0
    for start in range(0, permutations, 1000):
        stop = min(start + 1000, permutations)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(stop - start, len(diff)))
        extreme += int((np.abs((signs * diff).mean(axis=1)) >= observed - 1e-12).sum())
    return (extreme + 1) / (permutations + 1)


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (Holm 1979), in the input order: a family of tests
    (every metric, tag and rate of one comparison) keeps its chance of any false "real
    difference" at the nominal level."""
    p = np.asarray(p_values, np.float64)
    m = len(p)
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = scaled
    return out


def _normal_mean(values: np.ndarray, level: float) -> Interval:
    from statistics import NormalDist  # not scipy: its import alone costs a second

    mean = float(values.mean())
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    half = float(z * values.std(ddof=1) / np.sqrt(len(values)))
    return Interval(mean, mean - half, mean + half, level, len(values))


def wilson_interval(successes: int, n: int, level: float = 0.95) -> Interval:
    """A proportion with its Wilson score interval. For a small, unanimous sample the
    bootstrap resamples only ones and says [1, 1]; Wilson says what n answers can
    (12 of 12: [0.76, 1.00])."""
    from scipy.stats import norm

    rate = successes / n
    z = float(norm.ppf(0.5 + level / 2))
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return Interval(estimate=rate, low=float(low), high=float(high), level=level, n=n)
