"""Terminal output of ``ragtriage doctor``: one line per check, and its fix."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from ragtriage.render.text import clean

__all__ = ["MARKS", "print_check"]

MARKS = {
    "ok": "[green]ok[/green]  ",
    "fail": "[red]FAIL[/red]",
    "optional": "[yellow]--[/yellow]  ",
}


def print_check(out: Console, status: str, name: str, detail: str, fix: str | None) -> None:
    """``ok``/``FAIL``/``--``, the check's name and detail; its fix unless it passed."""
    out.print(f"{MARKS[status]} {name}: {escape(clean(detail))}")
    if status != "ok" and fix:
        out.print(f"      fix: {escape(clean(fix))}")
