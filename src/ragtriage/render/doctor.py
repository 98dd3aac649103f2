"""Terminal output of ``ragtriage doctor``: one line per check, and its fix."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ragtriage.render.text import clean

__all__ = ["MARKS", "print_check"]

MARKS = {
    "ok": ("ok  ", "green"),
    "fail": ("FAIL", "red"),
    "optional": ("--  ", "yellow"),
}


def print_check(out: Console, status: str, name: str, detail: str, fix: str | None) -> None:
    """``ok``/``FAIL``/``--``, the check's name and detail; its fix unless it passed."""
    out.print(Text.assemble(MARKS[status], f" {name}: {clean(detail)}"))
    if status != "ok" and fix:
        out.print(Text(f"      fix: {clean(fix)}"))
