"""``ragtriage judge``: stage 2 on its own, as a config, ``run`` (or ``estimate``) and
the results file.

The judge spec arrives parsed (:class:`JudgeSpec`); the cache is a path or, with
``no_cache``, an in-memory store. Nothing is printed here.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from ragtriage.atomic import write_atomic
from ragtriage.flows.config import (
    API_BASE,
    CACHE,
    CONCURRENCY,
    JSON_MODE,
    JUDGE,
    MAX_CHARS,
    THREADS,
    TIMEOUT,
    Setting,
)
from ragtriage.judge.api import JudgeRun, ajudge_run, fingerprint_of, resolve_judge
from ragtriage.judge.estimate import CostEstimate
from ragtriage.judge.estimate import estimate as estimate_run
from ragtriage.judge.items import load_answers
from ragtriage.judge.spec import JudgeSpec
from ragtriage.models.cache import ResponseCache, default_cache_path
from ragtriage.results.files import write_json

__all__ = ["JudgeConfig", "estimate", "run", "write_results"]


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

    def options(self) -> dict[str, Any]:
        """The options the strategy and model take (``None``: their default)."""
        return {
            "threads": self.threads,
            "api_base": self.api_base,
            "json_mode": self.json_mode,
            "timeout": self.timeout,
            "context_chars": self.context_chars,
            "max_sentences": self.max_sentences,
            "budget_chars": self.budget_chars,
        }

    def cache_path(self) -> Path | None:
        return None if self.no_cache else (self.cache or default_cache_path())


def run(config: JudgeConfig) -> JudgeRun:
    """Judge every answer of ``config.answers`` (cached: a rerun pays nothing twice)."""
    items = load_answers(config.answers)
    spec = config.judge
    return asyncio.run(
        ajudge_run(
            items,
            spec.model,
            spec.strategy,
            config.concurrency,
            config.cache_path(),
            **config.options(),
        )
    )


def estimate(config: JudgeConfig) -> CostEstimate:
    """Calls, tokens and cost the run would take, counting what the cache already holds."""
    items = load_answers(config.answers)
    strategy, chat = resolve_judge(config.judge.strategy, config.judge.model, **config.options())
    store = ResponseCache(config.cache_path())
    try:
        return estimate_run(items, chat, strategy, fingerprint_of(strategy, chat), store)
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
            "results": [json.loads(r.model_dump_json()) for r in run.results],
        },
    )
