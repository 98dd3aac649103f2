"""A session's life around the server: extended with more queries or answers (marks
kept), refused naming the input that truly conflicts; stopped by Ctrl-C with what was
saved and exit 0."""

from __future__ import annotations

import json
import signal
import urllib.request
from pathlib import Path

import pytest

import ragtriage.flows.annotate as flow
from ragtriage.cli.main import main
from ragtriage.errors import InputError
from ragtriage.flows.annotate import GoldenConfig, GradesConfig, prepare
from tests.conftest import ROOT

from .conftest import start_server

CORPUS = ROOT / "golden_sets" / "handbook" / "corpus.jsonl"
RAGAS = ROOT / "tests" / "fixtures" / "users" / "ragas_texts.jsonl"
FIRST = ["How many drive bays does the N4-300 have?", "what does E1042 mean",
         "Does the NAS support Wi-Fi?"]  # fmt: skip
MORE = ["How do I replace a failed drive?", "What RAID levels are supported?"]


def _golden(tmp: Path, lines: list[str], **options) -> GoldenConfig:
    queries = tmp / "queries.txt"
    queries.write_text("\n".join(lines) + "\n")
    options.setdefault("seed", 3)
    return GoldenConfig(queries=queries, corpus=CORPUS, out=tmp / "golden.jsonl", **options)


def _mark_first(prepared) -> str:
    task = prepared.task
    task.save(0, {"record": {"unanswerable": True}, "version": 0})
    marked = task.sample[0].id
    task.store.close()
    return marked


def test_a_golden_session_grows_with_the_log_and_the_sample_and_keeps_its_marks(tmp_path):
    first = prepare(_golden(tmp_path, FIRST, sample=2))
    drawn = [q.id for q in first.task.sample]
    marked = _mark_first(first)

    grown = prepare(_golden(tmp_path, FIRST + MORE, sample=4))  # two more lines
    assert any(n.startswith("extending the session") and "2 added" in n for n in grown.notes)
    assert any(n.startswith("warning: the input grew from 3 to 5 items") for n in grown.notes)
    ids = [q.id for q in grown.task.sample]
    assert ids[:2] == drawn and len(set(ids)) == 4  # the first draw kept, in order
    assert grown.task.store.record(marked)[0]["unanswerable"] is True
    assert json.loads((tmp_path / "golden.jsonl").read_text())["id"] == marked
    grown.task.store.close()

    again = prepare(_golden(tmp_path, FIRST + MORE, sample=4))  # the same: resumed
    assert any(n.startswith("resuming the session") for n in again.notes)
    assert [q.id for q in again.task.sample] == ids
    again.task.store.close()


def test_a_golden_session_names_the_input_that_truly_conflicts(tmp_path):
    _mark_first(prepare(_golden(tmp_path, FIRST, sample=3)))
    changed = [FIRST[0], "what does error E1042 mean", FIRST[2]]
    with pytest.raises(InputError) as refused:
        prepare(_golden(tmp_path, changed, sample=3))
    message = str(refused.value)
    assert "queries.txt:2: field 'text'" in message and "query 'q2'" in message
    assert "what does E1042 mean" in message and "hash" not in message
    with pytest.raises(InputError, match="query 'q3' of this session's sample is not in it"):
        prepare(_golden(tmp_path, FIRST[:2], sample=3))
    with pytest.raises(InputError, match="option --seed: the session was drawn with --seed 3"):
        prepare(_golden(tmp_path, FIRST + MORE, sample=3, seed=4))
    with pytest.raises(InputError, match="option --sample: the session already holds 3"):
        prepare(_golden(tmp_path, FIRST + MORE, sample=2))


def test_a_grading_session_grows_with_more_answers_and_refuses_a_rewritten_one(tmp_path):
    rows = RAGAS.read_text().splitlines()
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join(rows[:8]) + "\n")
    out = tmp_path / "grades.jsonl"
    config = GradesConfig(answers=answers, out=out, sample=4, seed=5)
    first = prepare(config)
    items = [i["id"] for i in first.task.items]
    sentences = len(first.task.items[0]["sentences"])
    first.task.save(0, {"record": {"sentences": ["supported"] * sentences}, "version": 0})
    first.task.store.close()

    answers.write_text("\n".join(rows) + "\n")  # seven more answers in the file
    grown = prepare(GradesConfig(answers=answers, out=out, sample=6, seed=5))
    # 3 abstentions not offered
    assert any("2 added" in n and "of 12" in n for n in grown.notes), grown.notes
    # the first 4 were drawn from 8 answers: said, with each answer's chance
    assert (
        "warning: the input grew from 8 to 12 items since the last draw: an earlier item "
        "had a 62% chance to be drawn, a new one 25%" in "\n".join(grown.notes)
    )
    assert [i["id"] for i in grown.task.items][:4] == items
    assert len(grown.task.items) == 6
    saved = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in saved] == [items[0]] and saved[0]["sample_population"] == 12
    grown.task.store.close()

    edited = [json.loads(r) for r in rows]
    for row in edited:  # one sampled answer rewritten: grading it again is another item
        row["response"] = row["response"] + " Also, it is free."
    answers.write_text("".join(json.dumps(r) + "\n" for r in edited))
    with pytest.raises(InputError) as refused:
        prepare(GradesConfig(answers=answers, out=out, sample=6, seed=5))
    assert "answers.jsonl" in str(refused.value) and "field 'answer'" in str(refused.value)
    assert "of this session's sample changed" in str(refused.value)


def test_ctrl_c_stops_the_server_saying_what_was_saved_and_exits_0(tmp_path, servers):
    config = _golden(tmp_path, FIRST)
    args = ["golden", "--queries", str(config.queries), "--corpus", str(CORPUS),
            "-o", str(config.out)]  # fmt: skip
    server = start_server(args)
    servers.append(server)
    request = urllib.request.Request(
        server.base + "/api/item/0",
        data=b'{"record": {"unanswerable": true}, "version": 0}',
        headers={"X-Ragtriage-Token": server.token, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
    server.stop(signal.SIGINT)
    assert server.proc.stdout is not None
    rest = server.proc.stdout.read()
    assert server.proc.returncode == 0, rest
    assert f"annotate: stopped; 1 mark saved in {config.out}" in rest
    assert "interrupted" not in rest and "response cache" not in rest


def test_ctrl_c_while_the_corpus_is_read_is_no_audit_interruption(tmp_path, monkeypatch, capsys):
    def interrupted(config):
        raise KeyboardInterrupt

    monkeypatch.setattr(flow, "prepare", interrupted)
    config = _golden(tmp_path, FIRST)
    args = ["annotate", "golden", "--queries", str(config.queries), "--corpus", str(CORPUS),
            "-o", str(config.out), "--no-browser"]  # fmt: skip
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "annotate: stopped before the page was served" in out
    assert "response cache" not in out + err
