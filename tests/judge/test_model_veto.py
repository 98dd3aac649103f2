"""The embedded judge's confident rejections count as failed fact checks.

A one-fact swap whose every word is in the context (the winner and the loser exchanged)
passes word overlap; the model, reading the sentence's own evidence, rejects it. A
sentence with P(supported) below ``REJECT`` adds to ``model_fact_check``, which a rule
that uses the model vetoes on; ``fact_check`` stays model-free, so a model-free rule
decides the same on every judge's results.
"""

from __future__ import annotations

import pytest

from ragtriage.calibration.decision import ThresholdRule, VetoRule, decide_one
from ragtriage.judge.api import judge_faithfulness
from ragtriage.judge.strategies.sentences import REJECT
from ragtriage.judge.types import ContextChunk, JudgeItem
from tests.support.fakes import ScriptedModel, choice

# A swap the model-free checks miss: the same words, the roles exchanged.
CONTEXT = (ContextChunk(id="c0", text="Serena Williams defeated Maria Sharapova in the final ."),)
SWAP = "Maria Sharapova defeated Serena Williams in the final."


def _judged(p_true: float):
    model = ScriptedModel(lambda request, n: choice(p_true), local=True)
    item = JudgeItem(id="x", question="q", contexts=CONTEXT, answer=SWAP)
    (result,) = judge_faithfulness([item], model=model, cache=None)
    return result


@pytest.mark.parametrize(("p_true", "rejected"), [(REJECT / 2, 1.0), (0.5, 0.0), (0.95, 0.0)])
def test_a_confident_rejection_adds_to_the_fact_check(p_true, rejected):
    result = _judged(p_true)
    model_free = sum(
        result.signals[k] for k in ("contradictions", "novel_facts", "unstated_negations")
    )
    assert result.signals["rejected_sentences"] == rejected
    assert result.signals["fact_check"] == model_free
    assert result.signals["model_fact_check"] == model_free + rejected


def test_the_veto_overrules_full_word_overlap():
    """Every word of the swap is in the context, so an overlap rule alone says faithful;
    a confident rejection makes it unfaithful (and a model that accepts does not)."""
    rule = VetoRule(
        rule=ThresholdRule(feature="min_sentence_lexical", threshold=0.6), veto="model_fact_check"
    )
    accepted = _judged(0.95)
    assert accepted.signals["min_sentence_lexical"] == 1.0
    assert accepted.signals["model_fact_check"] == 0  # the model-free checks miss this one
    assert decide_one(rule, accepted) is True
    assert decide_one(rule, _judged(0.02)) is False


def test_the_rejection_level_is_in_the_fingerprint():
    """A calibration fitted with another veto is stale, not silently reused."""
    assert str(REJECT) in _judged(0.5).fingerprint.params["fact_check"]
