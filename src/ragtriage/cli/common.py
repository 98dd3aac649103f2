"""Pieces every subcommand shares: the console, list options, option ranges, output checks.

Every numeric option has a range checked when the command line is parsed, before any file
is read (typer ``min``/``max`` or a callback here): a negative depth or a zero cutoff would
silently change what is measured.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from types import ModuleType

import typer
from typer.core import TyperGroup

from ragtriage.atomic import output_dir, output_file
from ragtriage.errors import InputError
from ragtriage.flows.config import (  # the ranges every command shares, declared once
    MAX_RANK,
    MAX_REPEAT,
    MAX_RESAMPLES,
    MAX_SEED,
    MAX_WORKERS,
)
from ragtriage.render.console import console as console  # every subcommand's stdout

__all__ = [
    "Abort",
    "FullHelpGroup",
    "CLICK",
    "ClickException",
    "MAX_RANK",
    "MAX_REPEAT",
    "MAX_RESAMPLES",
    "MAX_SEED",
    "MAX_WORKERS",
    "choices",
    "finite",
    "given_list",
    "int_list",
    "one_line",
    "output_dir",
    "output_file",
    "split_list",
    "usage_error",
]


def split_list(values: list[str] | None) -> list[str]:
    """``["a,b", "c"]`` -> ``["a", "b", "c"]``: options accept repeats and commas."""
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def given_list(values: list[str] | None, option: str) -> list[str]:
    """:func:`split_list`, but an option given with nothing in it (``-m ''``) is an error:
    silently falling back to the defaults would measure something not asked for."""
    parts = split_list(values)
    if values is not None and not parts:
        raise InputError("given but empty", field=option)
    return parts


def int_list(values: list[str] | None, option: str) -> list[int]:
    """Comma-separated cutoffs, each an integer from 1 to :data:`MAX_RANK`."""
    out = []
    for part in given_list(values, option):
        if not re.fullmatch(r"[+-]?[0-9]{1,18}", part):  # int() would take "1_0" and "٣"
            raise InputError(f"{part[:40]!r} is not an integer", field=option)
        number = int(part)
        if not 1 <= number <= MAX_RANK:
            raise InputError(f"{number} must be an integer from 1 to {MAX_RANK}", field=option)
        out.append(number)
    return out


def finite(value: float | None) -> float | None:
    """Typer callback: a float option must be a number (``nan`` and ``inf`` parse as floats)."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{value} is not a finite number")
    return value


def choices(*allowed: str) -> Callable[[str | None], str | None]:
    """Typer callback: the value must be one of ``allowed`` (None, the default, passes)."""

    def check(value: str | None) -> str | None:
        if value is not None and value not in allowed:
            raise typer.BadParameter(f"{value[:40]!r} is not one of {', '.join(allowed)}")
        return value

    return check


def _click() -> ModuleType:
    """The click typer parses with: its own vendored copy (typer 0.2x) or click itself."""
    try:
        from typer import _click as vendored  # type: ignore[attr-defined]

        return vendored
    except ImportError:  # older typer: plain click
        import click

        return click


CLICK = _click()
ClickException = CLICK.exceptions.ClickException
Abort = typer.Abort
_NO_ARGS_HELP = getattr(CLICK.exceptions, "NoArgsIsHelpError", ())


_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` with control characters and line separators escaped (``\\n``, ``\\x1b``):
    an error quoting a hostile id stays one line and cannot drive the terminal."""
    return _BREAKS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def usage_error(exc: Exception) -> int:
    """Print a bad option or argument as one line on stderr, not typer's framed box (a CI
    log wants the line naming the option); return its exit code (2). Asked-for help (a
    bare ``ragtriage golden``) is printed whole."""
    if _NO_ARGS_HELP and isinstance(exc, _NO_ARGS_HELP):
        exc.show()
        return exc.exit_code  # type: ignore[attr-defined]
    message = " ".join(exc.format_message().split())  # type: ignore[attr-defined]
    ctx = getattr(exc, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    typer.echo(f"ragtriage: error: {one_line(message)}{hint}", err=True)
    return exc.exit_code  # type: ignore[attr-defined]


class FullHelpGroup(TyperGroup):
    """A group whose command list gives each command's first sentence whole, wrapped to
    the terminal (click cut it at the width left)."""

    def format_commands(self, ctx, formatter) -> None:  # type: ignore[no-untyped-def]
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
