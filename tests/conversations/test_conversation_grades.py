"""``annotate grades --audit`` on a conversations result: each turn is shown with the
history it may rest on, and the grade rows carry it to ``calibrate``."""

from __future__ import annotations

import json
from pathlib import Path

from ragtriage.cli.main import main
from ragtriage.flows.annotate import GradesConfig, prepare_grades
from ragtriage.flows.conversations import ConversationsConfig, conversations
from ragtriage.results.files import json_bytes

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "conversations"


def test_graded_turns_carry_their_history_into_calibrate(tmp_path):
    result = conversations(ConversationsConfig(golden=HERE, traces=HERE / "turns.jsonl",
                                               judge="lexical", cache=None))  # fmt: skip
    path = tmp_path / "results.json"
    path.write_bytes(json_bytes(result))
    grades = tmp_path / "grades.jsonl"
    prepared = prepare_grades(GradesConfig(audit=path, out=grades, sample=50, browser=False))
    task = prepared.task
    items = {task.item(i)["id"]: (i, task.item(i)) for i in range(task.total)}
    assert len(items) == 8  # the scored turns (abstentions are not graded)
    _, follow_up = items["c-history#3"]
    assert follow_up["context_ids"] == ["backup-usb", "power-schedule", "history:user:1",
                                        "history:answer:1", "history:user:2",
                                        "history:answer:2"]  # fmt: skip
    assert "My NAS is an N4-300" in follow_up["contexts"][2]
    # the ungrounded answer of turn 2 is not shown as history to turn 3
    _, later = items["c-ungrounded#3"]
    assert "history:answer:2" not in later["context_ids"]
    assert "history:user:2" in later["context_ids"]
    for i, item in items.values():
        task.save(i, {"record": {"label": item["id"] != "c-ungrounded#3"},
                      "version": item["version"]})  # fmt: skip
    rows = [json.loads(line) for line in grades.read_text().splitlines()]
    row = next(r for r in rows if r["id"] == "c-history#3")
    assert row["context_ids"][2] == "history:user:1" and row["label"] is True
    assert "My NAS is an N4-300" in row["contexts"][2]


DEMO = Path(__file__).resolve().parents[2] / "golden_sets" / "handbook"


def test_calibrate_reads_the_graded_turns(tmp_path):
    traces = DEMO / "conversation_traces.jsonl"
    result = conversations(ConversationsConfig(golden=DEMO, traces=traces, judge="lexical",
                                               cache=None))  # fmt: skip
    path = tmp_path / "results.json"
    path.write_bytes(json_bytes(result))
    grades = tmp_path / "grades.jsonl"
    task = prepare_grades(GradesConfig(audit=path, out=grades, sample=50, browser=False)).task
    for i in range(task.total):
        item = task.item(i)
        task.save(i, {"record": {"label": item["id"] not in ("hc-backup#2", "hc-backup#3")},
                      "version": item["version"]})  # fmt: skip
    out = tmp_path / "cal"
    assert main(["calibrate", str(grades), "--judge", "lexical", "--out", str(out),
                 "--no-plots", "--resamples", "100"]) == 0  # fmt: skip
    record = json.loads(next(out.rglob("calibration.json")).read_text())
    assert len(record["items"]) == task.total
