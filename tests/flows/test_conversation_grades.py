"""``annotate grades --audit`` on a conversations result: each turn is shown with the
history it may rest on, and the grade rows carry it to ``calibrate``."""

from __future__ import annotations

import json
from pathlib import Path

from ragtriage.cli.main import main
from ragtriage.flows import conversations as conversations_flow
from ragtriage.flows.annotate import GradesConfig, prepare
from ragtriage.flows.conversations import ConversationsConfig
from ragtriage.results.files import json_bytes

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "conversations"


def test_graded_turns_carry_their_history_into_calibrate(tmp_path):
    result = conversations_flow.run(ConversationsConfig(golden=HERE, traces=HERE / "turns.jsonl",
                                               judge="lexical", cache=None))  # fmt: skip
    path = tmp_path / "results.json"
    path.write_bytes(json_bytes(result))
    grades = tmp_path / "grades.jsonl"
    prepared = prepare(GradesConfig(audit=path, out=grades, sample=50, browser=False))
    task = prepared.task
    items = {task.item(i)["id"]: (i, task.item(i)) for i in range(task.total)}
    assert len(items) == 13  # the scored turns of 17 (the 4 abstentions are not graded)
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
    result = conversations_flow.run(ConversationsConfig(golden=DEMO, traces=traces, judge="lexical",
                                               cache=None))  # fmt: skip
    path = tmp_path / "results.json"
    path.write_bytes(json_bytes(result))
    grades = tmp_path / "grades.jsonl"
    task = prepare(GradesConfig(audit=path, out=grades, sample=50, browser=False)).task
    for i in range(task.total):
        item = task.item(i)
        task.save(i, {"record": {"label": item["id"] not in ("hc-backup#2", "hc-backup#3")},
                      "version": item["version"]})  # fmt: skip
    out = tmp_path / "cal"
    assert main(["calibrate", str(grades), "--judge", "lexical", "--out", str(out),
                 "--no-plots", "--resamples", "100"]) == 0  # fmt: skip
    record = json.loads(next(out.rglob("calibration.json")).read_text())
    assert len(record["items"]) == task.total


def test_calibrate_judges_a_graded_turn_as_the_conversations_command_does(tmp_path):
    """Both go through judge.history's two passes: hc-snapshots turn 2 is faithful to its
    passages, and judged together with turn 1's answer ("the N4-300 and N8-900 support
    snapshots") the fact check reads a contradiction; hc-n8 turn 3 is faithful only with
    the history."""
    from ragtriage.calibration.grades import load_grades
    from ragtriage.calibration.judges import run_judge
    from ragtriage.flows.calibrate import _conversations_rule
    from ragtriage.triage.calibrated import find_decider

    traces = DEMO / "conversation_traces.jsonl"
    result = conversations_flow.run(ConversationsConfig(golden=DEMO, traces=traces, judge="lexical",
                                               cache=None))  # fmt: skip
    path = tmp_path / "results.json"
    path.write_bytes(json_bytes(result))
    grades = tmp_path / "grades.jsonl"
    task = prepare(GradesConfig(audit=path, out=grades, sample=50, browser=False)).task
    for i in range(task.total):
        item = task.item(i)
        task.save(i, {"record": {"label": not item["id"].startswith("hc-backup")},
                      "version": item["version"]})  # fmt: skip
    command = {f"{t.conversation_id}#{t.turn}": t.case.judge for t in result.turns
               if t.case.judge is not None and t.case.judge.outcome.value == "scored"}  # fmt: skip
    decide = find_decider(None, next(iter(command.values())).fingerprint).decide
    items = [i.judge_item() for i in load_grades(grades)]
    assert {i.id for i in items} == set(command)
    two_pass, _, _ = run_judge("lexical", items, decide_for=_conversations_rule)
    one_pass, _, _ = run_judge("lexical", items)  # passages and history together
    for got in two_pass:
        want = command[got.item_id]
        assert (got.score, got.signals, decide(got)) == (want.score, want.signals, decide(want))
    together = {r.item_id: r for r in one_pass}
    assert decide(command["hc-snapshots#2"]) is True
    assert decide(together["hc-snapshots#2"]) is not True  # the case the order decides
    assert together["hc-snapshots#2"].signals["contradictions"] > 0
    n8 = next(t for t in result.turns if (t.conversation_id, t.turn) == ("hc-n8", 3))
    assert n8.judged_with_history and decide(command["hc-n8#3"]) is True
    # and the command line's calibrate records the same scores
    out = tmp_path / "cal"
    assert main(["calibrate", str(grades), "--judge", "lexical", "--out", str(out),
                 "--no-plots", "--resamples", "100"]) == 0  # fmt: skip
    record = json.loads(next(out.rglob("calibration.json")).read_text())
    assert {i["id"]: i["score"] for i in record["items"]} == {
        k: v.score for k, v in command.items()
    }


def test_context_ids_that_do_not_pair_with_the_contexts_are_refused(tmp_path):
    from ragtriage.calibration.grades import load_grades
    from ragtriage.errors import InputError

    path = tmp_path / "grades.jsonl"
    row = {"id": "c#2", "label": True, "answer": "a", "contexts": ["p", "u"],
           "context_ids": ["doc-1", "history:user:1"]}  # fmt: skip
    path.write_text(json.dumps(row) + "\n" + json.dumps({**row, "id": "c#3",
                    "context_ids": ["doc-1"]}) + "\n")  # fmt: skip
    try:
        load_grades(path)
    except InputError as exc:
        assert ":2" in str(exc) and "context_ids" in str(exc)
    else:
        raise AssertionError("a context_ids list one short was read")
    path.write_text(json.dumps(row) + "\n")
    item = load_grades(path)[0].judge_item()
    assert [c.id for c in item.contexts] == ["doc-1", "history:user:1"]


def test_the_active_design_on_a_conversations_result_is_refused(tmp_path):
    """Issue 52 item 7: it served a page but recorded no inclusion probabilities, so the
    grades could not be weighted; refused naming the option, nothing written."""
    import pytest

    from ragtriage.errors import InputError

    result = conversations_flow.run(ConversationsConfig(golden=HERE, traces=HERE / "turns.jsonl",
                                               judge="lexical", cache=None))  # fmt: skip
    path = tmp_path / "results.json"
    path.write_bytes(json_bytes(result))
    grades = tmp_path / "grades.jsonl"
    config = GradesConfig(audit=path, out=grades, sample=5, browser=False, design="active")
    with pytest.raises(InputError, match="--design uniform") as found:
        prepare(config)
    assert found.value.field == "--design" and not grades.exists()
    prepare(GradesConfig(audit=path, out=grades, sample=5, browser=False))  # the lock is free
