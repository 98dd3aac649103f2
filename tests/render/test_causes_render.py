"""Every report shows why a generation failure failed: the HTML drill-down marks the failing
sentence and the chunk span it came from (or "no chunk"); Markdown and terminal group
generation failures by cause (tests/render/test_markdown.py has the Markdown)."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from ragtriage.render.html import render_html
from ragtriage.render.terminal import audit_summary
from ragtriage.render.views import evidence_line
from ragtriage.triage.cause_types import Cause, CauseEvidence
from tests.support.audits import make_audit


def _case(audit, case_id):
    return next(c for c in audit.cases if c.case_id == case_id)


def test_html_marks_the_failing_sentence_and_its_chunk(audit):
    html = render_html(audit)
    assert '<mark class="failing">answer to q02</mark>' in html  # in the answer itself
    row = re.search(r"<tr><td>misled</td>.*?</tr>", html, flags=re.S)
    assert row is not None
    assert "chunk q02-d0 (not golden)" in row.group(0)
    assert '<mark class="span">the distractor says</mark>' in row.group(0)


def test_html_says_no_chunk_for_a_sentence_no_chunk_holds(audit):
    case = _case(audit, "q02")
    case.causes = [
        CauseEvidence(cause=Cause.UNSUPPORTED, sentence="answer to q02", note="in no chunk")
    ]
    case.cause = Cause.UNSUPPORTED
    row = re.search(r"<tr><td>unsupported</td>.*?</tr>", render_html(audit), flags=re.S)
    assert row is not None and "<td>no chunk</td>" in row.group(0)
    assert evidence_line(case) == '"answer to q02"; no chunk; in no chunk'


def test_hostile_evidence_is_escaped_in_html(hostile_audit):
    html = render_html(hostile_audit)
    assert "<script>document" not in html and "<img src=x" not in html
    row = re.search(r"<tr><td>misled</td>.*?</tr>", html, flags=re.S)
    assert row is not None and "&lt;script&gt;document.title" in row.group(0)  # shown as text


def test_terminal_groups_generation_failures_by_cause():
    out = io.StringIO()
    audit_summary(make_audit(), Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    block = text.split("Generation failures by cause:")[1].split("Worst cases:")[0]
    assert block.splitlines()[1].startswith("  misled (1): the answer follows a wrong chunk")
    assert 'q02: "answer to q02"; chunk q02-d0 (not golden) "the distractor says"' in block


def test_chromium_shows_the_marked_sentence_and_span(tmp_path):
    """In a real browser: the failing sentence and its chunk span are marked elements of the
    page, and the hostile evidence stays text (no payload ran: the title is the page's)."""
    from tests.render.test_html_browser import CHROMIUM, TITLE, dump_dom

    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing")
    page = tmp_path / "report.html"
    page.write_text(render_html(make_audit()), encoding="utf-8")
    dom = dump_dom(page, tmp_path)
    assert '<mark class="failing">answer to q02</mark>' in dom
    assert '<mark class="span">the distractor says</mark>' in dom
    hostile = tmp_path / "hostile.html"
    hostile.write_text(render_html(make_audit(hostile=True)), encoding="utf-8")
    dom = dump_dom(hostile, tmp_path)
    assert f"<title>{TITLE}" in dom and "pwned" not in dom.split("</title>")[0]
