"""Hostile and odd inputs from issue 26: each is read right or refused with one line
naming file, line and field (exit 2), never a traceback, a hang or a silent merge."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from ragtriage.calibration.grades import read_grades
from ragtriage.cli.main import main
from ragtriage.data.beir import load_beir
from ragtriage.data.containers import parse_cell
from ragtriage.data.golden import load_golden
from ragtriage.data.runs import load_run
from ragtriage.data.traces import read_traces
from ragtriage.errors import InputError
from tests.conftest import ROOT

USERS = ROOT / "tests" / "fixtures" / "users"


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_numpy_repr_list_cells_are_read_item_by_item_never_merged():
    """HF ``Dataset.to_csv`` writes a list as numpy's repr; Python's parser would join
    the adjacent strings into one id (item 3)."""
    cell = "['hb-01' 'hb-08'\n 'hb-02']"
    assert parse_cell(cell, "ids", Path("f.csv"), 2) == ["hb-01", "hb-08", "hb-02"]
    assert parse_cell("[0.5 0.25]", "scores", Path("f.csv"), 2) == [0.5, 0.25]
    assert parse_cell("['a', 'b']", "ids", Path("f.csv"), 2) == ["a", "b"]
    mixed = "['a' 'b', 'c']"  # neither numpy's form nor a list: left as text, refused later
    assert parse_cell(mixed, "ids", Path("f.csv"), 2) == mixed


def test_the_hf_csv_fixture_keeps_three_ids_per_case():
    golden = load_golden(USERS / "hf_ids.csv")
    assert golden.cases[0].expected() == ["hb-01"]
    traces = read_traces(USERS / "hf_ids.csv", 3, golden).traces
    assert [c.id for c in traces[golden.cases[0].id].retrieved] == ["hb-01", "hb-02", "hb-08"]


def test_a_400_digit_score_is_an_input_error(tmp_path, capsys):
    golden = _jsonl(tmp_path / "g.jsonl", [{"id": "a", "query": "q?", "expected": ["d"]}])
    traces = tmp_path / "t.jsonl"
    traces.write_text(
        '{"query_id": "a", "retrieved": [{"id": "d", "score": 1' + "0" * 400 + "}], "
        '"answer": "x"}\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="out of range") as found:
        read_traces(traces, 1, load_golden(golden))
    assert (found.value.line, found.value.field) == (1, "retrieved[0].score")
    args = ["audit", "--golden", str(golden), "--traces", str(traces), "--judge", "lexical",
            "--cache", str(tmp_path / "c.sqlite"), "--out", str(tmp_path / "o")]  # fmt: skip
    assert main(args) == 2
    assert "t.jsonl:1" in capsys.readouterr().err


def test_a_400_digit_score_in_a_run_names_its_line_and_field(tmp_path):
    run = tmp_path / "r.jsonl"
    run.write_text(
        '{"query_id": "a", "retrieved": [{"id": "d", "score": 1' + "0" * 400 + "}]}\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="out of range for a 64-bit float") as found:
        load_run(run)
    assert (found.value.line, found.value.field) == (1, "retrieved[0].score")


def test_an_empty_case_id_is_refused(tmp_path):
    path = _jsonl(tmp_path / "g.jsonl", [{"id": "", "query": "q?", "expected": ["d"]}])
    with pytest.raises(InputError, match="must not be empty") as found:
        load_golden(path)
    assert (found.value.line, found.value.field) == (1, "id")


def test_a_fifo_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "golden.jsonl"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def load() -> None:
        try:
            load_golden(fifo)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            outcome.append(exc)

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # unblock the reader so the test run can end
        with open(fifo, "w"):  # noqa: PTH123
            pass
        pytest.fail("load_golden blocked on a FIFO")
    assert isinstance(outcome[0], InputError) and "not a regular file" in str(outcome[0])


def test_a_nul_byte_in_a_grades_csv_is_refused(tmp_path):
    path = tmp_path / "grades.csv"
    path.write_text('question,answer,contexts,label\nq?,a\x00b,"[""c""]",1\n', encoding="utf-8")
    with pytest.raises(InputError, match="NUL byte") as found:
        read_grades(path)
    assert found.value.line == 2


def test_conflicting_beir_judgements_are_refused(tmp_path):
    (tmp_path / "qrels").mkdir()
    _jsonl(tmp_path / "corpus.jsonl", [{"_id": "d", "text": "t"}])
    _jsonl(tmp_path / "queries.jsonl", [{"_id": "q", "text": "q?"}])
    (tmp_path / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq\td\t2\nq\td\t0\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match="duplicate judgement") as found:
        load_beir(tmp_path)
    assert found.value.line == 3


def test_pretty_printed_and_console_span_files_read_like_one_a_line():
    golden = load_golden(USERS / "handbook")
    lines = read_traces(USERS / "langchain_spans.jsonl", 3, golden).traces
    for name in ("langchain_console.txt", "langchain_otlp.json"):
        assert read_traces(USERS / name, 3, golden).traces == lines, name


def test_a_broken_pretty_printed_document_names_its_line(tmp_path):
    path = tmp_path / "spans.json"
    path.write_text('{\n  "resourceSpans": [\n    {"x": }\n  ]\n}\n', encoding="utf-8")
    with pytest.raises(InputError, match="invalid JSON") as found:
        read_traces(path, 3)
    assert found.value.line == 3


def test_an_hf_folder_is_a_run_too():
    golden = load_golden(USERS / "hf_ids_saved")
    run = load_run(USERS / "hf_ids_saved", golden=golden)
    assert run.format == "ragas-arrow" and not run.scored
