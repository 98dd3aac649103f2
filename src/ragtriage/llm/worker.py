"""The embedded model in a child process, so a native crash cannot take the run with it.

What the user sees is in docs/install-local-model.md ('A crash is an error, not exit
139'). One long-lived child serves every call (the weights load once and the KV-cache
prefix reuse still works), one JSON line per request and per reply. The child replies on
a duplicate of its original stdout and points fd 1 at stderr, so native prints cannot
corrupt the protocol; its stderr's tail is quoted in :class:`ModelCrashed`'s message.
``$RAGTRIAGE_WORKER_ENGINE=module:factory`` substitutes the engine (tests only).
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from typing import IO, Any

from ragtriage.errors import EXIT_INPUT, RagtriageError
from ragtriage.llm.base import ModelRequest, ModelResponse, PermanentModelError
from ragtriage.llm.build import (
    INSTALL_COMMAND,
    REBUILD_COMMAND,
    compiled_features,
    cpu_flags,
    unsupported_features,
)
from ragtriage.llm.weights import ModelUnavailable

__all__ = ["ModelCrashed", "WorkerProcess", "main"]

ENGINE_ENV = "RAGTRIAGE_WORKER_ENGINE"


class ModelCrashed(RagtriageError):
    """The embedded model's process died (a native crash or a kill): nothing to retry."""

    exit_code = EXIT_INPUT


# ---------------------------------------------------------------- the parent's side


