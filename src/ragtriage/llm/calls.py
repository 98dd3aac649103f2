"""Every model call goes through here: cache, bounded concurrency, retries, one repair.

What the user sees is in docs/judges.md ('A server with few slots', 'Rate limits'). Calls
in flight adapt (:class:`InFlightLimit`, AIMD), never above the server's slots; a call
holds its slot only while sent, so retries never pile onto a saturated server. A slow call
lowers the limit but is still awaited (:meth:`Caller._patiently`). Rate-limit pauses hold
every call (:mod:`ragtriage.llm.ratelimit`). Transient errors are retried by one tenacity
policy, and a refused request shape is settled once before a run (:meth:`Caller.settle`).
An output that does not validate gets one repair call. Whatever fails raises
:class:`Unscorable`: the item (or sample) is kept ``unscored`` with the reason, never
dropped nor counted as a pass or a fail -- never a silent NaN, 0 or 1.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tenacity import (
    AsyncRetrying,
    RetryError,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from ragtriage.llm.base import (
    ChatModel,
    Message,
    ModelRequest,
    ModelResponse,
    ModelTimeoutError,
    PermanentModelError,
    ShapeNegotiating,
    TransientModelError,
    UnsupportedRequestError,
    Usage,
    brief,
    cache_key,
)
from ragtriage.llm.cache import ResponseCache
from ragtriage.llm.ratelimit import RateLimits

__all__ = ["Caller", "InFlightLimit", "RetryPolicy", "SLOW_FRACTION", "Unscorable"]

T = TypeVar("T")
# A call running longer than this share of the model's timeout counts as slow: the
# endpoint queues more than it serves in time. A quarter leaves room for three more such
# waits before the timeout abandons the request.
SLOW_FRACTION = 0.25


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


class InFlightLimit:
    """At most ``limit`` calls in flight; ``limit`` starts at ``maximum`` (AIMD).

    A timeout or a slow call means the endpoint queues more than it serves in time:
    :meth:`timed_out` and :meth:`slow` halve ``limit`` (never below 1), once per round:
    calls that started before the last decrease do not decrease it again. ``limit``
    successes in a row raise it by one, up to ``maximum``. ``rate``: the provider's
    window, which lowers the limit further while little is left and pauses every call.
    """

    def __init__(self, maximum: int, rate: RateLimits | None = None) -> None:
        if maximum < 1:
            raise ValueError("concurrency must be at least 1")
        self.maximum = maximum
        self.limit = maximum
        self.rate = rate or RateLimits()
        self.in_flight = 0
        self.peak = 0
        self.timeouts = 0
        self.slow_calls = 0
        self._round = 0  # bumped at each decrease
        self._streak = 0
        self._changed = asyncio.Condition()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[int]:
        """Hold one slot while a call is sent; yields the round it started in."""
        async with self._changed:
            await self._free()
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            yield self._round
        finally:
            async with self._changed:
                self.in_flight -= 1
                self._changed.notify_all()

    async def _free(self) -> None:
        """Wait (holding the condition) until no pause is on and a slot is free. A pause
        ends by the clock; a slot frees when a call ends (one is in flight, as the limit
        is at least 1), and a call's end wakes every waiter."""
        while True:
            if (left := self.rate.pause_left()) > 0:
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), left)
                continue
            if self.in_flight < self.allowed():
                return
            await self._changed.wait()

    def allowed(self) -> int:
        """Calls in flight allowed now: the AIMD limit, under the provider's window."""
        window = self.rate.cap()
        return self.limit if window is None else min(self.limit, window)

    def timed_out(self, started: int) -> None:
        self.timeouts += 1
        self._decrease(started)

    def slow(self, started: int) -> None:
        """A call still running past its slow mark: lower the limit, keep the call."""
        self.slow_calls += 1
        self._decrease(started)

    def _decrease(self, started: int) -> None:
        self._streak = 0
        if started == self._round and self.limit > 1:
            self.limit = max(1, self.limit // 2)
            self._round += 1

    def cap(self, slots: int) -> None:
        """Never more than ``slots`` in flight: what the server says it serves at once."""
        self.maximum = max(1, min(self.maximum, slots))
        self.limit = min(self.limit, self.maximum)

    def succeeded(self) -> None:
        self._streak += 1
        if self._streak >= self.limit and self.limit < self.maximum:
            self.limit += 1
            self._streak = 0


class _Reshaped(Exception):
    """The model's request shape changed: look the request up again under its new key."""


_MAX_SHAPES = 8  # a model falls back through a few shapes at most


@dataclass
class Caller:
    """Calls one model for many items; ``usage`` totals every call (and cache hit)."""

    model: ChatModel
    cache: ResponseCache
    concurrency: int = 8
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    usage: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        # the provider's window belongs to the endpoint: every caller of it shares it
        self.limit = InFlightLimit(self.concurrency, getattr(self.model, "rate_limits", None))
        # Settled before the run: key -> the response of that first call, counted when
        # the item asks for it.
        self._early: dict[str, ModelResponse] = {}
        self.server_slots: int | None = None  # what the endpoint said it serves at once
        self._sized = False
        self._sizing = asyncio.Lock()
        self._sample: tuple[int, float | None] | None = None

    def sampled(self, index: int, temperature: float | None = None) -> Caller:
        """This caller for one of an answer's repeated samples: every request it sends is
        marked ``sample=index`` (its own call and cache key: a re-run with more samples
        pays only for the new ones) and sent at ``temperature`` (``None``: the request's
        own). Limits, cache, usage and the server's size are shared with this caller."""
        clone = copy.copy(self)
        clone._sample = (index, temperature)
        clone._size_to_server = self._size_to_server  # type: ignore[method-assign]
        return clone

    def _marked(self, request: ModelRequest) -> ModelRequest:
        if self._sample is None:
            return request
        index, temperature = self._sample
        update: dict[str, Any] = {"sample": index}
        if temperature is not None:
            update["temperature"] = temperature
        return request.model_copy(update=update)

    async def _size_to_server(self) -> None:
        """Before the first call that reaches the model (a run served from the cache makes
        no request at all), ask the server how many requests it computes at once
        (llama.cpp's ``/props`` ``total_slots``; :meth:`serving_slots` of the model) and
        never send more: a request queued behind busy slots times out while the server
        still computes it, and its retry starts the work again."""
        if self._sized:
            return
        async with self._sizing:
            if self._sized:
                return
            probe = getattr(self.model, "serving_slots", None)
            slots = await probe() if callable(probe) else None
            if slots:
                self.server_slots = slots
                self.limit.cap(slots)
            self._sized = True

    async def settle(self, request: ModelRequest) -> None:
        """Fix the request shape of a :class:`ShapeNegotiating` model before a run, so the
        run's fingerprint names the shape and an unchanged re-run makes no call: from the
        cache when an earlier run stored ``request`` under a shape still open (strongest
        first), else by sending it (one attempt per shape; the response is kept for its
        item). If that call fails otherwise (a 429, a timeout), the shape found so far
        stands: the item retries with its own budget, and a refusal during the run still
        falls back (the run's fingerprint is then taken again at its end)."""
        model = self.model
        if not isinstance(model, ShapeNegotiating) or len(shapes := model.shapes()) < 2:
            return
        for params in shapes:
            if self.cache.contains(cache_key(model, request, params)):
                model.adopt(params)
                return
        with suppress(Unscorable):
            await self.raw(request, Usage(), early=True)

    def report(self) -> dict[str, Any]:
        """What the run learnt about the endpoint: calls in flight, timeouts, shape."""
        out: dict[str, Any] = {
            "max_in_flight": self.limit.maximum,
            "in_flight_limit": self.limit.limit,
            "peak_in_flight": self.limit.peak,
            "timeouts": self.limit.timeouts,
            "slow_calls": self.limit.slow_calls,
            "server_slots": self.server_slots,
            **self.limit.rate.report(),
        }
        negotiated = getattr(self.model, "negotiated", None)
        if callable(negotiated):
            out.update(negotiated())
        return out

    async def raw(self, request: ModelRequest, usage: Usage, early: bool = False) -> ModelResponse:
        """One response, from the cache or the model; counted in ``usage`` and the total.

        ``early``: a call made by :meth:`settle`, counted later for its item."""
        request = self._marked(request)
        for _ in range(_MAX_SHAPES):
            key = cache_key(self.model, request)
            kept = self._early.pop(key, None)
            if kept is not None:
                _count(kept, usage, self.usage, cached=False)
                return kept
            cached = self.cache.get(key)
            if cached is not None:
                _count(cached, usage, self.usage, cached=True)
                return cached
            try:
                response = await self._with_retries(request, key, 1 if early else None)
            except _Reshaped:
                continue
            self.cache.put(key, self.model.name, response)
            if early:
                self._early[key] = response
                return response
            _count(response, usage, self.usage, cached=False)
            return response
        raise Unscorable("the model changed its request shape too often")

    async def _with_retries(
        self, request: ModelRequest, key: str, attempts: int | None = None
    ) -> ModelResponse:
        attempts = attempts or self.retry.attempts
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(TransientModelError),
            wait=self.retry.wait,
            stop=stop_after_attempt(attempts),
            reraise=False,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._attempt(request, key)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            raise Unscorable(f"gave up after {attempts} attempts: {last}") from None
        except UnsupportedRequestError as exc:
            if exc.fell_back:
                raise _Reshaped from None
            raise Unscorable(f"model error: {exc}") from None
        except PermanentModelError as exc:
            raise Unscorable(f"model error: {exc}") from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _attempt(self, request: ModelRequest, key: str) -> ModelResponse:
        """One call in one slot; the backoff before a retry is spent outside the slot."""
        await self._size_to_server()
        async with self.limit.slot() as started:
            # The shape may have changed while waiting: then the key is another one.
            # (No await between this check and the model reading its shape.)
            if cache_key(self.model, request) != key:
                raise _Reshaped
            try:
                response = await self._patiently(request, started)
            except ModelTimeoutError:
                self.limit.timed_out(started)
                raise
            except TransientModelError as exc:
                if exc.retry_after is not None:  # the server said when: every call waits
                    self.limit.rate.pause(min(exc.retry_after, self.retry.max_wait_s))
                raise
            tokens = response.prompt_tokens + response.completion_tokens
            self.limit.rate.observe(response.headers, tokens)
        self.limit.succeeded()
        return response

    async def _patiently(self, request: ModelRequest, started: int) -> ModelResponse:
        """The model's answer, awaited past the slow mark (which lowers the limit) up to
        the model's own timeout: abandoning a request the server is still computing would
        make the retry compute it again."""
        call = asyncio.ensure_future(self.model.complete(request))
        try:
            slow_mark = (getattr(self.model, "timeout", None) or 0) * SLOW_FRACTION
            if slow_mark and not await _answered_within(call, slow_mark):
                self.limit.slow(started)
            return await call
        finally:
            call.cancel()  # a no-op once answered; stops the request if the run is cancelled

    async def parsed(
        self, request: ModelRequest, parse: Callable[[ModelResponse], T], usage: Usage
    ) -> T:
        """A validated output, after at most one repair call; else :class:`Unscorable`."""
        response = await self.raw(request, usage)
        try:
            return parse(response)
        except ValueError as first:  # pydantic's ValidationError is a ValueError
            error = brief(first, 500)
        reply = Message(role="assistant", content=response.text)
        again = "Reply again with only the corrected JSON."
        ask = Message(role="user", content="Your reply did not validate against the required "
                      f"JSON schema:\n{error}\n{again}")  # fmt: skip
        repair = request.model_copy(update={"messages": request.messages + (reply, ask)})
        response = await self.raw(repair, usage)
        try:
            return parse(response)
        except ValueError as second:
            raise Unscorable(
                f"invalid judge output after one repair: {brief(second, 500)}"
            ) from None


async def _answered_within(call: asyncio.Future[Any], seconds: float) -> bool:
    """Whether ``call`` finished within ``seconds``; it goes on either way."""
    done, _ = await asyncio.wait({call}, timeout=seconds)
    return bool(done)


def _count(response: ModelResponse, *usages: Usage, cached: bool) -> None:
    for usage in usages:
        if cached:
            usage.cached_calls += 1
            continue
        usage.calls += 1
        usage.prompt_tokens += response.prompt_tokens
        usage.completion_tokens += response.completion_tokens
        usage.cost_usd += response.cost_usd
