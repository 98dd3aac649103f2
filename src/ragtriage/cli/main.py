"""The ``ragtriage`` command: one small module per subcommand, registered here.

Errors a user can act on (:class:`~ragtriage.errors.RagtriageError`) are printed as one
line on stderr with their exit code (2 for unusable input); nothing else is caught, so a
bug still shows its traceback.
"""

from __future__ import annotations

import sys

import typer

from ragtriage.cli import audit, calibrate, compare, gate, golden, judge, retrieval
from ragtriage.errors import RagtriageError
from ragtriage.memory import keep_freed_memory

app = typer.Typer(
    name="ragtriage",
    help="Audit a RAG system: retrieval metrics, a calibrated faithfulness judge, triage.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Audit a RAG system: retrieval metrics, a calibrated faithfulness judge, triage."""


for module in (retrieval, judge, calibrate, audit, compare, gate, golden):
    module.register(app)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (0 ok, 1 a bar missed, 2 unusable input)."""
    keep_freed_memory()
    try:
        app(args=argv, prog_name="ragtriage")
    except RagtriageError as exc:
        typer.echo(f"ragtriage: error: {exc}", err=True)
        return exc.exit_code
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return int(exc.code or 0)
        typer.echo(str(exc.code), err=True)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
