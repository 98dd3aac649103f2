"""A traced turn asking another message than its golden turn (issue 52 item 5a).

Matched by conversation id, turn 2 of a trace that asked something else was judged as
golden turn 2 without a word. Every reader ends in ``read_conversation_traces``, which
now compares each traced turn's message with its golden turn's (normalised text): the
turns that differ are set aside and named in a note (notice code ``turn_mismatch``).
"""

from __future__ import annotations

import json

from ragtriage.data.conversation_traces import read_conversation_traces
from ragtriage.data.conversations import load_conversation_golden
from ragtriage.notices import CODES
from tests.conftest import ROOT

CONV = ROOT / "tests" / "fixtures" / "conversations"


def _turns(tmp_path, edit):
    rows = [json.loads(line) for line in (CONV / "turns.jsonl").read_text().splitlines()]
    edit(rows)
    path = tmp_path / "turns.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return read_conversation_traces(path, 3, load_conversation_golden(CONV / "conversations.jsonl"))


def test_a_turn_asking_another_message_is_set_aside_and_named(tmp_path):
    def other_question(rows):
        rows[1]["user"] = "What is the warranty on the N8-900?"

    read = _turns(tmp_path, other_question)
    ids = {t.trace.query_id for t in read.turns}
    assert "c-rewrite#2" not in ids and "c-rewrite#1" in ids
    [note] = [n for n in read.notes if "TURN MISMATCH" in n]
    assert "c-rewrite#2" in note and "line 2" in note and "warranty" in note
    assert "turn_mismatch" in CODES


def test_the_same_message_written_differently_is_the_same_turn(tmp_path):
    def respelt(rows):
        rows[1]["user"] = "  AND how much  does the N2-100 have?"

    read = _turns(tmp_path, respelt)
    assert "c-rewrite#2" in {t.trace.query_id for t in read.turns}
    assert not any("TURN MISMATCH" in n for n in read.notes)
