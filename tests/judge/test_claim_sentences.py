"""Which words and sentences are checked: contractions are no content, reactions no claims.

A chat-style answer ("Yes. The warranty lasts two years.", "That's cool. ...") used to
fail on its opener: "Yes." has a word the context lacks, so the weakest sentence's
overlap was 0 and every calibrated rule said unfaithful.
"""

from __future__ import annotations

import pytest

from ragtriage.judge.api import judge_faithfulness
from ragtriage.judge.facts import novel_numbers, numbers
from ragtriage.judge.lexical import claim_sentences, content_words, sentence_support
from ragtriage.judge.types import ContextChunk, JudgeItem

CONTEXT = "The warranty lasts two years from the date of purchase."


def _judge(answer: str):
    item = JudgeItem(
        id="q1",
        question="How long is the warranty?",
        contexts=(ContextChunk(id="c1", text=CONTEXT),),
        answer=answer,
    )
    (result,) = judge_faithfulness([item], strategy="lexical", cache=None)
    return result


@pytest.mark.parametrize(
    "text", ["it's", "That's", "I'm", "we'll", "they've", "don't", "isn't", "can't", "does n't"]
)
def test_contractions_of_stopwords_are_not_content(text):
    assert content_words(text) == []


def test_contractions_of_content_words_stay():
    assert content_words("Tom's car wasn't cheap") == ["tom's", "car", "cheap"]


@pytest.mark.parametrize(
    "opener", ["Yes.", "Great question!", "That's cool.", "Sure, happy to help!", "I agree."]
)
def test_a_reaction_before_a_claim_is_not_checked(opener):
    answer = f"{opener} The warranty lasts two years."
    assert claim_sentences(answer) == ["The warranty lasts two years."]
    result = _judge(answer)
    assert result.signals["min_sentence_lexical"] == 1.0
    assert result.signals["min_sentence_alignment"] == 1.0


def test_an_unsupported_claim_after_a_reaction_still_fails():
    result = _judge("Yes. The warranty lasts five years and covers water damage.")
    assert result.signals["min_sentence_lexical"] < 0.7
    assert result.signals["fact_check"] >= 1  # "five": a number the context lacks


def test_an_answer_that_only_reacts_is_still_judged():
    assert claim_sentences("Yes.") == ["Yes."]
    assert [s for s, _ in sentence_support("Yes.", [CONTEXT])] == ["Yes."]
    assert _judge("Yes.").signals["min_sentence_lexical"] == 0.0


def test_a_reaction_word_inside_a_claim_counts():
    # "great" is a reaction only when the sentence has nothing else to say
    answer = "Yes. The Great Wall warranty lasts two years."
    assert claim_sentences(answer) == ["The Great Wall warranty lasts two years."]


def test_spelt_numbers_are_numbers():
    assert numbers("two years, twenty-five men, Forty, 1,000") == {"2", "25", "40", "1000"}
    assert numbers("one of them") == set()  # "one" is mostly a pronoun
    assert _judge("The warranty lasts 2 years.").signals["fact_check"] == 0  # "two" = "2"


def test_a_spelt_number_counts_where_it_replaces_another():
    assert novel_numbers("It ran every three hours.", "It ran every two hours.") == {"3"}
    assert novel_numbers("It ran every 3 hours.", "It ran every two hours.") == {"3"}
    assert novel_numbers("It ran every two hours.", "It ran every 2 hours.") == set()
    # a plain word, not a fact: no number counts "or" or "meridians" in the sources
    assert novel_numbers("Two or more particles are entangled.", "Particles entangle.") == set()
    assert _judge("The warranty lasts three years.").signals["novel_numbers"] == 1


def test_list_markers_are_layout_not_sentences_or_numbers():
    answer = "Here's what I found:\n1. The warranty lasts two years.\n2) From the date of purchase."
    assert claim_sentences(answer) == [
        "The warranty lasts two years.",
        "From the date of purchase.",
    ]
    result = _judge(answer)
    assert result.signals["fact_check"] == 0  # "1." and "2)" are no numbers
    assert result.signals["min_sentence_lexical"] == 1.0


def test_headings_and_lead_ins_frame_claims():
    answer = "## Warranty\n**What it covers:**\n- The warranty lasts two years."
    assert claim_sentences(answer) == ["The warranty lasts two years."]
    assert claim_sentences("#1 seller is Acme.") == ["#1 seller is Acme."]  # no heading


@pytest.mark.parametrize(
    "attribution",
    [
        "According to the provided documents, ",
        "Based on the context, ",
        "The context states that ",
        "In conclusion, ",
        "**Summary:** ",
    ],
)
def test_an_attribution_to_the_context_is_not_a_claim(attribution):
    result = _judge(f"{attribution}the warranty lasts two years.")
    assert result.signals["min_sentence_lexical"] == 1.0
    changed = _judge(f"{attribution}the warranty lasts 5 years.")
    assert changed.signals["novel_numbers"] == 1  # what follows is still checked
