"""A provider that fails for a stretch: retries within budget, then explicit ``unscored``.

The fault server on 127.0.0.1 injects 429 storms, 500/503s, connection resets and hung
requests. Items recover when the stretch ends; when it never ends, every item ends
``unscored`` with the reason, within a bounded time, never a hang and never a number.
"""

from __future__ import annotations

import time

from ragtriage.judge.api import judge_faithfulness
from tests.support.fault_server import FaultServer

ITEMS = [
    {
        "id": f"i{i}",
        "question": "q?",
        "contexts": [f"The value is {i}."],
        "answer": f"The value is {i}.",
    }
    for i in range(12)
]


def run(server: FaultServer, **options):
    return judge_faithfulness(
        ITEMS, model="openai/fake", api_base=server.base, cache=None, concurrency=4, **options
    )


def test_recovers_after_a_stretch_of_mixed_faults(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    faults = ["429", "429", "500", "503", "reset", "429", "reset", "500"]

    def plan(n: int) -> str:
        return faults[n - 1] if n <= len(faults) else "ok"

    with FaultServer(plan) as server:
        results = run(server)
        assert server.requests == len(ITEMS) + len(faults)  # each fault retried once
    assert [r.outcome.value for r in results] == ["scored"] * len(ITEMS)


def test_hung_requests_time_out_and_are_retried(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with FaultServer(lambda n: "hang" if n <= 2 else "ok") as server:
        started = time.perf_counter()
        results = run(server, timeout=1.0)
        elapsed = time.perf_counter() - started
    assert all(r.outcome.value == "scored" for r in results)
    assert elapsed < 20


def test_endless_storm_ends_unscored_with_reasons_not_a_hang(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with FaultServer(lambda n: "503") as server:
        started = time.perf_counter()
        results = run(server)
        elapsed = time.perf_counter() - started
        requests = server.requests
    assert all(r.outcome.value == "unscored" for r in results)
    assert all("gave up after" in r.reason and r.score is None for r in results)
    # the retry budget: 6 attempts per call, and the one attempt that settles the JSON mode
    assert requests == len(ITEMS) * 6 + 1
    assert elapsed < 60
