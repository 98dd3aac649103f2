"""``--dry-run``: calls, tokens and cost before spending anything (docs/judges.md, 'Cost
and dry runs').

Asks the strategy for exactly the requests a real run would send (so cached ones are
known and not counted as to pay) and the completion size it expects; prompt tokens by
litellm's tokenizer for the model (else characters / 4), prices from litellm's local cost
map (zero for local models; unknown models are reported as such).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from pydantic import BaseModel

from ragtriage.judge.strategies.base import Strategy
from ragtriage.judge.strategies.common import precheck
from ragtriage.judge.types import JudgeFingerprint, JudgeItem
from ragtriage.llm.base import ChatModel, ModelRequest, cache_key
from ragtriage.llm.cache import ResponseCache

__all__ = ["CostEstimate", "estimate"]


class CostEstimate(BaseModel):
    """What a judge run would cost: calls, tokens and dollars, before any call is made."""

    items: int
    items_needing_no_call: int
    calls: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None  # None: the model is not in litellm's cost map
    note: str = ""
    # --samples K: ``calls`` (and tokens, cost) are the most, every answer getting K samples;
    # this is the fewest, every answer's first floor(K/2) + 1 samples agreeing
    samples: int = 1
    calls_fewest: int | None = None
    cost_fewest_usd: float | None = None  # the cost of ``calls_fewest`` (None: unknown)
    signals: str = ""  # which signals the run computes and why (flows.judge.plan)


def _tokens(model: ChatModel, request: ModelRequest) -> int:
    messages = [m.model_dump() for m in request.messages]
    if not model.local:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        try:
            import litellm

            # a router counts with its first deployment's tokenizer
            name = getattr(model, "tokenizer_model", model.name)
            return int(litellm.token_counter(model=name, messages=messages))
        except Exception:  # unknown tokenizer: fall through to the rough count
            pass
    return sum(len(m["content"]) for m in messages) // 4 + 4 * len(messages)


def estimate(
    items: Iterable[JudgeItem],
    model: ChatModel | None,
    strategy: Strategy,
    fingerprint: JudgeFingerprint,
    cache: ResponseCache,
    samples: int = 1,
    temperature: float | None = None,
) -> CostEstimate:
    """Each sample's requests are marked as the run marks them (``Caller.sampled``), so
    samples a previous run drew are counted as cached."""
    calls = cached = prompt = completion = skipped = n = fewest = 0
    least = [0, 0]  # prompt and completion tokens of the fewest calls
    sampled = samples > 1 or temperature is not None
    for item in items:
        n += 1
        if precheck(item, fingerprint) is not None or model is None:
            skipped += 1
            continue
        planned = strategy.planned_requests(item)
        for index in range(samples):
            for request in planned:
                if sampled:
                    update: dict[str, float] = {"sample": index}
                    update |= {} if temperature is None else {"temperature": temperature}
                    request = request.model_copy(update=update)
                if cache.get(cache_key(model, request)) is not None:
                    cached += 1
                    continue
                calls += 1
                tokens = _tokens(model, request)
                out = strategy.completion_tokens(item, model.local)
                prompt += tokens
                completion += out
                if index <= samples // 2:
                    fewest += 1
                    least[0] += tokens
                    least[1] += out
    cost, note = _price(model, prompt, completion)
    cost_fewest = _price(model, *least)[0] if samples > 1 else None
    if samples > 1:
        note += f"; up to {samples} samples an answer: calls, tokens and cost are the most"
    return CostEstimate(
        items=n,
        items_needing_no_call=skipped,
        calls=calls,
        cached_calls=cached,
        prompt_tokens=prompt,
        completion_tokens=completion,
        cost_usd=cost,
        note=note,
        samples=samples,
        calls_fewest=fewest if samples > 1 else None,
        cost_fewest_usd=cost_fewest,
    )


def _price(model: ChatModel | None, prompt: int, completion: int) -> tuple[float | None, str]:
    if model is None or model.local:
        return 0.0, "local model: no cost"
    prices = getattr(model, "token_prices", None)
    if callable(prices):  # a router: its dearest deployment's prices
        found = prices()
        if found is None:
            return None, f"{model.name}: a deployment is not priced: cost unknown"
        price_in, price_out = found
        cost = prompt * price_in + completion * price_out
        return cost, "priced at the router's dearest deployment (litellm's cost map)"
    try:
        import litellm

        p, c = litellm.cost_per_token(
            model=model.name, prompt_tokens=prompt, completion_tokens=completion
        )
        return float(p + c), "priced with litellm's bundled cost map"
    except Exception:
        return None, f"{model.name} is not in litellm's cost map: cost unknown"
