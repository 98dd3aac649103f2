"""``ragtriage judge``: stage 2, faithfulness of each answer to its context."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ragtriage.cli.common import MAX_WORKERS, choices, console, finite, output_file
from ragtriage.errors import InputError
from ragtriage.flows import judge as judge_flow
from ragtriage.flows.judge import JudgeConfig
from ragtriage.judge.spec import JudgeSpec, refuse_old_options
from ragtriage.judge.types import Outcome
from ragtriage.models.litellm_model import JSON_MODES as LITELLM_JSON_MODES
from ragtriage.results.files import write_json

__all__ = [
    "H_CACHE",
    "H_CONCURRENCY",
    "H_CONTEXT",
    "H_JSON",
    "H_JUDGE",
    "H_OLD",
    "H_OUTPUT",
    "H_SENTENCES",
    "H_TIMEOUT",
    "H_BUDGET",
    "JSON_MODES",
    "MAX_CHARS",
    "judge",
    "register",
]

H_OUTPUT = "Write results here: .json (with totals) or .jsonl (one result a line)."
H_JUDGE = (
    "Judge spec: 'embedded' (default, offline), 'lexical' (no model), a litellm model id, "
    "'replay:FILE', or STRATEGY@MODEL (e.g. claims@openai/gpt-4o-mini)."
)
H_OLD = "Replaced by --judge."
H_CACHE = "SQLite cache (default .ragtriage/cache.sqlite or $RAGTRIAGE_CACHE)."
H_JSON = (
    "How to request JSON: auto (default: the strongest mode the endpoint accepts, found once "
    "per run) | json_schema | json_object_schema (llama.cpp) | json_object | none."
)
H_TIMEOUT = "Seconds per judge call (default 120; 900 for a server on localhost)."
H_CONCURRENCY = "Calls in flight at most; halved on a timeout, grown back on successes."
H_CONTEXT = (
    "Evidence budget in characters (sentences strategy: per sentence; claims: per answer; "
    "0: whole context)."
)
H_SENTENCES = "sentences strategy: score at most N sentences, weakest-aligned first (0: all)."
H_BUDGET = (
    "sentences strategy: prompt budget per answer in characters of evidence and sentence; "
    "sentences past it are left to the model-free signals (0: no budget)."
)
JSON_MODES = ("auto", *LITELLM_JSON_MODES)
MAX_CHARS = 100_000_000  # an evidence budget beyond any context a model reads


def judge(
    answers: Annotated[Path, typer.Option(help="JSONL/JSON: id, question, contexts, answer.")],
    output: Annotated[Path | None, typer.Option("--output", "-o", help=H_OUTPUT)] = None,
    judge_spec: Annotated[str | None, typer.Option("--judge", "-j", help=H_JUDGE)] = None,
    model: Annotated[str | None, typer.Option(hidden=True, help=H_OLD)] = None,
    strategy: Annotated[str | None, typer.Option(hidden=True, help=H_OLD)] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=MAX_WORKERS, help=H_CONCURRENCY)] = 8,
    cache: Annotated[Path | None, typer.Option(help=H_CACHE)] = None,
    no_cache: Annotated[bool, typer.Option(help="Do not read or write the disk cache.")] = False,
    api_base: Annotated[str | None, typer.Option(help="OpenAI-compatible base URL.")] = None,
    json_mode: Annotated[
        str | None, typer.Option(callback=choices(*JSON_MODES), help=H_JSON)
    ] = None,
    timeout: Annotated[
        float | None, typer.Option(min=0.001, max=86400, callback=finite, help=H_TIMEOUT)
    ] = None,
    threads: Annotated[
        int | None, typer.Option(min=1, max=MAX_WORKERS, help="CPU threads for the local model.")
    ] = None,
    context_chars: Annotated[int | None, typer.Option(min=0, max=MAX_CHARS, help=H_CONTEXT)] = None,
    max_sentences: Annotated[
        int | None, typer.Option(min=0, max=MAX_CHARS, help=H_SENTENCES)
    ] = None,
    budget_chars: Annotated[int | None, typer.Option(min=0, max=MAX_CHARS, help=H_BUDGET)] = None,
    dry_run: Annotated[bool, typer.Option(help="Estimate calls, tokens, cost only.")] = False,
    quiet: Annotated[bool, typer.Option(help="No terminal summary.")] = False,
) -> None:
    """Judge each answer's faithfulness: scored, no_claims, abstained or unscored (with reason)."""
    output_file(output, "--output")
    output_file(cache, "--cache")
    if cache is not None and no_cache:
        raise InputError("give --cache or --no-cache, not both", field="--cache")
    refuse_old_options(model, strategy)
    config = JudgeConfig(
        answers=answers,
        spec=JudgeSpec.parse(judge_spec),
        concurrency=concurrency,
        cache=cache,
        no_cache=no_cache,
        api_base=api_base,
        json_mode=json_mode,
        timeout=timeout,
        threads=threads,
        context_chars=context_chars,
        max_sentences=max_sentences,
        budget_chars=budget_chars,
    )
    out = console(quiet)
    if dry_run:
        est = judge_flow.estimate(config)
        out.print_json(est.model_dump_json())
        if output:
            write_json(output, est)
        return
    run = judge_flow.run(config)
    if output:
        judge_flow.write_results(output, run)
    counts = {o.value: sum(r.outcome == o for r in run.results) for o in Outcome}
    summary = ", ".join(f"{k} {v}" for k, v in counts.items())
    out.print(f"judged {len(run.results)} answers: {summary}")
    u = run.usage
    out.print(
        f"calls {u.calls}, cached {u.cached_calls}, "
        f"tokens {u.prompt_tokens}+{u.completion_tokens}, cost ${u.cost_usd:.4f}"
    )
    if line := _calls_line(run.calls):
        out.print(line)
    if output:
        out.print(f"wrote {output}")


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


def register(app: typer.Typer) -> None:
    app.command(name="judge")(judge)
