"""The litellm backend against a local fake OpenAI server: no network, real HTTP."""

from __future__ import annotations

import asyncio

import pytest

from ragtriage.judge.api import ajudge_run
from ragtriage.judge.types import Outcome
from ragtriage.llm.calls import RetryPolicy
from ragtriage.llm.litellm_model import LiteLLMModel
from tests.support.fake_server import FakeOpenAI, claims_reply
from tests.support.fakes import answer_items


@pytest.fixture(autouse=True)
def _fake_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


_items = answer_items


def _run(model, items, **kw):
    fast = RetryPolicy(attempts=5, initial_s=0.01, max_wait_s=0.05)
    return asyncio.run(
        ajudge_run(items, model=model, strategy="claims", cache=None, retry=fast, **kw)
    )


def test_429_then_200_is_retried_and_scored():
    def script(body, n):
        return (
            (429, "rate limited")
            if n == 1
            else (
                200,
                claims_reply(["supported", "contradicted"]),
            )
        )

    with FakeOpenAI(script) as server:
        run = _run(LiteLLMModel("openai/fake-judge", api_base=server.base), _items(1))
    [result] = run.results
    assert result.outcome == Outcome.SCORED and result.score == 0.5
    assert len(server.requests) == 2 and result.usage.calls == 1
    assert result.usage.prompt_tokens == 100  # from the server's usage block
    fmt = server.requests[0]["response_format"]
    assert fmt["type"] == "json_schema" and "claims" in str(fmt["json_schema"]["schema"])
    assert "sk-test" not in result.model_dump_json()


def test_malformed_json_then_valid_after_repair():
    def script(body, n):
        return (
            (200, "{not json")
            if n == 1
            else (
                200,
                claims_reply(["supported"]),
            )
        )

    with FakeOpenAI(script) as server:
        run = _run(LiteLLMModel("openai/fake-judge", api_base=server.base), _items(1))
    assert run.results[0].outcome == Outcome.SCORED
    assert "did not validate" in server.requests[1]["messages"][-1]["content"]


def test_llama_cpp_server_json_mode_sends_schema_in_json_object():
    with FakeOpenAI(lambda body, n: (200, claims_reply(["supported"]))) as server:
        model = LiteLLMModel("openai/local", api_base=server.base, json_mode="json_object_schema")
        _run(model, _items(1))
    fmt = server.requests[0]["response_format"]
    assert fmt["type"] == "json_object" and fmt["schema"]["title"] == "ClaimsOutput"


def test_server_errors_exhausted_end_unscored():
    with FakeOpenAI(lambda body, n: (503, "overloaded")) as server:
        run = _run(LiteLLMModel("openai/fake-judge", api_base=server.base), _items(2))
    assert {r.outcome for r in run.results} == {Outcome.UNSCORED}
    assert all("gave up after 5 attempts" in r.reason for r in run.results)


def test_32_in_flight_against_the_server():
    with FakeOpenAI(lambda body, n: (200, claims_reply(["supported"])), delay=0.3) as server:
        run = _run(
            LiteLLMModel("openai/fake-judge", api_base=server.base), _items(96), concurrency=32
        )
    assert len(server.requests) == 96 and server.peak == 32
    assert all(r.outcome == Outcome.SCORED for r in run.results)


def test_sentence_strategy_through_litellm_uses_hard_verdicts():
    def script(body, n):
        sentence = body["messages"][-1]["content"].rsplit("Sentence:", 1)[1]
        return 200, '{"supported": %s}' % ("true" if "Alpha" in sentence else "false")

    items = [
        {
            "id": "a",
            "question": "q",
            "contexts": ["Alpha beta gamma."],
            "answer": "Alpha beta gamma. Delta is huge.",
        }
    ]
    with FakeOpenAI(script) as server:
        model = LiteLLMModel("openai/fake-judge", api_base=server.base)
        fast = RetryPolicy(attempts=2, initial_s=0.01, max_wait_s=0.05)
        run = asyncio.run(
            ajudge_run(items, model=model, strategy="sentences", cache=None, retry=fast)
        )
    [result] = run.results
    assert [c.probability for c in result.claims] == [1.0, 0.0]
    assert result.signals["min_sentence_prob"] == 0.0
    assert server.requests[0]["response_format"]["type"] == "json_schema"
