"""``golden split`` and ``golden check`` on a conversational golden set, and the held-back
slice in ``ragtriage conversations``: whole conversations stay together."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragtriage.data.conversations import load_conversation_golden
from ragtriage.errors import InputError
from ragtriage.flows import conversations as conversations_flow
from ragtriage.flows.conversations import ConversationsConfig
from ragtriage.flows.golden import check, split
from ragtriage.flows.golden.check import CheckConfig
from ragtriage.flows.golden.split import SplitConfig

DEMO = Path(__file__).resolve().parents[2] / "golden_sets" / "handbook"


@pytest.fixture
def demo(tmp_path) -> Path:
    for name in ("conversations.jsonl", "corpus.jsonl", "conversation_traces.jsonl"):
        shutil.copy(DEMO / name, tmp_path / name)
    return tmp_path


def test_split_holds_back_whole_conversations(demo):
    done = split.run(SplitConfig(demo / "conversations.jsonl", 0.34, seed=3))
    threads = load_conversation_golden(demo / "conversations.jsonl")
    slices = {}
    for turn in threads.turns:
        slices.setdefault(turn.conversation_id, set()).add(turn.case.split)
    assert all(len(s) == 1 for s in slices.values())
    held = [c for c, s in slices.items() if s == {"holdout"}]
    assert len(held) == 2  # round(0.34 * 6)
    assert sorted(done.held) == sorted(t.case.id for t in threads.turns
                                       if t.conversation_id in held)  # fmt: skip
    again = split.run(
        SplitConfig(demo / "conversations.jsonl", 0.34, seed=3, out=demo / "copy.jsonl", force=True)
    )
    assert sorted(again.held) == sorted(done.held)  # the seed alone decides
    with pytest.raises(InputError, match="already has held-out conversations"):
        split.run(SplitConfig(demo / "conversations.jsonl", 0.34, seed=4))


def test_a_conversation_split_across_slices_is_refused(demo):
    rows = [json.loads(line) for line in (demo / "conversations.jsonl").read_text().splitlines()]
    rows[1]["split"] = "holdout"  # hc-snapshots turn 2 only
    (demo / "conversations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputError) as caught:
        load_conversation_golden(demo / "conversations.jsonl")
    assert (caught.value.line, caught.value.field) == (2, "split")
    assert "keeps whole conversations" in str(caught.value)


def test_check_reads_a_conversational_golden_set_turn_by_turn(demo):
    report = check.run(CheckConfig(demo / "conversations.jsonl"))
    assert report.golden["conversations"] == 6 and report.golden["cases"] == 16
    assert report.ok and report.missing_ids == []
    rows = [json.loads(line) for line in (demo / "conversations.jsonl").read_text().splitlines()]
    rows[0]["expected"] = ["no-such-chunk"]
    (demo / "conversations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = check.run(CheckConfig(demo / "conversations.jsonl"))
    assert [(m.case_id, m.doc_id) for m in report.missing_ids] == [
        ("hc-snapshots#1", "no-such-chunk")
    ]


def test_the_audit_leaves_held_back_conversations_out_and_reveals_them_on_request(demo):
    done = split.run(SplitConfig(demo / "conversations.jsonl", 0.34, seed=3))
    config = {"golden": demo, "traces": demo / "conversation_traces.jsonl", "judge": "lexical",
              "cache": demo / "cache.sqlite"}  # fmt: skip
    dev = conversations_flow.run(ConversationsConfig(**config))
    ids = {t.case.case_id for t in dev.turns}
    assert ids.isdisjoint(done.held) and len(ids) == 16 - len(done.held)
    assert set(dev.retrieval.per_query.index).isdisjoint(done.held)
    assert dev.golden.slice == "dev"
    assert any(
        w.code == "set_aside" and "outside the audited slice set aside" in w.text
        for w in dev.warnings
    )
    held = conversations_flow.run(ConversationsConfig(**config, holdout=True))
    assert {t.case.case_id for t in held.turns} == set(done.held)
    assert held.retrieval.split is not None and held.retrieval.split.reveals == 1


def test_the_shipped_set_by_name_as_the_audit_takes_it(tmp_path, monkeypatch):
    """``conversations --golden handbook`` (or ``golden_sets/handbook`` outside a clone)
    said "handbook: file not found" where ``audit --golden handbook`` reads the shipped set."""
    from ragtriage.data.conversations import load_conversation_golden

    monkeypatch.chdir(tmp_path)  # no golden_sets/ here: the name alone must find it
    by_name = load_conversation_golden("handbook")
    assert by_name.turns
    assert len(load_conversation_golden("golden_sets/handbook").turns) == len(by_name.turns)
