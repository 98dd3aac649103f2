"""Repeated samples (``--samples``): the sequential stop, the vote, the cache per sample.

The judges here are simulated: a scripted model whose verdict on a request flips with a
known probability, drawn from a seed made of the request and its sample index (so a
sample is the same on every run, as the embedded model's seeded samples are)."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import random

import pytest

from ragtriage.errors import InputError
from ragtriage.judge.api import ajudge_run
from ragtriage.judge.samples import decided
from ragtriage.judge.types import JudgeResult, Outcome
from ragtriage.llm.base import ModelRequest, ModelResponse
from ragtriage.llm.cache import ResponseCache
from tests.support.fakes import ScriptedModel, answer_items, choice


def _outcome(votes: list[str], limit: int) -> str | None:
    """The verdict of all ``limit`` samples: more than half of them, else None."""
    counted = [v for v in votes if v != "unscored"]
    for v in set(counted):
        if 2 * counted.count(v) > limit:
            return v
    return None


@pytest.mark.parametrize("limit", range(1, 8))
def test_stop_rule_stops_when_it_may_and_never_when_it_must_not(limit):
    """Every sequence of votes of every length: ``decided`` says stop exactly when all
    completions to ``limit`` samples give the same outcome."""
    kinds = ("faithful", "unfaithful", "unscored")
    for drawn in range(limit + 1):
        for prefix in itertools.product(kinds, repeat=drawn):
            counts: dict[str, int] = {}
            for v in prefix:
                if v != "unscored":
                    counts[v] = counts.get(v, 0) + 1
            ends = {
                _outcome([*prefix, *rest], limit)
                for rest in itertools.product(kinds, repeat=limit - drawn)
            }
            from collections import Counter

            assert decided(Counter(counts), drawn, limit) == (len(ends) == 1), (prefix, limit)


def flipping_model(flip: dict[str, float]) -> ScriptedModel:
    """P(true) 0.9 or, with probability ``flip[answer]``, 0.1; seeded by request + sample."""

    def script(request: ModelRequest, _n: int) -> ModelResponse:
        text = request.messages[-1].content
        key = next(k for k in flip if k in text)
        blob = f"{text}|{request.sample}|{request.temperature}".encode()
        rng = random.Random(int(hashlib.sha256(blob).hexdigest()[:12], 16))
        return choice(0.1 if rng.random() < flip[key] else 0.9)

    return ScriptedModel(script)


def by_prob(result: JudgeResult) -> str:
    if result.outcome != Outcome.SCORED:
        return result.outcome.value
    return "faithful" if result.signals["min_sentence_prob"] >= 0.5 else "unfaithful"


def _run(items, model, cache, samples, **kw):
    return asyncio.run(
        ajudge_run(items, model, "sentences", 4, cache, samples=samples, verdict=by_prob, **kw)
    )


def test_a_judge_that_agrees_with_itself_costs_a_majority_not_k():
    items = answer_items(6)
    model = flipping_model({f"number {k}": 0.0 for k in range(6)})
    run = _run(items, model, None, 5)
    assert model.calls == 6 * 3  # 3 of 5 agree: the rest cannot change the verdict
    for r in run.results:
        assert r.outcome == Outcome.SCORED and r.stability is not None
        assert r.stability.votes == {"faithful": 3} and r.stability.flip_rate == 0.0
        assert r.stability.stopped_early and r.stability.flip_high > 0.0
    assert run.usage.calls == 18


def test_a_flaky_judge_draws_more_and_reports_its_flip_rate():
    items = answer_items(40)
    model = flipping_model({f"number {k}": 0.3 for k in range(40)})
    run = _run(items, model, None, 7)
    drawn = [len(r.stability.samples) for r in run.results]
    assert min(drawn) == 4 and max(drawn) > 4 and model.calls == sum(drawn)
    flips = [r.stability.flip_rate for r in run.results]
    assert 0.1 < sum(flips) / len(flips) < 0.4  # about the simulated 0.3
    for r in run.results:
        s = r.stability
        assert 2 * max(s.votes.values()) > 7  # odd K, no failures: always a verdict
        assert s.flip_low <= s.flip_rate <= s.flip_high


def test_no_majority_is_unstable_never_pass_or_fail():
    """K = 2 and a judge that flips half the time: a 1-1 split has no verdict."""
    items = answer_items(30)
    model = flipping_model({f"number {k}": 0.5 for k in range(30)})
    run = _run(items, model, None, 2)
    unstable = [r for r in run.results if r.outcome == Outcome.UNSTABLE]
    assert unstable and len(unstable) < 30
    for r in unstable:
        assert r.score is None and r.stability.verdict is None
        assert r.stability.votes == {"faithful": 1, "unfaithful": 1}
        assert "no verdict of more than half of 2 samples" in r.reason


def test_a_larger_k_only_makes_the_new_calls(tmp_path):
    items = answer_items(20)
    flip = {f"number {k}": 0.35 for k in range(20)}
    cache = ResponseCache(tmp_path / "c.sqlite")
    try:
        small_model = flipping_model(flip)
        small = _run(items, small_model, cache, 3)
        again = flipping_model(flip)
        rerun = _run(items, again, cache, 3)
        assert again.calls == 0 and rerun.usage.cached_calls == small_model.calls
        assert [r.stability for r in rerun.results] == [r.stability for r in small.results]
        large_model = flipping_model(flip)
        large = _run(items, large_model, cache, 9)
    finally:
        cache.close()
    fresh = flipping_model(flip)
    uncached = _run(items, fresh, None, 9)
    # the samples drawn at K=3 are reused: only the samples beyond them are new calls
    reused = sum(
        min(len(a.stability.samples), len(b.stability.samples))
        for a, b in zip(small.results, large.results, strict=True)
    )
    assert large_model.calls == fresh.calls - reused
    assert large.usage.cached_calls == reused
    # and the same samples: K=9 from the cache equals K=9 from scratch
    assert [r.stability for r in large.results] == [r.stability for r in uncached.results]


def test_temperature_is_in_every_sample_request_and_key():
    seen: list[tuple[int, float]] = []

    def script(request: ModelRequest, _n: int) -> ModelResponse:
        seen.append((request.sample, request.temperature))
        return choice(0.9)

    model = ScriptedModel(script)
    _run(answer_items(1), model, None, 3, temperature=0.7)
    assert seen == [(0, 0.7), (1, 0.7)]


def test_samples_that_cannot_differ_are_refused():
    class Greedy(ScriptedModel):
        deterministic = True

    with pytest.raises(InputError, match="temperature above 0"):
        _run(answer_items(1), Greedy(lambda r, n: choice(0.9)), None, 3)
    with pytest.raises(InputError, match="uses no model"):
        asyncio.run(ajudge_run(answer_items(1), None, "lexical", cache=None, samples=3))
    with pytest.raises(InputError, match="1 to 100"):
        _run(answer_items(1), flipping_model({"number": 0.0}), None, 0)


def test_the_first_sample_keeps_the_key_it_had_before_samples():
    from ragtriage.llm.base import Message, cache_key

    model = ScriptedModel(lambda r, n: choice(0.9))
    request = ModelRequest(messages=(Message(role="user", content="x"),))
    keys = {cache_key(model, request.model_copy(update={"sample": i})) for i in range(3)}
    assert cache_key(model, request.model_copy(update={"sample": 0})) == cache_key(model, request)
    assert len(keys) == 3
    # the key before samples existed: the request without the field
    import hashlib
    import json

    dumped = request.model_dump(mode="json")
    del dumped["sample"]
    blob = json.dumps(
        {"model": model.name, "params": model.params, "request": dumped},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    assert cache_key(model, request) == hashlib.sha256(blob.encode()).hexdigest()
