import json
from pathlib import Path

import numpy as np
import pytest

from ragtriage.calibration import (
    StaleCalibrationError,
    ensure_fresh,
    fit_record,
    is_stale,
    load_calibration,
    load_grades,
)
from ragtriage.errors import InputError
from ragtriage.judge.types import JudgeResult, Outcome

from .conftest import FINGERPRINT, synthetic


@pytest.fixture(scope="module")
def record_and_results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rec")
    rows, results = synthetic(n=150, seed=1)
    path = tmp / "g" / "grades.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    record = fit_record(
        load_grades(path), results, judge_name="synthetic", grades_digest={}, resamples=200
    )
    return record, results


def test_every_item_is_accounted_for(record_and_results):
    record, _ = record_and_results
    pooled = record.scopes["pooled"]
    assert list(record.scopes) == ["pooled", "alpha", "beta"]
    assert pooled.n_items == 150
    outcomes = sorted(u.outcome for u in pooled.unscored)
    assert outcomes == ["missing", "no_claims", "unscored", "unscored"]
    assert pooled.n_agreement == 150 - 4
    assert sum(s.n_agreement for n, s in record.scopes.items() if n != "pooled") == 146
    assert any(w.code == "unscored_grades" and "not scored" in w.text for w in record.warnings)
    assert len(record.items) == 150


def test_agreement_cv_vs_in_sample_and_baselines(record_and_results):
    pooled = record_and_results[0].scopes["pooled"]
    assert pooled.cv.kappa > 0.4  # the synthetic judge is fair (in-sample best 0.58)
    assert pooled.in_sample.kappa >= pooled.cv.kappa - 0.05
    assert pooled.cv.kappa_low < pooled.cv.kappa < pooled.cv.kappa_high
    names = {b.name: b for b in pooled.baselines}
    assert names["majority"].cv.kappa == pytest.approx(0.0)
    assert names["lexical"].cv.kappa < 0.3  # random lexical signal
    assert pooled.beats_lexical is True
    assert pooled.vs_lexical is not None and pooled.vs_lexical[1] > 0  # interval excludes 0
    assert len(pooled.fold_thresholds) == 5
    assert pooled.cv.spearman is not None and pooled.cv.spearman > 0.3  # ordinal grades given
    assert pooled.krippendorff_alpha is None and pooled.n_multi_graded == 0
    assert {m.name for m in pooled.signals} >= {"score", "combination", "answer_words"}


def test_decide_follows_the_rule(record_and_results):
    record, results = record_and_results
    scored = [r for r in results if r.outcome == Outcome.SCORED]
    decisions = [record.decide(r) for r in scored]
    assert set(decisions) == {True, False}
    item = {i.id: i for i in record.items}
    assert all(record.decide(r) == item[r.item_id].decision for r in scored)
    none = [r for r in results if r.outcome != Outcome.SCORED]
    assert none and all(record.decide(r) is None for r in none)


