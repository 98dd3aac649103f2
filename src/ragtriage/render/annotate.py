"""Terminal lines of ``ragtriage annotate``: where the page is, and what a person should
know before marking (folded duplicates, a resumed session, a warning)."""

from __future__ import annotations

import sys

from rich.console import Console

from ragtriage.render.console import print_line

__all__ = ["print_note", "print_url"]


def print_url(url: str, out: Console) -> None:
    print_line(out, f"annotate: open {url}", soft_wrap=True)
    print_line(out, "annotate: every mark is saved at once; Ctrl-C stops the server")
    sys.stdout.flush()  # a pipe buffers: whoever waits for the URL reads it now


def print_note(line: str, out: Console) -> None:
    print_line(out, f"annotate: {line}", soft_wrap=True)
    sys.stdout.flush()
