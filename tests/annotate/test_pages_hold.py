"""The golden-set page in Chromium against issue 40's defects: a half emoji in a note is
"not saved" (and poisons nothing), a restart's URL opens in the same browser (two servers
side by side too), and a 1 MB passage without spaces keeps the page responsive."""

from __future__ import annotations

import base64
import json
import shutil
import signal
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ragtriage.annotate.serve import free_port
from ragtriage.annotate.store import session_path

from .conftest import SRC, read_jsonl, start_server, wait_saved

HANDBOOK = SRC / "ragtriage" / "golden_sets" / "handbook"
QUERIES = ["How many drive bays does the N4-300 have?", "what does E1042 mean"]
BLOB = base64.b64encode(bytes(range(256)) * 3000).decode()[:1_000_000]  # no space in it


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    corpus = tmp_path / "corpus.jsonl"
    shutil.copy(HANDBOOK / "corpus.jsonl", corpus)
    with corpus.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "blob-1", "title": "E1042 dump", "text": BLOB}) + "\n")
    queries = tmp_path / "queries.txt"
    queries.write_text("\n".join(QUERIES) + "\n")
    return {"corpus": corpus, "queries": queries, "out": tmp_path / "golden.jsonl"}


def _args(files: dict[str, Path], out: Path | None = None, *extra: str) -> list[str]:
    return ["golden", "--queries", str(files["queries"]), "--corpus", str(files["corpus"]),
            "-o", str(out or files["out"]), "--seed", "1", *extra]  # fmt: skip


def _ready(page) -> None:
    page.wait_for_selector("body[data-ready=true]", timeout=30_000)


def test_a_half_emoji_in_a_note_is_not_saved_and_the_next_save_works(files, page_of, servers):
    server = start_server(_args(files))
    servers.append(server)
    page = page_of(server.url)
    page.keyboard.press(" ")  # the first candidate relevant
    wait_saved(page)
    before = files["out"].read_text(), session_path(files["out"]).read_text()
    page.keyboard.press("m")
    page.keyboard.type("half ")
    # the rest of a paste that cut an emoji in half (a keyboard cannot type it alone)
    page.evaluate(
        "() => { const n = document.getElementById('note');"
        " n.value += String.fromCharCode(0xd83d); n.dispatchEvent(new Event('change')); }"
    )
    page.wait_for_selector("#status[data-state=error]", timeout=10_000)
    status = page.text_content("#status")
    assert status.startswith("not saved: query 1") and "record.note" in status, status
    assert "another tab" not in status
    assert (files["out"].read_text(), session_path(files["out"]).read_text()) == before

    page.fill("#note", "whole")  # the person fixes the note: saved on the same version
    wait_saved(page)
    page.keyboard.press("Escape")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#position")).to_have_text("2 / 2")
    page.keyboard.press("u")  # and every later save works
    wait_saved(page)
    assert page.text_content("#status") == "all marks saved"
    rows = read_jsonl(files["out"])
    assert [r.get("notes") for r in rows] == ["whole", None] and len(rows) == 2
    assert page.errors == []


def test_a_restart_opens_on_its_new_url_in_the_same_browser(files, browser, servers, tmp_path):
    port = free_port("127.0.0.1")
    context = browser.new_context()
    try:
        page = context.new_page()
        server = start_server(_args(files, None, "--port", str(port)))
        servers.append(server)
        page.goto(server.url)
        _ready(page)
        server.stop(signal.SIGINT)  # Ctrl-C, then the same command: a new token
        server = start_server(_args(files, None, "--port", str(port)))
        servers.append(server)
        response = page.goto(server.url)  # the old token's cookie is still in this browser
        assert response is not None and response.status == 200
        _ready(page)
        page.keyboard.press("u")
        wait_saved(page)

        # a second server beside it in the same browser: neither overwrites the other's cookie
        other = start_server(_args(files, tmp_path / "other.jsonl"))
        servers.append(other)
        second = context.new_page()
        second.goto(other.url)
        _ready(second)
        fetch = "async p => (await fetch(p, {credentials: 'same-origin'})).status"
        assert page.evaluate(fetch, "/static/style.css") == 200  # the cookie alone
        assert second.evaluate(fetch, "/static/style.css") == 200
        page.keyboard.press("s")
        wait_saved(page)
    finally:
        context.close()


def test_a_megabyte_passage_without_spaces_keeps_the_page_responsive(files, page_of, servers):
    server = start_server(_args(files))
    servers.append(server)
    page = page_of(server.url)
    if "E1042" not in page.text_content("#query"):
        page.keyboard.press("ArrowRight")
        expect(page.locator("#position")).to_have_text("2 / 2")
    card = page.locator("#candidates > li[data-id=blob-1]")
    expect(card).to_have_count(1)
    shown = card.locator(".chunk-text").text_content()
    assert len(shown) < 2000  # cut, with a way to see all of it
    toggle = card.locator("button.show-all")
    expect(toggle).to_have_text("show all 1,000,000 characters")
    # a key press redraws only what it changes: measured in the page, layout included
    timing = """key => {
        const t0 = performance.now();
        document.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));
        document.body.getBoundingClientRect();
        return performance.now() - t0; }"""
    times = [page.evaluate(timing, key) for key in ("j", "j", "k", " ", " ", "j")]
    wait_saved(page)
    # about 2 ms here; every card redrawn took 430-730 ms a key on this machine (50 s on
    # the reporter's), so 200 leaves a loaded CI runner a wide margin and still fails that
    assert max(times) < 200, times
    toggle.click()
    expect(toggle).to_have_text("show less")
    assert len(card.locator(".chunk-text").text_content()) == len(BLOB)
    toggle.click()
    assert len(card.locator(".chunk-text").text_content()) < 2000
    assert page.errors == []
