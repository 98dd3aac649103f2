"""ragas' own Faithfulness metric run through one of our models (optional extra).

``pip install 'ragtriage[ragas]'`` (not a core dependency: it pulls in LangChain, and
``import ragas`` fails unless ``langchain-community<0.4`` is pinned). It lets users put
ragas' judge and ours side by side on the same items and the same model, with the number
of calls and tokens ragas spent per answer, and -- unlike ragas -- a NaN is reported as
``unscored`` with ragas' exception, never averaged away.
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

from pydantic import BaseModel

from ragtriage.judge.types import JudgeItem
from ragtriage.llm.base import ChatModel, ModelRequest, as_messages

__all__ = ["RagasResult", "ragas_faithfulness"]


class RagasResult(BaseModel):
    item_id: str
    score: float | None
    outcome: str  # "scored" or "unscored" (ragas returned NaN or raised)
    reason: str = ""
    calls: int
    prompt_tokens: int
    completion_tokens: int
    wall_s: float


def _langchain_llm(model: ChatModel) -> Any:
    """A LangChain LLM that sends every ragas prompt to ``model`` and counts the calls."""
    from langchain_core.language_models.llms import LLM

    class CountingLLM(LLM):
        judge: Any
        calls: int = 0
        prompt_tokens: int = 0
        completion_tokens: int = 0

        @property
        def _llm_type(self) -> str:
            return "ragtriage"

        def _call(self, prompt: str, stop=None, run_manager=None, **kwargs: Any) -> str:
            request = ModelRequest(messages=as_messages(prompt), mode="text", max_tokens=1024)
            response = asyncio.run(self.judge.complete(request))
            self.calls += 1
            self.prompt_tokens += response.prompt_tokens
            self.completion_tokens += response.completion_tokens
            return response.text

    return CountingLLM(judge=model)


def ragas_faithfulness(items: list[JudgeItem], model: ChatModel) -> list[RagasResult]:
    """ragas' Faithfulness on each item, sequentially, with ragas' calls and tokens."""
    from ragas.dataset_schema import SingleTurnSample
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import Faithfulness

    llm = _langchain_llm(model)
    metric = Faithfulness(llm=LangchainLLMWrapper(llm))
    out = []
    for item in items:
        before = (llm.calls, llm.prompt_tokens, llm.completion_tokens)
        sample = SingleTurnSample(
            user_input=item.question,
            response=item.answer,
            retrieved_contexts=[c.text for c in item.contexts],
        )
        start, reason, score = time.perf_counter(), "", None
        try:
            value = metric.single_turn_score(sample)
            score = None if value is None or math.isnan(value) else float(value)
            reason = "" if score is not None else "ragas returned NaN"
        except Exception as exc:  # ragas' own failure: reported, not hidden
            reason = f"ragas raised {type(exc).__name__}: {str(exc)[:200]}"
        out.append(
            RagasResult(
                item_id=item.id,
                score=score,
                outcome="scored" if score is not None else "unscored",
                reason=reason,
                calls=llm.calls - before[0],
                prompt_tokens=llm.prompt_tokens - before[1],
                completion_tokens=llm.completion_tokens - before[2],
                wall_s=round(time.perf_counter() - start, 2),
            )
        )
    return out
