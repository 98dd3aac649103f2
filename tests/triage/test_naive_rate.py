"""The judge's own faithful rate: a Wilson interval, so a small unanimous audit is not certain."""

from __future__ import annotations

import pytest

from ragtriage.triage.calibrated import naive_rate


def test_twelve_of_twelve_is_not_certain():
    est = naive_rate([True] * 12)
    assert est is not None and est.estimate == 1.0 and est.high == 1.0
    assert est.low == pytest.approx(0.7575, abs=1e-3)  # Wilson 95 % for 12/12


def test_a_mixed_audit_matches_the_textbook_wilson_interval():
    est = naive_rate([True] * 7 + [False] * 3)
    assert est is not None and est.estimate == pytest.approx(0.7)
    assert (est.low, est.high) == pytest.approx((0.3968, 0.8922), abs=1e-3)


def test_no_decisions_no_rate():
    assert naive_rate([]) is None
