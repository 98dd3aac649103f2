"""Retries, the repair attempt, the cache (kill and resume) and concurrency bounds."""

from __future__ import annotations

import asyncio

import pytest

from ragtriage.judge.api import ajudge_run, judge_faithfulness
from ragtriage.judge.types import Outcome, Usage
from ragtriage.llm.base import (
    Message,
    ModelRequest,
    ModelResponse,
    TransientModelError,
)
from ragtriage.llm.cache import ResponseCache
from ragtriage.llm.calls import Caller, RetryPolicy, Unscorable
from tests.support.fakes import ScriptedModel, answer_items, choice

FAST = RetryPolicy(attempts=4, initial_s=0.001, max_wait_s=0.01)
REQ = ModelRequest(messages=(Message(role="user", content="hi"),))
GOOD = '{"kind": "claims", "claims": [{"claim": "x", "verdict": "supported"}]}'


_items = answer_items


def test_transient_errors_are_retried_then_succeed():
    def script(request, n):
        if n < 3:
            raise TransientModelError("429 slow down", retry_after=0)
        return ModelResponse(text="ok")

    model = ScriptedModel(script)
    caller = Caller(model, ResponseCache(None), retry=FAST)
    assert asyncio.run(caller.raw(REQ, Usage())).text == "ok"
    assert model.calls == 3 and caller.usage.calls == 1


def test_persistent_transient_errors_end_unscored_with_reason():
    model = ScriptedModel(lambda r, n: (_ for _ in ()).throw(TransientModelError("timeout")))
    caller = Caller(model, ResponseCache(None), retry=FAST)
    with pytest.raises(Unscorable, match="gave up after 4 attempts: timeout"):
        asyncio.run(caller.raw(REQ, Usage()))
    assert model.calls == 4


def test_invalid_output_gets_one_repair_with_the_error():
    seen = []

    def script(request, n):
        seen.append(request)
        return ModelResponse(text="not json" if n == 1 else GOOD)

    model = ScriptedModel(script)
    [result] = judge_faithfulness(_items(1), model=model, strategy="claims", cache=None)
    assert result.outcome == Outcome.SCORED and result.score == 1.0
    assert model.calls == 2
    assert "did not validate" in seen[1].messages[-1].content
    assert seen[1].messages[-2].content == "not json"


def test_invalid_output_twice_is_unscored_never_a_number():
    model = ScriptedModel(lambda r, n: ModelResponse(text='{"kind": "maybe"}'))
    [result] = judge_faithfulness(_items(1), model=model, strategy="claims", cache=None)
    assert result.outcome == Outcome.UNSCORED and result.score is None
    assert "after one repair" in result.reason and model.calls == 2


def test_unchanged_rerun_makes_zero_calls(tmp_path):
    path = tmp_path / "cache.sqlite"
    model = ScriptedModel(lambda r, n: choice(0.8), local=True)
    first = judge_faithfulness(_items(5), model=model, cache=path)
    assert model.calls == 5
    again = ScriptedModel(lambda r, n: choice(0.1), local=True)
    run = asyncio.run(ajudge_run(_items(5), model=again, cache=path))
    assert again.calls == 0 and run.usage.calls == 0 and run.usage.cached_calls == 5
    assert run.cache["hits"] == 5
    assert [r.score for r in run.results] == [r.score for r in first]
    assert all(r.usage.cached_calls == 1 for r in run.results)


def test_killed_run_resumes_without_paying_twice(tmp_path):
    """A run that dies after 3 answers: the re-run pays only for the other 4."""
    path = tmp_path / "cache.sqlite"

    class Killed(BaseException):
        pass

    def dies(request, n):
        if n > 3:
            raise Killed
        return choice(0.7)

    with pytest.raises(Killed):
        judge_faithfulness(_items(7), model=ScriptedModel(dies, local=True), cache=path)
    assert len(ResponseCache(path)) == 3
    resumed = ScriptedModel(lambda r, n: choice(0.7), local=True)
    run = asyncio.run(ajudge_run(_items(7), model=resumed, cache=path))
    assert resumed.calls == 4 and run.usage.cached_calls == 3
    assert all(r.outcome == Outcome.SCORED for r in run.results)


@pytest.mark.parametrize("bound", [1, 8, 32])
def test_concurrency_is_bounded(bound):
    model = ScriptedModel(lambda r, n: ModelResponse(text=GOOD), delay=0.02)
    results = judge_faithfulness(
        _items(80), model=model, strategy="claims", concurrency=bound, cache=None
    )
    assert len(results) == 80 and model.peak == bound


def test_local_models_judge_one_answer_at_a_time():
    model = ScriptedModel(lambda r, n: choice(0.6), local=True, delay=0.01)
    judge_faithfulness(_items(6), model=model, concurrency=8, cache=None)
    assert model.peak == 1


def test_a_cache_folder_holds_cache_sqlite(tmp_path, monkeypatch):
    """``--cache DIR`` and ``RAGTRIAGE_CACHE=DIR`` (how other tools' cache variables are set)
    mean ``DIR/cache.sqlite``; SQLite given the folder itself refused to open it."""
    from ragtriage.llm.cache import default_cache_path

    folder = tmp_path / "cache"
    folder.mkdir()
    assert ResponseCache(folder).path == folder / "cache.sqlite"
    assert (folder / "cache.sqlite").is_file()
    monkeypatch.setenv("RAGTRIAGE_CACHE", str(folder))
    assert default_cache_path() == folder / "cache.sqlite"
    monkeypatch.setenv("RAGTRIAGE_CACHE", str(tmp_path / "named.sqlite"))
    assert default_cache_path() == tmp_path / "named.sqlite"  # a file path stays as given
