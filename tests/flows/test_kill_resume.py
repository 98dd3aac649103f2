"""SIGKILL in the middle of judging 100 items, then re-run: nothing lost, nothing paid twice.

The judge runs as a real ``ragtriage judge`` subprocess against a slow fake server on
127.0.0.1. After the kill, every response that reached the client is in the SQLite cache;
the re-run asks the server only for the rest, and its output equals an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.support.fault_server import FaultServer

N_ITEMS = 100
KILL_AFTER = 40
FAKE_KEY = "sk-ragtriage-kill-test-0000"


def answers_file(path: Path) -> Path:
    rows = [
        {
            "id": f"a{i:03d}",
            "question": f"Question {i}?",
            "contexts": [f"Context number {i} says the value is {i * 7}."],
            "answer": f"The value for {i} is {i * 7}. It was measured in {1900 + i}.",
        }
        for i in range(N_ITEMS)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def judge_cmd(answers: Path, base: str, cache: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-c",
        "import sys; from ragtriage.cli.main import main; sys.exit(main())",
        "judge",
        "--answers",
        str(answers),
        "--judge",
        "openai/fake-judge",
        "--api-base",
        base,
        "--cache",
        str(cache),
        "--concurrency",
        "4",
        "-o",
        str(out),
        "--quiet",
    ]


def env() -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": FAKE_KEY}


def cached_rows(cache: Path) -> int:
    with sqlite3.connect(cache) as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        return sum(db.execute(f"select count(*) from {t}").fetchone()[0] for t in tables)


def comparable(path: Path) -> list[dict]:
    """Per-item results without usage (cache hits differ between runs by design) and without
    the fingerprint (its api_base names each fake server's random port)."""
    data = json.loads(path.read_text())
    results = data["results"] if isinstance(data, dict) else data
    return [{k: v for k, v in r.items() if k not in ("usage", "fingerprint")} for r in results]


def test_sigkill_mid_run_loses_nothing_and_repeats_no_answered_call(tmp_path):
    answers = answers_file(tmp_path / "answers.jsonl")
    with FaultServer(delay=0.05) as server:
        cache = tmp_path / "cache.sqlite"
        out = tmp_path / "judged.json"
        proc = subprocess.Popen(judge_cmd(answers, server.base, cache, out), env=env())
        deadline = time.time() + 120
        while server.answered < KILL_AFTER and time.time() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
        assert not out.exists()  # no half-written output
        first_requests, first_cached = server.requests, cached_rows(cache)
        assert KILL_AFTER - 4 <= first_cached < N_ITEMS  # replies in transit may be lost
        resumed = subprocess.run(judge_cmd(answers, server.base, cache, out), env=env())
        assert resumed.returncode == 0
        second_requests = server.requests - first_requests
    # every answer cached before the kill is served from the cache, never asked again
    assert second_requests == N_ITEMS - first_cached
    lost_in_flight = first_requests - first_cached
    assert 0 <= lost_in_flight <= 4  # at most the calls in flight when the process died

    with FaultServer(delay=0.0) as fresh:
        clean_out = tmp_path / "clean.json"
        clean = subprocess.run(
            judge_cmd(answers, fresh.base, tmp_path / "c2.sqlite", clean_out), env=env()
        )
        assert clean.returncode == 0
    assert comparable(out) == comparable(clean_out)
    results = comparable(out)
    assert len(results) == N_ITEMS and all(r["outcome"] == "scored" for r in results)
    (tmp_path / "figures.json").write_text(
        json.dumps(
            {
                "cached_before_kill": first_cached,
                "requests_before_kill": first_requests,
                "resume_requests": second_requests,
                "in_flight_lost": lost_in_flight,
            }
        )
    )
    print(
        f"\nkill/resume: {first_cached} cached before kill, {second_requests} requested on "
        f"resume, {lost_in_flight} in flight at the kill"
    )
