"""``router:FILE`` over two real llama.cpp servers: the calls of one run reach both.

Two ``python -m llama_cpp.server`` processes (one slot each) serve the embedded GGUF on
two ports; a router file names both as deployments of one group (``least-busy``).
``claims`` judges four graded answers through litellm's Router, as a user runs it: the
JSON mode is found (the servers refuse ``json_schema``), every item ends scored, each
server's own log shows it answered a share of the calls, and a second run is answered
from the cache without a request. Slow (minutes on two cores); CI runs it after
``scripts/setup.sh``.
"""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from ragtriage.judge.api import ajudge_run
from ragtriage.judge.types import Outcome
from tests.support.llama_server import chat_requests, gguf_or_skip, llama_server

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ITEMS = (
    "begin-wow-dev-00357",
    "begin-wow-test-00055",
    "begin-wow-test-01738",
    "begin-wow-test-00556",
)


def _items() -> list[dict]:
    rows = [json.loads(line) for line in (ROOT / "human_grades/begin_wow/grades.jsonl").open()]
    by_id = {r["id"]: r for r in rows}
    return [{k: by_id[i][k] for k in ("id", "question", "contexts", "answer")} for i in ITEMS]


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """Two servers' ``(base URL, log)``, one thread each (two cores)."""
    gguf = gguf_or_skip()
    folder = tmp_path_factory.mktemp("llama_servers")
    with ExitStack() as stack:
        logs = [folder / f"server{k}.log" for k in (1, 2)]
        bases = [stack.enter_context(llama_server(gguf, log, threads="1")) for log in logs]
        yield list(zip(bases, logs, strict=True))


def test_one_run_spreads_over_two_real_servers(servers, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-server-needs-no-key")
    rows = "".join(
        f"  - model_name: judge\n    litellm_params:\n"
        f"      model: openai/qwen-local\n      api_base: {base}\n"
        for base, _ in servers
    )
    config = tmp_path / "router.yaml"
    # least-busy: each call to the server with fewer in flight (shuffling could send all
    # five calls to one server once in sixteen runs)
    config.write_text("model_list:\n" + rows + "router_settings:\n  routing_strategy: least-busy\n")
    cache = tmp_path / "cache.sqlite"
    items = _items()

    def run():
        return asyncio.run(
            ajudge_run(items, judge=f"claims@router:{config}", cache=cache, concurrency=4)
        )

    started = time.perf_counter()
    first = run()
    seconds = time.perf_counter() - started
    counts = [chat_requests(log) for _, log in servers]
    print(
        f"\nrouter over 2 llama_cpp.servers: {len(items)} items, {seconds:.1f} s, "
        f"requests per server {counts}, {first.calls}"
    )
    reasons = {r.item_id: (r.outcome.value, r.reason) for r in first.results}
    assert all(r.outcome == Outcome.SCORED for r in first.results), reasons
    assert first.calls["json_mode"] == "json_object_schema"
    assert first.usage.calls == len(items)
    # every item's call and the one refused json_schema, and both servers took a share
    assert sum(counts) == len(items) + 1 and min(counts) >= 1, counts
    answered = first.calls["deployments_answered"]
    assert sorted(answered) == sorted(base for base, _ in servers)
    assert sum(answered.values()) == len(items)

    again = run()
    assert [chat_requests(log) for _, log in servers] == counts  # all from the cache
    assert again.usage.calls == 0 and again.usage.cached_calls == len(items)
    assert [r.score for r in again.results] == [r.score for r in first.results]
