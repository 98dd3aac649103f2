"""The shipped judges' decisions on constructed one-fact swaps (pairs in test_facts.py).

A decision is what the audit applies: the judge's result, decided by the shipped
calibration record's rule (chosen by nested cross-validation, with the fact check as a
veto). Originals must be decided faithful and every swap the judge claims to catch
unfaithful.
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

# What the shipped rules catch: the fact check (a number or a name the evidence lacks)
# and a sentence with little support. A flipped negation or an antonym keeps the
# sentence's words in the context; the shipped pooled rule (nested CV picked
# min_sentence_lexical with the fact check, for both judges) does not use the model or the
# ``contradictions`` signal, so those two are not caught (README, "Calibrating").
CAUGHT = ("year", "number", "person", "place", "added claim")
NOT_CAUGHT = ("antonym", "negation")


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
    return {r.item_id: rec.decide(r) for r in results}


def test_lexical_judge_keeps_originals_and_catches_fact_swaps():
    decided = _decisions("lexical.json", None, "lexical", sorted(PAIRS), None)
    assert all(decided[f"{k}/original"] is True for k in PAIRS), decided
    assert all(decided[f"{k}/swapped"] is False for k in CAUGHT), decided
    assert all(decided[f"{k}/swapped"] is True for k in NOT_CAUGHT), decided


@pytest.mark.slow
def test_embedded_judge_keeps_originals_and_catches_fact_swaps(tmp_path):
    """The real embedded model end to end, decided by the shipped embedded record."""
    decided = _decisions("embedded-sentences.json", "embedded", None, sorted(PAIRS), None)
    assert all(decided[f"{k}/original"] is True for k in PAIRS), decided
    assert all(decided[f"{k}/swapped"] is False for k in CAUGHT), decided
