"""``ragtriage judge``: stage 2 on its own, as a config, ``run`` (or ``estimate``) and
the results file; with ``no_cache`` the cache is an in-memory store.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated

from ragtriage.atomic import write_atomic
from ragtriage.calibration.decision import rule_features
from ragtriage.calibration.record import load_calibration
from ragtriage.flows.config import (
    API_BASE,
    CACHE,
    CONCURRENCY,
    JSON_MODE,
    JUDGE,
    MAX_CHARS,
    TEMPERATURE,
    THREADS,
    TIMEOUT,
    Setting,
)
from ragtriage.flows.engine import sample_vote
from ragtriage.judge.api import MAX_SAMPLES, JudgeRun, ajudge, check_sampling
from ragtriage.judge.estimate import CostEstimate
from ragtriage.judge.estimate import estimate as estimate_run
from ragtriage.judge.items import load_answers
from ragtriage.judge.judge import Judge, JudgeOptions
from ragtriage.judge.samples import Verdict
from ragtriage.judge.spec import JudgeSpec
from ragtriage.llm.cache import ResponseCache, default_cache_path
from ragtriage.results.files import write_json
from ragtriage.triage.calibrated import CalibrationRecords

__all__ = ["JudgeConfig", "Plan", "arun", "estimate", "plan", "run", "write_results"]


@dataclass
class JudgeConfig:
    answers: Annotated[Path, Setting("JSONL/JSON: id, question, contexts, answer.")]
    judge: Annotated[JudgeSpec, JUDGE] = field(default_factory=JudgeSpec)
    concurrency: Annotated[int, CONCURRENCY] = 8
    cache: Annotated[Path | None, CACHE] = None  # None: the default cache (unless no_cache)
    no_cache: Annotated[bool, Setting("Do not read or write the disk cache.")] = False
    api_base: Annotated[str | None, API_BASE] = None
    json_mode: Annotated[str | None, JSON_MODE] = None
    timeout: Annotated[float | None, TIMEOUT] = None
    threads: Annotated[int | None, THREADS] = None
    context_chars: Annotated[
        int | None,
        Setting(
            "Evidence budget in characters (sentences strategy: per sentence; claims: per "
            "answer; 0: whole context).",
            min=0,
            max=MAX_CHARS,
        ),
    ] = None
    max_sentences: Annotated[
        int | None,
        Setting(
            "sentences strategy: score at most N sentences, weakest-aligned first (0: all).",
            min=0,
            max=MAX_CHARS,
        ),
    ] = None
    budget_chars: Annotated[
        int | None,
        Setting(
            "sentences strategy: prompt budget per answer in characters of evidence and "
            "sentence; sentences past it are left to the model-free signals (0: no budget).",
            min=0,
            max=MAX_CHARS,
        ),
    ] = None
    calibration: Annotated[
        Path | None,
        Setting(
            "Calibration record whose rule decides (default: the shipped one matching the "
            "judge); a rule reading only model-free signals means no model call."
        ),
    ] = None
    samples: Annotated[
        int,
        Setting(
            "Judge each answer up to K times, stopping once the majority of K is decided; "
            "its vote and flip rate are in the result, no majority is 'unstable'.",
            min=1,
            max=MAX_SAMPLES,
        ),
    ] = 1
    temperature: Annotated[float | None, TEMPERATURE] = None
    all_signals: Annotated[
        bool,
        Setting(
            "Compute every signal, the model's too, even when the calibrated rule reads only "
            "model-free ones (what calibrate needs)."
        ),
    ] = False

    def cache_path(self) -> Path | None:
        return None if self.no_cache else (self.cache or default_cache_path())


@dataclass(frozen=True)
class Plan:
    """Which judge runs: the asked one with every signal, or without its model when its
    calibrated rule reads none of the model's (``CalibrationRecords.model_free``, as
    ``audit`` does; unless ``all_signals``); ``note`` says which, for the summary."""

    judge: Judge
    model_free: bool
    note: str
    verdict: Verdict | None = None


def plan(config: JudgeConfig) -> Plan:
    """The run :func:`run` and :func:`estimate` make (names and hashes only: no model is
    loaded or called to plan it). With ``--samples`` a sample votes what the calibrated
    rule of the judge decides (the shipped one matching it, or score >= 0.5 uncalibrated);
    a model-free plan draws one sample: a rule reading no model signal cannot flip."""
    if config.calibration is not None:  # read (or refused) even when no rule needs it
        load_calibration(config.calibration)
    asked = Judge.from_spec(config.judge, JudgeOptions.of_config(config))
    chosen = _signals_plan(config, asked)
    if not asked.options.sampling:
        return chosen
    if chosen.model_free:
        note = (
            f"{chosen.note}; --samples not drawn: the rule reads no model signal, so its "
            "verdicts cannot differ between samples (--all-signals samples the model)"
        )
        return replace(chosen, note=note)
    decider = CalibrationRecords().decider(config.calibration, asked.fingerprint)
    return replace(chosen, verdict=sample_vote(decider))


def _signals_plan(config: JudgeConfig, asked: Judge) -> Plan:
    if asked.model is None:
        return Plan(asked, False, "signals: model-free (a judge without a model)")
    if config.all_signals:
        return Plan(asked, False, "signals: all, the model's too (--all-signals)")
    planned = asked.fingerprint
    decider = CalibrationRecords().model_free(config.calibration, planned)
    if decider is None or decider.record is None:
        return Plan(
            asked,
            False,
            "signals: all, the model's too (the judge's calibrated rule reads the model's, "
            "or no calibration matches the judge)",
        )
    reads = ", ".join(sorted(rule_features(decider.record.rule)))
    return Plan(
        asked.model_free(),
        True,
        f"signals: model-free only: the {planned.judge} judge's calibrated rule "
        f"({decider.record.rule_name}, {decider.status.source}) reads only {reads}, so its "
        f"model ({planned.model}) was not called; --all-signals computes the model's too "
        "(what calibrate needs)",
    )


async def arun(config: JudgeConfig) -> JudgeRun:
    """Judge every answer of ``config.answers`` (cached: a rerun pays nothing twice)."""
    items = load_answers(config.answers)
    chosen = plan(config)
    judged = await ajudge(
        chosen.judge, items, config.concurrency, config.cache_path(), verdict=chosen.verdict
    )
    judged.signals = chosen.note
    return judged


def run(config: JudgeConfig) -> JudgeRun:
    """:func:`arun` to its end."""
    return asyncio.run(arun(config))


def estimate(config: JudgeConfig) -> CostEstimate:
    """Calls, tokens and cost the run would take, counting what the cache already holds."""
    items = load_answers(config.answers)
    chosen = plan(config)
    judge, options = chosen.judge, chosen.judge.options
    check_sampling(judge.model, options.samples, options.temperature)
    store = ResponseCache(config.cache_path())
    try:
        found = estimate_run(
            items, judge.model, judge.strategy, judge.fingerprint, store, options.samples,
            options.temperature,
        )  # fmt: skip
        return found.model_copy(update={"signals": chosen.note})
    finally:
        store.close()


def write_results(path: Path, run: JudgeRun) -> None:
    """``.jsonl``: one result a line; else one JSON object with the run's totals."""
    if path.suffix == ".jsonl":
        lines = (r.model_dump_json() for r in run.results)
        write_atomic(path, "\n".join(lines) + "\n")
        return
    write_json(
        path,
        {
            "fingerprint": run.fingerprint.model_dump(mode="json"),
            "usage": run.usage.model_dump(mode="json"),
            "cache": run.cache,
            "calls": run.calls,
            "signals": run.signals,
            "results": [json.loads(r.model_dump_json()) for r in run.results],
        },
    )
