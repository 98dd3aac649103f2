"""Golden-set labelling in a real browser: label, reload, resume, the file; hostile text;
the token; kill -9; two tabs."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ragtriage.annotate.store import session_path
from ragtriage.data.golden import load_golden

from .conftest import (
    HOSTILE,
    IMAGES,
    SRC,
    no_horizontal_scroll,
    read_jsonl,
    start_server,
    wait_saved,
)

HANDBOOK = SRC / "ragtriage" / "golden_sets" / "handbook"
QUERIES = [
    {"id": "q-bays", "query": "How many drive bays does the N4-300 have?"},
    {"id": "q-code", "query": "what does E1042 mean"},
    {"id": "q-wifi", "query": "Does the NAS support Wi-Fi?"},
    {"id": "q-copy", "query": "how many drive bays does the N4-300 have"},  # folded
]


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    corpus = tmp_path / "corpus.jsonl"
    shutil.copy(HANDBOOK / "corpus.jsonl", corpus)
    with corpus.open("a", encoding="utf-8") as handle:
        hostile = {"id": "hostile-1", "title": HOSTILE, "text": f"E9999 trap {HOSTILE}"}
        handle.write(json.dumps(hostile) + "\n")
    queries = tmp_path / "queries.jsonl"
    queries.write_text("".join(json.dumps(q) + "\n" for q in QUERIES), encoding="utf-8")
    return {"corpus": corpus, "queries": queries, "out": tmp_path / "golden.jsonl"}


def _args(inputs: dict[str, Path], *extra: str) -> list[str]:
    return [
        "golden",
        "--queries", str(inputs["queries"]),
        "--corpus", str(inputs["corpus"]),
        "-o", str(inputs["out"]),
        *extra,
    ]  # fmt: skip


def _mark_candidate(page, chunk_id: str) -> None:
    """Keyboard only: move the focus to the chunk's card (j), mark it (space)."""
    ids = page.eval_on_selector_all("#candidates > li", "cards => cards.map(c => c.dataset.id)")
    for _ in range(ids.index(chunk_id)):
        page.keyboard.press("j")
    page.keyboard.press(" ")
    wait_saved(page)


def _label_current(page) -> str:
    query = page.text_content("#query")
    if "drive bays" in query:
        _mark_candidate(page, "n4-300-specs")
    elif "E1042" in query:
        page.keyboard.press("/")
        page.keyboard.type("E1042")
        page.keyboard.press("Enter")
        page.wait_for_selector("#results > li[data-id=err-e1042]")
        page.click("#results > li[data-id=err-e1042] button.mark")
        wait_saved(page)
        page.keyboard.press("Escape")
    else:
        page.keyboard.press("u")
        wait_saved(page)
    return query


def test_label_three_cases_reload_resume_and_check_the_file(inputs, page_of, servers):
    server = start_server(_args(inputs, "--sample", "3", "--seed", "7"))
    servers.append(server)
    assert server.url.startswith("http://127.0.0.1:")
    assert any("1 exact and 0 near duplicates folded" in line for line in server.lines)
    page = page_of(server.url)
    seen = []
    for step in range(3):
        seen.append(_label_current(page))
        if step < 2:
            page.keyboard.press("ArrowRight")
            expect(page.locator("#position")).to_have_text(f"{step + 2} / 3")
    assert page.text_content("#cov-done").startswith("3 / 50")
    assert page.text_content("#cov-unans") == "33 %"
    assert page.errors == []
    page.keyboard.press("ArrowLeft")  # the docs show a query with its pool and a mark
    expect(page.locator("#position")).to_have_text("2 / 3")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(IMAGES / "annotate-golden.png"))
    page.keyboard.press("ArrowRight")
    expect(page.locator("#position")).to_have_text("3 / 3")

    page.reload()  # reload: the same item, with its marks
    page.wait_for_selector("body[data-ready=true]")
    assert page.text_content("#position") == "3 / 3"
    assert page.text_content("#query") == seen[2]

    server.stop()  # a restart of the same command resumes where the person stopped
    server = start_server(_args(inputs, "--sample", "3", "--seed", "7"))
    servers.append(server)
    assert any("resuming the session" in line for line in server.lines)
    page = page_of(server.url)
    assert page.text_content("#position") == "3 / 3"
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#position")).to_have_text("2 / 3")
    assert page.text_content("#query") == seen[1]
    assert page.text_content("#case-state") != "not labelled yet"

    rows = read_jsonl(inputs["out"])
    assert [r["query"] for r in rows] == seen
    by_id = {r["id"]: r for r in rows}
    assert by_id["q-bays"]["expected"] == ["n4-300-specs"]
    assert by_id["q-code"]["expected"] == ["err-e1042"]
    assert by_id["q-wifi"]["expected"] == [] and "unanswerable" in by_id["q-wifi"]["tags"]
    golden = load_golden(inputs["out"])  # the file every ragtriage command reads
    assert [c.answerable() for c in golden.cases] == [r["id"] != "q-wifi" for r in rows]
    session = json.loads(session_path(inputs["out"]).read_text())
    assert session["seed"] == 7 and len(session["sample"]) == 3


