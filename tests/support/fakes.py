"""In-process fake models for unit tests (no network, no weights)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ragtriage.llm.base import ModelRequest, ModelResponse


class ScriptedModel:
    """Answers with ``script(request, call_number)``; may raise to simulate failures."""

    def __init__(
        self,
        script: Callable[[ModelRequest, int], ModelResponse],
        *,
        local: bool = False,
        delay: float = 0.0,
        name: str = "fake/model",
    ) -> None:
        self.name = name
        self.params: dict = {}
        self.local = local
        self.script = script
        self.delay = delay
        self.calls = 0
        self.in_flight = 0
        self.peak = 0

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        number = self.calls
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            return self.script(request, number)
        finally:
            self.in_flight -= 1


def choice(p_true: float) -> ModelResponse:
    """A ``choice`` response with the given P(true)."""
    import math

    return ModelResponse(
        text="true" if p_true >= 0.5 else "false",
        choice_logprobs={"true": math.log(p_true), "false": math.log(1 - p_true)},
        prompt_tokens=50,
    )


def answer_items(n: int) -> list[dict]:
    """``n`` small answers to judge, one shared context (the judge tests' standard input)."""
    return [
        {
            "id": f"i{k}",
            "question": "q",
            "contexts": ["Alpha beta gamma."],
            "answer": f"Alpha beta number {k}.",
        }
        for k in range(n)
    ]
