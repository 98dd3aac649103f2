"""The Python API: fingerprints, model resolution, the async variant."""

from __future__ import annotations

import asyncio

import pytest

from ragtriage import judge_faithfulness
from ragtriage.errors import InputError
from ragtriage.judge.api import ajudge_faithfulness, fingerprint, resolve_model
from ragtriage.llm.base import ChatModel
from tests.support.fakes import ScriptedModel, choice


def test_fingerprint_is_stable_and_tracks_what_changes_output():
    local = fingerprint()  # no weights loaded, no call made
    assert local == fingerprint(model="local")
    assert local.judge == "sentences" and local.model.startswith("local/qwen2.5")
    assert set(local.prompt_sha256) == {"faithfulness.sentence.v1.md"}
    assert fingerprint(context_chars=2000) != local
    hosted = fingerprint(model="openai/gpt-4o-mini")
    assert hosted.judge == "claims" and hosted.params["json_mode"] == "json_schema"
    assert fingerprint(model="openai/x", api_base="http://a/v1") != fingerprint(
        model="openai/x", api_base="http://b/v1"
    )
    assert fingerprint(strategy="lexical").model == "none"


def test_resolve_model_kinds():
    assert isinstance(resolve_model("hosted_vllm/qwen"), ChatModel)
    assert resolve_model("hosted_vllm/qwen").json_mode == "json_object_schema"
    assert resolve_model(None).local


def test_async_variant_and_dict_items():
    seen = []
    model = ScriptedModel(lambda r, n: seen.append(r) or choice(0.9), local=True)
    items = [
        {
            "id": 7,
            "question": "q",
            "contexts": [{"id": "d1", "text": "Alpha beta."}],
            "answer": "Alpha beta.",
        }
    ]
    [result] = asyncio.run(ajudge_faithfulness(items, model=model, cache=None))
    assert result.item_id == "7" and result.score == pytest.approx((0.9 + 1.0) / 2)
    # the model reads the sentence's evidence window, fenced as data
    assert '<chunk id="context">\nAlpha beta.\n</chunk>' in seen[0].messages[-1].content


def test_bad_dict_item_is_an_input_error():
    with pytest.raises(InputError, match="answer"):
        judge_faithfulness(
            [{"id": "a", "question": "q", "contexts": []}], strategy="lexical", cache=None
        )


def test_unknown_strategy_is_rejected():
    with pytest.raises(ValueError, match="unknown strategy"):
        judge_faithfulness([], strategy="vibes", model=ScriptedModel(lambda r, n: None), cache=None)


ITEM = {
    "id": "a",
    "question": "How long is the warranty?",
    "answer": "The warranty lasts two years.",
    "contexts": ["The warranty lasts two years from the date of purchase."],
}


def test_a_judge_spec_chooses_the_judge_as_on_the_command_line():
    (result,) = judge_faithfulness([ITEM], judge="lexical", cache=None)
    assert (result.fingerprint.judge, result.fingerprint.model) == ("lexical", "none")


@pytest.mark.parametrize(
    "options",
    [
        {"strategy": "lexical", "bogus_option": 1},  # a typo was ignored
        {"strategy": "lexical", "judge": "lexical"},  # two ways at once
        {"model": "embedded", "judge": "lexical"},
    ],
)
def test_unknown_or_conflicting_options_are_refused_before_any_work(options):
    with pytest.raises(TypeError):
        judge_faithfulness([ITEM], cache=None, **options)
