import json
from pathlib import Path

import pytest

from ragtriage.calibration.grades import load_grades, read_grades, sha256_text
from ragtriage.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


def _write(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_shipped_grades_keep_the_source_labels():
    items = load_grades(ROOT / "human_grades")
    by = {}
    for i in items:
        by.setdefault(i.dataset, []).append(i)
    assert {k: len(v) for k, v in by.items()} == {"expertqa": 200, "begin_wow": 100}
    assert sum(i.label for i in by["expertqa"]) == 51
    assert sum(i.label for i in by["begin_wow"]) == 37
    for item in items:
        row = item.grades[0]
        assert item.answer and item.contexts and item.question
        assert item.answer_sha256 == sha256_text(item.answer)
        assert row.grader in ("expert", "begin-crowd")
    assert sum(i.grade is not None for i in by["expertqa"]) == 199  # one has no claim annotated
    for d in ("expertqa", "begin_wow"):
        readme = (ROOT / "human_grades" / d / "README.md").read_text()
        assert "Licence" in readme and "commit" in readme


def test_jsonl_csv_labels_graders_and_ties(tmp_path):
    _write(
        tmp_path / "g" / "set_a" / "grades.jsonl",
        [
            {"id": "a1", "label": True, "grader": "ann", "answer": "x", "contexts": ["x"]},
            {"id": "a1", "label": "no", "grader": "bob", "answer": "x"},
            {"id": "a1", "label": 1, "grader": "cy", "answer": "x"},
            {"case_id": "a2", "label": "unfaithful", "grader": "ann", "answer": "y"},
            {"case_id": "a2", "label": "faithful", "grader": "bob", "answer": "y"},
        ],
    )
    (tmp_path / "g" / "set_b").mkdir()
    (tmp_path / "g" / "set_b" / "grades.csv").write_text(
        "case_id,answer,label,grade,grader,notes,contexts\n"
        'b1,"an answer, with comma",false,1,ann,hm,"[""ctx one"", ""ctx two""]"\n'
        "b2,plain,TRUE,3,,,just one passage\n",
        encoding="utf-8",
    )
    _write(tmp_path / "g" / "_judged" / "ignored.jsonl", [{"not": "a grade"}])
    items = {i.id: i for i in load_grades(tmp_path / "g")}
    assert set(items) == {"a1", "a2", "b1", "b2"}
    assert items["a1"].label is True and len(items["a1"].grades) == 3  # 2 of 3 say faithful
    assert items["a2"].label is None  # tie: reported, never resolved silently
    assert items["b1"].dataset == "set_b" and items["b1"].label is False
    assert items["b1"].contexts == ("ctx one", "ctx two") and items["b1"].grade == 1.0
    assert items["b2"].contexts == ("just one passage",) and items["b2"].label is True


@pytest.mark.parametrize(
    ("row", "field", "line"),
    [
        ({"id": "a"}, "label", 2),
        ({"id": "a", "label": "maybe"}, "label", 2),
        ({"label": True}, "id", 2),
        ({"id": "a", "label": True, "grade": "high"}, "grade", 2),
        ({"id": "a", "label": True, "answer": "x", "answer_sha256": "00"}, "answer_sha256", 2),
    ],
)
def test_bad_rows_name_file_line_and_field(tmp_path, row, field, line):
    path = _write(tmp_path / "d" / "g.jsonl", [{"id": "ok", "label": True}, row])
    with pytest.raises(InputError) as err:
        load_grades(path)
    assert err.value.field == field and err.value.line == line
    assert str(path) in str(err.value)


def test_different_answers_under_one_id_is_an_error(tmp_path):
    path = _write(
        tmp_path / "d" / "g.jsonl",
        [{"id": "a", "label": True, "answer": "one"}, {"id": "a", "label": True, "answer": "two"}],
    )
    with pytest.raises(InputError, match="different answers"):
        load_grades(path)


def test_missing_directory_and_empty_directory(tmp_path):
    with pytest.raises(InputError, match="no such"):
        load_grades(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no grade files"):
        load_grades(tmp_path / "empty")


def test_csv_contexts_as_csv_dictwriter_writes_a_list(tmp_path):
    import csv

    path = tmp_path / "grades.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, ["id", "label", "answer", "contexts"])
        writer.writeheader()
        writer.writerow({"id": "a", "label": "true", "answer": "x", "contexts": ["p 'one'", "p2"]})
        writer.writerow({"id": "b", "label": "false", "answer": "y", "contexts": "[1] plain"})
    a, b = read_grades(path)
    assert a.contexts == ("p 'one'", "p2")
    assert b.contexts == ("[1] plain",)  # text that only starts like a list is a passage
    path.write_text('id,label,answer,contexts\nc,true,z,"[""a"", b]"\n')
    with pytest.raises(InputError, match="grades.csv:2"):
        read_grades(path)  # looks like a list and is none: an error, not a passage
