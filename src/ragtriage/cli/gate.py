"""``ragtriage gate``: exit 1 when a result misses a bar, for CI.

Exit codes and metric names: docs/ci-gate.md ("``ragtriage gate``"); the bars and
policy are :mod:`ragtriage.results.gate`.
"""

from __future__ import annotations

import typer

from ragtriage.cli.common import console
from ragtriage.cli.options import with_config
from ragtriage.flows.gate import GateConfig
from ragtriage.flows.gate import run as run_gate
from ragtriage.render.gate import print_verdict

__all__ = ["gate", "register"]


@with_config(GateConfig)
def gate(config: GateConfig) -> None:
    """Check a result against bars: exit 0 when all hold; 1 when one is missed, a forbidden
    chunk leaked, the calibration is stale or the files mismatch; 2 on unusable input."""
    verdict = run_gate(config)
    print_verdict(verdict, console())
    if verdict.failed:
        raise typer.Exit(code=1)


def register(app: typer.Typer) -> None:
    app.command(name="gate")(gate)
