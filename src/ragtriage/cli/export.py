"""``ragtriage export``: an audit's verdicts as OTLP ``gen_ai.evaluation.result`` events
and Phoenix span annotations, on the spans the answers came from."""

from __future__ import annotations

import typer

from ragtriage.cli.common import console
from ragtriage.cli.options import with_config
from ragtriage.flows.export import ExportConfig

__all__ = ["export", "register"]


@with_config(ExportConfig)
def export(config: ExportConfig) -> None:
    """Write an audit's verdicts onto its traces: OTLP/JSON gen_ai.evaluation.result events
    (--otlp-out) and Phoenix span annotations (--phoenix-out, --phoenix-url)."""
    from ragtriage.flows.export import run
    from ragtriage.render.export import print_export

    print_export(run(config), console())


def register(app: typer.Typer) -> None:
    app.command(name="export")(export)
