"""Grade where it counts: an active sampling design and its inverse-probability estimator.

Active statistical inference (Zrnic and Candès, ICML 2024; docs/calibration.md, 'How many
grades, and which') draws each of the audit's ``N`` answers into the graded sample with
its own probability ``pi_i`` and corrects the judge's rate by the weighted residuals:

    theta = (1 / N) * sum_i [ f_i + xi_i * (y_i - f_i) / pi_i ]

(``f_i`` the judge's decision, ``y_i`` the human grade, ``xi_i`` 1 when drawn), unbiased
whatever ``pi`` is as long as every ``pi_i > 0``: the **uniform floor** of
:func:`inclusion_probabilities` guarantees it. The variance-optimal ``pi`` is proportional
to the residual's standard deviation; the judge's uncertainty stands in for it, so the
design is never worse than uniform by more than the floor costs.
:func:`grades_for_half_width` gives the grades an interval of a given half-width needs
(``calibrate --plan``).
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict

from ragtriage.calibration.ppi import PPIEstimate, normal_quantile

__all__ = [
    "DEFAULT_FLOOR",
    "ErrorCurve",
    "fit_error_curve",
    "draw",
    "grades_for_half_width",
    "inclusion_probabilities",
    "ipw_rate",
    "uncertainty",
]

DEFAULT_FLOOR = 0.2  # share of the budget spread uniformly: every pi_i >= 0.2 n / N


def uncertainty(
    distance: np.ndarray, unsure: np.ndarray, groups: np.ndarray | None = None
) -> np.ndarray:
    """How unsure the judge is of each answer, in (0, 1]: 1 for an answer inside the band
    (or without a margin), ``exp(-distance / scale)`` for a decided one, ``scale`` the
    median distance of the decided answers of its group (margins of different groups are
    in different units), so answers near the cut-off come first."""
    d = np.asarray(distance, dtype=float)
    unsure = np.asarray(unsure, dtype=bool) | ~np.isfinite(d)
    groups = np.zeros(len(d), dtype=object) if groups is None else np.asarray(groups, object)
    out = np.ones(len(d))
    for g in set(groups.tolist()):
        mask = (groups == g) & ~unsure
        if not mask.any():
            continue
        # a vetoed answer's margin is negative where its signal said faithful: unsure
        ahead = np.maximum(d[mask], 0.0)
        scale = float(np.median(ahead))
        out[mask] = np.exp(-ahead / (scale if scale > 0 else 1.0))
    return out


class ErrorCurve(BaseModel):
    """The judge's error rate by margin, per group of its rule, from graded answers: a
    non-increasing step function (isotonic regression of "wrong" on the margin, with one
    right and one wrong answer added per group so no rate is 0 or 1). ``sqrt`` of it is
    the residual's standard deviation, to which the variance-optimal inclusion
    probability is proportional (module doc)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    groups: dict[str, tuple[list[float], list[float]]]
    """Group -> (margins, error rates at them, 0-1), margins increasing; between two
    margins the rate of the lower one applies, below the first the first's."""
    overall: float
    """The error rate 0-1 of all graded answers: the rate of a group not listed."""

    def rate(self, groups: np.ndarray, distance: np.ndarray) -> np.ndarray:
        out = np.full(len(distance), self.overall)
        for k, (g, d) in enumerate(zip(groups, distance, strict=True)):
            curve = self.groups.get(str(g))
            if curve is None or not np.isfinite(d):
                continue
            xs, rates = curve
            at = int(np.searchsorted(xs, d, side="right")) - 1
            out[k] = rates[max(at, 0)]
        return out


def fit_error_curve(groups: np.ndarray, distance: np.ndarray, correct: np.ndarray) -> ErrorCurve:
    """:class:`ErrorCurve` from graded answers' groups, margins and whether the judge's
    decision matched the grade (answers without a margin are left out)."""
    from sklearn.isotonic import IsotonicRegression

    d = np.asarray(distance, dtype=float)
    ok = np.isfinite(d)
    groups = np.array([str(g) for g in np.asarray(groups, dtype=object)[ok]], dtype=object)
    d, wrong = d[ok], ~np.asarray(correct, dtype=bool)[ok]
    out = {}
    for g in sorted(set(groups.tolist())):
        m = groups == g
        x = np.concatenate([d[m], [d[m].min(), d[m].max()]])
        yy = np.concatenate([wrong[m].astype(float), [1.0, 0.0]])  # the add-one pair
        iso = IsotonicRegression(increasing=False, out_of_bounds="clip").fit(x, yy)
        xs = np.unique(x)
        out[g] = ([float(v) for v in xs], [float(v) for v in iso.predict(xs)])
    overall = (float(wrong.sum()) + 1.0) / (len(wrong) + 2.0)
    return ErrorCurve(groups=out, overall=overall)


