"""``annotate grades --answers``: grade the answers of a traces file (here a ragas file
with its passages' texts) before any audit, on the same page and into the same file
``calibrate`` reads."""

from __future__ import annotations

import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import expect

from ragtriage.calibration.grades import load_grades
from ragtriage.cli.main import main
from ragtriage.judge.lexical import claim_sentences
from tests.conftest import ROOT

from .conftest import read_jsonl, start_server, wait_saved

RAGAS = ROOT / "tests" / "fixtures" / "users" / "ragas_texts.jsonl"


def _api(server, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        server.base + path,
        data=json.dumps(body).encode() if body is not None else None,
        method="POST" if body is not None else "GET",
        headers={"X-Ragtriage-Token": server.token, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_grade_two_answers_of_a_ragas_file_then_calibrate_reads_them(tmp_path, page_of, servers):
    out = tmp_path / "grades.jsonl"
    args = ["grades", "--answers", str(RAGAS), "-o", str(out), "--sample", "6"]
    server = start_server([*args, "--seed", "5", "--grader", "ana"])
    servers.append(server)
    # 3 abstentions not offered
    assert any("6 of the file's 12 answers drawn with seed 5" in x for x in server.lines)
    page = page_of(server.url)
    verdicts = []
    for step, key in enumerate(("y", "n")):  # the first faithful, the second not
        n = len(page.query_selector_all("#sentences > li"))
        assert n >= 1
        for i in range(1 if key == "n" else n):
            page.keyboard.press(key)
            wait_saved(page)
            if i + 1 < n and key == "y":
                page.keyboard.press("j")
        verdicts.append(key == "y")
        state = "faithful" if key == "y" else "unfaithful"
        expect(page.locator("#label")).to_have_attribute("data-state", state)
        page.click("#sentences > li:first-child")
        assert page.query_selector("#passages mark") is not None  # the aligned window
        if step == 0:
            page.keyboard.press("ArrowRight")
            expect(page.locator("#position")).to_have_text("2 / 6")
    assert page.text_content("#cov-done") == "2 / 6"
    assert page.errors == []
    # calibrate needs 4 answers its judge scores: four more through the page's API
    for index, verdict in enumerate(("supported", "unsupported") * 2, start=2):
        item = _api(server, f"/api/item/{index}")
        marks = [verdict] * len(item["sentences"])
        _api(
            server,
            f"/api/item/{index}",
            {"version": item["version"], "record": {"sentences": marks}},
        )
        verdicts.append(verdict == "supported")
    server.stop()

    rows = read_jsonl(out)
    assert [r["label"] for r in rows] == verdicts
    questions = {r["user_input"]: r for r in read_jsonl(RAGAS)}
    for row in rows:  # the file's own question, passages and answer
        source = questions[row["question"]]
        assert row["contexts"] == source["retrieved_contexts"]
        assert row["answer"] == source["response"]
        assert [s["text"] for s in row["sentences"]] == claim_sentences(row["answer"])
        assert row["grader"] == "ana" and row["sample_seed"] == 5
        assert row["answers_sha256"] and "audit" not in row
    assert [g.label for g in load_grades(out)] == verdicts  # what calibrate reads

    calibration = tmp_path / "calibration"
    argv = ["calibrate", str(out), "--judge", "lexical", "--out", str(calibration), "--no-plots",
            "--folds", "2", "--resamples", "100"]  # fmt: skip
    with ThreadPoolExecutor(1) as pool:  # Playwright keeps an event loop in this thread
        code = pool.submit(main, argv).result()
    assert code == 0
    assert (calibration / "lexical" / "calibration.json").is_file()
