import numpy as np
import pytest

from ragtriage.calibration.ppi import ppi_rate
from ragtriage.stats import DEFAULT_SEED


def test_hand_worked_estimate():
    # judge says 3/4 faithful on the audit; on 4 graded items it errs once (says faithful,
    # human says not): rectifier mean = -1/4, so theta = 0.75 - 0.25 = 0.5
    est = ppi_rate([1, 1, 1, 0], [1, 1, 0, 1], [1, 1, 0, 0])
    assert est.naive == pytest.approx(0.75)
    assert est.correction == pytest.approx(-0.25)
    assert est.estimate == pytest.approx(0.5)
    # var(f_u) = 0.25 (ddof 1), var(rect = [0,0,0,-1]) = 0.25: se = sqrt(.25/4 + .25/4)
    se = np.sqrt(0.25 / 4 + 0.25 / 4)
    assert est.high == pytest.approx(min(1.0, 0.5 + 1.959964 * se), abs=1e-5)
    assert est.low == pytest.approx(max(0.0, 0.5 - 1.959964 * se), abs=1e-5)


def test_input_checks():
    with pytest.raises(ValueError):
        ppi_rate([1, 0], [1], [1, 0])
    with pytest.raises(ValueError):
        ppi_rate([1, 0], [1, np.nan], [1, 0])


def _simulate(rng, n=150, big_n=1500):
    """A biased judge: misses 30 % of unfaithful answers, flags 10 % of faithful ones."""
    truth = 0.6
    y = (rng.random(n + big_n) < truth).astype(float)
    flip = np.where(y == 1, rng.random(n + big_n) < 0.10, rng.random(n + big_n) < 0.30)
    f = np.where(flip, 1 - y, y)
    return truth, f[n:], f[:n], y[:n]


@pytest.mark.parametrize("power_tuning", [False, True])
def test_coverage_by_simulation(power_tuning):
    """The nominal 95 % interval covers the true rate about 95 % of the time (2000 seeded
    draws: the Monte-Carlo standard error of a 95 % coverage is 0.5 points)."""
    rng = np.random.default_rng(DEFAULT_SEED)
    draws, covered, naive_covered = 2000, 0, 0
    for _ in range(draws):
        truth, f_u, f_l, y_l = _simulate(rng)
        est = ppi_rate(f_u, f_l, y_l, power_tuning=power_tuning)
        covered += est.low <= truth <= est.high
        naive_covered += est.naive_low <= truth <= est.naive_high
    assert 0.93 <= covered / draws <= 0.97
    assert naive_covered / draws < 0.2  # the biased judge's own interval misses the truth


def test_power_tuning_never_widens_much_and_drops_a_useless_judge():
    rng = np.random.default_rng(1)
    y = (rng.random(200) < 0.5).astype(float)
    noise_l, noise_u = rng.integers(0, 2, 200), rng.integers(0, 2, 2000)  # judge = coin flip
    classic = ppi_rate(noise_u, noise_l, y)
    tuned = ppi_rate(noise_u, noise_l, y, power_tuning=True)
    assert tuned.lam < 0.3
    assert tuned.high - tuned.low < classic.high - classic.low


def test_an_audit_whose_decisions_all_agree_is_not_certain():
    """12 of 12 judged faithful: their sample variance is 0, yet 12 answers cannot pin the
    rate down; the add-one proportion's variance keeps the interval open."""
    y = np.array([1.0] * 60 + [0.0] * 40)
    f_l = np.array([1.0] * 50 + [0.0] * 50)  # the judge under-calls faithful by 0.10
    est = ppi_rate([1.0] * 12, f_l, y)
    assert est.low < 0.95 and est.high == 1.0
    assert est.naive == 1.0 and est.naive_low < 0.9
    # fold votes averaging 0.8-1.0 have a sample variance near 0 too: same floor
    votes = ppi_rate([1.0] * 11 + [0.8], f_l, y)
    assert votes.naive_low < 0.9
    # a large mixed audit keeps its own variance (the floor is below it)
    many = ppi_rate([1.0] * 300 + [0.0] * 300, f_l, y)
    assert many.naive_low == pytest.approx(0.5 - 1.96 * np.sqrt(0.25 * 600 / 599 / 600), 1e-3)


def test_an_estimate_past_1_keeps_low_at_most_high():
    # a correction that lands the estimate outside [0, 1]: each bound is clipped (before,
    # low 1.019 > high 1.000)
    y, f_l = np.ones(20), np.ones(20)
    f_l[:4] = 0
    est = ppi_rate(np.ones(100), f_l, y)
    assert est.estimate == pytest.approx(1.2) and est.low <= est.high == 1.0
    low = ppi_rate(np.zeros(100), 1 - f_l, 1 - y)
    assert low.estimate == pytest.approx(-0.2) and low.low == 0.0 <= low.high


def test_power_tuning_that_drops_the_judge_still_has_an_interval():
    y, f_l = np.ones(20), np.ones(20)
    f_l[:4] = 0
    est = ppi_rate(np.ones(100), f_l, y, power_tuning=True)
    assert est.lam == 0.0 and est.estimate == 1.0 and est.low < 0.95  # was [1.0, 1.0]
