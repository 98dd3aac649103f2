"""The grades' "answers the question" mark calibrates the audit's answer check
(``ignored``/``incomplete``): read strictly, measured by ``calibrate`` (kappa with its
interval, confusion, n), stored in the record and shown beside the audit's counts."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from ragtriage.calibration import load_calibration
from ragtriage.calibration.grades import load_grades
from ragtriage.cli.main import main
from ragtriage.errors import InputError
from ragtriage.triage.causes import answers_reference

CONTEXT = (
    "The Porter cargo bike carries up to 120 kg, rider included. Its 250 W motor gives a "
    "range of 80 km. The frame has a ten-year warranty and the battery two years."
)
# (question, reference answer, an answer stating it, an answer beside the point)
ASKED = [
    (
        "How much weight can the cargo bike carry?",
        "Up to 120 kg, rider included.",
        "The cargo bike carries up to 120 kg, rider included.",
        "Its 250 W motor gives a range of 80 km.",
    ),
    (
        "How long is the warranty on the frame and on the battery?",
        "Ten years for the frame and two years for the battery.",
        "The frame has a ten-year warranty and the battery two years.",
        "The Porter cargo bike carries up to 120 kg, rider included.",
    ),
    (
        "What range does the motor give?",
        "A range of 80 km.",
        "Its 250 W motor gives a range of 80 km.",
        "The frame has a ten-year warranty.",
    ),
]


def _rows(flip: bool = False, mark: bool = True) -> list[dict]:
    """12 graded answers: each question answered right and beside the point, twice; the
    mark says what the check says (or, ``flip``, the opposite)."""
    rows = []
    for n in range(2):
        for q, (question, reference, right, off) in enumerate(ASKED):
            for answers, answer in ((True, right), (False, off)):
                row = {
                    "id": f"q{q}-{n}-{answers}",
                    "label": (n + q) % 2 == 0,  # both classes, for the faithfulness fit
                    "question": question,
                    "contexts": [CONTEXT],
                    "answer": answer,
                    "reference_answer": reference,
                }
                if mark:
                    row["answers_question"] = answers != flip
                rows.append(row)
    return rows


def _write(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _calibrate(grades: Path, out: Path, capsys) -> tuple[str, object]:
    argv = ["calibrate", str(grades), "--judge", "lexical", "--out", str(out), "--no-plots"]
    code = main([*argv, "--resamples", "200"])
    text = capsys.readouterr().out
    assert code == 0, text
    return text, load_calibration(out / "lexical" / "calibration.json")


def test_the_written_answers_are_what_the_check_says():
    for question, reference, right, off in ASKED:
        assert answers_reference(question, right, reference)
        assert not answers_reference(question, off, reference)


def test_the_mark_is_kept_true_false_or_absent(tmp_path):
    rows = _rows()
    rows[1].pop("answers_question")
    items = load_grades(_write(tmp_path / "g.jsonl", rows))
    assert [i.answers_question for i in items[:3]] == [True, None, True]
    assert items[0].reference_answer == ASKED[0][1]


@pytest.mark.parametrize("value", ["yes", "true", "", 1, [True]])
def test_a_mark_that_is_not_a_boolean_is_refused_naming_the_line(tmp_path, value, capsys):
    rows = _rows()
    rows[2]["answers_question"] = value
    path = _write(tmp_path / "g.jsonl", rows)
    with pytest.raises(InputError) as err:
        load_grades(path)
    assert str(err.value).startswith(f"{path}:3: field 'answers_question'")
    assert main(["calibrate", str(path), "--judge", "lexical", "--no-plots"]) == 2
    assert f"{path}:3" in capsys.readouterr().err


def test_csv_cells_are_text_so_true_false_and_empty_are_read(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text(
        "id,label,answers_question\na,true,true\nb,false,FALSE\nc,true,\nd,true,yes\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"g\.csv:5: field 'answers_question'"):
        load_grades(path)
    path.write_text("id,label,answers_question\na,true,true\nb,false,FALSE\nc,true,\n")
    assert [i.answers_question for i in load_grades(path)] == [True, False, None]


def test_graders_marks_fold_by_majority_and_a_tie_is_reported(tmp_path):
    base = {"label": True, "question": "q", "answer": "a"}
    rows = [
        {**base, "id": "x", "grader": "ana", "answers_question": True},
        {**base, "id": "x", "grader": "bo", "answers_question": True},
        {**base, "id": "x", "grader": "cy", "answers_question": False},
        {**base, "id": "y", "grader": "ana", "answers_question": True},
        {**base, "id": "y", "grader": "bo", "answers_question": False},
        {**base, "id": "z", "grader": "ana"},
    ]
    x, y, z = load_grades(_write(tmp_path / "g.jsonl", rows))
    assert (x.answers_question, x.answers_tied) == (True, False)
    assert (y.answers_question, y.answers_tied) == (None, True)
    assert (z.answers_question, z.answers_tied) == (None, False)


def test_calibrate_measures_the_check_where_it_agrees(tmp_path, capsys):
    text, record = _calibrate(_write(tmp_path / "g" / "g.jsonl", _rows()), tmp_path / "c", capsys)
    check = record.answer_check
    assert check is not None and check.n == 12 and check.marked == 12
    assert check.agreement.confusion == [[6, 0], [0, 6]]
    assert check.agreement.kappa == 1.0
    assert 'answers the question" marks: kappa 1.00 [1.00, 1.00], n=12' in text
    saved = json.loads((tmp_path / "c" / "lexical" / "calibration.json").read_text())
    assert saved["answer_check"]["agreement"]["confusion"] == [[6, 0], [0, 6]]


def test_calibrate_shows_a_check_the_graders_disagree_with(tmp_path, capsys):
    """Marks the opposite of the check: the figure fails (kappa -1), it is not dressed up."""
    grades = _write(tmp_path / "g" / "g.jsonl", _rows(flip=True))
    text, record = _calibrate(grades, tmp_path / "c", capsys)
    check = record.answer_check
    assert check is not None and check.n == 12
    assert check.agreement.confusion == [[0, 6], [6, 0]]
    assert check.agreement.kappa == -1.0
    assert "kappa -1.00" in text


def test_half_disagreeing_marks_give_an_interval_about_zero(tmp_path, capsys):
    rows = _rows()
    for row in rows[::2]:  # every "right" answer marked as not answering
        row["answers_question"] = False
    rows[1]["reference_answer"] = None  # the check cannot run without a reference
    text, record = _calibrate(_write(tmp_path / "g" / "g.jsonl", rows), tmp_path / "c", capsys)
    check = record.answer_check
    assert check is not None and check.n == 11 and check.marked == 12
    assert check.no_reference == [rows[1]["id"]]
    assert check.agreement.confusion == [[5, 6], [0, 0]]  # graders: nothing answers
    assert "1 marked without a reference answer" in text


def test_no_marks_say_so(tmp_path, capsys):
    grades = _write(tmp_path / "g" / "g.jsonl", _rows(mark=False))
    text, record = _calibrate(grades, tmp_path / "c", capsys)
    assert record.answer_check is None
    assert "no answer-check grades" in text


def test_the_audit_shows_the_figure_beside_the_check_counts(tmp_path, capsys):
    from ragtriage.data.golden import resolve_golden
    from ragtriage.flows import audit as audit_flow
    from ragtriage.flows.audit import AuditConfig
    from ragtriage.render.markdown import render_markdown

    _, record = _calibrate(
        _write(tmp_path / "g" / "g.jsonl", _rows(flip=True)), tmp_path / "c", capsys
    )
    config = AuditConfig(
        golden=resolve_golden("handbook"),
        generator="extractive",
        judge="lexical",
        cache=tmp_path / "cache.sqlite",
        calibration=tmp_path / "c" / "lexical" / "calibration.json",
    )
    result = audit_flow.run(config)
    assert result.calibration.answer_check is not None
    assert result.calibration.answer_check.estimate == -1.0
    assert result.calibration.answer_check_n == 12
    report = render_markdown(result)
    line = next(x for x in report.splitlines() if x.startswith("answer check:"))
    assert "ignored" in line and "incomplete" in line and "kappa -1.00" in line
    from ragtriage.render.html import render_html

    html = render_html(result)
    assert '<p id="answer-check">answer check:' in html and "kappa -1.00" in html

    shipped = audit_flow.run(
        dataclasses.replace(config, calibration=None)
    )  # a record without marks
    assert shipped.calibration.answer_check is None
    assert "answer check:" not in render_markdown(shipped)
    assert 'id="answer-check"' not in render_html(shipped)
