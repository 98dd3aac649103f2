"""``golden check`` on conversations: follow-ups repeat across conversations by nature
(issue 52 item 8); turns that stand alone, every first turn among them, must not.

Built from the mechanism: duplicates are looked for among the standalone turns only.
The property test writes conversations whose follow-ups are drawn from a few shared
phrasings and whose openings are distinct, or, when asked, one opening repeated: the
check reports exactly the repeated openings, never a follow-up.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtriage.flows.golden.check import CheckConfig, run

FOLLOW_UPS = ["And the older one?", "How much does it cost?", "What about the warranty?"]


def _write(path, conversations: list[list[tuple[str, bool]]]) -> None:
    rows = [
        {"conversation_id": f"c{c}", "turn": t, "user": user, "expected": [], "standalone": alone}
        for c, turns in enumerate(conversations)
        for t, (user, alone) in enumerate(turns, start=1)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    follow_ups=st.lists(st.lists(st.sampled_from(FOLLOW_UPS), max_size=4), min_size=2, max_size=6),
    repeat_opening=st.booleans(),
)
def test_only_standalone_repeats_are_duplicates(tmp_path_factory, follow_ups, repeat_opening):
    topics = ["RAID rebuild times", "fan error E2201", "drive bay count", "warranty length",
              "recovery mode", "snapshot schedules"]  # fmt: skip
    conversations = []
    for c, asked in enumerate(follow_ups):
        opening = f"Tell me about {topics[0 if repeat_opening and c == 1 else c]} please"
        conversations.append([(opening, True)] + [(u, False) for u in asked])
    path = tmp_path_factory.mktemp("golden") / "conversations.jsonl"
    _write(path, conversations)
    report = run(CheckConfig(golden=path))
    pairs = {(d.first, d.second) for d in report.duplicates}
    assert pairs == ({("c0#1", "c1#1")} if repeat_opening else set())


def test_the_issue_two_conversations_sharing_a_follow_up_pass(tmp_path):
    path = tmp_path / "conversations.jsonl"
    older = ("And the older one?", False)
    _write(path, [[("How much RAM does the N4-300 have?", True), older],
                  [("How many bays does the N8-900 have?", True), older]])  # fmt: skip
    assert run(CheckConfig(golden=path)).ok


def test_a_standalone_later_turn_repeated_is_still_a_duplicate(tmp_path):
    path = tmp_path / "conversations.jsonl"
    same = ("What is the warranty on the N8-900?", True)
    _write(path, [[("How much RAM does the N4-300 have?", True), same],
                  [("How many bays does the N8-900 have?", True), same]])  # fmt: skip
    report = run(CheckConfig(golden=path))
    assert [(d.first, d.second) for d in report.duplicates] == [("c0#2", "c1#2")]
