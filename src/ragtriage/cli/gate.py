"""``ragtriage gate``: exit 1 when a result misses a bar, for CI.

Exit codes: 0 every bar holds; 1 a bar is missed, a forbidden chunk leaked into a top k
(``leaks``, always checked when the result has the section), or the audit's judge
calibration is stale (without ``--allow-stale``); 2 unusable input (missing file, bad
JSON, an unknown metric, a malformed ``--min`` spec). Metric names are documented in
:mod:`ragtriage.flows.gate`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import console
from ragtriage.flows.gate import GateConfig
from ragtriage.flows.gate import run as run_gate
from ragtriage.render.gate import print_verdict

__all__ = ["METRICS_HELP", "gate", "register"]

METRICS_HELP = (
    "METRIC=NUMBER, repeatable or comma-separated. METRIC: a retrieval aggregate "
    "(recall@5, mrr, ndcg@10...) or pass_rate, faithful_rate, faithful_rate.naive, "
    "faithful_rate.corrected, failures, failures.retrieval, failures.ranking, "
    "failures.generation, unscored, leaks."
)


def gate(
    results: Annotated[Path, typer.Argument(help="results.json (audit) or a retrieval report.")],
    baseline: Annotated[Path | None, typer.Option(help="Baseline result for --max-drop.")] = None,
    min_: Annotated[
        list[str] | None, typer.Option("--min", help="Lowest allowed value. " + METRICS_HELP)
    ] = None,
    max_: Annotated[list[str] | None, typer.Option("--max", help="Highest allowed value.")] = None,
    max_drop: Annotated[
        list[str] | None,
        typer.Option("--max-drop", help="Most a metric may worsen against --baseline."),
    ] = None,
    allow_stale: Annotated[
        bool, typer.Option(help="Gate an audit whose judge calibration is stale.")
    ] = False,
) -> None:
    """Check a result against bars: exit 0 when all hold; 1 when one is missed, a forbidden
    chunk leaked or the calibration is stale; 2 on unusable input."""
    config = GateConfig(
        results=results,
        baseline=baseline,
        min=min_ or [],
        max=max_ or [],
        max_drop=max_drop or [],
        allow_stale=allow_stale,
    )
    verdict = run_gate(config)
    print_verdict(verdict, console())
    if verdict.failed:
        raise typer.Exit(code=1)


def register(app: typer.Typer) -> None:
    app.command(name="gate")(gate)
