"""What is this file? One look at a file's first bytes, for every command that reads one.

Each reader, before refusing a file, asks :func:`wrong_file`: when the file is
recognisably another kind of ragtriage file, the error says what it is and which command
takes it, not the reader's own complaint ("invalid JSON: Extra data"). Only what is
certain is named: the audit's own outputs by their ``schema_version`` or heading, a
calibration record by its fields, and JSON-lines rows by the fields that make each kind
(:func:`_row_kind`). Anything else is left to the reader's own error. ``verdicts`` is
only ever wanted, never found: another evaluator's verdicts are told by their format.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ragtriage.data.containers import Given, read_bytes
from ragtriage.errors import InputError

__all__ = ["KINDS", "sniff", "wrong_file"]

HEAD = 1 << 16  # bytes read: a kind shows in the first row or the first keys

# kind -> (what it is, where it goes)
KINDS: dict[str, tuple[str, str]] = {
    "traces": ("a traces file", "give it to audit --traces (or retrieval --run)"),
    "golden": ("a golden set", "give it to audit --golden (or golden check)"),
    "grades": ("a human grades file", "give it to calibrate"),
    "corpus": ("a corpus", "give its folder, with the golden set beside it, as --golden"),
    "audit": (
        "an audit result (results.json)",
        "give it to gate, compare or annotate grades --audit",
    ),
    "retrieval": ("a retrieval report", "give it to gate or compare"),
    "calibration": ("a calibration record", "give it to audit --calibration"),
    "report_md": (
        "an audit's Markdown report (report.md)",
        "give the results.json beside it to gate or compare",
    ),
    "report_html": (
        "an audit's HTML report (report.html)",
        "give the results.json beside it to gate or compare",
    ),
    "conversation_traces": ("a conversation traces file", "give it to conversations --traces"),
    "conversation_golden": (
        "a conversational golden set",
        "give it to conversations --golden",
    ),
    "verdicts": ("verdicts", "give it to calibrate --verdicts"),  # wanted, never sniffed
}
_SCHEMA = re.compile(r'"schema_version"\s*:\s*"ragtriage\.(audit|retrieval)/')
_RECORD = re.compile(r'"schema"\s*:\s*"ragtriage\.calibration/')


def _head(path: Path) -> str:
    try:
        return read_bytes(path, HEAD).decode("utf-8", errors="replace").removeprefix("\ufeff")
    except InputError:  # unreadable: the reader says why
        return ""


def _row_kind(row: dict[str, Any]) -> str | None:
    keys = set(row)
    if {"conversation_id", "turn"} <= keys:
        if "retrieved" in keys:
            return "conversation_traces"
        return "conversation_golden" if "standalone" in keys else None
    if {"query_id", "retrieved"} <= keys or {"user_input", "retrieved_contexts"} <= keys:
        return "traces"
    if "label" in keys and keys & {"id", "case_id"}:
        return "grades"
    if keys & {"query", "question"} and keys & {"expected", "relevant", "qrels"}:
        return "golden"
    if {"id", "text"} <= keys and not keys & {"query", "question", "answer", "label"}:
        return "corpus"
    return None


def sniff(path: str | Path | Given) -> str | None:
    """The kind of ragtriage file ``path`` is (a key of :data:`KINDS`), or ``None`` when it
    is none of them, unreadable, or a folder; rows given in Python by their first row."""
    if isinstance(path, Given):
        return _row_kind(path.rows[0][1]) if path.rows else None
    path = Path(path)
    if not path.is_file():
        return None
    head = _head(path)
    text = head.lstrip()
    if text[:15].lower().startswith(("<!doctype html", "<html")):
        return "report_html" if "ragtriage" in head else None
    if text.startswith("## ragtriage audit") or text.startswith("# ragtriage"):
        return "report_md"
    if (schema := _SCHEMA.search(head)) is not None:
        return schema.group(1)
    if _RECORD.search(head) is not None:
        return "calibration"
    first = text.split("\n", 1)[0]
    try:
        row = json.loads(first)
    except (ValueError, RecursionError):  # not JSON, or nested too deeply: the reader says
        return None
    return _row_kind(row) if isinstance(row, dict) else None


def wrong_file(path: str | Path | Given, *expected: str) -> InputError | None:
    """The error for a file of another kind than ``expected`` (keys of :data:`KINDS`):
    what it is and the command that takes it; ``None`` when it is one of ``expected`` or
    not recognisably any (the reader's own error then stands)."""
    kind = sniff(path)
    if kind is None or kind in expected:
        return None
    what, use = KINDS[kind]
    wanted = " or ".join(KINDS[e][0] for e in expected)
    return InputError(f"this is {what}, not {wanted}: {use}", path=path)
