"""Errors a user can act on.

Every problem with user input becomes one :class:`InputError` naming the file, the line
and the field, so the command line prints one message and exits 2, not a traceback.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["EXIT_FAILED", "EXIT_INPUT", "EXIT_OK", "InputError", "RagtriageError"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INPUT = 2


class RagtriageError(Exception):
    """Base class: a failure ragtriage explains rather than crashes on."""

    exit_code = EXIT_FAILED


class InputError(RagtriageError):
    """A file or argument that cannot be used, located as precisely as we can."""

    exit_code = EXIT_INPUT

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | object | None = None,  # object: rows given in Python, named by str()
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.path is None and self.field and self.field.startswith("-"):
            return f"option {self.field}: {self.message}"  # a command-line option, no file
        where = self.path or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        field = f"field '{self.field}': " if self.field else ""
        return f"{where}: {field}{self.message}"
