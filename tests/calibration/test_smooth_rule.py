"""The smooth rule (a class-balanced L2 logistic model over every model-free signal), the
transfer criterion that weighs it against the others, the pooled band on its margin, and
the record's fallback when the band decides too little (issues 54 and 53)."""

from __future__ import annotations

import numpy as np
import pytest

from ragtriage.calibration.band import fit_band, margins
from ragtriage.calibration.combine import balanced_logistic, fit_signal_logistic, signal_features
from ragtriage.calibration.decision import LogisticRule, decide_one
from ragtriage.calibration.select import SMOOTH, Candidate, choose, smooth_candidate
from ragtriage.calibration.threshold import fit_threshold


def _world(n: int = 240, seed: int = 0):
    """Two datasets; ``signal`` tracks the label, ``cited`` is absent on half the answers,
    ``novel_facts`` is a count that grows on unfaithful answers."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(float)
    cited = np.where(np.arange(n) % 2 == 0, y + rng.normal(0, 0.6, n), np.nan)
    table = {
        "signal": y + rng.normal(0, 0.8, n),
        "citation_failures": cited,
        "novel_facts": rng.poisson(np.where(y == 1, 0.5, 4.0)).astype(float),
        "noise": rng.normal(0, 1, n),
    }
    datasets = np.where(np.arange(n) % 3 == 0, "a", "b").astype(object)
    return table, y, datasets


def test_counts_are_logged_and_absence_is_a_feature():
    table, _, _ = _world()
    features = signal_features(table, list(table))
    assert "log1p:novel_facts" in features
    assert "missing:citation_failures" in features and "citation_failures" in features
    assert "novel_facts" not in features


def test_newton_fit_is_sklearns_balanced_l2_logistic():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 4))
    y = (x[:, 0] + rng.normal(0, 1, 200) > 0.8).astype(int)
    coef, intercept = balanced_logistic(x, y, 0.3)
    ref = LogisticRegression(C=0.3, class_weight="balanced", tol=1e-10, max_iter=5000).fit(x, y)
    assert np.allclose(coef, ref.coef_[0], atol=1e-5)
    assert intercept == pytest.approx(ref.intercept_[0], abs=1e-5)


def test_the_smooth_rule_decides_an_answer_lacking_a_signal():
    table, y, _ = _world()
    rule = fit_signal_logistic(table, y, signal_features(table, list(table)))
    assert isinstance(rule, LogisticRule)
    decided = rule.predict(table)
    assert np.isfinite(decided).all()
    agree = (decided == y).mean()
    assert agree > 0.8  # the signals carry the label


def test_the_smooth_rule_wins_unless_clearly_beaten():
    table, y, datasets = _world()
    smooth = smooth_candidate(list(table))

    def noise_fit(t, yy):
        return fit_threshold(t["noise"], yy, "noise", direction=None)

    noise = Candidate("noise", noise_fit)
    chosen, runner, scores = choose([smooth, noise], table, y, seed=1, datasets=datasets)
    assert chosen.name == SMOOTH and runner is not None and runner.name == "noise"
    assert set(scores.transfer) == {SMOOTH, "noise"}


def test_a_rule_far_better_within_the_data_replaces_the_smooth_one():
    table, y, datasets = _world()
    table["oracle"] = y.copy()  # a perfect signal the smooth rule is not given
    smooth = smooth_candidate(["noise"])

    def oracle_fit(t, yy):
        return fit_threshold(t["oracle"], yy, "oracle", direction=1)

    chosen, _, _ = choose([smooth, Candidate("oracle", oracle_fit)], table, y, 1, datasets)
    assert chosen.name == "oracle"


def test_the_pooled_band_has_one_cut_off_and_decides_the_far_answers():
    table, y, _ = _world(n=400, seed=5)
    rule = fit_signal_logistic(table, y, signal_features(table, list(table)))
    groups, distance = margins(rule, table)
    band = fit_band(groups, distance, rule.predict(table) == y, 0.97, 0.1, pooled=True)
    assert list(band.groups) == ["pooled"] and band.scales
    decided = band.decided(rule, table)
    assert 0 < decided.mean() < 1
    assert distance[decided].min() >= distance[~decided].max() - 1e-9  # far ones decided


def test_an_inert_band_keeps_the_rules_verdicts_marked_undecided(tmp_path):
    """With fallback ``rule`` (the default) an inert band turns nothing unsure; with
    ``unsure`` it acts as a working band."""
    import json

    from ragtriage.calibration import fit_record, load_grades

    from .conftest import synthetic

    rows, results = synthetic(n=24, seed=2)
    path = tmp_path / "g" / "grades.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    record = fit_record(load_grades(path), results, judge_name="s", grades_digest={},
                        resamples=100, min_agreement=0.99)  # fmt: skip
    assert record.band_inert and record.band_fallback == "rule"
    assert any(w.code == "band_inert" for w in record.warnings)
    scored = [r for r in results if decide_one(record.rule, r) is not None]
    assert not any(record.is_unsure(r) for r in scored)
    marked = [r for r in scored if record.undecided_by_band(r)]
    assert marked
    unsure = record.model_copy(update={"band_fallback": "unsure"})
    assert all(unsure.is_unsure(r) for r in marked)


def test_the_inert_band_notice_says_what_the_audit_does_by_scope_and_fallback(tmp_path):
    """The audit decides by the first scope's band, with the record's fallback: only that
    scope's notice says what the audit does, and says it by the fallback (the words once
    promised kept verdicts with ``--band-fallback unsure`` too, and for every dataset)."""
    import json

    from ragtriage.calibration import fit_record, load_grades

    from .conftest import synthetic

    rows, results = synthetic(n=24, seed=2)
    path = tmp_path / "g" / "grades.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    said = {}
    for fallback in ("rule", "unsure"):
        record = fit_record(load_grades(path), results, judge_name="s", grades_digest={},
                            resamples=100, min_agreement=0.99, band_fallback=fallback)  # fmt: skip
        assert record.band_fallback == fallback and record.band_inert
        said[fallback] = {w.text.split(":")[0]: w.text for w in record.warnings
                          if w.code == "band_inert"}  # fmt: skip
    assert set(said["rule"]) == {"pooled", "alpha", "beta"}
    assert "keeps the rule's verdicts" in said["rule"]["pooled"]
    assert "leaves the answers inside it unsure" in said["unsure"]["pooled"]
    assert "keeps the rule's verdicts" not in said["unsure"]["pooled"]
    for scope in ("alpha", "beta"):
        for fallback in ("rule", "unsure"):
            assert "the audit decides by the pooled one" in said[fallback][scope]
            assert "--plan" not in said[fallback][scope]  # --plan plans the pooled band
