"""``annotate grades --design active``: the judge's uncertain answers first, each row with
the probability it was drawn with, which ``calibrate`` reads."""

from __future__ import annotations

import pytest

from ragtriage.calibration.grades import load_grades
from ragtriage.errors import InputError
from ragtriage.flows.annotate import GradesConfig, prepare
from tests.flows.test_unsure_audit import _files


def _audit(tmp_path, calibration: bool = True):
    from ragtriage.cli.main import main

    golden, traces, record = _files(tmp_path)
    out = tmp_path / "audit"
    args = ["audit", "--golden", str(golden), "--traces", str(traces), "--judge", "lexical",
            "--cache", str(tmp_path / "c.sqlite"), "-o", str(out), "--quiet"]  # fmt: skip
    assert main(args + (["--calibration", str(record)] if calibration else [])) == 0
    return out / "results.json"


def test_the_active_design_serves_the_unsure_answer_first_and_writes_probabilities(tmp_path):
    results = _audit(tmp_path)
    grades = tmp_path / "grades.jsonl"
    prepared = prepare(GradesConfig(audit=results, out=grades, sample=2, seed=1, design="active"))
    items = prepared.task.items
    assert items[0]["id"] == "edge" and items[0]["probability"] == 1.0  # inside the band
    assert all(0 < i["probability"] <= 1 for i in items)
    assert [i["probability"] for i in items] == sorted((i["probability"] for i in items),
                                                       reverse=True)  # fmt: skip
    assert any("active design" in n for n in prepared.notes)
    for index, item in enumerate(items):
        record = {"sentences": ["supported"] * len(item["sentences"])}
        prepared.task.save(index, {"record": record, "version": 0})
    prepared.task.store.close()
    graded = {g.id: g for g in load_grades(grades)}
    assert {k: g.probability for k, g in graded.items()} == {
        i["id"]: i["probability"] for i in items
    }
    # a uniform session of the same output is not resumed as this one
    with pytest.raises(InputError, match="another design"):
        prepare(GradesConfig(audit=results, out=grades, sample=2, seed=1))


def test_the_active_design_needs_the_audits_calibration_record(tmp_path):
    results = _audit(tmp_path, calibration=False)  # the shipped record: found, so exists
    import json

    data = json.loads(results.read_text())
    data["calibration"]["source"] = None
    results.write_text(json.dumps(data))
    with pytest.raises(InputError, match="needs the calibration record"):
        prepare(GradesConfig(audit=results, out=tmp_path / "g.jsonl", sample=2, design="active"))
