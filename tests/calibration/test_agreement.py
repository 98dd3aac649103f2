import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score, confusion_matrix, precision_recall_fscore_support

from ragtriage.calibration.agreement import agreement, cohen_kappa, rank_correlations


def test_kappa_hand_worked():
    # 10 items: human 6 faithful, judge 5 faithful, they agree on 7.
    human = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0])
    judge = np.array([1, 1, 1, 1, 0, 0, 1, 0, 0, 0])
    # p_o = 0.7; p_e = 0.6*0.5 + 0.4*0.5 = 0.5; kappa = (0.7-0.5)/(1-0.5) = 0.4
    assert cohen_kappa(human, judge) == pytest.approx(0.4)
    a = agreement(human, judge, resamples=200)
    assert a.accuracy == pytest.approx(0.7)
    assert a.confusion == [[3, 1], [2, 4]]
    # unfaithful is the positive class: caught 3 of 4 unfaithful, 3 of 5 flagged were
    assert a.recall_unfaithful == pytest.approx(3 / 4)
    assert a.precision_unfaithful == pytest.approx(3 / 5)
    assert a.f1_unfaithful == pytest.approx(2 * 0.75 * 0.6 / 1.35)
    assert a.human_faithful_rate == pytest.approx(0.6)
    assert a.judge_faithful_rate == pytest.approx(0.5)


def test_kappa_undefined_when_both_constant():
    assert np.isnan(cohen_kappa(np.ones(5), np.ones(5)))
    assert cohen_kappa(np.array([1, 0, 1]), np.ones(3)) == pytest.approx(0.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=4, max_size=60))
def test_matches_sklearn(pairs):
    human = np.array([p[0] for p in pairs])
    judge = np.array([p[1] for p in pairs])
    ours = agreement(human, judge, resamples=0)
    assert ours.confusion == confusion_matrix(human, judge, labels=[0, 1]).tolist()
    if len(set(human)) > 1 or len(set(judge)) > 1:
        assert ours.kappa == pytest.approx(cohen_kappa_score(human, judge), abs=1e-12)
    if (judge == 0).any() and (human == 0).any():
        p, r, f, _ = precision_recall_fscore_support(
            human, judge, pos_label=0, average="binary", zero_division=0
        )
        assert (ours.precision_unfaithful, ours.recall_unfaithful) == pytest.approx((p, r))
        assert ours.f1_unfaithful == pytest.approx(f)


def test_bootstrap_interval_is_seeded_and_brackets_the_estimate():
    rng = np.random.default_rng(1)
    human = rng.integers(0, 2, 200)
    judge = np.where(rng.random(200) < 0.8, human, 1 - human)
    a = agreement(human, judge, resamples=500, seed=7)
    b = agreement(human, judge, resamples=500, seed=7)
    assert (a.kappa_low, a.kappa_high) == (b.kappa_low, b.kappa_high)
    assert a.kappa_low < a.kappa < a.kappa_high
    assert 0.05 < a.kappa_high - a.kappa_low < 0.4


def test_rank_correlations_match_scipy_and_need_ordinal_grades():
    from scipy.stats import kendalltau, spearmanr

    scores = np.array([0.1, 0.4, 0.35, 0.8, 0.9, 0.5])
    grades = np.array([0, 1, 1, 2, 3, np.nan])
    rho, tau = rank_correlations(scores, grades)
    assert rho == pytest.approx(spearmanr(scores[:5], grades[:5]).statistic)
    assert tau == pytest.approx(kendalltau(scores[:5], grades[:5]).statistic)
    assert rank_correlations(scores, np.array([0, 1, 0, 1, 0, 1.0])) == (None, None)


def test_calibration_says_when_every_grade_is_the_same():
    from types import SimpleNamespace

    import pytest

    from ragtriage.calibration.fit import _check_enough
    from ragtriage.errors import InputError

    same = [SimpleNamespace(label=True) for _ in range(20)]
    with pytest.raises(InputError, match="all 20 scored items are graded faithful"):
        _check_enough(same, folds=5)
    with pytest.raises(InputError, match=r"only 3 graded items were scored \(need 10"):
        _check_enough(same[:3], folds=5)


def test_f1_is_undefined_when_nobody_found_an_unfaithful_answer():
    a = agreement([1, 1, 1], [1, 1, 1], resamples=50)
    assert math.isnan(a.precision_unfaithful) and math.isnan(a.recall_unfaithful)
    assert math.isnan(a.f1_unfaithful)  # was 0.0: sklearn gives NaN (zero_division=nan)
    missed = agreement([0, 1, 1], [1, 1, 1], resamples=50)
    assert missed.f1_unfaithful == 0.0  # one unfaithful answer, not caught
