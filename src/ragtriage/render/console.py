"""The consoles and progress bars of the command line (rich lives here, not in ``cli``)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import (
    Console,
    ConsoleOptions,
    ConsoleRenderable,
    RenderableType,
    RenderHook,
    RenderResult,
)
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
from rich.segment import Segment
from rich.text import Text

from ragtriage.data.trec import read_progress
from ragtriage.render.text import strip_controls

__all__ = [
    "console",
    "reading_progress",
    "print_line",
    "stage_progress",
    "wide_console",
]


class _Inert:
    """A renderable drawn as ``inner`` is, with control and invisible characters removed
    from its text (ESC sequences, bidi overrides and zero-width characters must not drive
    or disguise the terminal); rich's own styling and control segments pass untouched."""

    def __init__(self, inner: RenderableType) -> None:
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for segment in console.render(self.inner, options):
            if segment.control or segment.text == "\n":
                yield segment
            else:
                yield Segment(strip_controls(segment.text, keep_newlines=True), segment.style)


class _InertHook(RenderHook):
    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        return [_Inert(r) for r in renderables]


def _safe(console: Console) -> Console:
    console.push_render_hook(_InertHook())
    return console


# a CI log or a file has no width; rich would assume 80 columns and cut metric and tag
# names in the wider tables (compare's) to one letter
PIPE_WIDTH = 140


def console(quiet: bool = False) -> Console:
    """Stdout console; rich drops colour and progress when stdout is not a terminal. Every
    console here prints data, so markup is off (a tag such as ``x[/bold]`` is text and
    cannot crash a command), every rendered segment is stripped of control characters
    (:class:`_Inert`), and styles are given as :class:`rich.text.Text`."""
    out = Console(quiet=quiet, highlight=False, soft_wrap=False, file=sys.stdout, markup=False)
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out.width = PIPE_WIDTH
    return _safe(out)


def wide_console(width: int = 160) -> Console:
    """A console of a fixed width (the calibration tables are wide); as :func:`console`."""
    return _safe(Console(width=width, markup=False, highlight=False))


def print_line(out: Console, text: str, style: str = "", soft_wrap: bool | None = None) -> None:
    """One line of plain (untrusted) text in ``style``: no markup is interpreted."""
    out.print(Text(text, style=style), soft_wrap=soft_wrap)


@contextmanager
def stage_progress(term: Console, quiet: bool) -> Iterator[Callable[[str, int], Callable]]:
    """Transient progress bars, one per stage (``tick(stage, total)`` returns what advances
    one); without a terminal a line on stderr at each quarter of a stage instead, as a
    silent CI job looks hung. Nothing with --quiet."""
    if not quiet and not term.is_terminal:
        yield _logged_ticks(Console(stderr=True, markup=False, highlight=False))
        return
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


def _logged_ticks(log: Console) -> Callable[[str, int], Callable]:
    """``tick(stage, total)`` that prints ``stage: done/total (elapsed)`` at 0 and at each
    quarter: a handful of lines per stage in a log, not one per item."""

    def tick(stage: str, total: int):
        started, done = time.perf_counter(), 0
        marks = {max(1, round(total * q / 4)) for q in (1, 2, 3, 4)} if total else set()
        print_line(log, f"{stage}: 0/{total}")

        def advance(*_: object) -> None:
            nonlocal done
            done += 1
            if done in marks:
                print_line(log, f"{stage}: {done}/{total} ({time.perf_counter() - started:.0f} s)")

        return advance

    return tick


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
