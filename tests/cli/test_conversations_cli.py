"""``ragtriage conversations`` on the command line, and its page in a real browser:
threads with the failing turn opened, hostile text inert."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from ragtriage.cli.main import main
from tests.render.test_html_browser import CHROMIUM, dump_dom, title
from tests.support.audits import IMG, SCRIPT

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "conversations"


def _args(golden: Path, traces: Path, out: Path) -> list[str]:
    return ["conversations", "--golden", str(golden), "--traces", str(traces), "--judge",
            "lexical", "--out", str(out), "--cache", str(out.parent / "cache.sqlite")]  # fmt: skip


def test_the_command_writes_results_and_reports(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(_args(HERE, HERE / "turns.jsonl", out)) == 0
    text = capsys.readouterr().out
    assert "7 conversations, 17 turns" in text and "c-rewrite turn 2 [rewrite]" in text
    data = json.loads((out / "results.json").read_text())
    assert data["schema_version"] == "ragtriage.conversations/2"
    report = (out / "report.md").read_text()
    assert "**c-rewrite**: pass rewrite; first failing turn 2 (rewrite)" in report


def test_a_bad_golden_file_exits_2_naming_file_line_and_field(tmp_path, capsys):
    golden = tmp_path / "conversations.jsonl"
    golden.write_text('{"conversation_id": "a", "turn": 0, "user": "hi", "expected": [], '
                      '"standalone": true}\n')  # fmt: skip
    assert main(_args(golden, HERE / "turns.jsonl", tmp_path / "out")) == 2
    err = capsys.readouterr().err
    assert str(golden) in err and ":1" in err and "turn" in err


@pytest.mark.skipif(not CHROMIUM.exists(), reason="!!! /usr/bin/chromium is missing !!!")
def test_the_page_opens_each_failing_turn_and_keeps_hostile_text_inert(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    shutil.copy(HERE / "corpus.jsonl", folder / "corpus.jsonl")
    asked = "How many drive bays does it have?"
    for name, source in (("conversations.jsonl", HERE / "conversations.jsonl"),
                         ("turns.jsonl", HERE / "turns.jsonl")):  # fmt: skip
        rows = [json.loads(line) for line in source.read_text().splitlines()]
        for row in rows:
            if row["user"] == asked:
                row["user"] = f"How many drive bays {SCRIPT}?"
            if row.get("rewritten_query"):  # shown in the page, not judged
                row["rewritten_query"] += f" {IMG}"
        target = folder / name if name == "conversations.jsonl" else tmp_path / name
        target.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    assert main([*_args(folder, tmp_path / "turns.jsonl", out), "--quiet"]) == 0
    dom = dump_dom(out / "report.html", tmp_path)
    assert title(dom) == "ragtriage conversations report"
    assert "&lt;script&gt;" in dom and "<script" not in dom.split("</title>", 1)[1]
    opened = re.findall(r'<details class="turn" open="">\s*<summary><span class="label label-'
                        r'(\w+)">\w+</span> turn (\d+)', dom)  # fmt: skip
    # each failing conversation opens at its first failing turn (c-repeat fails at turn 1,
    # where it states the ungrounded port number it repeats at turn 2)
    assert opened == [("rewrite", "2"), ("generation", "2"), ("ranking", "2"), ("generation", "1")]
    assert dom.count('<details class="turn"') == 17
