"""Every record ``calibrate`` can write loads back through ``load_calibration``.

A majority baseline on mostly-faithful grades never predicts "unfaithful", so its
precision is undefined: the record stored ``null`` and its own loader refused it
(issue 27, item 1). Grade sets of every balance and size are generated here.
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from ragtriage.calibration import fit_record, load_calibration, load_grades
from ragtriage.errors import InputError
from ragtriage.judge.types import JudgeResult, Outcome
from ragtriage.render.format import fmt

from .conftest import FINGERPRINT


@st.composite
def grade_sets(draw):
    """(grade rows, judge results, folds): any size, any balance (all faithful, all
    unfaithful, one of each, ...), one or two datasets, some answers not scored."""
    n = draw(st.integers(0, 24))
    labels = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    folds = draw(st.integers(2, 4))
    two_datasets = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    rows, results = [], []
    for k, label in enumerate(labels):
        item_id = f"i{k:02d}"
        rows.append(
            {
                "id": item_id,
                "dataset": "b" if two_datasets and k % 2 else "a",
                "label": label,
                "question": "q?",
                "contexts": ["the sky is blue"],
                "answer": "the sky is blue" if label else "the sea is green",
            }
        )
        kind = rng.random()
        if kind < 0.1:
            results.append(
                JudgeResult(
                    item_id=item_id, outcome=Outcome.UNSCORED, reason="x", fingerprint=FINGERPRINT
                )
            )
            continue
        # a constant score, a perfect one or a noisy one: every shape of signal
        score = {0: 0.5, 1: float(label)}.get(int(kind * 3), float(rng.random()))
        results.append(
            JudgeResult(
                item_id=item_id,
                outcome=Outcome.SCORED,
                score=score,
                signals={"model_prob": score, "lexical": float(rng.random())},
                fingerprint=FINGERPRINT,
            )
        )
    return rows, results, folds


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=grade_sets())
def test_every_record_calibrate_writes_loads_back(case, tmp_path_factory):
    from ragtriage.render.calibration import print_run
    from ragtriage.results.calibrate import JudgeCalibration

    rows, results, folds = case
    tmp = tmp_path_factory.mktemp("g")
    path = tmp / "grades.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    try:
        items = load_grades(path)
        record = fit_record(
            items, results, judge_name="j", grades_digest={}, folds=folds, resamples=100
        )
    except InputError:
        return  # too few items or one class only: refused with a message, nothing written
    saved = record.save(tmp / "calibration.json")
    loaded = load_calibration(saved)
    assert loaded.model_dump_json() == record.model_dump_json()
    assert [loaded.decide(r) for r in results] == [record.decide(r) for r in results]
    out = io.StringIO()
    print_run(JudgeCalibration(name="j", record=loaded, record_path=saved), Console(file=out))
    assert "nan" not in out.getvalue().lower().replace("nance", "")


def test_majority_baseline_on_mostly_faithful_grades_loads(tmp_path):
    """The walk of issue 27: 10 of 12 answers faithful, the majority baseline never says
    'unfaithful', its precision is undefined (null), and the record still loads."""
    rows = [
        {"id": f"c{k}", "dataset": "mine", "label": k >= 2, "answer": "a", "contexts": ["a"]}
        for k in range(12)
    ]
    results = [
        JudgeResult(
            item_id=f"c{k}",
            outcome=Outcome.SCORED,
            score=0.9 if k >= 2 else 0.1,
            signals={"lexical": 0.5},
            fingerprint=FINGERPRINT,
        )
        for k in range(12)
    ]
    path = tmp_path / "grades.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    record = fit_record(load_grades(path), results, judge_name="j", grades_digest={}, resamples=100)
    majority = next(b for b in record.scopes["mine"].baselines if b.name == "majority")
    saved = record.save(tmp_path / "c.json")
    stored = json.loads(saved.read_text())["scopes"]["mine"]["baselines"]
    assert next(b for b in stored if b["name"] == "majority")["cv"]["precision_unfaithful"] is None
    loaded = load_calibration(saved)
    again = next(b for b in loaded.scopes["mine"].baselines if b.name == "majority")
    assert math.isnan(again.cv.precision_unfaithful)  # undefined, as it was when computed
    assert math.isnan(majority.cv.precision_unfaithful)
    assert fmt(again.cv.precision_unfaithful) == "-"


def test_calibrate_command_with_the_lexical_judge_writes_a_loadable_record(tmp_path):
    """``ragtriage calibrate mygrades --judge lexical --out mycal`` on mostly faithful
    grades, then the record it wrote is read as ``audit --calibration`` reads it."""
    from typer.testing import CliRunner

    from ragtriage.cli.main import app

    rows = [
        {
            "id": f"c{k}",
            "dataset": "mine",
            "label": k >= 2,
            "question": "what colour is the sky?",
            "contexts": ["The sky is blue on a clear day."],
            "answer": "The sky is blue." if k >= 2 else f"The sky is green with {k} moons.",
        }
        for k in range(12)
    ]
    grades = tmp_path / "mygrades" / "grades.jsonl"
    grades.parent.mkdir()
    grades.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "mycal"
    res = CliRunner().invoke(
        app,
        [
            "calibrate",
            str(grades.parent),
            "--judge",
            "lexical",
            "--out",
            str(out),
            "--no-plots",
            "--resamples",
            "100",
        ],
    )
    assert res.exit_code == 0, res.output
    record = load_calibration(out / "lexical" / "calibration.json")
    assert record.scopes["mine"].n_agreement == 12
