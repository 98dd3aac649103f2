"""The ``ragtriage`` command: one small module per subcommand, registered here.

Errors a user can act on (:class:`~ragtriage.errors.RagtriageError`) are printed as one
line on stderr with their exit code (2 for unusable input); nothing else is caught, so a
bug still shows its traceback.
"""

from __future__ import annotations

import sys

import typer

from ragtriage.cli import retrieval
from ragtriage.errors import RagtriageError

app = typer.Typer(
    name="ragtriage",
    help="Audit a RAG system: retrieval metrics, a calibrated faithfulness judge, triage.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (retrieval,):
    module.register(app)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code instead of raising ``SystemExit`` when embedded."""
    try:
        app(args=argv, standalone_mode=False)
    except RagtriageError as exc:
        typer.echo(f"ragtriage: error: {exc}", err=True)
        return exc.exit_code
    except typer.Exit as exc:
        return exc.exit_code
    except SystemExit as exc:  # click usage errors
        return int(exc.code or 0)
    except Exception as exc:  # click's own usage errors arrive as ClickException
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            return 2
        raise
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