def test_hostile_passages_and_queries_execute_nothing(inputs, page_of, servers):
    rows = [{"id": "q-x", "query": f"E9999 {HOSTILE}"}]
    inputs["queries"].write_text("".join(json.dumps(r) + "\n" for r in rows))
    server = start_server(_args(inputs))
    servers.append(server)
    page = page_of(server.url)
    page.keyboard.press("/")
    page.keyboard.type("onerror")
    page.keyboard.press("Enter")
    page.wait_for_selector("#results > li[data-id=hostile-1]")
    assert page.evaluate("window.__pwned") is None
    assert page.title() == "ragtriage annotate: golden set"
    assert page.query_selector_all("img") == [] and len(page.query_selector_all("script")) == 2
    assert HOSTILE in page.text_content("#query")  # shown as text, every character
    assert HOSTILE in page.text_content("#results > li[data-id=hostile-1] .chunk-text")
    assert page.errors == []


def _status(url: str, token: str | None = None, method: str = "GET", cookie: bool = False) -> int:
    headers = {}
    if token and cookie:
        headers["Cookie"] = f"ragtriage_token={token}"
    elif token:
        headers["X-Ragtriage-Token"] = token
    data = b'{"version": 0, "record": {}}' if method == "POST" else None
    if data:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_request_without_the_token_is_refused(inputs, servers):
    server = start_server(_args(inputs))
    servers.append(server)
    base, token = server.base, server.token
    for path in ("/", "/api/state", "/api/item/0", "/api/search?q=E1042", "/static/golden.js"):
        assert _status(base + path) == 403, path
        assert _status(base + path, "not-the-token") == 403, path
        assert _status(base + path, token) == 200, path
    assert _status(base + "/?token=wrong") == 403
    assert _status(f"{base}/?token={token}") == 200
    assert (
        _status(base + "/api/item/0", token, "POST", cookie=True) == 403
    )  # writes need the header
    assert _status(base + "/api/item/0", "wrong", "POST") == 403
    assert not inputs["out"].exists() or read_jsonl(inputs["out"]) == []
    assert _status(base + "/api/item/0", token, "POST") == 200


def test_kill_9_while_labelling_loses_nothing_saved(inputs, page_of, servers):
    server = start_server(_args(inputs, "--sample", "3", "--seed", "7"))
    servers.append(server)
    page = page_of(server.url)
    first = _label_current(page)
    page.keyboard.press("ArrowRight")
    expect(page.locator("#position")).to_have_text("2 / 3")
    second = _label_current(page)
    page.keyboard.press("m")  # the note, on both pages
    page.keyboard.type("half a thought")  # the field keeps the focus: saved while typing
    _wait_for(lambda: "half a thought" in inputs["out"].read_text())
    server.stop(signal.SIGKILL)
    assert server.proc.returncode == -signal.SIGKILL
    assert [r["query"] for r in read_jsonl(inputs["out"])] == [first, second]
    json.loads(session_path(inputs["out"]).read_text())  # whole, not half-written
    assert not list(inputs["out"].parent.glob(".golden.jsonl.*"))  # no temporary left

    server = start_server(_args(inputs, "--sample", "3", "--seed", "7"))
    servers.append(server)
    page = page_of(server.url)
    assert page.text_content("#position") == "2 / 3"
    assert page.text_content("#query") == second
    assert page.text_content("#case-state") != "not labelled yet"
    assert page.input_value("#note") == "half a thought"


def _wait_for(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not saved in time"
        time.sleep(0.1)


def test_two_tabs_cannot_overwrite_each_other_nor_two_servers_one_file(inputs, page_of, servers):
    server = start_server(_args(inputs, "--sample", "3", "--seed", "7"))
    servers.append(server)
    first, second = page_of(server.url), page_of(server.url)
    assert first.text_content("#query") == second.text_content("#query")
    first.keyboard.press("u")  # tab 1: unanswerable
    wait_saved(first)
    second.keyboard.press("s")  # tab 2, still on the old version: refused, reloaded
    second.wait_for_selector("#status[data-state=conflict]")
    expect(second.locator("#case-state")).to_have_attribute("data-state", "unanswerable")
    rows = read_jsonl(inputs["out"])
    assert len(rows) == 1 and rows[0]["expected"] == [] and "unanswerable" in rows[0]["tags"]
    second.keyboard.press("s")  # now on the current version: saved
    wait_saved(second)
    assert read_jsonl(inputs["out"]) == []  # skipped: not a case any more

    other = subprocess.run(
        [sys.executable, "-m", "ragtriage.cli.main", "annotate", *_args(inputs), "--no-browser"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )
    assert other.returncode == 2
    assert "another ragtriage annotate is writing this file" in other.stderr


def test_usable_at_420_px(inputs, page_of, servers):
    server = start_server(_args(inputs, "--graded"))
    servers.append(server)
    page = page_of(server.url, width=420)
    assert no_horizontal_scroll(page)
    page.keyboard.press("2")  # graded: the focused chunk gets grade 2
    wait_saved(page)
    assert page.is_visible("#candidates > li.focused button[data-grade='2'][aria-pressed=true]")
    assert read_jsonl(inputs["out"])[0]["relevance_grades"] == {
        page.eval_on_selector("#candidates > li.focused", "c => c.dataset.id"): 2
    }
    assert no_horizontal_scroll(page)
