"""``annotate grades --answers`` takes the documented trace row as it stands (issue 35
item 7): the row names only a ``query_id``; the query comes from ``--golden`` (its case)
or from the row itself, and passages without text from the golden set's corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtriage.cli.main import main
from ragtriage.flows.annotate import GradesConfig, prepare
from tests.conftest import ROOT

FILES = ROOT / "tests" / "fixtures" / "headline"
GOLDEN = FILES / "golden"
QUERIES = {
    json.loads(line)["id"]: json.loads(line)["query"]
    for line in (GOLDEN / "golden.jsonl").read_text().splitlines()
}


def _questions(prepared) -> dict[str, str]:
    items = prepared.task.items
    prepared.task.store.close()
    return {i["id"]: i["question"] for i in items}


def test_the_documented_row_is_refused_without_golden_naming_the_way(tmp_path, capsys):
    args = ["annotate", "grades", "--answers", str(FILES / "traces.jsonl"),
            "-o", str(tmp_path / "g.jsonl"), "--no-browser"]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "no query text" in err and "give --golden" in err


def test_queries_come_from_the_golden_set(tmp_path):
    config = GradesConfig(
        answers=FILES / "traces.jsonl", golden=GOLDEN, out=tmp_path / "g.jsonl", sample=6
    )
    assert _questions(prepare(config)) == QUERIES


def test_or_from_the_row_itself_and_texts_from_the_corpus(tmp_path):
    rows = [json.loads(x) for x in (FILES / "traces.jsonl").read_text().splitlines()]
    own = tmp_path / "own.jsonl"  # the query in the row, passages by id only
    own.write_text("".join(
        json.dumps({**r, "query": f"my words {r['query_id']}",
                    "retrieved": [c["id"] for c in r["retrieved"]]}) + "\n"
        for r in rows
    ))  # fmt: skip
    config = GradesConfig(answers=own, golden=GOLDEN, out=tmp_path / "g.jsonl", sample=6)
    prepared = prepare(config)
    passages = {i["id"]: i["contexts"] for i in prepared.task.items}
    assert _questions(prepared) == {q: f"my words {q}" for q in QUERIES}
    chunk = json.loads((GOLDEN / "corpus.jsonl").read_text().splitlines()[0])
    assert any(chunk["text"] in json.dumps(p) for p in passages.values())


def test_golden_goes_with_answers(tmp_path):
    from ragtriage.errors import InputError

    with pytest.raises(InputError, match="--golden goes with --answers"):
        prepare(GradesConfig(audit=Path("results.json"), golden=GOLDEN, out=tmp_path / "g"))


def test_grade_rows_carry_the_reference_where_a_golden_chunk_was_in_context(tmp_path):
    """What ``calibrate`` runs the answer check on: the golden case's reference answer,
    only where the audit would run the check (a golden chunk in the answer's context)."""
    from ragtriage.annotate.grades import render_grades

    cases = {
        (c := json.loads(line))["id"]: c
        for line in (GOLDEN / "golden.jsonl").read_text().splitlines()
    }
    config = GradesConfig(
        answers=FILES / "traces.jsonl", golden=GOLDEN, out=tmp_path / "g.jsonl", sample=6
    )
    prepared = prepare(config)
    items = prepared.task.items
    store = prepared.task.store
    with_reference = [i for i in items if i["reference_answer"]]
    assert with_reference  # the fixture has golden chunks in context with references
    for item in items:
        case = cases[item["id"]]
        golden_in_context = set(case.get("expected", [])) & set(item["context_ids"])
        wanted = case.get("reference_answer") if golden_in_context else None
        assert item["reference_answer"] == wanted
    first = with_reference[0]
    store.data["records"][first["id"]] = {"sentences": [], "label": True, "answers": False}
    rows = [json.loads(x) for x in render_grades(store.data).splitlines()]
    store.close()
    assert rows == [rows[0]] and rows[0]["reference_answer"] == first["reference_answer"]
    assert rows[0]["answers_question"] is False


def test_abstentions_are_not_offered_for_grading(tmp_path):
    """An abstention asserts nothing to grade; --audit never offered one (issue 53)."""
    rows = [json.loads(x) for x in (FILES / "traces.jsonl").read_text().splitlines()]
    abstaining = rows[0]["query_id"]
    rows[0]["answer"] = "The context does not contain the answer."
    traces = tmp_path / "traces.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in rows))
    config = GradesConfig(answers=traces, golden=GOLDEN, out=tmp_path / "g.jsonl", sample=50)
    prepared = prepare(config)
    ids = {i["id"] for i in prepared.task.items}
    prepared.task.store.close()
    assert abstaining not in ids and len(ids) == len(rows) - 1
    assert any("abstention" in note for note in prepared.notes)
