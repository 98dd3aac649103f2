"""What ``ragtriage export`` tells the terminal."""

from __future__ import annotations

from rich.console import Console

from ragtriage.render.console import print_line
from ragtriage.results.otlp import Export

__all__ = ["print_export"]


def print_export(done: Export, out: Console) -> None:
    print_line(out, f"{done.linked} verdicts linked to their trace's span", soft_wrap=True)
    if done.unlinked:
        some = ", ".join(done.unlinked[:5]) + (" ..." if len(done.unlinked) > 5 else "")
        text = f"{len(done.unlinked)} cases have no trace in the span export: {some}"
        print_line(out, text, "yellow", soft_wrap=True)
    for path in done.written:
        print_line(out, f"wrote {path}", soft_wrap=True)
    if done.sent is not None:
        print_line(out, f"Phoenix accepted {done.sent} annotations", "green")
