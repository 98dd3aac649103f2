"""``ragtriage doctor``: is this install ready to run the embedded defaults?

Exit 0 when every required check passes, 1 otherwise; each failure prints its fix.
Optional checks (headless Chromium, which only the HTML tests need) never fail it.
"""

from __future__ import annotations

import typer

from ragtriage.cli.common import console
from ragtriage.errors import EXIT_FAILED, EXIT_OK
from ragtriage.flows import doctor as doctor_flow
from ragtriage.flows.doctor import Check
from ragtriage.render.doctor import print_check

__all__ = ["doctor", "register"]


def _show(check: Check) -> None:
    print_check(console(), check.status, check.name, check.detail, check.fix)


def doctor() -> None:
    """Check packages, the model file, the llama.cpp build, a one-token generation in a
    child process, the cache folders, litellm offline and headless Chromium."""
    checks = doctor_flow.run(on_check=_show)
    failed = [c.name for c in checks if c.status == "fail"]
    if failed:
        console().print(f"{len(failed)} check(s) failed: {', '.join(failed)}")
        raise typer.Exit(EXIT_FAILED)
    console().print("all required checks passed")
    raise typer.Exit(EXIT_OK)


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)
