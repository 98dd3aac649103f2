"""A stand-in engine for the model worker: real child process, no llama.cpp.

Answers are a pure function of the request (so a re-run gives the same cache rows).
``$FAKE_ENGINE_CRASH_AFTER=N`` makes the process die of a real SIGSEGV on call N+1, as a
llama.cpp build that does not suit the CPU does.
"""

from __future__ import annotations

import hashlib
import os
import signal

from ragtriage.llm.base import ModelRequest, ModelResponse

SYSTEM_INFO = "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | FAKE = 1"


class FakeEngine:
    def __init__(self, *, n_threads: int, n_ctx: int) -> None:
        self.calls = 0
        self.crash_after = int(os.environ.get("FAKE_ENGINE_CRASH_AFTER", "-1"))

    def load(self) -> None:
        pass

    def system_info(self) -> str:
        return SYSTEM_INFO

    def complete(self, request: ModelRequest) -> ModelResponse:
        if self.calls == self.crash_after:
            os.kill(os.getpid(), signal.SIGSEGV)
        self.calls += 1
        text = request.messages[-1].content
        share = int(hashlib.sha256(text.encode()).hexdigest()[:4], 16) / 0xFFFF
        if request.mode == "choice":
            true = -0.1 - 3 * (1 - share)
            return ModelResponse(text="true", choice_logprobs={"true": true, "false": -2.0})
        return ModelResponse(text=f"echo {len(text)}", prompt_tokens=len(text.split()))
