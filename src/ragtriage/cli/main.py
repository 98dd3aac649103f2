"""The ``ragtriage`` command: one small module per subcommand, registered here.

Errors a user can act on (:class:`~ragtriage.errors.RagtriageError`) are printed as one
line on stderr with their exit code (2 for unusable input); nothing else is caught, so a
bug still shows its traceback.
"""

from __future__ import annotations

import sys

import typer

from ragtriage.cli import (
    annotate,
    audit,
    calibrate,
    compare,
    doctor,
    gate,
    golden,
    judge,
    retrieval,
)
from ragtriage.cli.common import Abort, ClickException, one_line, usage_error
from ragtriage.errors import RagtriageError
from ragtriage.memory import keep_freed_memory

__all__ = ["app", "main"]

app = typer.Typer(
    name="ragtriage",
    help="Audit a RAG system: retrieval metrics, a calibrated faithfulness judge, triage.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _root() -> None:
    """Audit a RAG system: retrieval metrics, a calibrated faithfulness judge, triage."""


for module in (retrieval, judge, calibrate, audit, compare, gate, golden, annotate, doctor):
    module.register(app)


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
INTERRUPTED = (
    "ragtriage: interrupted; no report was written. Judge responses received so far are in "
    "the response cache: the same command resumes without asking for them again"
)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (0 ok, 1 a bar missed, 2 unusable input)."""
    keep_freed_memory()
    try:  # not standalone: a bad option comes back as an exception, printed as one line
        code = app(args=argv, prog_name="ragtriage", standalone_mode=False)
    except RagtriageError as exc:
        typer.echo(f"ragtriage: error: {one_line(str(exc))}", err=True)
        return exc.exit_code
    except ClickException as exc:
        return usage_error(exc)
    except Abort:
        typer.echo("ragtriage: aborted", err=True)
        return 1
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return int(exc.code or 0)
        typer.echo(str(exc.code), err=True)
        return 1
    if code == EXIT_INTERRUPTED:  # typer's answer to Ctrl-C
        typer.echo(INTERRUPTED, err=True)
    return code if isinstance(code, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
