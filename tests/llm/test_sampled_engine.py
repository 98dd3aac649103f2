"""The embedded engine at a temperature: a seeded draw from the choices' probabilities
(no weights needed: the draw is a pure function of the request)."""

from __future__ import annotations

import math
from collections import Counter

from ragtriage.llm.base import Message, ModelRequest
from ragtriage.llm.engine import request_seed, sampled_choice


def _request(sample: int, temperature: float = 0.7) -> ModelRequest:
    return ModelRequest(
        messages=(Message(role="user", content="Is it supported?"),),
        mode="choice",
        choices=("true", "false"),
        temperature=temperature,
        sample=sample,
    )


def test_a_sample_is_the_same_on_every_run_and_each_index_another_draw():
    assert request_seed(_request(3)) == request_seed(_request(3))
    assert len({request_seed(_request(i)) for i in range(50)}) == 50
    assert request_seed(_request(0, 0.7)) != request_seed(_request(0, 1.0))


def test_draws_follow_the_tempered_probabilities():
    logprobs = {"true": math.log(0.8), "false": math.log(0.2)}
    draws = Counter(sampled_choice(logprobs, 0.7, request_seed(_request(i))) for i in range(4000))
    # P(true) at T = 0.7: 0.8^(1/0.7) / (0.8^(1/0.7) + 0.2^(1/0.7)) = 0.878
    assert abs(draws["true"] / 4000 - 0.878) < 0.02
    assert sampled_choice(logprobs, 0.7, 12345) == sampled_choice(logprobs, 0.7, 12345)
