"""The golden page from the keyboard (issue 53 item 5): a search result is marked with
Tab and Space (Space marked the focused pool card and Enter moved on), and the
conversations-only "standalone" box stays hidden on a single-turn session."""

from __future__ import annotations

import shutil

from playwright.sync_api import expect

from .conftest import SRC, read_jsonl, start_server, wait_saved

HANDBOOK = SRC / "ragtriage" / "golden_sets" / "handbook"


def test_a_search_result_is_marked_from_the_keyboard(tmp_path, page_of, servers):
    corpus = tmp_path / "corpus.jsonl"
    shutil.copy(HANDBOOK / "corpus.jsonl", corpus)
    queries = tmp_path / "queries.txt"
    queries.write_text("what does E1042 mean\n", encoding="utf-8")
    out = tmp_path / "golden.jsonl"
    server = start_server(["golden", "--queries", str(queries), "--corpus", str(corpus),
                           "-o", str(out), "--seed", "1"])  # fmt: skip
    servers.append(server)
    page = page_of(server.url)
    expect(page.locator("#standalone-box")).to_be_hidden()  # a single-turn session
    position = page.text_content("#position")
    page.keyboard.press("/")
    page.keyboard.type("fan speed")
    page.keyboard.press("Enter")
    first = page.locator("#results > li").first
    expect(first).to_be_visible()
    chunk = first.get_attribute("data-id")
    first.locator("button.mark").first.focus()
    page.keyboard.press(" ")
    wait_saved(page)
    assert page.text_content("#position") == position  # Space did not move on
    assert page.errors == []
    server.stop()
    [row] = read_jsonl(out)
    assert chunk in row["expected"]
