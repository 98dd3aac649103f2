"""The judge object: built once from a spec or a model, its fingerprint what results record."""

from __future__ import annotations

import pytest

from ragtriage.judge.api import fingerprint, judge_faithfulness
from ragtriage.judge.judge import Judge, JudgeOptions
from ragtriage.judge.spec import JudgeSpec
from ragtriage.llm.local import LocalModel

ITEM = {"id": "a", "question": "q?", "contexts": ["The sky is blue."], "answer": "The sky is blue."}


def test_from_spec_lexical_has_no_model_and_records_its_fingerprint():
    judge = Judge.from_spec("lexical")
    assert judge.name == "lexical" and judge.model is None and not judge.embedded
    recorded = judge_faithfulness([ITEM], judge="lexical", cache=None)[0].fingerprint
    assert judge.fingerprint == recorded == fingerprint(strategy="lexical")


def test_from_spec_embedded_and_from_model_give_the_same_fingerprint():
    by_spec = Judge.from_spec(None, JudgeOptions(threads=1))
    assert by_spec.embedded and by_spec.name == "sentences"
    assert by_spec.model.n_threads == 1  # the options reach the model
    by_model = Judge.from_model(LocalModel(n_threads=2))
    assert by_model.fingerprint == by_spec.fingerprint == fingerprint()
    assert Judge.from_spec(JudgeSpec.parse("claims@embedded")).name == "claims"


def test_a_given_embedded_model_is_used_not_made(monkeypatch):
    shared = LocalModel(n_threads=1)
    made = []
    monkeypatch.setattr(LocalModel, "__init__", lambda self, **k: made.append(k))
    assert Judge.from_spec("sentences@embedded", embedded=shared).model is shared
    assert Judge.from_spec("openai/gpt-4o-mini", embedded=shared).model is not shared
    assert made == []


def test_options_are_carried_and_sampling_reset_for_the_model_free_judge():
    options = JudgeOptions.of(context_chars=100, samples=3, temperature=0.7)
    judge = Judge.from_spec("sentences@embedded", options)
    assert judge.options.samples == 3 and judge.options.temperature == 0.7
    assert judge.strategy.params["context_chars"] == 100
    free = judge.model_free()
    assert free.name == "lexical" and free.model is None and not free.options.sampling
    assert free.options.context_chars == 100
    assert judge.single().options.samples == 1 and judge.single().model is judge.model
    with pytest.raises(TypeError, match="unknown judge option"):
        JudgeOptions.of(contxt_chars=1)
