"""A sample whose retries run out is kept: an ``unscored`` sample that casts no vote, is
never cached, and is drawn again by the next run; never dropped, never a pass or a fail.

One answer, ``--samples 3`` at temperature 0.7 through litellm against the fake OpenAI
server, whose requests are numbered: the samples are drawn one after another, so the
script knows which sample each request belongs to."""

from __future__ import annotations

import asyncio

import pytest

from ragtriage.judge.api import ajudge_run
from ragtriage.judge.types import Outcome
from ragtriage.llm.calls import RetryPolicy
from ragtriage.llm.litellm_model import LiteLLMModel
from tests.support.fake_server import FakeOpenAI, claims_reply
from tests.support.fakes import answer_items

ATTEMPTS = 3


@pytest.fixture(autouse=True)
def _fake_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


def _script(failing: set[int]):
    def script(body, n):
        return (503, "overloaded") if n in failing else (200, claims_reply(["supported"]))

    return script


def _run(server, cache, stop_early=True):
    model = LiteLLMModel("openai/fake-judge", api_base=server.base, json_mode="json_schema")
    retry = RetryPolicy(attempts=ATTEMPTS, initial_s=0.01, max_wait_s=0.05)
    run = asyncio.run(
        ajudge_run(
            answer_items(1),
            model=model,
            strategy="claims",
            cache=cache,
            retry=retry,
            samples=3,
            temperature=0.7,
            stop_early=stop_early,
        )
    )
    return run


def test_an_exhausted_sample_is_kept_unscored_and_drawn_again_next_run(tmp_path):
    cache = tmp_path / "cache.sqlite"
    # request 1: sample 0; requests 2-4: sample 1's three attempts, all 503; 5: sample 2
    with FakeOpenAI(_script({2, 3, 4})) as server:
        first = _run(server, cache, stop_early=False)
        assert len(server.requests) == 1 + ATTEMPTS + 1
        server.script = _script(set())  # the same endpoint (its address is in the key), healthy
        again = _run(server, cache, stop_early=False)
        assert len(server.requests) == 1 + ATTEMPTS + 1 + 1  # only the failed sample again
    [result] = first.results
    kept = result.stability
    assert kept is not None and len(kept.samples) == 3
    assert [s.outcome for s in kept.samples] == [Outcome.SCORED, Outcome.UNSCORED, Outcome.SCORED]
    assert kept.samples[1].verdict == "unscored" and kept.samples[1].score is None
    assert kept.votes == {"faithful": 2}  # the failed sample casts no vote
    assert result.outcome == Outcome.SCORED and kept.verdict == "faithful"
    assert first.usage.calls == 2  # the failed sample paid for nothing and cached nothing
    samples = again.results[0].stability.samples
    assert [s.outcome for s in samples] == [Outcome.SCORED] * 3
    assert again.usage.calls == 1 and again.usage.cached_calls == 2


def test_failed_samples_that_leave_no_majority_make_the_answer_unstable_not_a_verdict(
    tmp_path,
):
    """Samples 1 and 2 fail: one vote of three is no majority, so the answer is neither
    passed nor failed but ``unstable``, with every sample in its record."""
    with FakeOpenAI(_script(set(range(2, 2 + 2 * ATTEMPTS)))) as server:
        run = _run(server, None)
        assert len(server.requests) == 1 + 2 * ATTEMPTS
    [result] = run.results
    assert result.outcome == Outcome.UNSTABLE and result.score is None
    assert [s.outcome for s in result.stability.samples] == [
        Outcome.SCORED,
        Outcome.UNSCORED,
        Outcome.UNSCORED,
    ]
    assert "no verdict of more than half of 3" in result.reason
