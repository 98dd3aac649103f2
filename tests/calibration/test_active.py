"""The active design and its inverse-probability-weighted estimator."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ragtriage.calibration.active import (
    draw,
    fit_error_curve,
    grades_for_half_width,
    inclusion_probabilities,
    ipw_rate,
)


def _population(n: int = 600, seed: int = 0):
    rng = np.random.default_rng(seed)
    d = rng.random(n)
    wrong = rng.random(n) < np.where(d < 0.3, 0.4, 0.05)
    y = (rng.random(n) < 0.35).astype(float)
    return np.where(wrong, 1 - y, y), y, d


def _estimates(weighted: bool, rounds: int = 3000) -> tuple[float, float, float]:
    f, y, d = _population()
    pi = inclusion_probabilities(np.where(d < 0.3, 1.0, 0.1), budget=60)
    values = []
    for seed in range(rounds):
        drawn = draw(pi, seed)
        if weighted:
            values.append(ipw_rate(f, drawn, y, pi).estimate)
        else:  # broken on purpose: the drawn residuals averaged as if drawn uniformly
            values.append(f.mean() + (y[drawn] - f[drawn]).mean())
    v = np.array(values)
    return float(v.mean()), float(v.std() / np.sqrt(rounds)), float(y.mean())


def test_the_weighted_estimator_is_unbiased_over_seeds():
    mean, error, truth = _estimates(weighted=True)
    assert abs(mean - truth) < 4 * error


def test_without_the_weights_the_active_sample_is_biased():
    mean, error, truth = _estimates(weighted=False)
    assert abs(mean - truth) > 10 * error  # the near-cut-off errors are over-counted


def test_probabilities_spend_the_budget_with_a_uniform_floor():
    weight = np.array([100.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    pi = inclusion_probabilities(weight, budget=4, floor=0.2)
    assert pi.sum() == pytest.approx(4)
    assert pi.max() <= 1.0 and pi[0] == 1.0  # capped, the excess given to the others
    assert pi.min() >= 0.2 * 4 / 10 - 1e-12  # no answer can never be drawn
    assert pi[1] > pi[3]


def test_the_interval_covers_at_the_nominal_rate():
    f, y, d = _population()
    pi = inclusion_probabilities(np.where(d < 0.3, 1.0, 0.2), budget=120)
    hits = sum(
        (e := ipw_rate(f, draw(pi, seed), y, pi)).low <= y.mean() <= e.high for seed in range(400)
    )
    assert hits / 400 >= 0.91


def test_the_error_curve_falls_with_the_margin():
    f, y, d = _population(4000)
    curve = fit_error_curve(np.full(len(d), "all"), d, f == y)
    near, far = curve.rate(np.array(["all", "all"]), np.array([0.1, 0.8]))
    assert near == pytest.approx(0.4, abs=0.06) and far == pytest.approx(0.05, abs=0.03)
    assert curve.rate(np.array(["other"]), np.array([0.5]))[0] == pytest.approx(curve.overall)


def test_the_plan_reaches_the_half_width_it_promises():
    rng = np.random.default_rng(3)
    residuals = rng.choice([-1.0, 0.0, 1.0], size=200, p=[0.1, 0.8, 0.1])
    n = grades_for_half_width(residuals, 0.05)
    # PPI's half-width with that many grades of the same residual spread (N large)
    assert 1.96 * residuals.std(ddof=1) / np.sqrt(n) == pytest.approx(0.05, rel=0.02)
    assert grades_for_half_width(residuals, 0.01, n_answers=50, judge_variance=0.25) == -1


def test_calibrate_plan_reads_the_records_out_of_fold_residuals():
    from ragtriage.calibration.record import load_calibration
    from ragtriage.results.calibrate import plan_grades
    from tests.conftest import ROOT

    record = load_calibration(ROOT / "calibrations/lexical.json")
    plan = plan_grades(record, 0.05)
    used = [i for i in record.items if i.human is not None and i.decision_cv is not None]
    r = np.array([float(i.human) - float(i.decision_cv) for i in used])
    assert plan.graded == len(used) == 300
    assert plan.needed == int(np.ceil(1.959964**2 * r.var(ddof=1) / 0.05**2))
    assert plan.more == max(0, plan.needed - 300)
    assert plan_grades(record, 0.2).more == 0  # already narrower than that


def test_grades_of_an_active_design_give_the_weighted_rate(tmp_path):
    from ragtriage.calibration.fit import fit_record
    from ragtriage.calibration.grades import load_grades
    from ragtriage.errors import InputError
    from ragtriage.judge.api import judge_faithfulness
    from tests.conftest import ROOT

    rows = [
        json.loads(line)
        for line in (ROOT / "human_grades/begin_wow/grades.jsonl").read_text().splitlines()
    ]
    for k, row in enumerate(rows):
        row["probability"] = 0.9 if k % 3 else 0.3
    (tmp_path / "g").mkdir()
    path = tmp_path / "g" / "grades.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rows[0]["probability"] = 1.5
    (tmp_path / "bad.jsonl").write_text(json.dumps(rows[0]) + "\n")
    with pytest.raises(InputError, match="inclusion probability"):
        load_grades(tmp_path / "bad.jsonl")
    items = load_grades(path)
    results = judge_faithfulness([i.judge_item() for i in items], judge="lexical", cache=None)
    record = fit_record(items, results, judge_name="lexical", grades_digest={}, resamples=100)
    assert any(w.code == "active_design" for w in record.warnings)
    est = record.ppi(results)  # the audit is the answers the grades were drawn from
    used = [i for i in record.items if i.human is not None and i.decision_cv is not None]
    z = [
        float(i.decision_cv) + (float(i.human) - float(i.decision_cv)) / i.probability for i in used
    ]
    assert est.estimate == pytest.approx(np.mean(z)) and est.n_labelled == len(used)
    with pytest.raises(InputError, match="not among this audit's scored answers"):
        record.ppi(results[:10])