class WorkerProcess:
    """One child process serving requests in order; thread-safe, started lazily."""

    def __init__(self, *, n_threads: int, n_ctx: int) -> None:
        self.n_threads = n_threads
        self.n_ctx = n_ctx
        self.system_info = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._dead: ModelCrashed | None = None
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def hello(self) -> dict[str, Any]:
        """Start the child if needed; its pid, llama.cpp version and build info."""
        return self._call({"op": "hello"}, "start")

    def load(self) -> None:
        self._call({"op": "load"}, "load")

    def complete(self, request: ModelRequest) -> ModelResponse:
        """One request answered by the child; its errors re-raised as the same kinds."""
        message = {"op": "complete", "request": request.model_dump(mode="json")}
        reply = self._call(message, request.mode)
        return ModelResponse.model_validate(reply["response"])

    def _call(self, message: dict[str, Any], what: str) -> dict[str, Any]:
        with self._lock:
            if self._dead is not None:
                raise self._dead
            if self._proc is None:
                self._start()
            reply = self._exchange(message, what)
        return _raise_for(reply)

    def _start(self) -> None:
        # Lives as long as the child; closed in close().
        self._log = tempfile.TemporaryFile(prefix="ragtriage-worker-")  # noqa: SIM115
        command = [sys.executable, "-m", __name__, "--threads", str(self.n_threads)]
        self._proc = subprocess.Popen(
            [*command, "--ctx", str(self.n_ctx)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        self.system_info = _raise_for(self._exchange({"op": "hello"}, "start")).get(
            "system_info", ""
        )

    def _exchange(self, message: dict[str, Any], what: str) -> dict[str, Any]:
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except (BrokenPipeError, ConnectionResetError):
            line = b""
        if not line:
            self._dead = self._crash(what)
            raise self._dead
        return json.loads(line)

    def _crash(self, what: str) -> ModelCrashed:
        assert self._proc is not None
        try:
            code = self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            code = self._proc.wait()
        message = crash_message(code, self._proc.pid, what, self.system_info, self._tail())
        return ModelCrashed(message)

    def _tail(self, limit: int = 600) -> str:
        if self._log is None:
            return ""
        self._log.seek(0, os.SEEK_END)
        self._log.seek(max(0, self._log.tell() - limit))
        return self._log.read().decode("utf-8", "replace").strip()

    def close(self) -> None:
        """Ask the child to exit (closing its stdin); kill it if it does not."""
        with self._lock:
            proc, self._proc = self._proc, None
            if proc is None:
                return
            try:
                if proc.stdin:
                    proc.stdin.close()
                proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
            if self._log is not None:
                self._log.close()

    def __del__(self) -> None:  # a forgotten worker must not outlive its parent
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            proc.kill()


def _raise_for(reply: dict[str, Any]) -> dict[str, Any]:
    """The child's error replies become the same exception kinds as in-process."""
    if reply.get("ok"):
        return reply
    kind, message = reply.get("kind"), str(reply.get("message", ""))
    if kind == "unavailable":
        raise ModelUnavailable(message)
    raise PermanentModelError(message)


def crash_message(code: int, pid: int, what: str, info: str, tail: str) -> str:
    """Which signal, what the build is, what to do, and that nothing answered is lost."""
    cause = _cause(code)
    lines = [f"the embedded model's process (pid {pid}) {cause} during a {what or 'model'} call."]
    if info:
        lines.append(f"llama.cpp build: {' '.join(info.split())[:400]}")
        missing = unsupported_features(compiled_features(info), cpu_flags())
        if missing:
            lines.append(f"This CPU lacks instructions the build uses: {', '.join(missing)}.")
    if tail:
        lines.append(f"its last output: {' '.join(tail.split())[-300:]}")
    if code in (-signal.SIGSEGV, -signal.SIGILL, -signal.SIGBUS, -signal.SIGABRT):
        lines.append(f"Rebuild llama-cpp-python for any x86-64 CPU: {REBUILD_COMMAND}")
    lines.append(
        "Check the install with `ragtriage doctor`. Every answer received before the "
        "crash is in the cache: re-run the same command to resume."
    )
    return "\n".join(lines)


def _cause(code: int) -> str:
    if code >= 0:
        return f"exited with status {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    hints = {
        "SIGSEGV": " (segmentation fault: a native crash in llama.cpp)",
        "SIGILL": " (illegal instruction: llama.cpp was built for another CPU)",
        "SIGKILL": " (killed: out of memory, see `dmesg`, or killed by another process)",
    }
    return f"died of {name}{hints.get(name, '')}"


# ---------------------------------------------------------------- the child's side


PR_SET_PDEATHSIG = 1  # <sys/prctl.h>


def _die_with_parent() -> None:
    """On Linux the kernel sends us SIGTERM when the parent dies (killed, SIGTERM'd,
    crashed): a generation in progress would otherwise run on under PID 1 until it ends
    (stdin's end of file stops the loop only between requests)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # no prctl: the end of stdin still stops us
        return


def _engine(threads: int, ctx: int) -> Any:
    spec = os.environ.get(ENGINE_ENV)
    if spec:
        module, _, attr = spec.partition(":")
        return getattr(importlib.import_module(module), attr)(n_threads=threads, n_ctx=ctx)
    from ragtriage.llm.engine import LlamaEngine

    return LlamaEngine(n_threads=threads, n_ctx=ctx)


def _hello(engine: Any) -> dict[str, Any]:
    try:
        import llama_cpp

        version = llama_cpp.__version__
    except ImportError:
        version = None
    info = engine.system_info()
    return {"ok": True, "pid": os.getpid(), "llama_cpp": version, "system_info": info}


def _handle(engine: Any, message: dict[str, Any]) -> dict[str, Any]:
    try:
        if message.get("op") == "hello":
            return _hello(engine)
        if message.get("op") == "load":
            engine.load()
            return {"ok": True}
        response = engine.complete(ModelRequest.model_validate(message["request"]))
        return {"ok": True, "response": response.model_dump(mode="json")}
    except ModelUnavailable as exc:
        return {"ok": False, "kind": "unavailable", "message": str(exc)}
    except ImportError as exc:  # llama-cpp-python missing: the same advice as in-process
        return {"ok": False, "kind": "unavailable", "message": f"{exc}; {_INSTALL}"}
    except Exception as exc:  # one item's failure, reported as its reason
        return {"ok": False, "kind": "permanent", "message": f"{type(exc).__name__}: {exc}"}


_INSTALL = f"install the embedded model: {INSTALL_COMMAND}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="ragtriage-model-worker")
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--ctx", type=int, required=True)
    args = parser.parse_args(argv)
    _die_with_parent()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # native prints go to stderr, never into the protocol
    engine = _engine(args.threads, args.ctx)
    for raw in sys.stdin.buffer:
        reply = _handle(engine, json.loads(raw))
        out.write(json.dumps(reply).encode("utf-8") + b"\n")
        out.flush()


if __name__ == "__main__":  # pragma: no cover
    main()
