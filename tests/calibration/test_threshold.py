import numpy as np
import pytest

from ragtriage.calibration.combine import fit_logistic
from ragtriage.calibration.threshold import (
    cross_fit,
    fit_threshold,
    kappa_curve,
    stratified_folds,
)


def test_separable_scores_get_a_threshold_between_the_classes():
    x = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])
    y = np.array([0, 0, 0, 1, 1, 1.0])
    rule = fit_threshold(x, y)
    assert 0.3 < rule.threshold < 0.7
    assert rule.threshold == pytest.approx(0.5)  # midpoint of the gap
    assert rule.predict({"score": x}).tolist() == y.tolist()


def test_direction_is_learned_when_asked():
    x = np.array([5.0, 10, 20, 200, 300, 400])  # long answers unfaithful
    y = np.array([1, 1, 1, 0, 0, 0.0])
    upward = fit_threshold(x, y, "answer_tokens", direction=1)
    assert upward.predict({"answer_tokens": x}).tolist() != y.tolist()
    rule = fit_threshold(x, y, "answer_tokens", direction=None)
    assert rule.direction == -1
    assert rule.predict({"answer_tokens": x}).tolist() == y.tolist()


def test_kappa_curve_matches_direct_computation():
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(0)
    x = rng.random(50)
    y = (x + rng.normal(0, 0.3, 50) > 0.5).astype(float)
    ts = np.array([0.2, 0.4, 0.6])
    expected = [cohen_kappa_score(y, (x >= t).astype(float)) for t in ts]
    assert kappa_curve(x, y, ts) == pytest.approx(expected)


def test_threshold_sits_in_the_middle_of_the_gap():
    # candidates are midpoints: the separating one is the middle of the gap
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
    y = np.array([0, 0, 1, 1, 1, 1, 1, 1, 1.0])
    assert fit_threshold(x, y).threshold == pytest.approx(0.25)
    y2 = np.array([0, 0, 0, 0, 0, 0, 0, 1, 1.0])
    assert fit_threshold(x, y2).threshold == pytest.approx(0.75)


def test_folds_are_seeded_stratified_and_balanced():
    strata = ["a|1"] * 13 + ["a|0"] * 29 + ["b|1"] * 7 + ["b|0"] * 11
    f1 = stratified_folds(strata, 5, seed=3)
    assert (f1 == stratified_folds(strata, 5, seed=3)).all()
    assert not (f1 == stratified_folds(strata, 5, seed=4)).all()
    sizes = np.bincount(f1)
    assert sizes.max() - sizes.min() <= 1
    for key in set(strata):
        counts = np.bincount(f1[np.array(strata) == key], minlength=5)
        assert counts.max() - counts.min() <= 1


def test_cross_fit_never_sees_the_held_out_fold():
    y = np.array([0, 1] * 10, dtype=float)
    table = {"score": np.arange(20.0)}
    folds = stratified_folds([str(v) for v in y], 4, seed=0)
    seen = []

    def fit(t, yy):
        seen.append(set(t["score"].tolist()))
        return fit_threshold(t["score"], yy)

    oof, rules = cross_fit(fit, table, y, folds)
    assert len(rules) == 4 and np.isfinite(oof).all()
    for f, train in enumerate(seen):
        assert not train & set(np.flatnonzero(folds == f).astype(float).tolist())


def test_logistic_combination_beats_each_single_signal():
    # faithful needs BOTH signals high: each alone is a weak cue, together a strong one
    rng = np.random.default_rng(5)
    n = 400
    a, b = rng.random(n), rng.random(n)
    y = ((a + b + rng.normal(0, 0.1, n)) > 1.0).astype(float)
    table = {"a": a, "b": b}
    folds = stratified_folds([str(v) for v in y], 5, seed=1)
    from ragtriage.calibration.agreement import cohen_kappa

    combo, _ = cross_fit(lambda t, yy: fit_logistic(t, yy, ["a", "b"]), table, y, folds)
    single_a, _ = cross_fit(lambda t, yy: fit_threshold(t["a"], yy, "a"), table, y, folds)
    assert cohen_kappa(y, combo) > cohen_kappa(y, single_a) + 0.2
    assert cohen_kappa(y, combo) > 0.7


def test_logistic_with_one_class_falls_back_to_majority():
    rule = fit_logistic({"a": np.arange(5.0)}, np.ones(5), ["a"])
    assert rule.kind == "constant" and rule.value is True


def test_kappa_curve_is_defined_wherever_cohen_kappa_is():
    # 2 unfaithful of 400,000: chance agreement is near 1 but not 1 (np.isclose said NaN)
    from ragtriage.calibration.agreement import cohen_kappa

    n = 400_000
    y = np.ones(n)
    y[:2] = 0
    x = np.arange(n, dtype=float)
    assert kappa_curve(x, y, [1.5])[0] == pytest.approx(cohen_kappa(y, (x >= 1.5).astype(float)))
