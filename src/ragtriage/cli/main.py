"""The ``ragtriage`` command: one small module per subcommand, registered here.

Errors a user can act on (:class:`~ragtriage.errors.RagtriageError`) are printed as one
line on stderr with their exit code (2 for unusable input); nothing else is caught, so a
bug still shows its traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import typer

from ragtriage.cli.common import Abort, ClickException, FullHelpGroup, one_line, usage_error
from ragtriage.errors import RagtriageError
from ragtriage.memory import keep_freed_memory

__all__ = ["COMMANDS", "app", "command_tree", "main"]

# each subcommand's module (``ragtriage/cli/<name>.py``, whose ``register`` adds it), in
# the order ``--help`` lists them; a module is imported only when its command runs, so
# ``ragtriage retrieval`` never loads the judge, the model backends or the web pages
COMMANDS = (
    "retrieval",
    "judge",
    "calibrate",
    "audit",
    "conversations",
    "compare",
    "gate",
    "export",
    "golden",
    "annotate",
    "doctor",
)
_SETTINGS: dict[str, Any] = {
    "no_args_is_help": True,
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
}


class _LazyGroup(FullHelpGroup):
    """The root group: lists every command, imports one only when it is asked for."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands[cmd_name] = _load(cmd_name)
        return self.commands.get(cmd_name)


def _load(name: str) -> Any:
    """The (typer-vendored) click command that ``ragtriage/cli/<name>.py`` registers."""
    holder = typer.Typer(**_SETTINGS)
    holder.callback()(_root)  # a callback keeps a one-command holder a group
    importlib.import_module(f"ragtriage.cli.{name}").register(holder)
    group: Any = typer.main.get_command(holder)  # a holder with a callback is a group
    return group.commands[name]


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("ragtriage")
        except PackageNotFoundError:  # a source checkout on PYTHONPATH, not installed
            number = "unknown (not installed)"
        typer.echo(f"ragtriage {number}")
        raise typer.Exit()


def _root(
    show_version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Audit a RAG system: retrieval metrics, a calibrated faithfulness judge, triage."""


app = typer.Typer(
    name="ragtriage",
    help="Audit a RAG system: retrieval metrics, a calibrated faithfulness judge, triage.",
    cls=_LazyGroup,
    **_SETTINGS,
)
app.callback()(_root)


def command_tree() -> Any:
    """The root click group with every subcommand loaded in ``.commands`` (for the CLI
    reference and tests, which walk the tree)."""
    root: Any = typer.main.get_command(app)
    for name in COMMANDS:
        root.get_command(None, name)
    return root


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