def inclusion_probabilities(
    weight: np.ndarray, budget: float, floor: float = DEFAULT_FLOOR
) -> np.ndarray:
    """Per answer, the probability to be drawn: ``budget`` expected draws in all, a share
    ``floor`` of them uniform and the rest proportional to ``weight``; a probability that
    would pass 1 is set to 1 and its excess spread over the others (module doc)."""
    w = np.asarray(weight, dtype=float)
    n = len(w)
    if n == 0:
        return np.zeros(0)
    if not 0 < floor <= 1:
        raise ValueError("the uniform floor must be in (0, 1]")
    budget = min(float(budget), float(n))
    w = np.where(np.isfinite(w) & (w > 0), w, 0.0)
    share = w / w.sum() if w.sum() > 0 else np.full(n, 1.0 / n)
    pi = budget * (floor / n + (1 - floor) * share)
    for _ in range(n):  # cap at 1, give the excess to the others in proportion
        over = pi > 1.0
        if not over.any():
            break
        excess = float((pi[over] - 1.0).sum())
        pi[over] = 1.0
        free = ~over & (pi < 1.0)
        if not free.any():
            break
        pi[free] += excess * pi[free] / pi[free].sum()
    return np.minimum(pi, 1.0)


def draw(probabilities: np.ndarray, seed: int) -> np.ndarray:
    """Which answers are drawn: each independently with its probability (seeded)."""
    rng = np.random.default_rng(seed)
    return rng.random(len(probabilities)) < np.asarray(probabilities, dtype=float)


def ipw_rate(
    judge: np.ndarray,
    drawn: np.ndarray,
    human: np.ndarray,
    probabilities: np.ndarray,
    level: float = 0.95,
) -> PPIEstimate:
    """The estimator of the module doc over ``N`` answers: ``judge`` the decisions (0/1 or
    fold votes) of all, ``drawn`` which were graded, ``human`` their grades (any value
    where not drawn), ``probabilities`` each answer's inclusion probability. As a
    :class:`PPIEstimate` (the estimate may leave [0, 1] with few grades; the interval is
    clipped): ``naive`` the judge's own rate over the answers (its interval the point, as
    ``lam`` is 1), ``correction`` what the weighted residuals add to it."""
    f = np.asarray(judge, dtype=float)
    xi = np.asarray(drawn, dtype=bool)
    pi = np.asarray(probabilities, dtype=float)
    y = np.asarray(human, dtype=float)
    if not (len(f) == len(xi) == len(pi) == len(y)):
        raise ValueError("judge, drawn, human and probabilities differ in length")
    if len(f) < 2:
        raise ValueError("the weighted rate needs at least two answers")
    if np.any(pi[xi] <= 0) or not np.all(np.isfinite(f)):
        raise ValueError("every drawn answer needs a probability > 0, every answer a decision")
    residual = np.where(xi, np.nan_to_num(y) - f, 0.0)
    z = f + np.where(xi, residual / np.where(xi, pi, 1.0), 0.0)
    theta = float(z.mean())
    se = float(z.std(ddof=1) / math.sqrt(len(z)))
    half = normal_quantile(level) * se
    naive = float(f.mean())
    return PPIEstimate(
        estimate=theta,
        low=max(0.0, theta - half),
        high=min(1.0, theta + half),
        naive=naive,
        naive_low=naive,
        naive_high=naive,
        correction=theta - naive,
        lam=1.0,
        n_labelled=int(xi.sum()),
        n_unlabelled=len(f) - int(xi.sum()),
        level=level,
    )


def grades_for_half_width(
    residuals: np.ndarray,
    half_width: float,
    n_answers: int | None = None,
    judge_variance: float = 0.0,
    level: float = 0.95,
) -> int:
    """Grades (uniformly drawn) for the corrected rate's interval to reach ``half_width``:
    ``n = z^2 Var(y - f) / (h^2 - z^2 Var(f) / N)`` from the residuals ``y - f`` of the
    grades so far (PPI's variance, ``calibration.ppi``); without ``n_answers`` the audit is
    taken as large. -1 when no number of grades can (the judge's own spread over ``N``
    answers is already wider)."""
    r = np.asarray(residuals, dtype=float)
    if len(r) < 2:
        raise ValueError("planning needs at least two graded answers")
    z2 = normal_quantile(level) ** 2
    room = half_width**2 - (z2 * judge_variance / n_answers if n_answers else 0.0)
    if room <= 0:
        return -1
    # a residual variance of 0 (every grade agreed) is no proof: the add-one floor
    p = (np.abs(r).sum() + 1.0) / (len(r) + 2.0)
    var = max(float(r.var(ddof=1)), float(p * (1 - p)))
    return int(math.ceil(z2 * var / room))
