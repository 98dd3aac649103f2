"""The selective band: its guarantee on simulated judges of known error, and its groups."""

from __future__ import annotations

import numpy as np
import pytest

import ragtriage.calibration.band as band_module
from ragtriage.calibration.band import VETO_FIRST, clopper_pearson_upper, fit_band, margins
from ragtriage.calibration.decision import ShapeRule, ThresholdRule, VetoRule
from ragtriage.calibration.select import candidates, nested_band, nested_select
from ragtriage.calibration.threshold import stratified_folds

ALPHA, DELTA = 0.10, 0.1


def _true_risk(cut: float | None) -> float:
    """Disagreement of decided answers of the simulated judge below, exactly: margins are
    uniform on [0, 1] and a margin d is right with probability 0.6 + 0.4 d, so the
    answers with d >= c are wrong at 0.2 (1 - c) on average."""
    return 0.0 if cut is None else 0.2 * (1.0 - cut)


def _simulate(seed: int, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    d = rng.random(n)
    correct = rng.random(n) < 0.6 + 0.4 * d
    return d, correct


def _violations(seeds: int = 300) -> float:
    bad = 0
    for seed in range(seeds):
        d, correct = _simulate(seed)
        band = fit_band(np.full(len(d), "all"), d, correct, 1 - ALPHA, DELTA)
        bad += _true_risk(band.groups["all"].min_distance) > ALPHA
    return bad / seeds


def test_the_guarantee_holds_on_a_judge_of_known_error():
    """Decided answers disagree at more than alpha in at most delta of the calibrations
    (the binomial noise over 300 seeds allows 0.1 + 0.04)."""
    assert _violations() <= DELTA + 0.04


def test_the_guarantee_fails_when_the_bound_is_dropped(monkeypatch):
    """Broken on purpose: the observed error rate in place of its upper bound decides
    where the judge is wrong too often, in far more than delta of the calibrations."""
    monkeypatch.setattr(band_module, "clopper_pearson_upper", lambda k, n, delta: k / n)
    assert _violations() > 2 * DELTA


def test_the_band_decides_the_confident_part_and_gets_close_to_the_best_cut():
    d, correct = _simulate(0, n=4000)
    band = fit_band(np.full(len(d), "all"), d, correct, 1 - ALPHA, DELTA)
    cut = band.groups["all"].min_distance
    assert cut is not None and 0.5 <= cut <= 0.65  # the exact cut-off is 0.5
    entry = band.groups["all"]
    assert entry.errors / entry.decided <= ALPHA and entry.upper <= ALPHA


def test_a_judge_that_is_never_good_enough_decides_nothing():
    rng = np.random.default_rng(1)
    d = rng.random(300)
    correct = rng.random(300) < 0.7  # 70 % right whatever the margin
    band = fit_band(np.full(300, "all"), d, correct, 0.85, DELTA)
    assert band.groups["all"].min_distance is None and band.groups["all"].decided == 0


def test_clopper_pearson_is_exact():
    # no error in n: the bound solves (1 - p)^n = delta
    assert clopper_pearson_upper(0, 20, 0.1) == pytest.approx(1 - 0.1 ** (1 / 20))
    assert clopper_pearson_upper(3, 3, 0.1) == 1.0 and clopper_pearson_upper(0, 0, 0.1) == 1.0
    from scipy.stats import binom

    upper = clopper_pearson_upper(4, 50, 0.05)  # P(X <= 4 | upper) = 0.05
    assert binom.cdf(4, 50, upper) == pytest.approx(0.05, abs=1e-9)


def test_groups_follow_the_rule_and_the_veto():
    rule = VetoRule(
        rule=ShapeRule(
            split="cites",
            at=0.5,
            when=ThresholdRule(feature="citation_failures", threshold=0.2, direction=-1),
            otherwise=ThresholdRule(feature="lexical", threshold=0.6),
        ),
        veto="fact_check",
    )
    table = {
        "cites": np.array([1.0, 0.0, 0.0, 1.0]),
        "citation_failures": np.array([0.0, np.nan, np.nan, 0.5]),
        "lexical": np.array([0.1, 0.9, 0.2, 0.3]),
        "fact_check": np.array([0.0, 0.0, 1.0, 1.0]),
    }
    groups, distance = margins(rule, table)
    assert list(groups) == [
        "cites/citation_failures",
        "not cites/lexical",
        "veto/not cites/lexical",
        "veto/cites/citation_failures",
    ]
    # vetoed: first in the test sequence, whatever the signal says
    assert distance == pytest.approx([0.2, 0.3, VETO_FIRST, VETO_FIRST])


def test_the_nested_band_is_fitted_without_the_held_out_fold():
    rng = np.random.default_rng(5)
    n = 400
    y = (rng.random(n) < 0.5).astype(float)
    table = {"x": y + rng.normal(0, 0.5, n)}
    folds = stratified_folds([str(v) for v in y], 5, seed=1)
    cands = candidates(["x"])
    selection, oof, _, _ = nested_select(cands, table, y, folds, seed=1)
    decided, bands, final = nested_band(selection, cands, table, y, folds, 1, 0.9, 0.1)
    assert len(bands) == 5 and 0.2 < decided.mean() < 0.9
    assert (oof[decided] == y[decided]).mean() >= 0.9
    # one pooled cut-off, on margins in the group's unit
    assert list(final.groups) == ["pooled"] and set(final.scales) == {"x"}
    assert final.groups["pooled"].min_distance is not None
