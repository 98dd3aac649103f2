"""Every item ends in one outcome class; refusals and abstentions are never 0 or 1."""

from __future__ import annotations

import pytest

from ragtriage.judge.api import judge_faithfulness
from ragtriage.judge.outcomes import classify_answer
from ragtriage.judge.types import Outcome
from ragtriage.llm.base import ModelResponse, PermanentModelError
from tests.support.fakes import ScriptedModel, choice

CTX = ["Paris is the capital of France. It lies on the Seine."]


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        ("", Outcome.NO_CLAIMS),
        ("[1] ...", Outcome.NO_CLAIMS),
        ("I don't know.", Outcome.NO_CLAIMS),
        ("I'm sorry, but I cannot answer that.", Outcome.NO_CLAIMS),
        (
            "The provided context does not contain information about the population.",
            Outcome.ABSTAINED,
        ),
        ("There is not enough information in the passages to answer.", Outcome.ABSTAINED),
        ("Paris is the capital of France.", None),
    ],
)
def test_classify_answer(answer, outcome):
    assert classify_answer(answer)[0] == outcome


def test_long_answer_mentioning_a_gap_is_still_judged():
    answer = (
        "Paris is the capital. It lies on the Seine. The context does not mention "
        "its population. It is old."
    )
    assert classify_answer(answer)[0] is None


def _item(i, answer):
    return {
        "id": str(i),
        "question": "What is the capital of France?",
        "contexts": CTX,
        "answer": answer,
    }


def test_every_outcome_class_with_the_sentence_strategy():
    def script(request, n):
        sentence = request.messages[-1].content.rsplit("Sentence:", 1)[1]
        if "Berlin" in sentence:
            raise PermanentModelError("server said no")
        return choice(0.9 if "Paris" in sentence else 0.2)

    model = ScriptedModel(script, local=True)
    items = [
        _item(0, "Paris is the capital of France. It has ten million dragons."),
        _item(1, "I don't know."),
        _item(2, "The context does not contain the answer."),
        _item(3, "Berlin is the capital."),
    ]
    results = judge_faithfulness(items, model=model, cache=None)
    assert [r.outcome for r in results] == [
        Outcome.SCORED,
        Outcome.NO_CLAIMS,
        Outcome.ABSTAINED,
        Outcome.UNSCORED,
    ]
    scored = results[0]
    assert scored.signals["min_sentence_prob"] == pytest.approx(0.2)
    assert scored.signals["mean_sentence_prob"] == pytest.approx(0.55)
    expected = (0.2 + scored.signals["min_sentence_alignment"]) / 2
    assert scored.score == pytest.approx(expected)
    assert [c.probability for c in scored.claims] == pytest.approx([0.9, 0.2])
    assert "server said no" in results[3].reason and results[3].score is None
    assert all("lexical" in r.signals for r in results[1:])
    assert model.calls == 3  # no call for the refusal or the abstention


def test_claims_strategy_zero_claims_is_no_claims_not_one():
    body = '{"kind": "claims", "claims": []}'
    model = ScriptedModel(lambda r, n: ModelResponse(text=body))
    [result] = judge_faithfulness(
        [_item(0, "Paris is nice, and big too.")], model=model, strategy="claims", cache=None
    )
    assert result.outcome == Outcome.NO_CLAIMS and result.score is None


def test_claims_strategy_scores_supported_fraction_and_drops_invented_ids():
    body = (
        '{"kind": "claims", "claims": ['
        '{"claim": "Paris is the capital", "verdict": "supported", "chunk_ids": ["c0", "c9"]},'
        '{"claim": "It has dragons", "verdict": "not_in_context"},'
        '{"claim": "It is in Spain", "verdict": "contradicted", "chunk_ids": ["c0"]}]}'
    )
    model = ScriptedModel(lambda r, n: ModelResponse(text="```json\n" + body + "\n```"))
    [result] = judge_faithfulness(
        [_item(0, "Paris is the capital, with dragons, in Spain.")],
        model=model,
        strategy="claims",
        cache=None,
    )
    assert result.outcome == Outcome.SCORED
    assert result.score == pytest.approx(1 / 3)
    assert result.claims[0].chunk_ids == ["c0"]
    assert result.signals["contradicted_fraction"] == pytest.approx(1 / 3)
    assert model.calls == 1  # one call per answer


def test_claims_strategy_abstention_from_the_judge():
    model = ScriptedModel(lambda r, n: ModelResponse(text='{"kind": "abstention"}'))
    [result] = judge_faithfulness(
        [_item(0, "Sadly, nothing here tells us that, I think.")],
        model=model,
        strategy="claims",
        cache=None,
    )
    assert result.outcome == Outcome.ABSTAINED
