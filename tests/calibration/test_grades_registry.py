"""Grade files are read through the format registry (issue 25): one recognition by content
for every command, so ``calibrate`` and ``audit --traces`` cannot disagree about a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtriage.calibration.grades import load_grades, read_grades
from ragtriage.cli.main import main
from ragtriage.data import grades as grade_format
from ragtriage.data.containers import read_table
from ragtriage.data.formats.columns import parse_columns
from ragtriage.data.formats.detect import grade_rows
from ragtriage.data.formats.registry import FORMATS, recognise
from ragtriage.data.runs import load_run
from ragtriage.data.traces import read_traces
from ragtriage.errors import InputError
from tests.conftest import ROOT

GRADES = [
    {"id": "a", "label": True, "grader": "ann", "question": "q?", "contexts": ["c"],
     "context_ids": ["p1"], "answer": "x"},  # context_ids: as annotate grades writes
    {"id": "b", "label": "no", "grader": "ann", "question": "r?", "contexts": ["d"],
     "answer": "y"},
]  # fmt: skip


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_registry_declares_a_grades_format():
    assert grade_format.FORMAT in FORMATS
    assert grade_format.FORMAT.yields == ("grades",)


@pytest.mark.parametrize("name", ["grades.txt", "grades.jsonl"])
def test_a_csv_grades_file_is_read_by_its_content_not_its_suffix(tmp_path, name):
    # before: any suffix but .csv was parsed as JSON and refused
    path = tmp_path / "d" / name
    path.parent.mkdir()
    path.write_text("id,label,grader,answer\na,true,ann,x\nb,0,bob,[1]\n", encoding="utf-8")
    grades = read_grades(path)
    assert [(g.id, g.label, g.grader, g.answer) for g in grades] == [
        ("a", True, "ann", "x"),
        ("b", False, "bob", "[1]"),  # a CSV answer that looks like a list stays text
    ]
    assert grade_rows(path).format == "ragtriage-grades-csv"


def test_calibrate_and_the_trace_reader_agree_on_one_grades_file(tmp_path):
    path = _jsonl(tmp_path / "set" / "grades.jsonl", GRADES)
    mapping = parse_columns(None)
    assert recognise(read_table(path, mapping.pairs).rows, mapping) is grade_format.FORMAT
    assert grade_rows(path).format == "ragtriage-grades-jsonl"
    assert [i.id for i in load_grades(path)] == ["a", "b"]
    # before: question/contexts/answer read as old ragas samples, so a grades file given
    # as --traces was read as traces without a word
    with pytest.raises(InputError, match="human grades file .*give it to calibrate") as err:
        read_traces(path, 3)
    assert err.value.line == 1 and str(path) in str(err.value)
    with pytest.raises(InputError, match="human grades file"):  # retrieval --run: the same
        load_run(path)


def test_calibrate_refuses_another_tools_trace_file_saying_what_it_is(tmp_path, capsys):
    ragas = ROOT / "tests" / "fixtures" / "users" / "ragas_texts.jsonl"
    with pytest.raises(InputError) as err:
        read_grades(ragas)
    assert "this is a ragas file (golden cases, traces, runs), not a grades file" in str(err.value)
    assert err.value.field == "id" and err.value.line == 1  # the ragas rows have no id
    code = main(["calibrate", str(ragas), "--judge", "lexical", "--out", str(tmp_path)])
    assert code == 2
    out = capsys.readouterr()
    assert "ragas file" in out.out + out.err


def test_renamed_label_column_is_recognised_as_grades(tmp_path):
    rows = [{**{k: v for k, v in r.items() if k != "label"}, "is_faithful": r["label"]}
            for r in GRADES]  # fmt: skip
    path = _jsonl(tmp_path / "set" / "grades.jsonl", rows)
    assert grade_rows(path, "label=is_faithful").format == "ragtriage-grades-jsonl"
    assert [i.label for i in load_grades(path, "label=is_faithful")] == [True, False]
    with pytest.raises(InputError, match="this is a ragas file") as err:  # old ragas names
        load_grades(path)
    assert err.value.field == "label" and "--columns label=NAME" in str(err.value)


def test_extra_csv_cells_in_a_grades_file_are_refused_at_their_line(tmp_path):
    # before: the cell beyond the header was dropped without a word
    path = tmp_path / "d" / "grades.csv"
    path.parent.mkdir()
    path.write_text("id,label\na,true\nb,false,surplus\n", encoding="utf-8")
    with pytest.raises(InputError, match="more cells than header columns") as err:
        read_grades(path)
    assert err.value.line == 3
