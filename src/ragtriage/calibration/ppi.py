"""Prediction-powered inference (PPI) for the faithfulness rate of a whole audit.

The judge's faithful rate on the audit's answers is biased by whatever the judge gets
wrong; PPI (Angelopoulos et al., Science 2023) corrects it with the human-graded items:

    theta = lam * mean(f(X_unlabelled)) + mean(Y - lam * f(X_labelled))
    Var = lam^2 * Var(f_u) / N + Var(Y - lam * f_l) / n

unbiased for the human rate for any judge f fixed independently of the labelled items (or
cross-fitted). lam = 1 is classical PPI; power tuning (PPI++) picks
lam = Cov(Y, f_l) / ((1 + n/N) Var(f)). The interval is clipped to [0, 1].

The audit's decisions are votes (the fold rules' mean, 0 to 1), so their variance is taken
as at least that of the add-one proportion (``p = (sum + 1) / (N + 2)``): their sample
variance alone is 0 when 12 of 12 are judged faithful (near 0 when the votes average 0.8
to 1), which claimed that a dozen answers pin the rate down exactly.
"""

from __future__ import annotations

import numpy as np

from ragtriage.stats import Estimate

__all__ = ["PPIEstimate", "normal_quantile", "ppi_rate"]


class PPIEstimate(Estimate):
    """The prediction-powered rate (``estimate``, ``low``, ``high``) and the judge's naive one."""

    naive: float  # the judge's own rate on the unlabelled answers
    """The judge's own faithful rate 0-1 on the unlabelled answers, uncorrected."""
    naive_low: float
    """Lower end of the naive rate's normal interval at ``level``, at least 0."""
    naive_high: float
    """Upper end of the naive rate's normal interval at ``level``, at most 1."""
    correction: float  # mean(Y - lam f_l)
    """The rectifier, mean(human - lam * judge) on the graded answers: what is added to
    ``lam`` times the naive rate."""
    lam: float
    """The weight on the judge, 0-1: 1 for classical PPI, tuned for PPI++."""
    n_labelled: int
    """Graded answers used (count)."""
    n_unlabelled: int
    """Ungraded answers whose rate is estimated (count)."""
    level: float = 0.95
    """Coverage of the intervals (0.95: 95%)."""


def normal_quantile(level: float) -> float:
    """The standard normal quantile of a two-sided interval at ``level`` (1.96 at 0.95)."""
    from scipy.stats import norm

    return float(norm.ppf(0.5 + level / 2.0))


def _spread(f_u: np.ndarray) -> float:
    """The decisions' variance, at least the add-one proportion's (module doc)."""
    p = (f_u.sum() + 1.0) / (len(f_u) + 2.0)
    return max(float(f_u.var(ddof=1)), float(p * (1.0 - p)))


def ppi_rate(
    judge_unlabelled,
    judge_labelled,
    human_labelled,
    *,
    level: float = 0.95,
    power_tuning: bool = False,
) -> PPIEstimate:
    """Bias-corrected faithful rate with its interval (see the module docstring).

    ``judge_unlabelled``: the judge's decisions (0/1) or probabilities on the audit's
    answers; ``judge_labelled`` and ``human_labelled``: the judge and the human on the
    graded answers, pairwise. NaNs (items without a decision) must be removed by the caller.
    """
    f_u = np.asarray(judge_unlabelled, float)
    f_l = np.asarray(judge_labelled, float)
    y = np.asarray(human_labelled, float)
    if len(f_l) != len(y):
        raise ValueError("judge_labelled and human_labelled differ in length")
    n, big_n = len(y), len(f_u)
    if n < 2 or big_n < 2:
        raise ValueError("PPI needs at least two labelled and two unlabelled items")
    if not (np.all(np.isfinite(f_u)) and np.all(np.isfinite(f_l)) and np.all(np.isfinite(y))):
        raise ValueError("PPI inputs must be finite (drop unscored items first)")
    lam = 1.0
    if power_tuning:
        f_all = np.concatenate([f_l, f_u])
        var_f = float(np.var(f_all, ddof=1))
        cov = float(np.cov(y, f_l, ddof=1)[0, 1]) if n > 1 else 0.0
        lam = float(np.clip(cov / ((1 + n / big_n) * var_f), 0.0, 1.0)) if var_f > 0 else 0.0
    rect = y - lam * f_l
    theta = lam * f_u.mean() + rect.mean()
    spread = _spread(f_u)
    # lam = 0 (power tuning found no use for the judge) leaves the labels' own mean, a
    # proportion: the same add-one floor, or 20 unanimous labels would claim [1.0, 1.0]
    rect_var = _spread(rect) if lam == 0.0 else float(rect.var(ddof=1))
    se = np.sqrt(lam**2 * spread / big_n + rect_var / n)
    z = normal_quantile(level)
    naive = float(f_u.mean())
    naive_se = float(np.sqrt(spread / big_n))
    clip = lambda x: float(min(max(x, 0.0), 1.0))  # noqa: E731  (each bound: low <= high)
    return PPIEstimate(
        estimate=float(theta),
        low=clip(theta - z * se),
        high=clip(theta + z * se),
        naive=naive,
        naive_low=max(0.0, naive - z * naive_se),
        naive_high=min(1.0, naive + z * naive_se),
        correction=float(rect.mean()),
        lam=lam,
        n_labelled=n,
        n_unlabelled=big_n,
        level=level,
    )
