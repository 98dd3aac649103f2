"""The gate against judge noise: a bar on a rate of an audit judged with ``--samples``
fails only when its judge-noise interval misses it (``--strict``: the point value).

Simulated judges of known flip rates: with the settled rate exactly at the bar (no real
change) the gate's false alarms stay within the stated 2.5 %, where a single sample per
case fails most seeds; a real drop is detected."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from ragtriage.judge.noise import GRID, noise_interval, settled_probability
from ragtriage.judge.samples import FAITHFUL, UNFAITHFUL, decided
from ragtriage.judge.types import Sample, Stability
from ragtriage.results.gate import Bar, check_bars
from ragtriage.triage.models import Label
from tests.support.audits import make_audit

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


def _stable(votes: dict[str, int]) -> Stability:
    samples = [
        Sample(outcome="scored", score=0.9 if v == FAITHFUL else 0.1, verdict=v)
        for v, n in votes.items()
        for _ in range(n)
    ]
    lead = max(votes, key=votes.__getitem__)
    minority = sum(votes.values()) - votes[lead]
    return Stability(
        limit=5, votes=votes, verdict=lead, flip_rate=minority / sum(votes.values()),
        samples=samples,
    )  # fmt: skip


def _noisy_audit(flaky_fails: int):
    """The shared audit, its judged cases sampled: ``flaky_fails`` of its passing cases
    turned into generation failures by a 3-2 vote, the rest unanimous."""
    audit = make_audit()
    cases, turned = [], 0
    for case in audit.cases:
        if case.judge is None or case.faithful is None:
            cases.append(case)
            continue
        if case.label == Label.PASS and turned < flaky_fails:
            turned += 1
            judge = case.judge.model_copy(
                update={"stability": _stable({UNFAITHFUL: 3, FAITHFUL: 2})}
            )
            case = case.model_copy(
                update={"judge": judge, "faithful": False, "label": Label.GENERATION}
            )
        else:
            vote = FAITHFUL if case.faithful else UNFAITHFUL
            judge = case.judge.model_copy(update={"stability": _stable({vote: 3})})
            case = case.model_copy(update={"judge": judge})
        cases.append(case)
    return audit.model_copy(update={"cases": cases, "counts": {}})


def test_a_bar_missed_only_through_flaky_cases_holds_unless_strict():
    base = make_audit()
    passing = sum(c.label == Label.PASS for c in base.cases)
    scored = sum(c.label != Label.UNSCORED for c in base.cases)
    noisy = _noisy_audit(2)
    bar = [Bar("min", "pass_rate", passing / scored)]
    (check,) = check_bars(noisy, bar)
    assert check.value < check.bar.bound and check.high >= check.bar.bound
    assert check.ok and check.flaky == 2 and "2 flaky cases" in check.describe()
    (strict,) = check_bars(noisy, bar, strict=True)
    assert not strict.ok and "--strict" in strict.describe()
    # without samples the same rates are held to the point value, as before
    (plain,) = check_bars(base, [Bar("min", "pass_rate", 1.0)])
    assert plain.low is None and not plain.ok


def test_a_bar_far_below_every_sample_fails_the_gate():
    noisy = _noisy_audit(0)
    (check,) = check_bars(noisy, [Bar("min", "pass_rate", 0.99)])
    assert check.high < 0.99 and not check.ok


def test_compare_sets_aside_flips_that_only_judge_noise_made():
    """The same answer, judged 3-2 one way and 2-3 the other: noise, not a regression;
    a changed answer that flips stays a flip."""
    from ragtriage.render.compare import flip_summary
    from ragtriage.results.compare import Comparison, flips, split_noise

    base = _noisy_audit(0)
    noisy = _noisy_audit(2)
    found = flips(base, noisy)
    assert len(found) == 2
    kept, noise = split_noise(found, base, noisy)
    assert kept == [] and len(noise) == 2
    changed = noisy.model_copy(
        update={
            "cases": [
                c.model_copy(update={"answer": c.answer + " (rewritten)"})
                if c.case_id == found[0].case_id
                else c
                for c in noisy.cases
            ]
        }
    )
    kept, noise = split_noise(flips(base, changed), base, changed)
    assert [f.case_id for f in kept] == [found[0].case_id] and len(noise) == 1
    line = flip_summary(
        Comparison(kind="audit", golden={}, n_common=0, metrics=[], flips=kept, noise_flips=noise)
    )
    assert "1 more set aside as judge noise" in line
