"""An OpenAI-compatible endpoint as it is: errors classified once, the JSON mode found
per endpoint and remembered, calls in flight adapted to timeouts (no real server)."""

from __future__ import annotations

import asyncio
import json

import pytest

from ragtriage.judge.api import ajudge_run
from ragtriage.judge.types import Outcome, Usage
from ragtriage.llm.base import (
    Message,
    ModelRequest,
    ModelResponse,
    ModelTimeoutError,
    PermanentModelError,
    TransientModelError,
    UnsupportedRequestError,
    cache_key,
)
from ragtriage.llm.cache import ResponseCache
from ragtriage.llm.calls import Caller, InFlightLimit, RetryPolicy
from ragtriage.llm.litellm_model import (
    LOCAL_TIMEOUT_S,
    REMOTE_TIMEOUT_S,
    LiteLLMModel,
    _classify,
    is_local_endpoint,
)
from tests.support.fake_server import FakeOpenAI, claims_reply
from tests.support.fakes import ScriptedModel, answer_items

FAST = RetryPolicy(attempts=6, initial_s=0.001, max_wait_s=0.01)
# What llama-cpp-python's server answers (HTTP 500) to a json_schema response_format.
LLAMA_REFUSAL = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
)


@pytest.fixture(autouse=True)
def _fake_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


_items = answer_items


def _run(model, items, cache=None, **kw):
    return asyncio.run(
        ajudge_run(items, model=model, strategy="claims", cache=cache, retry=FAST, **kw)
    )


def _error(name: str, status: int | None, message: str) -> Exception:
    exc = type(name, (Exception,), {})(message)
    exc.status_code = status
    return exc


# -- classification ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "status", "message", "kind"),
    [
        ("InternalServerError", 500, LLAMA_REFUSAL, UnsupportedRequestError),
        (
            "BadRequestError",
            400,
            "response_format json_schema is not supported",
            UnsupportedRequestError,
        ),
        (
            "UnsupportedParamsError",
            None,
            "does not support parameters: ['response_format']",
            UnsupportedRequestError,
        ),
        ("InternalServerError", 500, "1 validation error: field required", PermanentModelError),
        ("BadRequestError", 400, "context length exceeded", PermanentModelError),
        ("UnprocessableEntityError", 422, "bad body", PermanentModelError),
        ("NotFoundError", 404, "no such model", PermanentModelError),
        ("InternalServerError", 500, "Missing credentials", PermanentModelError),
        ("RateLimitError", 429, "slow down", TransientModelError),
        ("InternalServerError", 500, "CUDA out of memory, try again", TransientModelError),
        ("ServiceUnavailableError", 503, "overloaded", TransientModelError),
        ("APIConnectionError", None, "connection refused", TransientModelError),
        ("Timeout", 408, "Request timed out", ModelTimeoutError),
    ],
)
def test_errors_are_classified_once(name, status, message, kind):
    error = _classify(_error(name, status, message))
    assert type(error) is kind


def test_refused_format_is_not_retried_when_the_mode_is_given():
    with FakeOpenAI(lambda body, n: (500, LLAMA_REFUSAL)) as server:
        model = LiteLLMModel("openai/local", api_base=server.base, json_mode="json_schema")
        run = _run(model, _items(2))
    assert {r.outcome for r in run.results} == {Outcome.UNSCORED}
    assert all("model error" in r.reason and "response_format" in r.reason for r in run.results)
    assert len(server.requests) == 2  # one each: a permanent error, never retried


def test_validation_500_is_permanent():
    with FakeOpenAI(lambda body, n: (500, "1 validation error: messages: field required")) as s:
        run = _run(LiteLLMModel("openai/x", api_base=s.base, json_mode="json_object"), _items(1))
    assert run.results[0].outcome == Outcome.UNSCORED and len(s.requests) == 1


# -- the JSON mode, found once per endpoint ---------------------------------------------


def _llama_server(body, n):
    """Refuses json_schema (500) like llama-cpp-python; honours json_object."""
    if body.get("response_format", {}).get("type") == "json_schema":
        return 500, LLAMA_REFUSAL
    return 200, claims_reply(["supported", "not_in_context"])


