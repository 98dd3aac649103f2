"""The shipped judges' decisions on constructed one-fact swaps (pairs in test_facts.py).

A decision is what the audit applies: the judge's result, decided by the shipped
calibration record's rule (chosen by nested cross-validation, under the swap veto: a
sentence restating its evidence that fails the fact check) and its band. Originals must be
decided faithful and every swap unfaithful, neither left ``unsure``: the band decides a
vetoed answer whenever it decides anything (``calibration.band``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragtriage.calibration.record import load_calibration
from ragtriage.judge.api import judge_faithfulness
from ragtriage.judge.types import JudgeItem, Outcome
from tests.judge.test_facts import CONTEXT, PAIRS

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "calibrations"

# Every kind: the fact check (a number or a name the evidence lacks, a restated sentence
# with the opposite polarity or an antonym) vetoes in every shipped rule, and an added
# claim is a sentence with little support.
CAUGHT = tuple(sorted(PAIRS))


def _items(kind: str) -> tuple[JudgeItem, JudgeItem]:
    original, swapped = PAIRS[kind]
    return (
        JudgeItem(id=f"{kind}/original", question="q", contexts=CONTEXT, answer=original),
        JudgeItem(id=f"{kind}/swapped", question="q", contexts=CONTEXT, answer=swapped),
    )


def _decisions(record: str, model: str | None, strategy: str | None, kinds, cache):
    rec = load_calibration(RECORDS / record)
    items = [i for k in kinds for i in _items(k)]
    results = judge_faithfulness(items, model, strategy, cache=cache)
    assert all(r.outcome == Outcome.SCORED for r in results), [r.reason for r in results]
    assert all(r.fingerprint == rec.fingerprint for r in results), "shipped record is stale"
    return {r.item_id: (rec.decide(r), rec.is_unsure(r)) for r in results}


def test_lexical_judge_keeps_originals_and_catches_every_swap():
    decided = _decisions("lexical.json", None, "lexical", sorted(PAIRS), None)
    assert all(decided[f"{k}/original"] == (True, False) for k in PAIRS), decided
    assert all(decided[f"{k}/swapped"] == (False, False) for k in CAUGHT), decided


@pytest.mark.slow
def test_embedded_judge_keeps_originals_and_catches_every_swap(tmp_path):
    """The real embedded model end to end, decided by the shipped embedded record."""
    decided = _decisions("embedded-sentences.json", "embedded", None, sorted(PAIRS), None)
    assert all(decided[f"{k}/original"] == (True, False) for k in PAIRS), decided
    assert all(decided[f"{k}/swapped"] == (False, False) for k in CAUGHT), decided
