"""The consoles and progress bars of the command line (rich lives here, not in ``cli``)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from ragtriage.data.trec import read_progress

__all__ = [
    "console",
    "escape",
    "reading_progress",
    "print_line",
    "stage_progress",
    "wide_console",
]


def console(quiet: bool = False) -> Console:
    """Stdout console; rich drops colour and progress when stdout is not a terminal."""
    return Console(quiet=quiet, highlight=False, soft_wrap=False, file=sys.stdout)


def wide_console(width: int = 160) -> Console:
    """A console of a fixed width (the calibration tables are wide)."""
    return Console(width=width)


def print_line(out: Console, text: str, style: str = "", soft_wrap: bool | None = None) -> None:
    """One line of plain (untrusted) text in ``style``: no markup is interpreted."""
    out.print(Text(text, style=style), soft_wrap=soft_wrap)


@contextmanager
def stage_progress(term: Console, quiet: bool) -> Iterator[Callable[[str, int], Callable]]:
    """Transient progress bars, one per stage; yields ``tick(stage, total)``, which adds
    a bar and returns the function that advances it. Off with --quiet or no terminal."""
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=term,
        transient=True,
        disable=quiet or not term.is_terminal,
    ) as bars:

        def tick(stage: str, total: int):
            task = bars.add_task(stage, total=total)
            return lambda *_: bars.advance(task)

        yield tick


@contextmanager
def reading_progress(quiet: bool) -> Iterator[None]:
    """A transient progress bar on stderr while a run file is read (a 4 GB run takes a
    while); nothing at all with --quiet or when stderr is not a terminal."""
    stderr = Console(stderr=True)
    if quiet or not stderr.is_terminal:
        yield
        return
    with Progress(
        TextColumn("reading {task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        console=stderr,
        transient=True,
    ) as bar:
        tasks: dict[Path, TaskID] = {}

        def update(path: Path, done: int, total: int) -> None:
            if path not in tasks:
                tasks[path] = bar.add_task(path.name, total=total)
            bar.update(tasks[path], completed=done)

        with read_progress(update):
            yield