def test_round_trip_and_bad_files(record_and_results, tmp_path):
    record, results = record_and_results
    path = record.save(tmp_path / "c" / "calibration.json")
    loaded = load_calibration(path)
    assert loaded == record
    assert json.loads(path.read_text())["schema"] == "ragtriage.calibration/1"
    with pytest.raises(InputError, match="not found"):
        load_calibration(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(InputError, match="not a calibration record"):
        load_calibration(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text('{"schema": "something else"}')
    with pytest.raises(InputError, match="schema"):
        load_calibration(tmp_path / "other.json")
    broken = json.loads(path.read_text())
    del broken["rule"]
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    with pytest.raises(InputError) as err:
        load_calibration(tmp_path / "broken.json")
    assert err.value.field == "rule"


def test_stale_fingerprint(record_and_results):
    record, _ = record_and_results
    assert is_stale(record, FINGERPRINT) == []
    ensure_fresh(record, FINGERPRINT)
    changed = FINGERPRINT.model_copy(
        update={
            "model": "other",
            "params": {"temperature": 0.7, "top_p": 1},
            "prompt_sha256": {"p.md": "cd" * 32},
            "package_version": "0.2.0",
        }
    )
    assert is_stale(record, changed) == [
        "model",
        "params.temperature",
        "params.top_p",
        "prompt_sha256.p.md",
        "package_version",
    ]
    with pytest.raises(StaleCalibrationError, match="model, params.temperature") as err:
        ensure_fresh(record, changed)
    assert err.value.exit_code == 1


def test_ppi_for_an_audit(record_and_results):
    record, _ = record_and_results
    rows, audit = synthetic(n=600, seed=9, unscored=0)
    truth = np.mean([r["label"] for r in rows[:-1]])
    est = record.ppi(audit)
    assert est.n_unlabelled == 599 and est.n_labelled == 146
    assert est.low <= truth <= est.high
    lexical_only = [JudgeResult(item_id="x", outcome=Outcome.ABSTAINED, fingerprint=FINGERPRINT)]
    with pytest.raises(ValueError):
        record.ppi(lexical_only)  # nothing scored to correct


def test_reproducible(record_and_results, tmp_path):
    record, results = record_and_results
    rows, _ = synthetic(n=150, seed=1)
    path = tmp_path / "grades.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    again = fit_record(
        load_grades(path), results, judge_name="synthetic", grades_digest={}, resamples=200
    )
    assert again.model_dump() == record.model_dump()


def test_several_graders_give_alpha_and_ties_are_listed(tmp_path):
    krippendorff = pytest.importorskip("krippendorff")
    rows, results = synthetic(n=90, seed=3)
    rng = np.random.default_rng(0)
    extra = []
    for r in rows[:60]:  # a second grader who agrees 80 % of the time
        second = r["label"] if rng.random() < 0.8 else not r["label"]
        extra.append({**r, "label": second, "grader": "second"})
    rows = [{**r, "grader": "first"} for r in rows] + extra
    path = tmp_path / "grades.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    items = load_grades(path)
    record = fit_record(items, results, judge_name="s", grades_digest={}, resamples=100)
    pooled = record.scopes["pooled"]
    assert pooled.n_multi_graded == 60
    data = np.full((2, 60), np.nan)
    for j, r in enumerate(rows[:60]):
        data[0, j] = r["label"]
        data[1, j] = extra[j]["label"]
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert pooled.krippendorff_alpha == pytest.approx(expected)
    pairs = zip(rows[:60], extra, strict=True)
    disagreeing = {r["id"] for r, e in pairs if r["label"] != e["label"]}
    assert set(pooled.tied) == disagreeing  # 1 vs 1: a tie, listed and left out
    assert pooled.n_agreement == 90 - len(disagreeing) - len(
        [u for u in pooled.unscored if u.id not in disagreeing]
    )


def test_judge_reporting_only_its_score_still_gets_the_lexical_baseline(tmp_path):
    rows, results = synthetic(n=90, seed=5)
    bare = [r.model_copy(update={"signals": {}}) for r in results]
    path = tmp_path / "grades.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    record = fit_record(load_grades(path), bare, judge_name="s", grades_digest={}, resamples=100)
    pooled = record.scopes["pooled"]
    assert "lexical" in {b.name for b in pooled.baselines}  # computed from the graded text
    for rule in [record.rule, *record.fold_rules]:
        assert set(getattr(rule, "features", [getattr(rule, "feature", "score")])) <= {"score"}
    scored = [r for r in bare if r.outcome == "scored"]
    assert {record.decide(r) for r in scored} == {True, False}


@pytest.mark.parametrize(
    ("difference", "better"),
    [
        ((0.004, -0.086, 0.094), False),  # the shipped embedded judge: 0.329 vs 0.325
        ((0.2, 0.01, 0.4), True),
        ((0.1, 0.0, 0.2), False),  # touching 0 is not excluding it
        ((-0.05, -0.2, 0.09), False),
        ((float("nan"), float("nan"), float("nan")), False),
    ],
)
def test_a_judge_beats_lexical_only_when_the_interval_excludes_zero(difference, better):
    from ragtriage.calibration.fit import beats_baseline

    assert beats_baseline(difference) is better


def test_shipped_records_agree_with_their_own_intervals():
    """The embedded judge's record said it beat lexical at 0.329 vs 0.325 (CI [-0.09,
    +0.09]) while the README said it does not."""
    root = Path(__file__).resolve().parents[2] / "calibrations"
    for path in root.glob("*.json"):
        record = load_calibration(path)
        for scope in record.scopes.values():
            if scope.vs_lexical is not None:
                assert scope.beats_lexical == (scope.vs_lexical[1] > 0), (path.name, scope.scope)


def test_undefined_figures_survive_a_round_trip(record_and_results, tmp_path):
    """NaN (e.g. precision for unfaithful when neither side found one) is saved as JSON
    null; loading it back used to fail with 'Input should be a valid number'."""
    record, _ = record_and_results
    scope = next(iter(record.scopes.values()))
    undefined = scope.cv.model_copy(update={"precision_unfaithful": float("nan")})
    broken = record.model_copy(
        update={"scopes": {**record.scopes, "pooled": scope.model_copy(update={"cv": undefined})}}
    )
    loaded = load_calibration(broken.save(tmp_path / "calibration.json"))
    assert np.isnan(loaded.scopes["pooled"].cv.precision_unfaithful)
