"""Grading an audit's answers in a real browser, then calibrate and audit --calibration on
the grades: the bias-corrected rate of that audit, which the shipped grades withhold."""

from __future__ import annotations

import json
import re
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ragtriage.calibration.grades import load_grades
from ragtriage.cli.main import main
from ragtriage.data.golden import resolve_golden
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.judge.lexical import claim_sentences
from ragtriage.results.files import write_json
from ragtriage.triage.models import CaseResult

from .conftest import HOSTILE, IMAGES, no_horizontal_scroll, read_jsonl, start_server, wait_saved


def _in_thread(fn, *args):
    """Run ``fn`` in a thread of its own: Playwright's sync API keeps an event loop running
    in this one, and the audit and calibrate run theirs with asyncio.run."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()


def _audit(tmp: Path, calibration: Path | None = None):
    config = AuditConfig(
        golden=resolve_golden("handbook"),
        generator="extractive",
        judge="lexical",
        cache=tmp / "cache.sqlite",
        calibration=calibration,
    )
    return _in_thread(audit_flow.run, config)


@pytest.fixture(scope="module")
def audited(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("audit")
    return write_json(tmp / "results.json", _audit(tmp))


def _api(server, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        server.base + path,
        data=json.dumps(body).encode() if body is not None else None,
        method="POST" if body is not None else "GET",
        headers={"X-Ragtriage-Token": server.token, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_grade_three_answers_then_calibrate_and_correct_the_audit(
    audited, tmp_path, page_of, servers
):
    out = tmp_path / "grades" / "mine.jsonl"
    args = ["grades", "--audit", str(audited), "-o", str(out), "--seed", "3", "--grader", "ana"]
    server = start_server(args)
    servers.append(server)
    assert any("10 of the audit's 10 scored answers drawn with seed 3" in x for x in server.lines)
    page = page_of(server.url)
    assert page.is_hidden("#judge")  # blind by default
    assert "judge" not in _api(server, "/api/item/0")  # not even sent to the page
    verdicts = []
    for step in range(3):
        n = len(page.query_selector_all("#sentences > li"))
        assert n >= 1
        key = "n" if step == 1 else "y"  # answer 2: one unsupported sentence
        for i in range(n):
            page.keyboard.press(key)
            wait_saved(page)
            if i + 1 < n:
                page.keyboard.press("j")
            if key == "n":
                break
        verdicts.append(key == "y")
        for _ in range(step + 1):  # the "answers the question" mark: true, false, none
            page.keyboard.press("a")
            wait_saved(page)
        expected = "faithful" if key == "y" else "unfaithful"
        expect(page.locator("#label")).to_have_attribute("data-state", expected)
        if step == 0:
            page.click("#sentences > li:first-child")
            assert page.query_selector("#passages mark") is not None  # the judge's window
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(IMAGES / "annotate-grades.png"))
        page.keyboard.press("ArrowRight")
        expect(page.locator("#position")).to_have_text(f"{step + 2} / 10")
    assert page.text_content("#cov-done") == "3 / 10"
    assert page.errors == []
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("#position")).to_have_text("4 / 10")

    rows = read_jsonl(out)
    assert [r["label"] for r in rows] == verdicts
    first = rows[0]
    assert first["grader"] == "ana" and first["sample_seed"] == 3
    assert first["audit_sha256"] and first["audit"]
    assert [s["text"] for s in first["sentences"]] == claim_sentences(first["answer"])
    # the page's "answers the question" mark is in the rows and in what calibrate reads,
    # with the reference answer the audit's answer check compares against
    assert [r["answers_question"] for r in rows] == [True, False, None]
    graded = load_grades(out)  # what calibrate reads
    assert [g.label for g in graded] == verdicts and graded[0].contexts
    assert [g.answers_question for g in graded] == [True, False, None]
    assert "reference_answer" not in _api(server, "/api/item/0")  # never shown: blind

    for index in range(3, 10):  # the other seven graded the same way, through the API
        item = _api(server, f"/api/item/{index}")
        marks = ["supported"] * len(item["sentences"])
        _api(
            server,
            f"/api/item/{index}",
            {"version": item["version"], "record": {"sentences": marks}},
        )
    assert len(read_jsonl(out)) == 10
    server.stop()

    calibration = tmp_path / "calibration"
    argv = ["calibrate", str(out), "--judge", "lexical", "--out", str(calibration), "--no-plots"]
    code = _in_thread(main, argv)
    assert code == 0
    record = calibration / "lexical" / "calibration.json"
    check = json.loads(record.read_text())["answer_check"]
    assert check["marked"] == 2
    with_reference = [r for r in rows[:2] if r.get("reference_answer")]
    assert check["n"] == len(with_reference) >= 1
    assert len(check["no_reference"]) == 2 - check["n"]
    corrected = _audit(tmp_path, calibration=record).generation
    assert corrected.corrected_faithful_rate is not None, corrected.corrected_note
    assert 0.0 <= corrected.corrected_faithful_rate.estimate <= 1.0


def test_hostile_answer_executes_nothing_and_review_shows_the_judge(
    audited, tmp_path, page_of, servers
):
    result = json.loads(audited.read_text())
    for case in result["cases"]:
        case["query"] = f"{HOSTILE} {case['query']}"
        case["answer"] = f"{case['answer']} {HOSTILE}"
    CaseResult.model_validate(result["cases"][0])
    hostile = tmp_path / "results.json"
    hostile.write_text(json.dumps(result))
    out = tmp_path / "grades.jsonl"
    server = start_server(["grades", "--audit", str(hostile), "-o", str(out), "--show-judge"])
    servers.append(server)
    page = page_of(server.url, width=420)
    assert page.evaluate("window.__pwned") is None
    assert page.title() == "ragtriage annotate: grade answers"
    assert page.query_selector_all("img") == []
    assert HOSTILE in page.text_content("#question")
    assert page.is_visible("#judge")  # --show-judge: the review pass
    assert no_horizontal_scroll(page)
    assert page.errors == []


def test_keys_mean_one_thing_on_both_pages(audited, tmp_path, page_of, servers):
    """``c`` is can't tell here (``u`` is the golden page's unanswerable, and does nothing
    here); ``m`` is the note on both pages."""
    out = tmp_path / "keys.jsonl"
    server = start_server(["grades", "--audit", str(audited), "-o", str(out), "--seed", "3"])
    servers.append(server)
    page = page_of(server.url)
    page.keyboard.press("u")
    page.wait_for_timeout(300)
    assert page.query_selector("#sentences > li.v-unsure") is None
    page.keyboard.press("c")
    wait_saved(page)
    expect(page.locator("#sentences > li.focused")).to_have_class(re.compile("v-unsure"))
    page.keyboard.press("m")
    assert page.evaluate("document.activeElement.id") == "note"
    assert page.errors == []
