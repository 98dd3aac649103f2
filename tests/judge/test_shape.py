"""Shape signals and the citation-level check, on constructed answers."""

from __future__ import annotations

import pytest

from ragtriage.judge.alignment import align_answer
from ragtriage.judge.lexical import claim_sentences
from ragtriage.judge.shape import citation_signals, shape_signals
from ragtriage.judge.strategies.common import MODEL_FREE_SIGNALS, lexical_signals
from ragtriage.judge.types import ContextChunk, JudgeItem

CHUNKS = (
    ContextChunk(id="a", text="The bridge opened in 1998. It carries four lanes of traffic."),
    ContextChunk(id="b", text="The tunnel under the river was finished in 2004."),
)


def _aligned(answer: str):
    return align_answer(claim_sentences(answer), CHUNKS)


def test_an_answer_whose_every_sentence_cites_what_supports_it_passes_the_citation_check():
    answer = "The bridge opened in 1998 [1]. The tunnel under the river was finished in 2004 [2]."
    signals = citation_signals(_aligned(answer))
    assert signals == {"cited_min_alignment": 1.0, "citation_failures": 0.0}


def test_a_sentence_citing_the_wrong_passage_fails_though_the_context_supports_it():
    """Against the whole context the sentence is supported; against what it cites it is
    not: the year is in passage 2, the sentence cites passage 1."""
    answer = "The bridge opened in 1998 [1]. The tunnel under the river was finished in 2004 [1]."
    signals = citation_signals(_aligned(answer))
    assert signals["citation_failures"] == pytest.approx(0.5)
    assert signals["cited_min_alignment"] < 1.0


def test_an_uncited_sentence_of_a_citing_answer_counts_as_unsupported():
    answer = "The bridge opened in 1998 [1]. The tunnel under the river was finished in 2004."
    signals = citation_signals(_aligned(answer))
    assert signals == {"cited_min_alignment": 0.0, "citation_failures": 0.5}


def test_no_citation_check_for_an_answer_that_cites_nothing():
    assert citation_signals(_aligned("The bridge opened in 1998.")) == {}


def test_shape_signals():
    answer = "The bridge opened in 1998 [1]. Its traffic is heavy on most days of the week [1]."
    shape = shape_signals(answer, [c.text for c in CHUNKS], _aligned(answer))
    assert shape["cites"] == 1.0 and shape["answer_sentences"] == 2.0
    assert shape["paraphrase_share"] == pytest.approx(0.5)  # the second is no restatement
    assert 0 < shape["context_share"] < 1
    plain = "The bridge opened in 1998."
    assert shape_signals(plain, [c.text for c in CHUNKS], _aligned(plain))["cites"] == 0.0


def test_every_result_carries_them_and_they_are_model_free():
    item = JudgeItem(id="x", question="q", contexts=CHUNKS, answer="The bridge opened in 1998 [1].")
    signals = lexical_signals(item)
    for name in ("cites", "answer_sentences", "context_share", "paraphrase_share",
                 "cited_min_alignment", "citation_failures"):  # fmt: skip
        assert name in signals and name in MODEL_FREE_SIGNALS
