"""``calibrate --samples``: the judge against itself beside the judge against people."""

from __future__ import annotations

import json
import random

from ragtriage.calibration import fit_record, load_grades
from ragtriage.calibration.decision import ThresholdRule
from ragtriage.calibration.stability import sample_decisions, self_agreement
from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Outcome, Sample, Stability

from .conftest import synthetic

FP = JudgeFingerprint(judge="sentences", model="fake")
RULE = ThresholdRule(feature="score", threshold=0.5)


def _result(item: str, scores: list[float]) -> JudgeResult:
    samples = [
        Sample(outcome=Outcome.SCORED, score=s, signals={"x": s}, verdict="faithful")
        for s in scores
    ]
    return JudgeResult(
        item_id=item,
        outcome=Outcome.SCORED,
        score=scores[0],
        fingerprint=FP,
        stability=Stability(limit=len(scores), samples=samples, votes={"faithful": 1}),
    )


def _judged(flip: float, n: int = 200, seed: int = 1):
    """Items whose human label the judge gets right, each sample flipping with ``flip``."""
    rng = random.Random(seed)
    results, human = {}, {}
    for i in range(n):
        truth = i % 3 != 0
        scores = [0.9 if (rng.random() >= flip) == truth else 0.1 for _ in range(3)]
        results[f"i{i}"] = _result(f"i{i}", scores)
        human[f"i{i}"] = truth
    return results, human


def test_each_sample_is_decided_by_the_rule():
    assert sample_decisions(RULE, _result("a", [0.9, 0.1, 0.7])) == [True, False, True]


def test_a_steady_judge_agrees_with_itself():
    results, human = _judged(0.0)
    st = self_agreement(RULE, results, human, seed=0, resamples=200)
    assert st is not None and st.kappa == 1.0 and st.flaky == 0 and st.mean_flip_rate == 0.0
    assert st.human_kappa == 1.0 and st.items == 200 and st.samples == 3


def test_a_noisy_judge_disagrees_with_itself_about_as_it_flips():
    results, human = _judged(0.25)
    st = self_agreement(RULE, results, human, seed=0, resamples=300)
    assert st is not None
    # two samples agree when both flip or neither: 0.75^2 + 0.25^2 = 0.625
    assert 0.5 < st.agreement < 0.75 and st.kappa_low < st.kappa < st.kappa_high
    assert st.kappa < st.human_kappa_high  # with people a sample is right 75 % of the time
    assert 0 < st.flaky < 200 and 0.1 < st.mean_flip_rate < 0.35
    detail = {d.id: d for d in st.items_detail}
    assert all(d.faithful + d.unfaithful == 3 for d in detail.values())


def test_no_samples_no_figures():
    plain = JudgeResult(item_id="a", outcome=Outcome.SCORED, score=0.9, fingerprint=FP)
    assert self_agreement(RULE, {"a": plain}, {"a": True}, seed=0, resamples=10) is None


# --- the warning in the calibration record (calibration/fit.py) -------------------------

DISAGREES = "the judge disagrees with itself more than with people"


def _calibrated(flaky: bool):
    """The synthetic judge (conftest: score = label + noise, cv kappa with people > 0.4),
    each scored answer sampled 3 times: sample 0 is the answer's own score; the others
    repeat it (a steady judge) or are drawn at random (a judge that is mostly dice)."""
    rows, results = synthetic(n=150, seed=1)
    rng = random.Random(7)
    sampled = []
    for r in results:
        if r.outcome != Outcome.SCORED:
            sampled.append(r)
            continue
        assert r.score is not None
        scores = [r.score] + [rng.random() if flaky else r.score for _ in range(2)]
        samples = [
            Sample(
                outcome=Outcome.SCORED,
                score=s,
                signals={**r.signals, "model_prob": s},
                verdict="faithful" if s >= 0.5 else "unfaithful",
            )
            for s in scores
        ]
        stab = Stability(limit=3, temperature=0.7, samples=samples, votes={})
        sampled.append(r.model_copy(update={"stability": stab}))
    return rows, sampled


def _record(tmp_path, flaky: bool):
    rows, results = _calibrated(flaky)
    path = tmp_path / "grades.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return fit_record(
        load_grades(path), results, judge_name="synthetic", grades_digest={}, resamples=200
    )


def test_a_judge_noisier_than_its_graders_is_warned_about(tmp_path):
    record = _record(tmp_path, flaky=True)
    st = record.stability
    people = record.scopes["pooled"]
    with_people = (people.selected.cv if people.selected is not None else people.cv).kappa
    assert st is not None and st.samples == 3 and st.temperature == 0.7
    assert st.kappa < with_people  # the case the warning is for
    assert st.flaky > 0
    warned = [w for w in record.warnings if w.code == "judge_unstable" and DISAGREES in w.text]
    assert len(warned) == 1, record.warnings
    assert f"({st.flaky} of " in warned[0].text and warned[0].counts["flaky"] == st.flaky


def test_a_judge_steadier_than_its_graders_is_not(tmp_path):
    record = _record(tmp_path, flaky=False)
    st = record.stability
    people = record.scopes["pooled"]
    with_people = (people.selected.cv if people.selected is not None else people.cv).kappa
    assert st is not None and st.kappa == 1.0 and st.flaky == 0
    assert st.kappa > with_people
    assert not [w for w in record.warnings if w.code == "judge_unstable"], record.warnings
