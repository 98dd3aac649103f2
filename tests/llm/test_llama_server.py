"""The capable-judge path against a real OpenAI-compatible server, as a user runs it.

llama-cpp-python's own server (``python -m llama_cpp.server``, one slot) serves the
embedded GGUF on this machine; ``claims`` runs through ``openai/...`` with ``api_base``
at it, through the cache and the retry policy. The server refuses the default
``json_schema`` response_format with an HTTP 500, so the run must find the JSON mode
(falling back once, not retrying), queue its calls on the one slot without timing out,
score every item, and a second run must be answered from the cache without a request.
Slow (a minute or a few on two cores); CI runs it after ``scripts/setup.sh``.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest

from ragtriage.judge.api import ajudge_run
from ragtriage.judge.types import Outcome
from tests.support.llama_server import chat_requests, gguf_or_skip, llama_server

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# Two short graded answers that assert something (so the judge has claims to score).
ITEMS = ("begin-wow-dev-00357", "begin-wow-test-00055")


def _items() -> list[dict]:
    rows = [json.loads(line) for line in (ROOT / "human_grades/begin_wow/grades.jsonl").open()]
    by_id = {r["id"]: r for r in rows}
    return [{k: by_id[i][k] for k in ("id", "question", "contexts", "answer")} for i in ITEMS]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``(base URL, server log)`` of a llama_cpp.server on a free port; killed at the end."""
    gguf = gguf_or_skip()
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    threads = os.environ.get("RAGTRIAGE_THREADS", "2")
    with llama_server(gguf, log, threads) as base:
        yield base, log


def test_claims_through_llama_cpp_server_end_to_end(server, tmp_path, monkeypatch):
    base, log = server
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-server-needs-no-key")
    cache = tmp_path / "cache.sqlite"
    items = _items()

    def run():
        return asyncio.run(
            ajudge_run(
                items, model="openai/qwen-local", strategy="claims", api_base=base, cache=cache
            )
        )

    started = time.perf_counter()
    first = run()
    seconds = time.perf_counter() - started
    print(
        f"\nllama_cpp.server claims run: {len(items)} items, {seconds:.1f} s, "
        f"{first.usage.calls} calls, {chat_requests(log)} requests, "
        f"tokens {first.usage.prompt_tokens}+{first.usage.completion_tokens}, {first.calls}"
    )
    reasons = {r.item_id: (r.outcome.value, r.reason) for r in first.results}
    assert all(r.outcome == Outcome.SCORED for r in first.results), reasons
    assert all(r.score is not None and 0.0 <= r.score <= 1.0 for r in first.results)
    # The JSON mode was found: json_schema refused once, the schema sent in json_object.
    assert first.calls["json_mode"] == "json_object_schema"
    assert [m.split(":", 1)[0] for m in first.calls["json_modes_refused"]] == ["json_schema"]
    assert first.fingerprint.params["json_mode"] == "json_object_schema"
    assert first.calls["timeouts"] == 0  # queued on the one slot, never abandoned
    assert first.usage.calls == len(items) == first.cache["writes"]
    requests = chat_requests(log)
    assert requests == len(items) + 1  # the items' calls and the one refused json_schema

    again = run()
    assert chat_requests(log) == requests  # not one request: all from the cache
    assert again.usage.calls == 0 and again.usage.cached_calls == len(items)
    assert again.fingerprint == first.fingerprint
    assert [r.score for r in again.results] == [r.score for r in first.results]
