"""``ragtriage judge``: stage 2, faithfulness of each answer to its context."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ragtriage.cli.common import console, output_file
from ragtriage.cli.options import OldOutput, Quiet, flag, one_out, out_option, with_config
from ragtriage.errors import InputError
from ragtriage.flows import judge as judge_flow
from ragtriage.flows.judge import JudgeConfig
from ragtriage.judge.spec import refuse_old_options
from ragtriage.judge.types import Outcome
from ragtriage.results.files import write_json

__all__ = ["H_OUTPUT", "judge", "register"]

H_OUTPUT = "Write results here: .json (with totals) or .jsonl (one result a line)."


def _refuse_old(model: str | None, strategy: str | None, **_: object) -> None:
    refuse_old_options(model, strategy)


@with_config(JudgeConfig, before=_refuse_old)
def judge(
    config: JudgeConfig,
    out: Annotated[Path | None, out_option(H_OUTPUT)] = None,
    output: OldOutput = None,
    model: Annotated[str | None, typer.Option(hidden=True, help="Replaced by --judge.")] = None,
    strategy: Annotated[str | None, typer.Option(hidden=True, help="Replaced by --judge.")] = None,
    dry_run: Annotated[bool, flag("--dry-run", "Estimate calls, tokens, cost only.")] = False,
    quiet: Quiet = False,
) -> None:
    """Judge each answer's faithfulness: scored, no_claims, abstained or unscored (with reason)."""
    output = one_out(out, output)
    output_file(config.cache, "--cache")
    if config.cache is not None and config.no_cache:
        raise InputError("give --cache or --no-cache, not both", field="--cache")
    term = console(quiet)
    if dry_run:
        est = judge_flow.estimate(config)
        term.print_json(est.model_dump_json())
        if output:
            write_json(output, est)
        return
    run = judge_flow.run(config)
    if output:
        judge_flow.write_results(output, run)
    counts = {o.value: sum(r.outcome == o for r in run.results) for o in Outcome}
    summary = ", ".join(f"{k} {v}" for k, v in counts.items())
    term.print(f"judged {len(run.results)} answers: {summary}")
    u = run.usage
    term.print(
        f"calls {u.calls}, cached {u.cached_calls}, "
        f"tokens {u.prompt_tokens}+{u.completion_tokens}, cost ${u.cost_usd:.4f}"
    )
    if line := _calls_line(run.calls):
        term.print(line)
    if run.signals:
        term.print(run.signals)
    if line := _samples_line(run):
        term.print(line)
    if output:
        term.print(f"wrote {output}")


def _calls_line(calls: dict[str, Any]) -> str:
    """The endpoint's JSON mode when one was refused, and timeouts or slow calls when
    there were any."""
    parts = []
    if calls.get("json_modes_refused"):
        refused = ", ".join(r.split(":", 1)[0] for r in calls["json_modes_refused"])
        parts.append(f"JSON mode {calls['json_mode']} (endpoint refused {refused})")
    slow = [f"{calls[k]} {k.replace('_', ' ')}" for k in ("timeouts", "slow_calls") if calls.get(k)]
    if slow:
        parts.append(
            f"{' and '.join(slow)}: calls in flight lowered to "
            f"{calls['in_flight_limit']} of {calls['max_in_flight']}"
        )
    return "; ".join(parts)


def _samples_line(run: judge_flow.JudgeRun) -> str:
    """With ``--samples``: samples drawn, the cases whose samples disagreed, the mean flip
    rate, and how many reached no majority (``unstable``)."""
    held = [r.stability for r in run.results if r.stability is not None]
    if not held:
        return ""
    drawn = sum(len(s.samples) for s in held)
    flips = [s.flip_rate for s in held if s.flip_rate is not None]
    mean = f"{sum(flips) / len(flips):.3f}" if flips else "n/a"
    temperature = held[0].temperature
    at = f" at temperature {temperature:g}" if temperature is not None else ""
    return (
        f"samples: up to {held[0].limit} an answer{at}, {drawn} drawn for {len(held)} answers "
        f"(stopping once the majority was decided); {sum(s.flaky for s in held)} flaky "
        f"(their samples disagreed), mean flip rate {mean}; "
        f"{sum(not s.settled for s in held)} unstable (no majority: neither pass nor fail)"
    )


def register(app: typer.Typer) -> None:
    app.command(name="judge")(judge)