def test_json_mode_falls_back_once_and_is_remembered(tmp_path):
    path = tmp_path / "cache.sqlite"
    with FakeOpenAI(_llama_server) as server:
        run = _run(LiteLLMModel("openai/local", api_base=server.base), _items(5), cache=path)
        formats = [r.get("response_format", {}).get("type") for r in server.requests]
        assert formats.count("json_schema") == 1  # tried once, before the run fanned out
        assert formats[1:] == ["json_object"] * 5
        assert all(r.outcome == Outcome.SCORED and r.score == 0.5 for r in run.results)
        assert run.fingerprint.params["json_mode"] == "json_object_schema"
        assert run.calls["json_mode"] == "json_object_schema"
        assert run.calls["json_modes_refused"][0].startswith("json_schema:")
        assert run.usage.calls == 5 and sum(r.usage.calls for r in run.results) == 5

        # A new run (a new model object) is served from the cache: no request at all.
        before = len(server.requests)
        again = _run(LiteLLMModel("openai/local", api_base=server.base), _items(5), cache=path)
        assert len(server.requests) == before
    assert again.usage.calls == 0 and again.usage.cached_calls == 5
    assert again.fingerprint == run.fingerprint
    assert [r.score for r in again.results] == [r.score for r in run.results]


def test_fallback_keys_equal_the_given_modes_keys():
    auto = LiteLLMModel("openai/local", api_base="http://h/v1")
    given = LiteLLMModel("openai/local", api_base="http://h/v1", json_mode="json_object_schema")
    request = ModelRequest(messages=(Message(role="user", content="hi"),), json_schema={})
    assert auto.params == {"api_base": "http://h/v1", "json_mode": "json_schema"}  # as before
    assert [p["json_mode"] for p in auto.shapes()] == [
        "json_schema",
        "json_object_schema",
        "json_object",
        "none",
    ]
    assert given.shapes() == []  # a given mode is never negotiated
    auto.adopt(auto.shapes()[1])
    assert cache_key(auto, request) == cache_key(given, request)


def test_falls_back_to_text_when_every_response_format_is_refused():
    def script(body, n):
        if "response_format" in body:
            return 400, "response_format is not supported by this server"
        return 200, claims_reply(["supported"])

    with FakeOpenAI(script) as server:
        run = _run(LiteLLMModel("openai/x", api_base=server.base), _items(3))
    assert all(r.outcome == Outcome.SCORED for r in run.results)
    assert run.calls["json_mode"] == "none" and len(run.calls["json_modes_refused"]) == 3
    assert len(server.requests) == 3 + 3  # three refusals, then one call per item


def test_concurrent_refusals_fall_back_one_step_each():
    """Refusals racing in from calls sent as the same mode move the mode down once."""
    model = LiteLLMModel("openai/x", api_base="http://h/v1")
    assert model._fall_back("json_schema", "r") and model._fall_back("json_schema", "r")
    assert model.json_mode == "json_object_schema" and len(model.refused) == 1


# -- calls in flight follow the endpoint ------------------------------------------------


def test_in_flight_limit_halves_once_per_round_and_grows_back():
    limit = InFlightLimit(8)
    limit.timed_out(started=0)
    limit.timed_out(started=0)  # a call of the same round: no second decrease
    assert limit.limit == 4 and limit.timeouts == 2
    limit.timed_out(started=1)
    assert limit.limit == 2
    for _ in range(2):
        limit.succeeded()
    assert limit.limit == 3
    limit.timed_out(started=2)
    limit.timed_out(started=3)
    limit.timed_out(started=4)
    assert limit.limit == 1  # never below one


def test_timeouts_lower_the_calls_in_flight_and_every_item_is_scored():
    """A server that serves 2 calls at a time and times out the rest."""
    good = '{"kind": "claims", "claims": [{"claim": "x", "verdict": "supported"}]}'
    starts: list[tuple[int, int]] = []  # (calls in flight at start, limit then)

    def script(request, n):
        if model.in_flight > 2:
            raise ModelTimeoutError("Timeout: Request timed out")
        return ModelResponse(text=good)

    model = ScriptedModel(script, delay=0.01)
    caller = Caller(model, ResponseCache(None), concurrency=8, retry=FAST)
    original = model.complete

    async def complete(request):
        starts.append((caller.limit.in_flight, caller.limit.limit))
        return await original(request)

    model.complete = complete  # type: ignore[method-assign]
    requests = [ModelRequest(messages=(Message(role="user", content=f"q{k}"),)) for k in range(24)]

    async def main():
        return await asyncio.gather(*(caller.raw(r, Usage()) for r in requests))

    responses = asyncio.run(main())
    assert all(r.text == good for r in responses)
    assert caller.limit.timeouts > 0 and caller.limit.limit < 8
    assert all(in_flight <= limit for in_flight, limit in starts)  # never over the limit
    # Once lowered, a retry waits for a slot: the server no longer sees 8 at once.
    first_timeout = next(i for i, (_, lim) in enumerate(starts) if lim < 8)
    assert max(f for f, _ in starts[first_timeout:]) <= 4
    assert caller.report()["timeouts"] == caller.limit.timeouts


