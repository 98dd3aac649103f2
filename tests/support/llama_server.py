"""A real ``python -m llama_cpp.server`` (llama-cpp-python's OpenAI-compatible server) on a
free port of 127.0.0.1, serving the embedded GGUF, for the slow tests that go through
litellm to a real server. The server's log counts the requests it answered."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

READY_S = 180.0


def gguf_or_skip() -> Path:
    """The embedded model's GGUF; a skip where it is not installed (a failure in CI)."""
    from ragtriage.llm.weights import ModelUnavailable, model_path

    try:
        return model_path()
    except ModelUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install the embedded model (scripts/setup.sh): {exc}")
        pytest.skip(f"the embedded model's GGUF file is not available: {exc}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chat_requests(log: Path) -> int:
    """Chat completion requests the server logged."""
    return sum('"POST /v1/chat/completions' in line for line in log.read_text().splitlines())


@contextmanager
def llama_server(gguf: Path, log: Path, threads: str, n_ctx: int = 4096) -> Iterator[str]:
    """The server's base URL (``http://127.0.0.1:PORT/v1``) once it answers; terminated
    (killed after 20 s) at the end."""
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf)]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    command += ["--n_ctx", str(n_ctx), "--n_threads", threads]
    with log.open("w") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}/v1"
        _wait_ready(proc, base, log)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_ready(proc: subprocess.Popen, base: str, log: Path) -> None:
    deadline = time.monotonic() + READY_S
    while True:
        if proc.poll() is not None:
            pytest.fail(f"llama_cpp.server exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{base}/models", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(
                f"llama_cpp.server not ready in {READY_S:.0f} s:\n{log.read_text()[-3000:]}"
            )
        time.sleep(0.5)
