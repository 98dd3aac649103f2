"""Ten grades gave kappa 1.00 [1.00, 1.00] without a word of warning, the PPI table
printed empty, and a warning showed raw markup (issue 27, item 7)."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from ragtriage.calibration import load_calibration
from ragtriage.calibration.record import MIN_GRADES, MIN_PER_CLASS, few_grades
from ragtriage.cli.main import app

MARKUP = re.compile(r"\[/?(?:bold|red|yellow|green|dim)[^\]]*\]")


def _grades(tmp_path, n: int, unfaithful: int):
    rows = [
        {
            "id": f"c{k}",
            "dataset": "mine",
            "label": k >= unfaithful,
            "question": "what colour is the sky?",
            "contexts": ["The sky is blue on a clear day."],
            "answer": "The sky is blue." if k >= unfaithful else f"The sky is green, {k} moons.",
        }
        for k in range(n)
    ]
    path = tmp_path / "mygrades" / "grades.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path.parent


def _calibrate(grades, out, *extra):
    args = ["calibrate", str(grades), "--judge", "lexical", "--out", str(out), "--no-plots"]
    return CliRunner().invoke(app, [*args, "--resamples", "100", *extra])


def test_the_stated_numbers():
    assert few_grades(MIN_GRADES - MIN_PER_CLASS, MIN_PER_CLASS) is None
    assert "49 scored grades" in few_grades(40, 9)  # one class short
    assert "(49 faithful, 0 unfaithful)" in few_grades(49, 0)
    assert few_grades(100, 9) is not None and few_grades(9, 100) is not None


def test_ten_grades_warn_in_calibrate_and_in_the_audit(tmp_path):
    grades = _grades(tmp_path, 10, unfaithful=3)
    res = _calibrate(grades, tmp_path / "cal", "--folds", "2")
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())  # rich wraps long lines
    assert "warning: mine: FEW GRADES: 10 scored grades (7 faithful, 3 unfaithful)" in out
    assert f"fewer than {MIN_GRADES} in all or {MIN_PER_CLASS} of each class" in out
    assert not MARKUP.search(res.output), res.output  # '[yellow]warning:[/yellow]' was printed
    record = load_calibration(tmp_path / "cal" / "lexical" / "calibration.json")
    assert any(w.code == "few_grades" for w in record.warnings)

    from ragtriage.judge.api import fingerprint
    from ragtriage.triage.calibrated import find_decider

    decider = find_decider(
        tmp_path / "cal" / "lexical" / "calibration.json", fingerprint(strategy="lexical")
    )
    assert "FEW GRADES: 10 scored grades (7 faithful, 3 unfaithful)" in decider.status.note


def test_an_empty_ppi_table_says_why(tmp_path):
    grades = _grades(tmp_path, 12, unfaithful=2)  # 6 labelled < 2 x 5 folds
    res = _calibrate(grades, tmp_path / "cal")
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "prediction-powered (PPI)" not in out  # no empty table
    assert "mine: PPI check not run: 12 scored grades split 6 labelled / 6 hidden" in out
    assert "needs 10 or more labelled" in out
