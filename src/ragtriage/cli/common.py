"""Pieces every subcommand shares: the console and comma-separated list options."""

from __future__ import annotations

import sys

from rich.console import Console

from ragtriage.errors import InputError


def console(quiet: bool = False) -> Console:
    """Stdout console; rich drops colour and progress when stdout is not a terminal."""
    return Console(quiet=quiet, highlight=False, soft_wrap=False, file=sys.stdout)


def split_list(values: list[str] | None) -> list[str]:
    """``["a,b", "c"]`` -> ``["a", "b", "c"]``: options accept repeats and commas."""
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def int_list(values: list[str] | None, option: str) -> list[int]:
    out = []
    for part in split_list(values):
        try:
            number = int(part)
        except ValueError:
            raise InputError(f"{part!r} is not an integer", field=option) from None
        if number < 1:
            raise InputError(f"{number} must be a positive integer", field=option)
        out.append(number)
    return out
