"""Kappa-maximising thresholds, seeded stratified folds and cross-fitting.

The threshold that maximises kappa on the items that chose it overstates the agreement a
new item will see, so every reported agreement is also measured out of fold: each fold's
decisions come from a rule fitted on the other folds only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ragtriage.calibration.decision import ConstantRule, Table, ThresholdRule

__all__ = [
    "candidate_thresholds",
    "cross_fit",
    "fit_majority",
    "fit_threshold",
    "kappa_curve",
    "stratified_folds",
    "subset",
]


def kappa_curve(x: np.ndarray, y: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Cohen's kappa of ``x >= t`` against ``y`` for every ``t`` (vectorised; NaN where
    kappa is undefined, i.e. both raters constant and equal)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    d = (x[None, :] >= np.asarray(thresholds, float)[:, None]).astype(float)
    p_o = (d == y[None, :]).mean(axis=1)
    ph, pj = y.mean(), d.mean(axis=1)
    p_e = ph * pj + (1 - ph) * (1 - pj)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (p_o - p_e) / (1 - p_e)
    # undefined only where chance agreement is 1, as in cohen_kappa (np.isclose's 1e-5
    # made kappa NaN at 2 unfaithful in 400,000)
    kappa[p_e >= 1.0 - 1e-12] = np.nan
    return kappa


def candidate_thresholds(x: np.ndarray) -> np.ndarray:
    """Midpoints between consecutive distinct values, plus one below and one above all:
    every distinct split of the items, each at the point farthest from both neighbours."""
    u = np.unique(np.asarray(x, float)[np.isfinite(x)])
    if len(u) == 0:
        return np.array([0.5])
    return np.concatenate([[u[0] - 1e-9], (u[:-1] + u[1:]) / 2, [u[-1] + 1e-9]])


def fit_threshold(
    x: np.ndarray, y: np.ndarray, feature: str = "score", direction: int | None = 1
) -> ThresholdRule:
    """The threshold maximising kappa (ties: the median of the tied candidates, so the cut
    sits inside the plateau rather than on its edge). ``direction=None`` also tries
    "lower is more faithful" (e.g. answer length) and keeps the better. With one class only
    in ``y`` kappa is undefined and accuracy is maximised instead."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    best: tuple[float, ThresholdRule] | None = None
    for sign in (1, -1) if direction is None else (direction,):
        xs = sign * x
        cands = candidate_thresholds(xs)
        if len(np.unique(y)) < 2:
            crit = ((xs[None, :] >= cands[:, None]) == y[None, :]).mean(axis=1)
        else:
            crit = np.nan_to_num(kappa_curve(xs, y, cands), nan=-np.inf)
        # a training part with no items (a tiny scope's inner fold) has no criterion at
        # all: every candidate ties, and the middle one is taken, as on any plateau
        crit = np.nan_to_num(crit, nan=-np.inf)
        top = np.flatnonzero(crit >= crit.max() - 1e-12)
        chosen = float(cands[top[len(top) // 2]])
        rule = ThresholdRule(feature=feature, threshold=sign * chosen, direction=sign)
        if best is None or crit.max() > best[0] + 1e-12:
            best = (float(crit.max()), rule)
    assert best is not None
    return best[1]


def fit_majority(y: np.ndarray) -> ConstantRule:
    """The majority class of the training labels (faithful on a tie)."""
    return ConstantRule(value=bool(np.mean(y) >= 0.5))


def stratified_folds(strata: Sequence[str], k: int, seed: int) -> np.ndarray:
    """Fold number (0..k-1) for each item: every stratum (dataset x label) is shuffled with
    a seeded generator and dealt round-robin, continuing where the previous stratum
    stopped, so folds differ in size by at most one and keep each stratum's share."""
    strata = list(strata)
    rng = np.random.default_rng(seed)
    folds = np.empty(len(strata), dtype=int)
    offset = 0
    for key in sorted(set(strata)):
        idx = np.flatnonzero(np.array(strata, dtype=object) == key)
        idx = idx[rng.permutation(len(idx))]
        folds[idx] = (offset + np.arange(len(idx))) % k
        offset = (offset + len(idx)) % k
    return folds


def subset(table: Table, idx: np.ndarray) -> Table:
    return {k: v[idx] for k, v in table.items()}


def cross_fit(
    fit: Callable[[Table, np.ndarray], object], table: Table, y: np.ndarray, folds: np.ndarray
) -> tuple[np.ndarray, list]:
    """Out-of-fold decisions (each item decided by the rule fitted without its fold) and the
    fold rules. A fold whose training part has one class only still gets a rule."""
    oof = np.full(len(y), np.nan)
    rules = []
    for f in np.unique(folds):
        train, test = folds != f, folds == f
        rule = fit(subset(table, train), y[train])
        oof[test] = rule.predict(subset(table, test))  # type: ignore[attr-defined]
        rules.append(rule)
    return oof, rules
