"""A provider's rate limits, as its response headers say them, shared by every call.

The headers and what the judge does with them are in docs/judges.md ('Rate limits').
litellm hands them over in the response's ``_hidden_params["additional_headers"]`` (the
reset ones prefixed ``llm_provider-``); an error carries the raw headers.
:class:`RateLimits` sets a ceiling on the calls in flight (the requests left, or the
tokens left over the last call's tokens, until the window resets) and a pause for every
call when nothing is left or a 429 (or 5xx) says ``Retry-After``: one call's 429 holds them all,
as sending the others into the same wall only earns more 429s. The clock is injectable
(``now``) so the rules are tested without sleeping.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

__all__ = ["RateLimits", "RateWindow", "parse_reset", "read_headers", "retry_after_s"]

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_S = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
# the header names litellm passes on, with and without its ``llm_provider-`` prefix
_PREFIXES = ("", "llm_provider-")
_RESET = {
    "requests": ("x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset"),
    "tokens": ("x-ratelimit-reset-tokens", "anthropic-ratelimit-tokens-reset"),
}


def parse_reset(value: str, wall: float | None = None) -> float | None:
    """Seconds until a window resets: ``"6m0s"``, ``"1h2m3.5s"``, ``"20ms"``, ``"1.5"``
    (seconds) or an ISO timestamp (Anthropic); ``None`` for anything else."""
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _DURATION.findall(text)
    if parts and "".join(n + u for n, u in parts) == text:
        return sum(float(n) * _UNIT_S[u] for n, u in parts)
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if wall is None else wall))


def _get(headers: Mapping[str, str], name: str) -> str | None:
    lowered = {k.lower(): v for k, v in headers.items()}
    for prefix in _PREFIXES:
        if (value := lowered.get(prefix + name)) is not None:
            return str(value)
    return None


def _number(headers: Mapping[str, str], name: str) -> float | None:
    """The header's number; ``None`` when absent or not a number."""
    value = _get(headers, name)
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _whole(value: float | None) -> int | None:
    """A count left; ``None`` for none or for inf/nan (no count: int() would raise)."""
    return None if value is None or not math.isfinite(value) else int(value)


@dataclass(frozen=True)
class RateWindow:
    """What one response's headers say is left of the provider's window."""

    requests: int | None = None  # requests left
    tokens: int | None = None  # tokens left
    requests_reset_s: float | None = None  # seconds until the request count resets
    tokens_reset_s: float | None = None

    @property
    def empty(self) -> bool:
        return self.requests is None and self.tokens is None


def read_headers(headers: Mapping[str, str] | None) -> RateWindow:
    """The rate-limit part of a response's headers (absent ones are ``None``)."""
    if not headers:
        return RateWindow()
    resets = {}
    for kind, names in _RESET.items():
        values = (_get(headers, n) for n in names)
        resets[kind] = next((s for v in values if v and (s := parse_reset(v)) is not None), None)
    return RateWindow(
        requests=_whole(_number(headers, "x-ratelimit-remaining-requests")),
        tokens=_whole(_number(headers, "x-ratelimit-remaining-tokens")),
        requests_reset_s=resets["requests"],
        tokens_reset_s=resets["tokens"],
    )


def retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    """How long the server asked to wait: ``retry-after-ms``, ``retry-after`` (seconds or
    an HTTP date is not read: seconds only), else the reset of an exhausted window."""
    if not headers:
        return None
    if (ms := _number(headers, "retry-after-ms")) is not None:
        return max(0.0, ms / 1000.0)
    if (seconds := _number(headers, "retry-after")) is not None:
        return max(0.0, seconds)
    window = read_headers(headers)
    if window.requests == 0 and window.requests_reset_s is not None:
        return window.requests_reset_s
    if window.tokens == 0 and window.tokens_reset_s is not None:
        return window.tokens_reset_s
    return None


# With nothing left and no reset given, wait this long rather than not at all.
UNKNOWN_RESET_S = 1.0


@dataclass
class RateLimits:
    """The ceiling and the pause the provider's headers set (see the module)."""

    now: Callable[[], float] = time.monotonic
    ceiling: int | None = None  # most calls in flight the window allows; None: no limit
    ceiling_until: float = 0.0  # when the window resets and the ceiling lifts (0: never)
    paused_until: float = 0.0
    tokens_per_call: int = 0  # the last call's prompt + completion tokens
    pauses: int = 0  # how often all calls were held
    lowest_requests: int | None = None  # the fewest requests left any response reported
    lowest_tokens: int | None = None
    seen: bool = False  # any response carried rate-limit headers

    def observe(self, headers: Mapping[str, str] | None, tokens: int = 0) -> None:
        """After a response: its headers set the ceiling (or a pause when nothing is left)."""
        if tokens > 0:
            self.tokens_per_call = tokens
        window = read_headers(headers)
        if window.empty:
            return
        self.seen = True
        self.lowest_requests = _least(self.lowest_requests, window.requests)
        self.lowest_tokens = _least(self.lowest_tokens, window.tokens)
        caps: list[tuple[int, float | None]] = []
        if window.requests is not None:
            caps.append((window.requests, window.requests_reset_s))
        if window.tokens is not None:
            per_call = max(1, self.tokens_per_call)
            caps.append((window.tokens // per_call, window.tokens_reset_s))
        allowed, reset = min(caps, key=lambda c: c[0])
        now = self.now()
        if allowed <= 0:
            self.pause(UNKNOWN_RESET_S if reset is None else reset)
            allowed = 1
        self.ceiling = allowed
        self.ceiling_until = 0.0 if reset is None else now + reset

    def pause(self, seconds: float) -> None:
        """Hold every call for ``seconds`` (a 429's ``Retry-After``); pauses never shorten."""
        if seconds <= 0:
            return
        until = self.now() + seconds
        if until > self.paused_until:
            if self.paused_until <= self.now():
                self.pauses += 1
            self.paused_until = until

    def pause_left(self) -> float:
        """Seconds every call must still wait (0: none)."""
        return max(0.0, self.paused_until - self.now())

    def cap(self) -> int | None:
        """The most calls in flight the window allows now (``None``: no ceiling)."""
        if self.ceiling is None:
            return None
        if self.ceiling_until and self.now() >= self.ceiling_until:
            self.ceiling = None  # the window has reset
            return None
        return max(1, self.ceiling)

    def report(self) -> dict[str, int | float | None]:
        """For the run's record: what the headers said, and how often all calls waited."""
        return {
            "rate_limit_headers": self.seen,
            "rate_limit_pauses": self.pauses,
            "lowest_remaining_requests": self.lowest_requests,
            "lowest_remaining_tokens": self.lowest_tokens,
        }


def _least(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else min(a, b)
