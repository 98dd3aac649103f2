"""``incomplete`` only when backed (issue 50): by the question, or by a calibrated answer
check; any other missing reference fact is a note on a pass, named."""

from __future__ import annotations

from ragtriage.triage.cause_types import Cause, is_note
from ragtriage.triage.causes import _coverage, primary, question_asks


def test_a_question_is_cut_into_what_it_asks():
    assert question_asks("How long is the warranty on the frame and on the battery?") == [
        "How long is the warranty on the frame",
        "on the battery",
    ]
    assert question_asks("I forgot the admin login, how do I get back in?") == [
        "how do I get back in"
    ]
    assert question_asks("minimum number of disks for RAID 5") == [
        "minimum number of disks for RAID 5"
    ]
    assert len(question_asks("what is the difference between states and phases of matter")) == 1


def test_advice_the_question_does_not_ask_for_is_a_note_naming_the_fact():
    rows = _coverage(
        "what does E1042 mean",
        "Error E1042 means the pool metadata checksum failed during boot.",
        "The pool metadata checksum failed during boot; boot into recovery mode and run "
        "Pool Repair.",
    )
    assert [r.span for r in rows] == ["boot into recovery mode", "run Pool Repair"]
    assert all(is_note(r) for r in rows) and primary(rows) is None


def test_a_part_of_the_question_left_unanswered_is_incomplete_backed_by_the_question():
    rows = _coverage(
        "How long is the warranty on the N8-900 and can it be extended?",
        "The N8-900 has a three-year warranty.",
        "Three years, extendable to five with Nimbus Care.",
    )
    assert [(r.cause, r.backed_by, r.span) for r in rows] == [
        (Cause.INCOMPLETE, "question", "extendable to five with Nimbus Care")
    ]
    assert "can it be extended" in rows[0].note


def test_a_calibrated_answer_check_backs_every_missing_fact():
    rows = _coverage(
        "what does E1042 mean",
        "Error E1042 means the pool metadata checksum failed during boot.",
        "The pool metadata checksum failed during boot; boot into recovery mode.",
        answer_check=True,
    )
    assert [(r.backed_by, r.span) for r in rows] == [("answer_check", "boot into recovery mode")]


def test_an_answer_stating_none_of_the_facts_is_still_ignored():
    rows = _coverage("what does E1042 mean", "Restart the NAS.", "The pool checksum failed.")
    assert [r.cause for r in rows] == [Cause.IGNORED]


def test_the_reason_names_the_missing_fact_and_what_backs_it():
    from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Outcome
    from ragtriage.triage.rules import Evidence, triage

    fingerprint = JudgeFingerprint(judge="lexical", model="none")
    judged = JudgeResult(item_id="q", outcome=Outcome.SCORED, score=1.0, fingerprint=fingerprint)
    rows = _coverage(
        "How long is the warranty on the N8-900 and can it be extended?",
        "The N8-900 has a three-year warranty.",
        "Three years, extendable to five with Nimbus Care.",
    )
    evidence = Evidence(True, 1, True, judged, True, causes=tuple(rows))
    label, reason = triage(evidence)
    assert label.value == "generation"
    assert "'extendable to five with Nimbus Care'" in reason and "question" in reason
    noted = _coverage(
        "what does E1042 mean",
        "Error E1042 means the pool metadata checksum failed during boot.",
        "The pool metadata checksum failed during boot; boot into recovery mode.",
    )
    assert triage(Evidence(True, 1, True, judged, True, causes=tuple(noted)))[0].value == "pass"
