"""Rows declared once (data/rows.py): rows given in Python read as a file of them is read,
every refusal one line naming where, and conversation shapes in the one format registry."""

from __future__ import annotations

import json

import pytest

from ragtriage import evaluate_retrieval
from ragtriage.data.containers import as_source
from ragtriage.data.formats import conversations, ragas
from ragtriage.data.formats.columns import ColumnMap
from ragtriage.data.formats.registry import FORMATS, recognise, recognise_conversations
from ragtriage.data.golden import load_golden
from ragtriage.data.rows import GoldenRow, TraceRow, validated
from ragtriage.data.traces import read_traces
from ragtriage.errors import InputError

GOLDEN = [
    {"id": "q1", "query": "what is a?", "expected": ["d1"], "tags": ["t", "t"]},
    {"question": "and b?", "relevance_grades": {"d2": 2}, "reference_answers": ["b is b"]},
    {"id": 3, "query": "none here", "expected": [], "split": "holdout", "acl": [1, "1"]},
]


def test_rows_load_as_the_same_rows_in_a_file_do(tmp_path):
    path = tmp_path / "golden.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in GOLDEN))
    from_rows, from_file = load_golden(GOLDEN), load_golden(path)
    assert from_rows.cases == from_file.cases
    assert from_rows.source == "<golden given in Python>"
    assert from_rows.format == "ragtriage-rows"
    case = from_rows.cases[1]
    assert case.id.startswith("q-") and case.relevance == {"d2": 2}
    assert case.reference_answer == "b is b"
    assert from_rows.cases[2].acl == ("1",) and from_rows.cases[2].split == "holdout"
    assert not list(tmp_path.glob("*.tmp*"))  # nothing written to read rows


def test_a_bad_row_is_located_by_its_position():
    rows = [GOLDEN[0], {"query": "q", "expected": [None]}]
    with pytest.raises(InputError) as info:
        load_golden(rows)
    assert str(info.value) == (
        "<golden given in Python>:1: field 'expected[0]': expected str or int, got NoneType"
    )


def test_a_dataframe_row_is_located_by_its_index_and_nan_is_absent():
    import pandas as pd

    frame = pd.DataFrame(
        [{"query_id": "q1", "retrieved": ["d1"], "answer": "a", "context_k": 1.0}] * 2,
        index=[7, 9],
    )
    frame["context_k"] = pd.Series([float("nan"), -1], index=[7, 9], dtype=object)
    with pytest.raises(InputError) as info:
        read_traces(frame, 3)
    assert str(info.value) == "<traces given in Python>:9: field 'context_k': must be >= 0"
    read = read_traces(frame.iloc[:1], 3)  # NaN: no context_k, so the top 3
    assert read.traces["q1"].context_ids == ["d1"]


def test_duplicate_rows_name_both_positions():
    traces = [{"query_id": "q1", "retrieved": [], "answer": "a"}] * 2
    with pytest.raises(
        InputError, match=r"^<traces given in Python>:1: .*already traced on line 0"
    ):
        read_traces(traces, 3)


@pytest.mark.parametrize(
    ("model", "record", "expected"),
    [
        (
            GoldenRow,
            {"query": "q", "relevance_grades": {"d\n1": 1}},
            "field 'relevance_grades': id",
        ),
        (
            GoldenRow,
            {"query": "q", "expected": [], "relevant_doc_ids": []},
            "field 'expected': give",
        ),
        (GoldenRow, {"query": " ", "expected": []}, "field 'query': must not be empty"),
        (GoldenRow, {"query": "q"}, "field 'expected': missing required field (an empty"),
        (TraceRow, {"query_id": "q", "retrieved": [{"id": "d", "score": 1e400}]}, "score"),
        (TraceRow, {"query_id": "q", "retrieved": [True], "answer": "a"}, "'retrieved[0]': exp"),
        (TraceRow, {"query_id": "q", "retrieved": []}, "field 'answer': missing required field"),
    ],
)
def test_every_refusal_is_one_line_naming_file_line_and_field(model, record, expected):
    with pytest.raises(InputError) as info:
        validated(model, record, "f.jsonl", 4)
    message = str(info.value)
    assert message.startswith("f.jsonl:4: ") and expected in message
    assert "\n" not in message


