import numpy as np
import pytest

from ragtriage.calibration.intergrader import krippendorff_alpha_nominal


def test_hand_worked_two_graders():
    # 4 items, 2 graders, agree on 3: coincidences o = [[2,1],[1,4]] (n = 8),
    # n_0 = 3, n_1 = 5: alpha = 1 - (8-1) * 2 / (2 * 3 * 5) = 1 - 14/30
    units = [[0, 0], [1, 1], [1, 1], [0, 1]]
    assert krippendorff_alpha_nominal(units) == pytest.approx(1 - 14 / 30)


def test_perfect_agreement_and_single_graders():
    assert krippendorff_alpha_nominal([[1, 1], [0, 0, 0]]) == pytest.approx(1.0)
    assert krippendorff_alpha_nominal([[1], [0]]) is None
    assert krippendorff_alpha_nominal([[1, 1], [1, 1]]) is None  # no variation at all


def test_matches_the_krippendorff_package_with_missing_grades():
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(3)
    for _ in range(20):
        data = rng.integers(0, 3, size=(4, 25)).astype(float)
        data[rng.random(data.shape) < 0.35] = np.nan
        units = [[v for v in data[:, j] if not np.isnan(v)] for j in range(data.shape[1])]
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert krippendorff_alpha_nominal(units) == pytest.approx(expected, abs=1e-10)
