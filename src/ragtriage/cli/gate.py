"""``ragtriage gate``: exit 1 when a result misses a bar, for CI.

Exit codes: 0 every bar holds; 1 a bar is missed, a forbidden chunk leaked into a top k
(``leaks``, always checked when the result has the section), or the audit's judge
calibration is stale (without ``--allow-stale``); 2 unusable input (missing file, bad
JSON, an unknown metric, a malformed ``--min`` spec). Metric names are documented in
:mod:`ragtriage.results.gate`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import console
from ragtriage.render.console import print_line
from ragtriage.render.format import count
from ragtriage.render.text import clean
from ragtriage.results.compare import provenance_warnings
from ragtriage.results.gate import check_bars, parse_bars, policy
from ragtriage.results.load import load_result

__all__ = ["MAX_LEAKS", "METRICS_HELP", "gate", "register"]

MAX_LEAKS = 20
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
    bars = [
        *parse_bars(min_ or [], "min"),
        *parse_bars(max_ or [], "max"),
        *parse_bars(max_drop or [], "max-drop"),
    ]
    result = load_result(results)
    base = load_result(baseline) if baseline else None
    checks = check_bars(result, bars, base, source=str(results), baseline_source=str(baseline))
    out = console()

    def say(text: str, style: str) -> None:  # one line per verdict, never wrapped (CI logs)
        print_line(out, text, style, soft_wrap=True)

    for warning in provenance_warnings(base, result) if base is not None else []:
        say(f"warning: baseline vs this result: {warning}", "yellow")
    if not checks:
        say("no bars given (--min, --max, --max-drop): checking leaks and staleness only", "")
    for check in checks:
        say(check.describe(), "green" if check.ok else "bold red")
    rules = policy(result)
    stale = list(rules.stale)
    refused = bool(stale) and not allow_stale
    if stale:
        verb = "refusing to pass" if refused else "gating anyway (--allow-stale)"
        say(
            f"STALE calibration: the judge differs from its calibration in "
            f"{', '.join(stale)}; {verb}",
            "bold red" if refused else "yellow",
        )
    if rules.uncalibrated:
        say(
            "warning: the audit's judge had no calibration record; its decisions used an "
            "uncalibrated threshold (run ragtriage calibrate for this judge)",
            "yellow",
        )
    leaked = list(rules.leaks)
    if leaked:
        chunks = count(len(leaked), "forbidden chunk")
        say(f"LEAKS: {chunks} in a top k (access control)", "bold red")
        for leak in leaked[:MAX_LEAKS]:
            say(
                f"  {clean(leak.query_id, 60)}: {clean(leak.forbidden_id, 60)} at rank {leak.rank}",
                "red",
            )
    missed = sum(not c.ok for c in checks)
    if missed or refused or leaked:
        why = [f"{missed} of {count(len(checks), 'bar')} missed"] if checks else []
        why += ["calibration stale"] * refused + ["forbidden chunks retrieved"] * bool(leaked)
        say(f"gate FAILED: {'; '.join(why)}", "bold red")
        raise typer.Exit(code=1)
    held = f"{count(len(checks), 'bar')} hold" if checks else "no bars"
    say(f"gate passed: {held}; no leak; calibration not stale", "bold green")


def register(app: typer.Typer) -> None:
    app.command(name="gate")(gate)
