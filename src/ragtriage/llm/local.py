"""The embedded model: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) via llama.cpp, fully offline.

By default it runs in a child process (:mod:`.worker`, for why); ``isolated=False`` (or
``$RAGTRIAGE_LOCAL_INPROCESS=1``) runs it in this process, with the same answers and cache
keys (``benchmarks/worker_overhead.py`` compares them). How the engine reads a judge's
probability is in :mod:`.engine`.
"""

from __future__ import annotations

import asyncio
import os
from importlib.util import find_spec
from typing import Any

from ragtriage.llm.base import ModelRequest, ModelResponse
from ragtriage.llm.build import INSTALL_COMMAND
from ragtriage.llm.engine import default_threads
from ragtriage.llm.weights import MODEL_NAME, ModelUnavailable

__all__ = ["LocalModel", "require_llama"]


def require_llama() -> None:
    """Fail before any work when llama-cpp-python is not installed (a wheel install without
    the ``local`` extra): an audit otherwise generated every answer and then failed."""
    if find_spec("llama_cpp") is None:
        raise ModelUnavailable(
            f"the embedded model needs llama-cpp-python, which is not installed: "
            f"{INSTALL_COMMAND}; or name another judge with --judge (e.g. lexical)"
        )


class LocalModel:
    """A :class:`~ragtriage.llm.base.ChatModel` running the embedded GGUF file."""

    local = True
    # greedy decoding and logit reads: the same request gets the same answer, so repeated
    # samples need a temperature above 0 (judge.api.check_sampling)
    deterministic = True

    def __init__(
        self, *, n_threads: int | None = None, n_ctx: int = 8192, isolated: bool | None = None
    ) -> None:
        self.name = f"local/{MODEL_NAME}"
        self.n_threads = n_threads or default_threads()
        self.n_ctx = n_ctx
        # Greedy decoding and logit reads: the output does not depend on threads or on
        # where the model runs, so neither is part of the identity (the cache key).
        self.params: dict[str, Any] = {}
        if isolated is None:
            isolated = os.environ.get("RAGTRIAGE_LOCAL_INPROCESS", "") not in ("1", "true")
        self._backend: Any = self._make_backend(isolated)

    def _make_backend(self, isolated: bool) -> Any:
        if isolated:
            from ragtriage.llm.worker import WorkerProcess

            return WorkerProcess(n_threads=self.n_threads, n_ctx=self.n_ctx)
        from ragtriage.llm.engine import LlamaEngine

        return LlamaEngine(n_threads=self.n_threads, n_ctx=self.n_ctx)

    @property
    def worker_pid(self) -> int | None:
        """The child's pid once started (``None`` in-process): for tests and diagnostics."""
        return getattr(self._backend, "pid", None)

    def warm_up(self) -> None:
        """Load the weights now (and start the worker): load time is not judging time."""
        self._backend.load()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        return await asyncio.to_thread(self._backend.complete, request)

    def close(self) -> None:
        """Stop the worker process (a no-op in-process); a later call starts a new one."""
        close = getattr(self._backend, "close", None)
        if close is not None:
            close()