def test_local_endpoints_get_a_long_timeout():
    assert is_local_endpoint("http://127.0.0.1:8765/v1") and is_local_endpoint("localhost:1/v1")
    assert not is_local_endpoint("https://api.openai.com/v1") and not is_local_endpoint(None)
    assert LiteLLMModel("openai/x", api_base="http://localhost:8000/v1").timeout == LOCAL_TIMEOUT_S
    assert LiteLLMModel("openai/x").timeout == REMOTE_TIMEOUT_S
    assert LiteLLMModel("openai/x", api_base="http://[::1]:80/v1", timeout=5).timeout == 5
    assert "timeout" not in LiteLLMModel("openai/x").params  # not part of any cache key


def test_mode_found_during_the_run_when_settling_fails():
    """The settling request meets a 429: the run goes on, falls back when refused, and its
    fingerprint names the mode found."""

    def script(body, n):
        return (429, "slow down") if n == 1 else _llama_server(body, n)

    with FakeOpenAI(script) as server:
        run = _run(LiteLLMModel("openai/local", api_base=server.base), _items(3))
    assert all(r.outcome == Outcome.SCORED for r in run.results)
    assert run.calls["json_mode"] == "json_object_schema"
    assert len(run.calls["json_modes_refused"]) == 1  # refusals racing in fall back once
    assert {r.fingerprint.params["json_mode"] for r in run.results} == {"json_object_schema"}
    assert run.fingerprint.params["json_mode"] == "json_object_schema"


@pytest.mark.parametrize(("slots", "most"), [(1, 1), (2, 2)])
def test_calls_in_flight_never_exceed_the_servers_slots(tmp_path, slots, most):
    """llama.cpp's server says how many requests it computes at once (``/props``); more
    would queue, time out while computed and be computed again on retry."""
    with FakeOpenAI(_llama_server, delay=0.05, slots=slots) as server:
        model = LiteLLMModel("openai/local", api_base=server.base)
        run = _run(model, _items(8), cache=tmp_path / "c.sqlite", concurrency=8)
        assert server.peak <= most and server.props_requests == 1
        assert run.calls["server_slots"] == slots and run.calls["max_in_flight"] == slots
        assert all(r.outcome == Outcome.SCORED for r in run.results)
        # an unchanged re-run is served from the cache: not even the slots are asked
        _run(
            LiteLLMModel("openai/local", api_base=server.base),
            _items(8),
            cache=tmp_path / "c.sqlite",
        )
        assert server.props_requests == 1


def test_a_server_that_does_not_say_keeps_the_configured_concurrency(tmp_path):
    with FakeOpenAI(_llama_server, delay=0.05) as server:  # /props answers 404
        run = _run(LiteLLMModel("openai/local", api_base=server.base), _items(8), concurrency=8)
        assert server.props_requests == 1 and run.calls["server_slots"] is None
        assert run.calls["max_in_flight"] == 8 and server.peak > 1


def _bodies(server) -> list[str]:
    """Each request as sent, JSON mode and all: a body seen twice was computed twice."""
    return [json.dumps(body, sort_keys=True) for body in server.requests]


@pytest.mark.parametrize(("timeout", "resent"), [(2.0, False), (0.25, True)])
def test_a_slow_call_is_awaited_not_sent_again(timeout, resent):
    """A one-slot server that does not say so queues 6 requests of 0.15 s each: calls past
    a quarter of the timeout lower the calls in flight but are still awaited, so no request
    is computed twice. Only a call past the timeout itself is abandoned and sent again.
    (0.25 s, not 0.3: with two in flight the second waits 0.3 s, a race with a 0.3 s
    timeout that failed 1 run in 6; at 0.25 s it times out in every run, 12 of 12.)"""
    with FakeOpenAI(_llama_server, delay=0.15, serial=True) as server:
        model = LiteLLMModel("openai/local", api_base=server.base, timeout=timeout)
        run = _run(model, _items(6), concurrency=8)
    assert all(r.outcome == Outcome.SCORED for r in run.results)
    assert run.calls["slow_calls"] > 0 and run.calls["in_flight_limit"] < 8
    bodies = _bodies(server)
    assert (len(set(bodies)) < len(bodies)) is resent
    assert (run.calls["timeouts"] > 0) is resent
