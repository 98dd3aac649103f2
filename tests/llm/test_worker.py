"""The embedded model's worker process: same answers as in-process, crashes made clear.

These run a real child process with a stand-in engine (``fake_engine.py``), so they need
neither llama.cpp nor the model; ``test_local_model.py`` runs the real thing.
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

import pytest

from ragtriage.errors import EXIT_INPUT
from ragtriage.llm.base import Message, ModelRequest, PermanentModelError
from ragtriage.llm.worker import ModelCrashed, WorkerProcess, crash_message
from tests.support.fake_engine import FakeEngine

ROOT = Path(__file__).resolve().parents[2]
ENGINE = "tests.support.fake_engine:FakeEngine"


@pytest.fixture
def fake_env(monkeypatch):
    monkeypatch.setenv("RAGTRIAGE_WORKER_ENGINE", ENGINE)
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    monkeypatch.delenv("FAKE_ENGINE_CRASH_AFTER", raising=False)
    return monkeypatch


def _request(text: str, mode: str = "choice") -> ModelRequest:
    return ModelRequest(
        messages=(Message(role="user", content=text),),
        mode=mode,
        choices=("true", "false") if mode == "choice" else (),
    )


def test_worker_answers_as_the_engine_does_in_process(fake_env):
    worker = WorkerProcess(n_threads=1, n_ctx=512)
    try:
        requests = [_request(f"sentence {i}") for i in range(5)] + [_request("x", "text")]
        remote = [worker.complete(r) for r in requests]
        pid = worker.pid
        assert worker.complete(requests[0]) == remote[0] and worker.pid == pid  # reused
    finally:
        worker.close()
    local = FakeEngine(n_threads=1, n_ctx=512)
    assert remote == [local.complete(r) for r in requests]
    assert "AVX2 = 1" in worker.system_info


def test_engine_errors_come_back_as_permanent_errors(fake_env):
    fake_env.setenv("RAGTRIAGE_WORKER_ENGINE", "tests.llm.test_worker:BrokenEngine")
    worker = WorkerProcess(n_threads=1, n_ctx=512)
    try:
        with pytest.raises(PermanentModelError, match="RuntimeError: prompt too long"):
            worker.complete(_request("a"))
        assert worker.hello()["ok"]  # the worker survives one item's failure
    finally:
        worker.close()


class BrokenEngine(FakeEngine):
    def complete(self, request):
        raise RuntimeError("prompt too long")


def test_a_native_crash_is_a_clear_error_and_later_calls_do_not_restart(fake_env):
    fake_env.setenv("FAKE_ENGINE_CRASH_AFTER", "2")
    worker = WorkerProcess(n_threads=1, n_ctx=512)
    worker.complete(_request("one"))
    worker.complete(_request("two"))
    with pytest.raises(ModelCrashed) as caught:
        worker.complete(_request("three"))
    message = str(caught.value)
    assert "died of SIGSEGV" in message and "scripts/setup.sh --local --rebuild" in message
    assert "AVX2 = 1" in message and "resume" in message
    assert caught.value.exit_code == EXIT_INPUT
    with pytest.raises(ModelCrashed):
        worker.complete(_request("four"))


def test_crash_message_names_oom_kills_without_the_rebuild_advice():
    message = crash_message(-signal.SIGKILL, 42, "choice", "", "")
    assert "SIGKILL" in message and "out of memory" in message and "rebuild" not in message


def _answers(path: Path, n: int) -> Path:
    rows = [
        {
            "id": f"a{i}",
            "question": "q?",
            "contexts": [f"The tower {i} was completed in 18{i:02d} in Paris."],
            "answer": f"The tower {i} was completed in 18{i:02d}. It is in Paris.",
        }
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _judge(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ragtriage.cli.main", "judge", "--answers"]
    args = [str(tmp_path / "a.jsonl"), "-o", str(tmp_path / "out.json"), "--concurrency", "1"]
    args += ["--cache", str(tmp_path / "c.sqlite"), "--max-sentences", "0"]
    args += ["--all-signals"]  # the shipped rule reads no model signal: without it, no worker
    return subprocess.run(
        command + args, capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path
    )


def _rows(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]


def test_cli_killed_worker_exit_2_clear_message_and_no_cached_row_lost(fake_env, tmp_path):
    _answers(tmp_path / "a.jsonl", 4)
    env = {**os.environ, "FAKE_ENGINE_CRASH_AFTER": "3"}
    crashed = _judge(tmp_path, env)
    assert crashed.returncode == EXIT_INPUT, crashed.stderr
    assert "Traceback" not in crashed.stderr
    assert "died of SIGSEGV" in crashed.stderr and "resume" in crashed.stderr
    assert _rows(tmp_path / "c.sqlite") == 3  # every answer before the crash was kept
    assert not (tmp_path / "out.json").exists()

    env.pop("FAKE_ENGINE_CRASH_AFTER")
    resumed = _judge(tmp_path, env)
    assert resumed.returncode == 0, resumed.stderr
    usage = json.loads((tmp_path / "out.json").read_text())["usage"]
    assert usage["cached_calls"] == 3 and usage["calls"] == 8 - 3


class SlowEngine(FakeEngine):
    """Answers after a minute: the worker is mid-generation when its parent dies."""

    def complete(self, request: ModelRequest):
        time.sleep(60)
        return super().complete(request)


PARENT = """
import sys, threading, time
from ragtriage.llm.base import Message, ModelRequest
from ragtriage.llm.worker import WorkerProcess
worker = WorkerProcess(n_threads=1, n_ctx=512)
request = ModelRequest(messages=(Message(role="user", content="x"),), mode="text")
threading.Thread(target=worker.complete, args=(request,), daemon=True).start()
while worker.pid is None:  # the child starts with the first request
    time.sleep(0.05)
print(worker.pid, flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_a_killed_parent_takes_its_busy_worker_with_it(fake_env):
    """SIGKILL/SIGTERM to ``ragtriage audit`` left the worker generating under PID 1 (seen
    in a session); the kernel now ends it with its parent."""
    fake_env.setenv("RAGTRIAGE_WORKER_ENGINE", "tests.llm.test_worker:SlowEngine")
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        time.sleep(1.0)  # the request is in the child's engine now
        parent.kill()
        parent.wait(10)
        deadline = time.monotonic() + 10
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(child), "the worker outlived its parent"
    finally:
        parent.kill()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().split(") ")[1].startswith("Z"))
