"""``ragtriage.judge_faithfulness``: judge answers for faithfulness to their context.

No model named (or ``embedded``) means the embedded local judge (offline, strategy
``sentences``); a litellm model string means strategy ``claims``; a strategy that needs
no model (``lexical``) gets none. Strategies come from the registry in
:mod:`ragtriage.judge.strategies.base`. Every item ends in exactly one outcome class, and
every result carries the lexical signal, the judge's fingerprint (what a calibration is
valid for) and its usage, cache hits included.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragtriage.errors import InputError
from ragtriage.judge.items import coerce_items
from ragtriage.judge.judge import Judge, JudgeOptions, resolve_model
from ragtriage.judge.outcomes import classify_answer
from ragtriage.judge.samples import Verdict, default_verdict, draw
from ragtriage.judge.strategies.base import STRATEGIES, Strategy
from ragtriage.judge.strategies.common import precheck
from ragtriage.judge.types import JudgeFingerprint, JudgeItem, JudgeResult, Usage
from ragtriage.llm.base import ChatModel, ModelRequest
from ragtriage.llm.cache import ResponseCache, default_cache_path
from ragtriage.llm.calls import Caller, RetryPolicy

__all__ = [
    "STRATEGIES",
    "Judge",
    "JudgeOptions",
    "JudgeRun",
    "ajudge",
    "ajudge_faithfulness",
    "ajudge_run",
    "fingerprint",
    "judge_faithfulness",
    "resolve_model",
]

_DEFAULT = object()


def fingerprint(
    model: str | ChatModel | None = None, strategy: str | None = None, **options: Any
) -> JudgeFingerprint:
    """What a calibration is valid for; a stored calibration is stale when this differs.

    Loads no weights and makes no call: only names, parameters and prompt hashes.
    """
    return _judge(model, strategy, options).fingerprint


def _judge(model: str | ChatModel | None, strategy: str | None, options: dict[str, Any]) -> Judge:
    """The judge of the public functions' arguments. ``judge``: a spec as ``--judge``
    takes it (``lexical``, ``claims@openai/gpt-4o``), instead of ``strategy`` and
    ``model``; other options must be :class:`JudgeOptions` fields."""
    spec = options.pop("judge", None)
    judge_options = JudgeOptions.of(**options)
    if spec is None:
        return Judge.build(strategy, model, judge_options)
    if strategy is not None or model is not None:
        raise TypeError("give judge= or strategy= and model=, not both")
    return Judge.from_spec(spec, judge_options, field="judge")


@dataclass
class JudgeRun:
    """``calls``: what the run learnt about the endpoint (calls in flight, timeouts, the
    JSON mode found and the modes refused); empty without a model."""

    results: list[JudgeResult]
    usage: Usage
    cache: dict[str, int]
    fingerprint: JudgeFingerprint
    calls: dict[str, Any] = field(default_factory=dict)
    # which signals were computed and why (``flows.judge.plan``); empty when not planned
    signals: str = ""


async def ajudge_run(
    items: Iterable[JudgeItem | Mapping[str, Any]],
    model: str | ChatModel | None = None,
    strategy: str | None = None,
    concurrency: int = 8,
    cache: Path | ResponseCache | None | object = _DEFAULT,
    on_result: Callable[[JudgeResult], None] | None = None,
    retry: RetryPolicy | None = None,
    samples: int = 1,
    temperature: float | None = None,
    verdict: Verdict | None = None,
    stop_early: bool = True,
    **options: Any,
) -> JudgeRun:
    """:func:`ajudge` with the judge built from ``model``, ``strategy`` and ``options``."""
    judged = list(coerce_items(items))
    judge = _judge(model, strategy, {**options, "samples": samples, "temperature": temperature})
    return await ajudge(judge, judged, concurrency, cache, on_result, retry, verdict, stop_early)


async def ajudge(
    judge: Judge,
    items: Iterable[JudgeItem | Mapping[str, Any]],
    concurrency: int = 8,
    cache: Path | ResponseCache | None | object = _DEFAULT,
    on_result: Callable[[JudgeResult], None] | None = None,
    retry: RetryPolicy | None = None,
    verdict: Verdict | None = None,
    stop_early: bool = True,
) -> JudgeRun:
    """Judge every item; results keep the input order. ``cache=None`` disables the disk cache.

    ``judge.options.samples``: judge each answer up to that many times, stopping once the
    majority is decided (:mod:`ragtriage.judge.samples`; ``verdict``: what a sample votes,
    by default score >= 0.5); ``judge.options.temperature``: the samples' temperature
    (``None``: the judge's own)."""
    judged = list(coerce_items(items))
    chat = judge.model
    samples, temperature = judge.options.samples, judge.options.temperature
    check_sampling(chat, samples, temperature)
    store = _open_cache(cache if chat is not None else None)  # no model: nothing to cache
    policy = retry or RetryPolicy()
    caller = Caller(chat, store, concurrency, policy) if chat is not None else None
    # A local model runs one call at a time; interleaving answers would evict the shared
    # context prefix from its KV cache, so answers are judged one after another.
    gate = asyncio.Semaphore(1 if chat is None or chat.local else concurrency)

    judge_one = _one_answer(judge, caller, verdict, stop_early)

    async def one(item: JudgeItem, fp: JudgeFingerprint) -> JudgeResult:
        async with gate:
            result = precheck(item, fp) or await judge_one(item, fp)
        if on_result is not None:
            on_result(result)
        return result

    try:
        results, fp = await _every_answer(judge, caller, judged, one)
    finally:
        stats = store.stats
        if store is not cache:
            store.close()
    total = caller.usage if caller is not None else Usage()
    counts = {"hits": stats.hits, "misses": stats.misses, "writes": stats.writes}
    calls = caller.report() if caller is not None else {}
    return JudgeRun(results=results, usage=total, cache=counts, fingerprint=fp, calls=calls)


def _one_answer(
    judge: Judge, caller: Caller | None, verdict: Verdict | None, stop_early: bool
) -> Callable[[JudgeItem, JudgeFingerprint], Awaitable[JudgeResult]]:
    """How one answer is judged: once, or (``--samples``, a temperature) sampled until the
    majority is decided."""
    strat = judge.strategy
    samples, temperature = judge.options.samples, judge.options.temperature
    sampling = caller is not None and (samples > 1 or temperature is not None)

    async def judge_one(item: JudgeItem, fp: JudgeFingerprint) -> JudgeResult:
        if not sampling or caller is None:
            return await strat.judge(item, caller, fp)
        base = caller

        def sample(index: int) -> Awaitable[JudgeResult]:
            return strat.judge(item, base.sampled(index, temperature), fp)

        return await draw(sample, samples, temperature, verdict or default_verdict, stop_early)

    return judge_one


async def _every_answer(
    judge: Judge,
    caller: Caller | None,
    judged: list[JudgeItem],
    one: Callable[[JudgeItem, JudgeFingerprint], Awaitable[JudgeResult]],
) -> tuple[list[JudgeResult], JudgeFingerprint]:
    """Every answer judged, in input order, under the fingerprint the endpoint settled on
    (its first request settles e.g. a litellm endpoint's JSON mode)."""
    if caller is not None and (first := _first_request(judge.strategy, judged)) is not None:
        await caller.settle(first)
    fp = judge.fingerprint  # after settling: it names the JSON mode found
    results = list(await asyncio.gather(*(one(i, fp) for i in judged)))
    if (settled := judge.fingerprint) != fp:  # the JSON mode was found late
        fp = settled
        results = [r.model_copy(update={"fingerprint": fp}) for r in results]
    return results, fp


MAX_SAMPLES = 100


def check_sampling(chat: ChatModel | None, samples: int, temperature: float | None) -> None:
    """Refuse samples that cannot differ: a judge without a model, or the embedded model
    at temperature 0 (it reads logits and decodes greedily: every sample the same)."""
    if not 1 <= samples <= MAX_SAMPLES:
        raise InputError(f"must be 1 to {MAX_SAMPLES}", field="--samples")
    if temperature is not None and not 0.0 <= temperature <= 2.0:
        raise InputError("must be 0 to 2", field="--temperature")
    if samples == 1 and temperature is None:
        return
    if chat is None:
        raise InputError(
            "this judge uses no model: every sample would give the same answer",
            field="--samples",
        )
    if samples > 1 and getattr(chat, "deterministic", False) and not temperature:
        raise InputError(
            f"{chat.name} gives the same answer every time at temperature 0; "
            "give --temperature above 0 to sample it",
            field="--samples",
        )


def _first_request(strategy: Strategy, items: list[JudgeItem]) -> ModelRequest | None:
    """The first request the run will send (items a pre-check decides send none)."""
    for item in items:
        if classify_answer(item.answer)[0] is None and (planned := strategy.planned_requests(item)):
            return planned[0]
    return None


def _open_cache(cache: Path | ResponseCache | None | object) -> ResponseCache:
    if isinstance(cache, ResponseCache):
        return cache
    if cache is _DEFAULT:
        return ResponseCache(default_cache_path())
    return ResponseCache(Path(cache) if cache is not None else None)  # type: ignore[arg-type]


async def ajudge_faithfulness(
    items, model=None, strategy=None, concurrency=8, cache=_DEFAULT, **options: Any
) -> list[JudgeResult]:
    """Async variant of :func:`judge_faithfulness` (for callers already in an event loop)."""
    run = await ajudge_run(items, model, strategy, concurrency, cache, **options)
    return run.results


def judge_faithfulness(
    items: Iterable[JudgeItem | Mapping[str, Any]],
    model: str | ChatModel | None = None,
    strategy: str | None = None,
    concurrency: int = 8,
    cache: Path | ResponseCache | None | object = _DEFAULT,
    **options: Any,
) -> list[JudgeResult]:
    """Judge answers for faithfulness; one :class:`JudgeResult` per item, in input order.

    ``model``: ``None`` or ``"embedded"`` (embedded local judge), a litellm model string,
    ``"replay:PATH"`` or a :class:`ChatModel`. ``strategy``: a registered strategy
    (``claims``, ``sentences``, ``lexical``; ``None``: the model's default). The command
    line's ``--judge STRATEGY@MODEL`` is :class:`ragtriage.judge.spec.JudgeSpec`.
    ``cache``: a path (default ``.ragtriage/cache.sqlite`` or ``$RAGTRIAGE_CACHE``), or
    ``None`` for no disk cache. ``judge``: a spec as ``--judge`` takes it (``"lexical"``,
    ``"claims@openai/gpt-4o-mini"``), instead of ``model`` and ``strategy``. Options:
    ``threads``, ``api_base``, ``json_mode``, ``timeout``, ``context_chars``,
    ``max_sentences``, ``budget_chars``; any other is a ``TypeError``. ``samples``,
    ``temperature``, ``verdict``, ``stop_early``: repeated samples (:func:`ajudge_run`).
    """
    return asyncio.run(ajudge_faithfulness(items, model, strategy, concurrency, cache, **options))
