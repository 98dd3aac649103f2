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

from ragtriage import __version__
from ragtriage.errors import InputError
from ragtriage.judge.items import coerce_items
from ragtriage.judge.outcomes import classify_answer
from ragtriage.judge.samples import Verdict, default_verdict, draw
from ragtriage.judge.spec import EMBEDDED, JudgeSpec
from ragtriage.judge.strategies.base import STRATEGIES, Strategy, get_strategy, needs_model
from ragtriage.judge.strategies.common import precheck
from ragtriage.judge.types import JudgeFingerprint, JudgeItem, JudgeResult, Usage
from ragtriage.llm.base import ChatModel, ModelRequest
from ragtriage.llm.cache import ResponseCache, default_cache_path
from ragtriage.llm.calls import Caller, RetryPolicy

__all__ = [
    "STRATEGIES",
    "JudgeRun",
    "ajudge_faithfulness",
    "ajudge_run",
    "fingerprint",
    "judge_faithfulness",
    "judge_options",
    "resolve_judge",
    "resolve_model",
    "resolve_strategy",
]

_DEFAULT = object()


def resolve_model(model: str | ChatModel | None, **options: Any) -> ChatModel:
    """``None``/``"embedded"`` (also the fingerprint's ``"local/..."`` name): the embedded
    judge; ``"replay:PATH"``: a recording; else a litellm model id.

    ``options``: ``threads`` (local), ``api_base``, ``json_mode``, ``timeout`` (litellm).
    """
    if model is not None and not isinstance(model, str):
        return model
    if model is None or model in (EMBEDDED, "local") or model.startswith("local/"):
        from ragtriage.llm.local import LocalModel

        return LocalModel(n_threads=options.get("threads"))
    if model.startswith("replay:"):
        return _replay(Path(model.removeprefix("replay:")))
    if model.startswith("router:"):
        return _router(model, options)
    from ragtriage.llm.litellm_model import LiteLLMModel

    keep = {k: options[k] for k in ("api_base", "json_mode", "timeout") if options.get(k)}
    return LiteLLMModel(model, **keep)


def _router(model: str, options: dict[str, Any]) -> ChatModel:
    """``router:FILE[#GROUP]``: the file names the endpoints, so ``api_base`` is refused."""
    from ragtriage.llm.router import RouterModel, load_router

    if options.get("api_base"):
        raise InputError(
            "a router's file names its endpoints; give no --api-base", field="--api-base"
        )
    keep = {k: options[k] for k in ("json_mode", "timeout") if options.get(k)}
    return RouterModel(load_router(model), **keep)


def _replay(path: Path) -> ChatModel:
    """A recording to replay; a missing or unreadable one is an input error naming it."""
    from ragtriage.llm.replay import ReplayModel

    if not path.is_file():
        raise InputError("no such recording (replay:FILE)", path=path, field="--judge")
    try:
        return ReplayModel.load(path)
    except (OSError, ValueError, KeyError, IndexError, TypeError, RecursionError) as exc:
        raise InputError(
            f"not a recording: {type(exc).__name__}: {str(exc)[:200]}", path=path, field="--judge"
        ) from None


