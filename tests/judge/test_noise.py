"""The interval judge noise leaves open on a rate (judge/noise.py), against simulated
judges of known flip rates: with the settled rate exactly at the bar (no real change) the
gate's false alarms stay within the stated 2.5 %, where a single sample per case fails
most seeds; a real drop is detected."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from ragtriage.judge.noise import GRID, noise_interval, settled_probability
from ragtriage.judge.samples import decided

# the benchmark's "flaky" mix (benchmarks/gate_noise_sim.py): a majority of few votes is
# itself often wrong (flip rate 0.4, 5 votes: 0.32)
FLIPS, SHARES = (0.0, 0.1, 0.25, 0.4), (0.3, 0.3, 0.25, 0.15)


def _flaky(rng, truth):
    return rng.choice(FLIPS, size=truth.size, p=SHARES)


def _flaky_passes(rng, truth):
    """Bimodal, and only among the passing cases: half of them flip 0.35 of the time,
    so a failing majority of 5 votes is often a pass (what 556d519's interval missed)."""
    return np.where(truth, rng.choice((0.0, 0.35), size=truth.size), 0.0)


def _near_coin(rng, truth):
    return rng.choice((0.0, 0.45), size=truth.size, p=(0.6, 0.4))


def _seed(rng, n: int, rate: float, k: int, bar: float, mix=_flaky) -> tuple[bool, bool]:
    """(single sample fails, gate fails) for one simulated audit of ``n`` cases: all
    ``k`` samples drawn at once, the sequential stop read off their running counts."""
    truth = np.zeros(n, dtype=bool)
    truth[rng.choice(n, round(rate * n), replace=False)] = True
    flip = mix(rng, truth)
    single = np.where(rng.random(n) < flip, ~truth, truth)
    vote = np.where(rng.random((n, k)) >= flip[:, None], truth[:, None], ~truth[:, None])
    ayes = np.cumsum(vote, axis=1)
    drawn = np.arange(1, k + 1)
    stop = (2 * np.maximum(ayes, drawn - ayes) > k).argmax(axis=1)
    votes = list(zip(ayes[np.arange(n), stop].tolist(), (stop + 1).tolist(), strict=True))
    assert all(decided(Counter(f=a, a=m - a), m, k) for a, m in votes)
    return bool(single.mean() < bar), noise_interval(0, n, votes)[1] < bar


def test_false_alarms_within_the_stated_rate_where_one_sample_exceeds_it():
    """200 seeds: the stated 2.5 % plus three Monte-Carlo standard errors (0.033)."""
    rng = np.random.default_rng(7)
    runs = np.array([_seed(rng, 200, 0.8, 15, 0.8) for _ in range(200)])
    single, gate = runs.mean(axis=0)
    assert gate <= 0.025 + 3 * (0.025 * 0.975 / 200) ** 0.5 < 0.5 < single


@pytest.mark.parametrize("mix", [_flaky_passes, _near_coin])
def test_bimodal_flip_rates_at_five_samples_stay_within_the_stated_rate(mix):
    """Where the run's votes barely tell a case at 0.35 from one at 0.65 (or 0.45 from
    0.55): the interval takes the least favourable distribution they allow."""
    rng = np.random.default_rng(11)
    runs = np.array([_seed(rng, 200, 0.8, 5, 0.8, mix) for _ in range(200)])
    single, gate = runs.mean(axis=0)
    assert gate <= 0.025 + 3 * (0.025 * 0.975 / 200) ** 0.5 < 0.5 < single


def test_a_real_drop_is_detected():
    rng = np.random.default_rng(8)
    runs = np.array([_seed(rng, 200, 0.65, 15, 0.8) for _ in range(40)])
    assert runs[:, 1].mean() >= 0.95


def test_a_case_without_votes_may_settle_either_way():
    # no vote: the prior stays uniform on the grid, half of it above 0.5, as Jeffreys;
    # one Bernoulli(0.5) at its 97.5 % quantile is 1, at its 2.5 % quantile 0
    assert noise_interval(0, 1, [(0, 0)]) == (0.0, 1.0)
    assert noise_interval(3, 4, []) == (0.75, 0.75)


def test_settled_probability_under_a_given_prior():
    prior = [0.5 if g in (0.3, 0.7) else 0.0 for g in GRID]
    (p,) = settled_probability([(2, 3)], prior)
    assert p == pytest.approx(0.7**2 * 0.3 / (0.7**2 * 0.3 + 0.3**2 * 0.7))
    (q,) = settled_probability([(0, 3)], prior)
    assert q == pytest.approx(0.3**3 / (0.3**3 + 0.7**3))


def test_split_votes_widen_the_interval_more_than_unanimous_ones():
    unanimous = [(3, 3)] * 150 + [(0, 3)] * 50
    split = [(3, 3)] * 140 + [(2, 5)] * 10 + [(0, 3)] * 50
    low, high = noise_interval(0, 200, unanimous)
    assert low < 0.75 <= high and high - 0.75 < 0.05
    assert noise_interval(0, 200, split)[1] - 0.7 > high - 0.75


def test_no_numeric_warning_reaches_the_terminal():
    """SLSQP tries shares under which some votes are impossible (0 / 0): the interval is
    still found, and no RuntimeWarning is printed on a gate run."""
    import warnings

    # a seed of the benchmark's "mostly stable" mix on which 96e5ec6 warned
    votes = (
        [(0, 3)] * 32 + [(1, 4)] * 5 + [(2, 5)] * 2 + [(3, 3)] * 145 + [(3, 4)] * 9 + [(3, 5)] * 7
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high = noise_interval(0, 200, votes)
    assert 0 <= low <= 161 / 200 <= high <= 1
