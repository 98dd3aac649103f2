"""``calibrate``'s summary: the chosen rule and its band beside the runner-up in one table,
and warnings styled by their code, not by their words."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from ragtriage.calibration import fit_record, load_grades
from ragtriage.notices import notice
from ragtriage.render.calibration import _style, print_run
from ragtriage.results.calibrate import JudgeCalibration

from ..calibration.conftest import synthetic


def test_the_chosen_rule_its_band_and_the_runner_up_share_one_table(tmp_path):
    rows, results = synthetic(n=60, seed=4)
    path = tmp_path / "g" / "grades.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    record = fit_record(load_grades(path), results, judge_name="s", grades_digest={},
                        resamples=100)  # fmt: skip
    console = Console(record=True, width=200)
    print_run(JudgeCalibration(name="s", record=record, record_path=Path()), console)
    text = console.export_text()
    assert "the rule the audit applies, its band and the runner-up" in text
    sel = record.scopes["pooled"].selection
    assert sel is not None and sel.runner_up is not None
    line = next(x for x in text.splitlines() if "runner-up" in x and sel.runner_up in x)
    assert line
    assert "chosen by:" in text


def test_warnings_are_styled_by_code_not_words():
    loud = notice("few_grades", "nothing alarming in these words")
    quiet = notice("other", "FEW GRADES STALE in the words only")
    assert _style(loud) == "bold red"
    assert _style(quiet) == "yellow"
