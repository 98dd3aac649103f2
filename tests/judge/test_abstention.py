"""The abstention detector on real answers (the labelled set) and on the phrasings the
issue names: abstentions as written, and answers that contain "not" but answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtriage.judge.abstention import read_abstention
from ragtriage.judge.outcomes import classify_answer
from ragtriage.judge.types import Outcome

SET = Path(__file__).resolve().parents[1] / "fixtures" / "abstention" / "labelled.jsonl"


def _found(answer: str) -> bool:
    return classify_answer(answer)[0] in (Outcome.ABSTAINED, Outcome.NO_CLAIMS)


def test_precision_and_recall_on_the_labelled_set_are_at_least_0_9():
    rows = [json.loads(line) for line in SET.read_text().splitlines() if line]
    assert {r["source"] for r in rows} >= {"clapnq-qwen", "expertqa", "begin-wow", "fixtures"}
    for part in ({"dev", "test"}, {"test"}):
        chosen = [r for r in rows if r["split"] in part]
        found = [_found(r["answer"]) for r in chosen]
        tp = sum(1 for r, f in zip(chosen, found, strict=True) if f and r["abstains"])
        assert tp >= 0.9 * sum(found), part  # precision
        assert tp >= 0.9 * sum(r["abstains"] for r in chosen), part  # recall


@pytest.mark.parametrize(
    "answer",
    [
        "The handbook does not say whether home internet costs are reimbursed, so I don't know.",
        "The documents do not say.",
        "I couldn't find anything about that in the documents.",
        "Sorry, I can't help with that. Please contact HR.",
        "That isn't mentioned anywhere in the handbook.",
        "There is no information about the price of the N8-900.",
    ],
)
def test_abstentions_as_written_are_recognised(answer):
    assert _found(answer), read_abstention(answer).clauses


def test_an_abstention_naming_its_sources_is_abstained_a_bare_refusal_asserts_nothing():
    named = "The handbook does not say whether home internet costs are reimbursed, so I don't know."
    assert classify_answer(named)[0] == Outcome.ABSTAINED
    assert classify_answer("I don't know.")[0] == Outcome.NO_CLAIMS


@pytest.mark.parametrize(
    "answer",
    [
        "No, the N2-100 does not support ZFS.",
        "Home internet costs are not reimbursed.",
        "Accidental damage is not covered by the warranty.",
        # a hedged partial answer: the gap is stated, then part of it is answered
        "The context does not give night-shift risks. However, it mentions misplacement of "
        "the tube into the lungs [1].",
        "Not sure but I think it is a good variation of 10 - pin bowling .",
    ],
)
def test_answers_that_contain_not_but_answer_are_judged(answer):
    assert classify_answer(answer)[0] is None, read_abstention(answer).clauses
