"""The typed session (annotate/session.py): session files written before it load as they
are and are written back unchanged, whatever fields they hold."""

from __future__ import annotations

import json

from ragtriage.annotate.session import GoldenSession, GradesSession
from ragtriage.annotate.store import SessionStore

# as prepare.py wrote them when a session was a dict (plus the store's records/position)
GOLDEN = {
    "kind": "golden",
    "created_at": "2026-12-01T10:00:00+00:00",
    "wanted": {"queries": "ab" * 32, "seed": 0, "size": 2},
    "queries": {"source": "log.jsonl", "sha256": "ab" * 32, "read": 3, "exact": 1, "near": 0,
                "distinct": 2},
    "corpus": {"source": "corpus.jsonl", "chunks": 5},
    "run": None,
    "seed": 0,
    "sample": [{"id": "q1", "text": "a?"}, {"id": "q2", "text": "b?"}],
    "options": {"graded": False},
    "records": {"q1": {"relevant": ["d1"]}},
    "position": 1,
}  # fmt: skip
GRADES = {
    "kind": "grades",
    "created_at": "2026-12-01T10:00:00+00:00",
    "wanted": {"answers": "cd" * 32, "seed": 3, "size": 1},
    "answers": {"id": "t.jsonl cdcdcdcdcdcd", "source": "t.jsonl", "sha256": "cd" * 32,
                "format": "ragtriage-jsonl"},
    "sample": {"seed": 3, "population": 4},
    "items": [{"id": "q1", "question": "a?", "answer": "a", "context_ids": [], "sentences": []}],
    "options": {"grader": None, "show_judge": False},
    "extended": [{"at": "2026-12-02T10:00:00+00:00", "from": {}, "population": 4, "added": 1}],
    "records": {},
    "written_by_a_later_version": [1, 2],
}  # fmt: skip


def test_old_session_files_load_and_are_written_back_unchanged():
    for model, saved in ((GoldenSession, GOLDEN), (GradesSession, GRADES)):
        session = model.model_validate(json.loads(json.dumps(saved)))
        assert session.stored() == saved


def test_a_loaded_session_reads_as_typed_fields():
    golden = GoldenSession.model_validate(GOLDEN)
    assert golden.queries.distinct == 2 and golden.marked() == 1 and not golden.conversational
    grades = GradesSession.model_validate(GRADES)
    assert grades.audit is None and grades.answers.sha256 == "cd" * 32
    assert grades.sample.population == 4


def test_an_extension_is_recorded_and_said(tmp_path):
    session = GoldenSession.model_validate(GOLDEN)
    wanted = {**GOLDEN["wanted"], "size": 4}
    notes = session.extend(wanted, before=3, population=4, drawn=2, added=2)
    stored = session.stored()
    assert stored["wanted"] == wanted and stored["extended"][0]["from"] == GOLDEN["wanted"]
    assert notes[0].startswith("extending the session of 2026-12-01T10:00:00+00:00: its 2 items")
    assert "an earlier item had a 100% chance" in notes[1]
    store = SessionStore(tmp_path / "golden.jsonl", lambda data: "")
    try:
        store.start(stored)
        assert store.load()["extended"] == stored["extended"]
    finally:
        store.close()
