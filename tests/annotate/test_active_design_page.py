"""``annotate grades --design active`` in Chromium: the judge's most uncertain answer is
served first, and the rows graded from the keyboard carry the probability each answer was
drawn with and the seed (what ``calibrate`` weights by)."""

from __future__ import annotations

import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from playwright.sync_api import expect

from ragtriage.calibration.band import Band, GroupBand
from ragtriage.calibration.decision import ThresholdRule
from ragtriage.calibration.record import load_calibration
from ragtriage.cli.main import main
from tests.conftest import ROOT
from tests.flows.test_unsure_audit import CONTEXT

from .conftest import read_jsonl, start_server, wait_saved

# the shipped lexical rule: faithful if min_sentence_lexical >= 0.646 (no citations);
# "edge" (0.78) is the only answer near that cut-off, and inside the band set below
ANSWERS = {
    "sure": CONTEXT,  # 1.00
    "wrong": "Penguins enjoy sliding on icy slopes during long afternoons.",  # 0.00
    "edge": "The warranty lasts three years and covers drives, fans and the power supply too.",
    "short": "The warranty lasts three years.",  # 1.00
    "other": "Cats sleep most of the day in warm sunny windows.",  # 0.00
}
SEED = 4


def _audit(tmp: Path) -> tuple[Path, float]:
    """An audit of ANSWERS under the shipped lexical record with a band; its rule's cut."""
    golden = tmp / "golden.jsonl"
    golden.write_text(
        "".join(
            json.dumps({"id": i, "query": "What does the warranty cover?", "expected": ["w"]})
            + "\n"
            for i in ANSWERS
        )
    )
    traces = tmp / "traces.jsonl"
    traces.write_text(
        "".join(
            json.dumps(
                {
                    "query_id": i,
                    "retrieved": [{"id": "w", "score": 1.0, "text": CONTEXT}],
                    "context_ids": ["w"],
                    "answer": a,
                }
            )
            + "\n"
            for i, a in ANSWERS.items()
        )  # fmt: skip
    )
    record = load_calibration(ROOT / "calibrations/lexical.json")
    record.rule = ThresholdRule(feature="min_sentence_lexical", threshold=0.646, direction=1)
    record.band = Band(
        min_agreement=0.85,
        delta=0.1,
        groups={
            "min_sentence_lexical": GroupBand(
                min_distance=0.2, n=80, decided=60, errors=3, upper=0.12
            )
        },
    )
    calibration = record.save(tmp / "calibration.json")
    out = tmp / "audit"
    args = ["audit", "--golden", str(golden), "--traces", str(traces), "--judge", "lexical",
            "--calibration", str(calibration), "--cache", str(tmp / "c.sqlite"),
            "-o", str(out), "--quiet"]  # fmt: skip
    # in a thread of its own: Playwright's sync API keeps an event loop running in this one
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(main, args).result() == 0
    return out / "results.json", 0.646


def _item(server, index: int) -> dict:
    request = urllib.request.Request(
        f"{server.base}/api/item/{index}", headers={"X-Ragtriage-Token": server.token}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_the_active_design_serves_the_most_uncertain_first_and_writes_probabilities(
    tmp_path, page_of, servers
):
    results, cut = _audit(tmp_path)
    cases = json.loads(results.read_text())["cases"]
    margin = {c["case_id"]: abs(c["judge"]["signals"]["min_sentence_lexical"] - cut) for c in cases}
    closest = min(margin, key=margin.__getitem__)
    assert closest == "edge"  # the constructed answers are what the comment says
    out = tmp_path / "grades.jsonl"
    server = start_server(
        [
            "grades",
            "--audit",
            str(results),
            "-o",
            str(out),
            "--design",
            "active",
            "--sample",
            "4",
            "--seed",
            str(SEED),
            "--grader",
            "ana",
        ]  # fmt: skip
    )
    servers.append(server)
    assert any("active design" in line for line in server.lines), server.lines
    page = page_of(server.url)
    total = int(page.text_content("#position").split("/")[1])
    assert total >= 2
    served = [_item(server, i) for i in range(total)]
    assert served[0]["id"] == closest
    assert "power supply" in (page.text_content("#sentences") or "")  # the page shows it
    for step in range(2):  # two answers graded from the keyboard: faithful, then not
        key = "y" if step == 0 else "n"
        n = len(page.query_selector_all("#sentences > li"))
        for i in range(n):
            page.keyboard.press(key)
            wait_saved(page)
            if i + 1 < n:
                page.keyboard.press("j")
        if step == 0:
            page.keyboard.press("ArrowRight")
            expect(page.locator("#position")).to_have_text(f"2 / {total}")
    assert page.errors == []
    server.stop()

    rows = read_jsonl(out)
    assert [r["id"] for r in rows] == [s["id"] for s in served[:2]]
    assert [r["label"] for r in rows] == [True, False]
    assert all(r["sample_seed"] == SEED for r in rows)
    probabilities = [r["probability"] for r in rows]
    assert all(0 < p <= 1 for p in probabilities)
    assert probabilities[0] == 1.0  # inside the band: always drawn
    assert probabilities[0] >= probabilities[1]
    assert probabilities == [s["probability"] for s in served[:2]]
    # served in order of uncertainty: the inclusion probabilities never rise
    drawn = [s["probability"] for s in served]
    assert drawn == sorted(drawn, reverse=True) and drawn[0] == max(drawn)
