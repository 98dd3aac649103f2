"""Grading your own answers: every option that means an audit takes the audit's own
``results.json`` (issue 27, item 8; ``calibrate --audit results.json`` was "invalid
JSON", as it wanted judge JSONL)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtriage.calibration.judges import AUDIT_SCHEMA_PREFIX, read_judged
from ragtriage.cli.main import main
from ragtriage.errors import InputError
from ragtriage.results.run import AUDIT_SCHEMA as SCHEMA_VERSION

HANDBOOK = Path(__file__).resolve().parents[2] / "golden_sets" / "handbook"


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("audit")
    args = ["audit", "--golden", str(HANDBOOK), "--generator", "extractive", "--judge",
            "lexical", "--cache", str(tmp / "c.sqlite"), "-o", str(tmp / "out"),
            "--quiet"]  # fmt: skip
    assert main(args) == 0
    return tmp / "out" / "results.json"


def test_the_audit_schema_name_is_the_audits(audited):
    assert SCHEMA_VERSION.startswith(AUDIT_SCHEMA_PREFIX)
    assert json.loads(audited.read_text())["schema_version"] == SCHEMA_VERSION


def test_an_audits_results_json_reads_as_its_judge_results(audited):
    data = json.loads(audited.read_text())
    judged = {c["case_id"] for c in data["cases"] if c.get("judge")}
    results = read_judged(audited)
    assert {r.item_id for r in results} == judged and len(results) == len(judged)
    assert {r.fingerprint.judge for r in results} == {"lexical"}


def test_calibrate_on_grades_of_the_audits_answers(audited, tmp_path, capsys):
    """Grade the audit's answers (ids = case ids), then ``calibrate --judged results.json
    --audit results.json``: the audit's own judge results are calibrated, no judge reruns,
    and the audit's corrected rate is printed."""
    cases = [c for c in json.loads(audited.read_text())["cases"] if c.get("judge")]
    grades = tmp_path / "mygrades" / "grades.jsonl"
    grades.parent.mkdir()
    rows = [{"id": c["case_id"], "label": c["label"] == "pass"} for c in cases]
    rows[0]["label"] = not rows[0]["label"]  # a grader who disagrees once
    grades.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code = main(["calibrate", str(grades.parent), "--judged", str(audited), "--audit",
                 str(audited), "--out", str(tmp_path / "cal"), "--no-plots", "--folds", "2",
                 "--resamples", "100"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    scored = sum(c["judge"]["outcome"] == "scored" for c in cases)
    assert "audit faithful rate: naive" in out and f"({scored} answers, " in out
    assert (tmp_path / "cal" / "results" / "calibration.json").exists()


def test_a_broken_judge_result_in_an_audit_is_named(audited, tmp_path):
    data = json.loads(audited.read_text())
    index = next(i for i, c in enumerate(data["cases"]) if c.get("judge"))
    data["cases"][index]["judge"]["outcome"] = "maybe"
    bad = tmp_path / "results.json"
    bad.write_text(json.dumps(data, indent=1))
    with pytest.raises(InputError) as err:
        read_judged(bad)
    assert err.value.field == f"cases.{index}.judge.outcome"
