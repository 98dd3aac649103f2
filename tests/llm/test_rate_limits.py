"""The provider's rate-limit headers bound the calls in flight; a 429's Retry-After (or a
window with nothing left) holds every call, not only the refused one.

The rules on a fake clock first, then through litellm against the fake OpenAI server on
127.0.0.1, which sends the headers OpenAI sends (``x-ratelimit-remaining-requests``,
``x-ratelimit-reset-requests: 6m0s``, ``retry-after``) and records when each request
arrived and was answered."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from ragtriage.judge.api import ajudge_run
from ragtriage.judge.types import Outcome
from ragtriage.llm.calls import RetryPolicy
from ragtriage.llm.litellm_model import LiteLLMModel
from ragtriage.llm.ratelimit import RateLimits, parse_reset, read_headers, retry_after_s
from tests.support.fake_server import FakeOpenAI, claims_reply
from tests.support.fakes import answer_items


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("6m0s", 360.0), ("1h2m3.5s", 3723.5), ("20ms", 0.02), ("1.5", 1.5), ("0s", 0.0)],
)
def test_reset_durations_as_providers_write_them(text, seconds):
    assert parse_reset(text) == pytest.approx(seconds)


def test_reset_timestamp_and_nonsense():
    wall = datetime(2026, 1, 1, tzinfo=UTC)
    later = (wall + timedelta(seconds=30)).isoformat().replace("+00:00", "Z")
    assert parse_reset(later, wall=wall.timestamp()) == pytest.approx(30.0)
    assert parse_reset("soon") is None and parse_reset("5m-3s") is None


def test_headers_as_litellm_passes_them_on():
    """litellm copies remaining-* to plain names; reset-* only as ``llm_provider-``."""
    headers = {
        "x-ratelimit-remaining-requests": "3",
        "llm_provider-x-ratelimit-remaining-tokens": "999",
        "llm_provider-x-ratelimit-reset-requests": "6m0s",
        "llm_provider-x-ratelimit-reset-tokens": "20ms",
    }
    window = read_headers(headers)
    assert (window.requests, window.tokens) == (3, 999)
    assert window.requests_reset_s == 360.0 and window.tokens_reset_s == pytest.approx(0.02)
    assert read_headers({"content-type": "x"}).empty
    # a count that is no number, or no finite one, is no count (int(inf) would raise)
    odd = {"x-ratelimit-remaining-requests": "inf", "x-ratelimit-remaining-tokens": "nan"}
    assert read_headers(odd).empty
    assert read_headers({"x-ratelimit-remaining-tokens": "12.7"}).tokens == 12


def test_retry_after_from_the_headers_a_429_carries():
    assert retry_after_s({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_s({"Retry-After": "2"}) == 2.0
    empty = {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1m"}
    assert retry_after_s(empty) == 60.0
    assert retry_after_s({"x-ratelimit-remaining-requests": "5"}) is None


def test_ceiling_follows_requests_and_tokens_left_and_lifts_at_reset():
    clock = Clock()
    rate = RateLimits(now=clock)
    assert rate.cap() is None
    rate.observe({"x-ratelimit-remaining-requests": "40"}, tokens=100)
    assert rate.cap() == 40
    # 250 tokens left at 100 a call: two calls fit, though 40 requests are left
    rate.observe(
        {
            "x-ratelimit-remaining-requests": "39",
            "x-ratelimit-remaining-tokens": "250",
            "x-ratelimit-reset-tokens": "2s",
        },
        tokens=100,
    )
    assert rate.cap() == 2 and rate.pause_left() == 0
    clock.t += 2.5  # the token window reset
    assert rate.cap() is None
    report = rate.report()
    assert report["lowest_remaining_requests"] == 39 and report["lowest_remaining_tokens"] == 250


def test_nothing_left_pauses_every_call_until_the_reset():
    clock = Clock()
    rate = RateLimits(now=clock)
    rate.observe({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "3s"})
    assert rate.pause_left() == pytest.approx(3.0) and rate.cap() == 1
    rate.pause(1.0)  # a shorter Retry-After never shortens the pause
    assert rate.pause_left() == pytest.approx(3.0)
    clock.t += 3.0
    assert rate.pause_left() == 0 and rate.report()["rate_limit_pauses"] == 1


@pytest.fixture(autouse=True)
def _fake_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


def _ok(body, n):
    return 200, claims_reply(["supported"])


def _run(server, n_items, concurrency=8, json_mode=None):
    model = LiteLLMModel("openai/fake-judge", api_base=server.base, json_mode=json_mode)
    fast = RetryPolicy(attempts=5, initial_s=0.01, max_wait_s=5.0)
    return asyncio.run(
        ajudge_run(
            answer_items(n_items),
            model=model,
            strategy="claims",
            cache=None,
            retry=fast,
            concurrency=concurrency,
        )
    )


@pytest.mark.parametrize(
    "headers",
    [
        {"x-ratelimit-remaining-requests": "2", "x-ratelimit-reset-requests": "60s"},
        # the fake's usage block says 120 tokens a call: 300 left make room for two
        {"x-ratelimit-remaining-tokens": "300", "x-ratelimit-reset-tokens": "60s"},
    ],
    ids=["requests-left", "tokens-left"],
)
def test_calls_in_flight_follow_what_the_window_has_left(headers):
    """The first call (the one that settles the JSON mode, kept for its item) reads the
    headers; every later call keeps within them. Without them the same run sends 8 at
    once."""
    with FakeOpenAI(_ok, delay=0.2, headers=lambda n, status: headers) as server:
        run = _run(server, 16)
    assert all(r.outcome == Outcome.SCORED for r in run.results)
    assert len(server.requests) == 16 and server.peak == 2
    assert run.calls["rate_limit_headers"] is True
    with FakeOpenAI(_ok, delay=0.2) as control:
        free = _run(control, 16)
    assert control.peak > 2 and free.calls["rate_limit_headers"] is False  # 8 when idle


@pytest.mark.parametrize(
    "refusal",
    [
        (429, {"retry-after": "2.0"}),
        (200, {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "2s"}),
    ],
    ids=["429-retry-after", "window-empty"],
)
def test_one_refusal_holds_every_call_until_the_time_it_names(refusal):
    """Request 9 is answered with a 429 and ``Retry-After: 2`` (or says nothing is left
    until a reset in 2 s): after a grace of 0.5 s (calls the client sent before it read
    the refusal), no request arrives until the 2 s are over, though 4 calls were in flight
    and 31 items wait (without the pause, calls of 0.2 s on 4 slots keep arriving all
    through it); then every item is scored, none lost."""
    status, sent = refusal
    at, grace = 9, 0.5

    def script(body, n):
        return (status, "slow down") if n == at and status != 200 else _ok(body, n)

    def headers(n, code):
        return sent if n == at else {"x-ratelimit-remaining-requests": "50"}

    with FakeOpenAI(script, delay=0.2, headers=headers) as server:
        run = _run(server, 40, concurrency=4, json_mode="json_schema")
    refused_at = server.times[at - 1][1]
    held = [a - refused_at for a, _ in server.times if grace < a - refused_at < 1.95]
    assert held == [], held
    assert any(a - refused_at >= 1.95 for a, _ in server.times)
    assert all(r.outcome == Outcome.SCORED for r in run.results)
    assert len(server.requests) == 40 + (status == 429)
    assert run.calls["rate_limit_pauses"] == 1