def test_rows_given_twice_hash_as_the_jsonl_of_them():
    import hashlib

    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in GOLDEN)
    assert as_source(GOLDEN, "golden").sha256() == hashlib.sha256(lines.encode()).hexdigest()


def test_evaluate_retrieval_reads_rows_as_a_golden_file():
    rows = [{"id": "q1", "query": "a", "expected": ["d1"]}] * 2
    with pytest.raises(InputError, match=r"^<golden given in Python>:1: field 'id': duplicate"):
        evaluate_retrieval(rows, {"q1": ["d1"]})
    report = evaluate_retrieval(rows[:1], {"q1": ["d1"]})
    assert report.golden["source"] == "<golden given in Python>"


@pytest.mark.parametrize(
    ("row", "name"),
    [
        ({"conversation_id": "c", "turn": 1, "user": "u"}, "ragtriage-conversations"),
        ({"turns": [], "name": "c"}, "deepeval-conversational"),
        ({"user_input": [{"type": "human", "content": "u"}]}, "ragas-multiturn"),
        ({"context": {"trace_id": "t"}, "span_kind": "RETRIEVER"}, "openinference-sessions"),
    ],
)
def test_each_conversation_shape_declares_itself_in_the_one_registry(row, name):
    fmt = recognise_conversations([(1, row)])
    assert fmt is not None and fmt.name == name and fmt in FORMATS
    assert "conversation traces" in fmt.yields


def test_single_turn_files_are_never_read_as_conversation_shapes():
    rows = [(1, {"user_input": "q", "retrieved_contexts": ["c"], "response": "a"})]
    assert recognise(rows, ColumnMap()) is ragas.FORMAT
    assert all(f.conversations is None for f in FORMATS if f.recognises({"query", "expected"}))
    assert conversations.RAGAS.golden is None and conversations.RAGAS.traces is None


@pytest.mark.parametrize("second", [{"id": "d2"}, {"id": "d2", "score": None}])
def test_a_trace_scoring_some_items_is_refused_as_a_run_line_is(second, tmp_path):
    """audit --traces (and conversation turns) read a trace with one unscored item that
    retrieval --run refuses: the rule is declared once and both rows apply it."""
    from ragtriage.data.conversation_traces import read_conversation_traces
    from ragtriage.data.conversations import load_conversation_golden
    from ragtriage.data.runs import run_from_records

    retrieved = [{"id": "d1", "score": 0.9}, second]
    expected = (
        "f.jsonl:3: field 'retrieved[1].score': either every retrieved item has a score or none has"
    )
    with pytest.raises(InputError) as as_run:
        run_from_records("f.jsonl", [(3, {"query_id": "q", "retrieved": retrieved})])
    with pytest.raises(InputError) as as_trace:
        validated(TraceRow, {"query_id": "q", "retrieved": retrieved, "answer": "a"}, "f.jsonl", 3)
    assert str(as_run.value) == str(as_trace.value) == expected
    turns = tmp_path / "turns.jsonl"
    turn = {"conversation_id": "c", "turn": 1, "user": "u", "answer": "a"}
    turns.write_text(json.dumps({**turn, "retrieved": retrieved}) + "\n")
    golden = tmp_path / "golden.jsonl"
    golden.write_text(json.dumps({**turn, "expected": ["d1"], "standalone": True}) + "\n")
    with pytest.raises(InputError, match=r":1: field 'retrieved\[1\].score': either every"):
        read_conversation_traces(turns, 3, load_conversation_golden(golden))


def test_a_ragas_single_turn_row_is_no_conversation_shape():
    row = {"user_input": "q", "retrieved_contexts": ["c"], "response": "a"}
    assert recognise_conversations([(1, row)]) is None
