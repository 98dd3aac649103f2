"""Labelling a conversation turn by turn in a real browser: each turn shown with the
earlier user messages and answers above it (read-only, hostile text inert), the
standalone flag, and a ``conversations.jsonl`` that ``golden check`` and
``ragtriage conversations`` read."""

from __future__ import annotations

import json
import shutil

from playwright.sync_api import expect

from ragtriage.cli.main import main
from ragtriage.data.conversations import load_conversation_golden

from .conftest import HOSTILE, SRC, read_jsonl, start_server, wait_saved

HANDBOOK = SRC / "ragtriage" / "golden_sets" / "handbook"
TURNS = [
    {"conversation_id": "c-nas", "turn": 1, "user": f"My NAS is an N4-300 {HOSTILE}",
     "answer": f"Noted: the N4-300. {HOSTILE}"},
    {"conversation_id": "c-nas", "turn": 2, "user": "How many drive bays does it have?",
     "answer": "Four."},
    {"conversation_id": "c-nas", "turn": 3, "user": "And Wi-Fi?", "answer": "No."},
    {"conversation_id": "c-err", "turn": 1, "user": "what does E1042 mean", "answer": "x"},
]  # fmt: skip


def test_a_conversation_is_labelled_turn_by_turn_with_its_history(tmp_path, page_of, servers):
    corpus = tmp_path / "corpus.jsonl"
    shutil.copy(HANDBOOK / "corpus.jsonl", corpus)
    log = tmp_path / "turns.jsonl"
    log.write_text("".join(json.dumps(t) + "\n" for t in TURNS), encoding="utf-8")
    out = tmp_path / "conversations.jsonl"
    server = start_server(["golden", "--queries", str(log), "--corpus", str(corpus),
                           "-o", str(out), "--seed", "1"])  # fmt: skip
    servers.append(server)
    assert any("2 conversations drawn" in line for line in server.lines)
    page = page_of(server.url)
    ids = []
    for step in range(4):
        ids.append(page.text_content("#query-id"))
        if ids[-1] == "c-nas#2":
            history = page.locator("#history > li")
            expect(history).to_have_count(1)
            assert history.first.get_attribute("data-turn") == "1"
            assert HOSTILE in page.text_content("#history")  # shown as text
            assert page.locator("#history img, #history script").count() == 0
            page.click("#candidates > li[data-id=n4-300-specs] button.mark")
            wait_saved(page)
        elif ids[-1] == "c-nas#3":
            expect(page.locator("#history > li")).to_have_count(2)
            page.keyboard.press("s")  # skipped: the file keeps c-nas to turn 2
            wait_saved(page)
        else:
            assert page.locator("#history > li").count() == 0
            page.check("#standalone")
            wait_saved(page)
            page.evaluate("document.activeElement.blur()")  # keys go to the page again
            page.keyboard.press("u")
            wait_saved(page)
        if step < 3:
            page.keyboard.press("ArrowRight")
            expect(page.locator("#position")).to_have_text(f"{step + 2} / 4")
    # whole conversations, in turn order
    assert ids.index("c-nas#1") < ids.index("c-nas#2") < ids.index("c-nas#3")
    assert page.evaluate("window.__pwned") is None and page.title() != "pwned"
    assert page.errors == []
    server.stop()

    rows = {(r["conversation_id"], r["turn"]): r for r in read_jsonl(out)}
    assert set(rows) == {("c-nas", 1), ("c-nas", 2), ("c-err", 1)}
    assert rows["c-nas", 1]["standalone"] is True and rows["c-nas", 1]["expected"] == []
    assert rows["c-nas", 2]["standalone"] is False
    assert rows["c-nas", 2]["expected"] == ["n4-300-specs"]
    golden = load_conversation_golden(out)
    assert {t.case.id for t in golden.turns} == {"c-nas#1", "c-nas#2", "c-err#1"}
    assert main(["golden", "check", "--golden", str(out), "--corpus", str(corpus)]) == 0


def test_a_bad_standalone_value_is_refused(tmp_path):
    from ragtriage.annotate.golden import GoldenTask

    try:
        GoldenTask._checked(object.__new__(GoldenTask), {"standalone": "false"})
    except Exception as exc:  # noqa: BLE001 - the field is what is asserted
        assert "record.standalone" in str(exc)
    else:
        raise AssertionError("'false' as text was read as a flag")
