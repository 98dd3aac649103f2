"""The pull-request comment: right numbers, and hostile data rendered as inert text.

The escaping is checked by rendering the comment with a real CommonMark + tables parser
(markdown-it-py, which rich already depends on) and inspecting the HTML it produces.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from ragtriage.render.markdown import escape, render_markdown
from tests.support.audits import make_audit, with_leaks

PARSER = MarkdownIt("commonmark").enable("table")


def _html(markdown: str) -> str:
    return PARSER.render(markdown)


def test_headline_sections_and_numbers(audit):
    text = render_markdown(audit)
    assert text.startswith("## ragtriage audit: 5 of 10 cases failing")
    assert "| retrieval failure | 2 |" in text and "| pass | 4 |" in text
    assert "| unscored | 1 |" in text
    recall = audit.retrieval.aggregate("recall@5")
    assert f"| recall@5 | {recall.mean:.4f} | {recall.low:.4f} to {recall.high:.4f} | 10 |" in text
    assert "naive (judge at face value) | 0.8889 [0.5650, 0.9801]" in text
    assert "corrected (prediction-powered) | 0.7500 [0.5000, 0.9000]" in text
    assert "| ranking | - | numeric | 1 | add chunks for numeric |" in text
    assert "STALE" not in text


def test_generation_failures_are_grouped_by_cause_with_their_evidence(audit):
    text = render_markdown(audit)
    section = text.split("### Generation failures by cause")[1].split("###")[0]
    assert "**misled** (1): the answer follows a wrong chunk" in section
    # the failing sentence, the chunk it came from (golden or not), the chunk's span
    assert '- q02: "answer to q02"; chunk q02-d0 (not golden) "the distractor says"' in section


def test_worst_cases_come_failures_first(audit):
    text = render_markdown(audit)
    section = text.split("### Cases, worst first")[1]
    labels = re.findall(r"^\| q\d+ \| (\w+) \|", section, flags=re.M)
    assert labels[:6] == ["retrieval", "retrieval", "ranking", "ranking", "generation", "unscored"]
    assert set(labels[6:]) == {"pass"}


def test_stale_calibration_is_a_prominent_warning_before_the_metrics():
    text = render_markdown(make_audit(stale=["model", "prompt_sha256"]))
    warning = text.index("> [!WARNING]")
    assert warning < text.index("### Stage 1")
    assert "STALE" in text[warning : text.index("### Calibration")]
    assert "model, prompt_sha256" in text  # read raw: no escape markdown does not need


def test_hostile_strings_render_as_inert_text(hostile_audit):
    text = render_markdown(hostile_audit)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\u202e]", text)
    html = _html(text)
    # No link, image or raw HTML survives: only the parser's own tags appear.
    tags = set(re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", html))
    assert tags <= {
        "h2",
        "h3",
        "p",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "ul",
        "li",
        "blockquote",
        "strong",
    }, tags
    assert not re.findall(r"<[^>]*\b(?:href|src|on\w+)=", html)
    assert "<a " not in html and "<img" not in html and "<script" not in html
    # ...and the payload is still shown, as text.
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in html
    assert "[x](javascript:document.title='pwned')" in html


def test_table_breaking_pipes_stay_inside_their_cell(hostile_audit):
    html = _html(render_markdown(hostile_audit))
    tables = html.split("<table>")[1:]
    assert len(tables) == 5
    for table in tables:
        header = table.split("</thead>")[0].count("<th>")
        for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], flags=re.S):
            assert row.count("<td>") == header
    assert "a|b" in html


def test_escape_neutralises_each_special_character():
    assert escape("[x](javascript:alert(1))") == "\\[x\\](javascript:alert(1))"
    assert escape("<img src=x onerror=alert(1)>").startswith("\\<img src=x onerror=")
    assert escape("a & b &copy;") == "a & b \\&copy;"
    assert escape("# h *b* _i_ `c` !x |") == "\\# h \\*b\\* \\_i\\_ \\`c\\` !x \\|"
    assert escape("faithful if min_sentence_lexical >= 0.6464") == (
        "faithful if min_sentence_lexical >= 0.6464"  # nothing markdown acts on
    )
    assert escape("1. x") == "1\\. x" and escape("- x") == "\\- x"
    assert escape("see #12") == "see \\#12"  # no issue reference on GitHub
    assert escape("back\\slash") == "back\\\\slash"
    assert escape("line\nbreak\ttab\x00\x1b\u202eend") == "line break tabend"
    assert escape("ping @org/team, not recall@5") == "ping @\u2060org/team, not recall@5"
    assert escape("x" * 50, 10) == "x" * 9 + "\u2026"


def test_an_empty_audit_still_renders(empty_audit):
    text = render_markdown(empty_audit)
    assert text.startswith("## ragtriage audit: 0 of 0 cases failing")
    assert "### Cases, worst first" not in text and "### Failure clusters" not in text
    assert "none (judge decisions are uncalibrated)" in text
    assert "| naive (judge at face value) | - |" in text


def test_leaks_are_a_caution_at_the_top(audit):
    text = render_markdown(with_leaks(audit, [("q01", "<b>secret</b>|x", 2)]))
    caution = text.index("> [!CAUTION]")
    assert caution < text.index("### Calibration")
    assert "1 of 4 checked cases retrieved a forbidden chunk in the top 5" in text
    assert "> - q01: \\<b>secret\\</b>\\|x at rank 2" in text
    assert "CAUTION" not in render_markdown(with_leaks(audit, []))


def test_bare_urls_hosts_and_addresses_are_not_autolinked():
    # GitHub links bare URLs, www. hosts and e-mail addresses in a comment (GFM autolinks)
    text = "see http://evil.example/a and www.evil.example and user@evil.example"
    gfm = MarkdownIt("gfm-like")
    assert '<a href="http://evil.example/a">' in gfm.render(text)  # the renderer does link
    escaped = escape(text)
    assert "<a " not in gfm.render(escaped)
    for broken in ("http\u2060://", "www\u2060.evil", "user@\u2060evil"):
        assert broken in escaped  # each pattern broken by an invisible word joiner
    assert escaped.replace("\u2060", "") == text  # and shown as written
    assert escape("recall@5") == "recall@5"


SPECIALS = "\\`*_{}[]()#!|~<>&;:@=+-.0123456789 aZ/\"'$"


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=SPECIALS, max_size=24))
@example(text="0.Za")  # a bare host with a two-letter top-level domain, fuzzy-linkified
@example(text="see hb.md")
def test_escaped_text_renders_as_exactly_itself(text):
    """Any mix of markdown specials, escaped, renders as plain text equal to what was
    given (GFM-like with linkify, as GitHub renders a comment), in a table cell and in a
    paragraph: no emphasis, code, link, image, HTML, entity, heading or list."""
    from ragtriage.render.text import clean

    gfm = MarkdownIt("gfm-like")
    for doc, where in (
        (f"| h |\n|---|\n| {escape(text)} |\n", "td"),
        (f"{escape(text)}\n", "p"),
    ):
        tokens = gfm.parse(doc)
        inline = [t for t in tokens if t.type == "inline"]
        shown = inline[-1] if inline else None
        children = shown.children or [] if shown else []
        children = _without_bare_host_links(children)
        assert all(c.type == "text" for c in children), (doc, [c.type for c in children])
        rendered = "".join(c.content for c in children).replace("\u2060", "")
        assert rendered == clean(text), (where, doc)
        opened = [t.type for t in tokens if t.type.endswith("_open")]
        allowed = (
            {"paragraph_open"}
            if where == "p"
            else {"table_open", "thead_open", "tr_open", "th_open", "tbody_open", "td_open"}
        )
        assert set(opened) <= allowed, (doc, opened)


def _without_bare_host_links(children: list) -> list:
    """Drop the link tokens around a bare host ("0.Za", "hb.md"): markdown-it's fuzzy
    linkify makes them, GitHub does not (GFM autolinks need "www.", a scheme or an "@",
    and those are broken by ``escape``). Any other link stays and fails the test."""
    kept, i = [], 0
    while i < len(children):
        c = children[i]
        if c.type == "link_open" and i + 2 < len(children) and children[i + 2].type == "link_close":
            text = children[i + 1].content
            if not any(mark in text.lower() for mark in ("www", ":", "@")):
                kept.append(children[i + 1])
                i += 3
                continue
        kept.append(c)
        i += 1
    return kept


def test_report_md_read_raw_names_no_absolute_path_and_shows_the_answers(audit):
    """A failed case could not be read in report.md (no answers), and the shipped record
    was named by this machine's absolute path (issue 27, item 10)."""
    from ragtriage.triage.calibrated import SHIPPED
    from ragtriage.triage.models import CalibrationStatus

    shipped = str((SHIPPED / "lexical.json").resolve())
    cal = CalibrationStatus(source=shipped, threshold=0.5)
    text = render_markdown(audit.model_copy(update={"calibration": cal}))
    assert "- record: lexical.json (shipped with ragtriage)" in text
    assert shipped not in text and "/" + SHIPPED.name + "/" not in text
    header = "| case | label | query | answer | reason |"
    assert header in text
    failed = next(c for c in audit.cases if c.label.value == "generation")
    row = next(line for line in text.splitlines() if line.startswith(f"| {failed.case_id} |"))
    assert f"| {escape(failed.answer)} |" in row
    assert text.index("### Failure clusters") < text.index("### Stage 1")
