"""The terminal shows untrusted text as text: no escape sequence, bidi override or
zero-width character from the data reaches it, and no ``[...]`` in a query, tag or path
is read as rich markup (which crashed commands with ``[/bold]`` and hid ``[draft]``)."""

from __future__ import annotations

import io
import json
import re

from ragtriage.cli.main import main
from ragtriage.render.console import console, wide_console
from ragtriage.render.terminal import audit_summary

# what rich itself may write: colour and style (SGR) sequences
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def _terminal(factory, monkeypatch) -> tuple:
    monkeypatch.setenv("FORCE_COLOR", "1")  # colour on, as in a real terminal
    out = factory()
    out.file = io.StringIO()
    return out, out.file


def _leftovers(text: str) -> list[str]:
    return _FORBIDDEN.findall(_SGR.sub("", text))


def test_a_hostile_audit_prints_styles_but_no_control_character(hostile_audit, monkeypatch):
    out, buffer = _terminal(console, monkeypatch)
    audit_summary(hostile_audit, out)
    text = buffer.getvalue()
    assert _SGR.search(text), "styles should still be drawn on a terminal"
    assert _leftovers(text) == []
    assert "[31m" in _SGR.sub("", text)  # the data's escape lost its ESC, the rest is text


def test_markup_in_data_is_text_on_both_consoles(monkeypatch):
    for factory in (console, wide_console):
        out, buffer = _terminal(factory, monkeypatch)
        out.print("wrote res[draft].json x[/bold] [link=http://evil.example]y")
        assert "res[draft].json x[/bold] [link=http://evil.example]y" in buffer.getvalue()


def test_retrieval_with_hostile_query_tag_and_output_path(tmp_path, capsys):
    query = "q \x1b[2J\x1b]8;;http://evil.example\x07LINK\x1b]8;;\x07 [/bold] \u202eevil"
    golden = tmp_path / "g.jsonl"
    golden.write_text(
        json.dumps({"id": "a", "query": query, "expected": ["d1"], "tags": ["t\x1b[2J"]})
        + "\n"
        + json.dumps({"id": "b", "query": "fine", "expected": ["d2"]})
        + "\n"
    )
    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps({"query_id": "a", "retrieved": [{"id": "d9", "score": 1}]}) + "\n")
    output = tmp_path / "res[draft].json"
    assert main(["retrieval", "--golden", str(golden), "--run", str(run), "-o", str(output)]) == 0
    printed = capsys.readouterr().out
    assert output.is_file() and f"wrote {output}" in " ".join(printed.split())
    assert "[/bold]" in printed and "LINK" in printed  # shown, as text
    assert _leftovers(printed) == []