def judge_options(
    threads: int | None = None,
    api_base: str | None = None,
    json_mode: str | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """The judge options a command was given (those left ``None`` are not passed on, so
    each model keeps its own default)."""
    given = {"threads": threads, "api_base": api_base, "json_mode": json_mode, "timeout": timeout}
    return {k: v for k, v in given.items() if v is not None}


def resolve_strategy(strategy: str | None, model: ChatModel | None, **options: Any) -> Strategy:
    """The strategy object; default ``sentences`` for local models, ``claims`` otherwise."""
    if strategy is None:
        strategy = "sentences" if (model is None or model.local) else "claims"
    return get_strategy(strategy, **options)


# what the models and strategies read; anything else is a caller's typo, refused rather
# than ignored (``judge=`` once ran the embedded model when ``lexical`` was asked for)
JUDGE_OPTIONS = frozenset(
    {
        "threads",
        "api_base",
        "json_mode",
        "timeout",
        "context_chars",
        "max_sentences",
        "budget_chars",
    }
)


def resolve_judge(
    strategy: str | None, model: str | ChatModel | None, **options: Any
) -> tuple[Strategy, ChatModel | None]:
    """The strategy and the model it calls (``None`` for a strategy that needs none).

    ``judge``: a spec as ``--judge`` takes it (``lexical``, ``claims@openai/gpt-4o``),
    instead of ``strategy`` and ``model``; other options must be :data:`JUDGE_OPTIONS`."""
    strategy, model = _from_spec(strategy, model, options.pop("judge", None))
    unknown = sorted(set(options) - JUDGE_OPTIONS)
    if unknown:
        raise TypeError(f"unknown judge option(s) {unknown}; known: {sorted(JUDGE_OPTIONS)}")
    chat = resolve_model(model, **options) if needs_model(strategy) else None
    return resolve_strategy(strategy, chat, **options), chat


def _from_spec(
    strategy: str | None, model: str | ChatModel | None, judge: str | None
) -> tuple[str | None, str | ChatModel | None]:
    if judge is None:
        return strategy, model
    if strategy is not None or model is not None:
        raise TypeError("give judge= or strategy= and model=, not both")
    spec = JudgeSpec.parse(judge, field="judge")
    return spec.strategy, spec.model


def fingerprint_of(strategy: Strategy, model: ChatModel | None) -> JudgeFingerprint:
    params = {**({} if model is None else model.params), **strategy.params}
    return JudgeFingerprint(
        judge=strategy.name,
        model="none" if model is None else model.name,
        params={k: v for k, v in params.items() if isinstance(v, str | int | float | bool | None)},
        prompt_sha256=dict(strategy.prompt_sha256),
        package_version=__version__,
    )


def fingerprint(
    model: str | ChatModel | None = None, strategy: str | None = None, **options: Any
) -> JudgeFingerprint:
    """What a calibration is valid for; a stored calibration is stale when this differs.

    Loads no weights and makes no call: only names, parameters and prompt hashes.
    """
    return fingerprint_of(*resolve_judge(strategy, model, **options))


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
    """Judge every item; results keep the input order. ``cache=None`` disables the disk cache.

    ``samples``: judge each answer up to that many times, stopping once the majority is
    decided (:mod:`ragtriage.judge.samples`; ``verdict``: what a sample votes, by default
    score >= 0.5); ``temperature``: the samples' temperature (``None``: the judge's own)."""
    judged = list(coerce_items(items))
    strat, chat = resolve_judge(strategy, model, **options)
    check_sampling(chat, samples, temperature)
    store = _open_cache(cache if chat is not None else None)  # no model: nothing to cache
    policy = retry or RetryPolicy()
    caller = Caller(chat, store, concurrency, policy) if chat is not None else None
    # A local model runs one call at a time; interleaving answers would evict the shared
    # context prefix from its KV cache, so answers are judged one after another.
    gate = asyncio.Semaphore(1 if chat is None or chat.local else concurrency)

    sampling = caller is not None and (samples > 1 or temperature is not None)

    async def judge_one(item: JudgeItem, fp: JudgeFingerprint) -> JudgeResult:
        if not sampling or caller is None:
            return await strat.judge(item, caller, fp)
        base = caller

        def sample(index: int) -> Awaitable[JudgeResult]:
            return strat.judge(item, base.sampled(index, temperature), fp)

        return await draw(sample, samples, temperature, verdict or default_verdict, stop_early)

    async def one(item: JudgeItem, fp: JudgeFingerprint) -> JudgeResult:
        async with gate:
            result = precheck(item, fp) or await judge_one(item, fp)
        if on_result is not None:
            on_result(result)
        return result

    try:
        if caller is not None and (first := _first_request(strat, judged)) is not None:
            await caller.settle(first)  # e.g. a litellm endpoint's JSON mode
        fp = fingerprint_of(strat, chat)  # after settling: it names the JSON mode found
        results = list(await asyncio.gather(*(one(i, fp) for i in judged)))
        if (settled := fingerprint_of(strat, chat)) != fp:  # the JSON mode was found late
            fp = settled
            results = [r.model_copy(update={"fingerprint": fp}) for r in results]
    finally:
        stats = store.stats
        if store is not cache:
            store.close()
    total = caller.usage if caller is not None else Usage()
    counts = {"hits": stats.hits, "misses": stats.misses, "writes": stats.writes}
    calls = caller.report() if caller is not None else {}
    return JudgeRun(results=results, usage=total, cache=counts, fingerprint=fp, calls=calls)


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
