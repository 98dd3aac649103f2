"""The cost of K samples, before the run and offline: calls x K x tokens x price, priced
from litellm's bundled cost table (``litellm.model_cost``), the samples a cache already
holds not counted; a router priced at its dearest deployment."""

from __future__ import annotations

import os

import pytest

from ragtriage.judge.estimate import estimate
from ragtriage.judge.items import coerce_items
from ragtriage.judge.judge import Judge
from ragtriage.llm.base import ModelResponse, cache_key
from ragtriage.llm.cache import ResponseCache
from tests.support.fakes import answer_items

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
MODEL = "openai/gpt-4o-mini"


def _prices(name: str) -> tuple[float, float]:
    import litellm

    entry = litellm.model_cost[name]
    return entry["input_cost_per_token"], entry["output_cost_per_token"]


def _estimate(model, samples, cache=None, n=4):
    judge = Judge.build("claims", model)
    strategy, chat = judge.strategy, judge.model
    items = list(coerce_items(answer_items(n)))
    store = cache or ResponseCache(None)
    fp = judge.fingerprint
    temperature = 0.7 if samples > 1 else None
    return estimate(items, chat, strategy, fp, store, samples, temperature), (strategy, chat, items)


def test_k_samples_cost_k_times_one_priced_from_the_cost_table():
    one, _ = _estimate(MODEL, 1)
    five, _ = _estimate(MODEL, 5)
    price_in, price_out = _prices("gpt-4o-mini")
    assert one.calls == 4 and five.calls == 20 and five.calls_fewest == 12
    assert one.cost_usd == pytest.approx(
        one.prompt_tokens * price_in + one.completion_tokens * price_out
    )
    assert one.cost_usd > 0
    assert five.cost_usd == pytest.approx(5 * one.cost_usd)
    assert five.cost_fewest_usd == pytest.approx(3 * one.cost_usd)  # floor(5/2)+1 agree
    assert one.cost_fewest_usd is None


def test_samples_already_cached_are_not_priced(tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    five, (strategy, chat, items) = _estimate(MODEL, 5, cache)
    for item in items:  # a previous run drew samples 0 and 1 of every answer
        for index in (0, 1):
            for request in strategy.planned_requests(item):
                marked = request.model_copy(update={"sample": index, "temperature": 0.7})
                cache.put(cache_key(chat, marked), chat.name, ModelResponse(text="{}"))
    again, _ = _estimate(MODEL, 5, cache)
    assert again.cached_calls == 8 and again.calls == 12
    assert again.cost_usd == pytest.approx(five.cost_usd * 12 / 20)
    # the fewest: samples 0-2 of each answer, of which only sample 2 is left to pay
    assert again.calls_fewest == 4
    assert again.cost_fewest_usd == pytest.approx(five.cost_usd * 4 / 20)


def _router(tmp_path, *deployments: str) -> str:
    rows = "".join(f"  - model_name: judge\n    litellm_params:\n{d}" for d in deployments)
    path = tmp_path / "router.yaml"
    path.write_text("model_list:\n" + rows)
    return f"router:{path}"


def test_a_router_is_priced_at_its_dearest_deployment(tmp_path):
    cheap = "      model: openai/gpt-4o-mini\n"
    dear = "      model: openai/gpt-4o\n"
    mixed, _ = _estimate(_router(tmp_path, cheap, dear), 3)
    price_in, price_out = _prices("gpt-4o")
    assert mixed.cost_usd == pytest.approx(
        mixed.prompt_tokens * price_in + mixed.completion_tokens * price_out
    )
    assert "dearest deployment" in mixed.note

    local = "      model: openai/qwen\n      api_base: http://127.0.0.1:8080/v1\n"
    free, _ = _estimate(_router(tmp_path, local, local), 3)
    assert free.cost_usd == 0.0 and free.calls == 12

    private = "      model: openai/private-model\n      api_base: https://llm.example/v1\n"
    unknown, _ = _estimate(_router(tmp_path, cheap, private), 3)
    assert unknown.cost_usd is None and "not priced" in unknown.note
    # the file's own price for the private deployment: 1 and 2 dollars per million tokens
    own = private + "      input_cost_per_token: 1.0e-6\n      output_cost_per_token: 2.0e-6\n"
    priced, _ = _estimate(_router(tmp_path, own, own), 3)
    assert priced.cost_usd == pytest.approx(
        priced.prompt_tokens * 1e-6 + priced.completion_tokens * 2e-6
    )
