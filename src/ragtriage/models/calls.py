"""Every model call goes through here: cache, bounded concurrency, retries, one repair.

* Cache first (content-addressed): a hit costs nothing and is counted as ``cached_calls``.
* At most ``concurrency`` calls in flight (an asyncio semaphore).
* Transient errors (429, timeouts, connection errors, 5xx) are retried by one tenacity
  policy: exponential backoff with full jitter, honouring ``Retry-After``.
* An output that does not validate gets one repair call that shows the model its
  validation error. If that fails too, :class:`Unscorable` carries the reason and the item
  ends ``unscored`` -- never a silent NaN, 0 or 1.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from tenacity import (
    AsyncRetrying,
    RetryError,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from ragtriage.models.base import (
    ChatModel,
    Message,
    ModelRequest,
    ModelResponse,
    PermanentModelError,
    TransientModelError,
    Usage,
    cache_key,
)
from ragtriage.models.cache import ResponseCache

__all__ = ["Caller", "RetryPolicy", "Unscorable"]

T = TypeVar("T")


class Unscorable(Exception):
    """The judge could not produce a valid answer for an item; ``str(exc)`` is the reason.

    Internal control flow, not a :class:`~ragtriage.errors.RagtriageError`: every caller
    turns it into an ``unscored`` result (or :class:`GenerationFailed`), so it never
    reaches the user."""


@dataclass
class RetryPolicy:
    attempts: int = 6
    initial_s: float = 1.0
    max_wait_s: float = 60.0

    def wait(self, retry_state) -> float:
        """Server's Retry-After when given (capped), else exponential backoff with jitter."""
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        hinted = getattr(exc, "retry_after", None)
        if hinted is not None:
            return min(float(hinted), self.max_wait_s)
        return wait_random_exponential(multiplier=self.initial_s, max=self.max_wait_s)(retry_state)


@dataclass
class Caller:
    """Calls one model for many items; ``usage`` totals every call (and cache hit)."""

    model: ChatModel
    cache: ResponseCache
    concurrency: int = 8
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    usage: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self._semaphore = asyncio.Semaphore(self.concurrency)

    async def raw(self, request: ModelRequest, usage: Usage) -> ModelResponse:
        """One response, from the cache or the model; counted in ``usage`` and the total."""
        key = cache_key(self.model, request)
        cached = self.cache.get(key)
        if cached is not None:
            _count(usage, cached, cached=True)
            _count(self.usage, cached, cached=True)
            return cached
        async with self._semaphore:
            response = await self._with_retries(request)
        self.cache.put(key, self.model.name, response)
        _count(usage, response, cached=False)
        _count(self.usage, response, cached=False)
        return response

    async def _with_retries(self, request: ModelRequest) -> ModelResponse:
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(TransientModelError),
            wait=self.retry.wait,
            stop=stop_after_attempt(self.retry.attempts),
            reraise=False,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    return await self.model.complete(request)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            raise Unscorable(f"gave up after {self.retry.attempts} attempts: {last}") from None
        except PermanentModelError as exc:
            raise Unscorable(f"model error: {exc}") from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def parsed(
        self, request: ModelRequest, parse: Callable[[ModelResponse], T], usage: Usage
    ) -> T:
        """A validated output, after at most one repair call; else :class:`Unscorable`."""
        response = await self.raw(request, usage)
        try:
            return parse(response)
        except ValueError as first:  # pydantic's ValidationError is a ValueError
            error = _brief(first)
        repair = request.model_copy(
            update={
                "messages": request.messages
                + (
                    Message(role="assistant", content=response.text),
                    Message(
                        role="user",
                        content="Your reply did not validate against the required JSON schema:\n"
                        f"{error}\nReply again with only the corrected JSON.",
                    ),
                )
            }
        )
        response = await self.raw(repair, usage)
        try:
            return parse(response)
        except ValueError as second:
            raise Unscorable(f"invalid judge output after one repair: {_brief(second)}") from None


def _count(usage: Usage, response: ModelResponse, *, cached: bool) -> None:
    if cached:
        usage.cached_calls += 1
        return
    usage.calls += 1
    usage.prompt_tokens += response.prompt_tokens
    usage.completion_tokens += response.completion_tokens
    usage.cost_usd += response.cost_usd


def _brief(exc: Exception) -> str:
    return " ".join(str(exc).split())[:500]
