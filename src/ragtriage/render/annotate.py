"""Terminal lines of ``ragtriage annotate``: where the page is, and what a person should
know before marking (folded duplicates, a resumed session, a warning)."""

from __future__ import annotations

import sys

from rich.console import Console

from ragtriage.render.console import print_line

__all__ = ["print_note", "print_stopped", "print_url"]


def print_url(url: str, out: Console) -> None:
    print_line(out, f"annotate: open {url}", soft_wrap=True)
    print_line(out, "annotate: every mark is saved at once; Ctrl-C stops the server")
    sys.stdout.flush()  # a pipe buffers: whoever waits for the URL reads it now


def print_note(line: str, out: Console) -> None:
    print_line(out, f"annotate: {line}", soft_wrap=True)
    sys.stdout.flush()


def print_stopped(marks: int, written: int, output: str, session: str, out: Console) -> None:
    """The last line after Ctrl-C: every mark was saved as it was made."""
    rows = f"{written} row{'s' if written != 1 else ''}"
    print_line(
        out,
        f"annotate: stopped; {marks} mark{'s' if marks != 1 else ''} saved in {output} "
        f"({rows}; the session is {session})",
        soft_wrap=True,
    )
    sys.stdout.flush()
