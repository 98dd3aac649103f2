"""The score-threshold analysis against brute force: every cut-off tried, every pair counted."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ragtriage.retrieval.score_threshold import auc, best_cutoff

scores = st.lists(st.integers(0, 12).map(lambda v: v / 4), min_size=1, max_size=40)


def _brute_cutoff(pos: np.ndarray, neg: np.ndarray) -> tuple[float, float]:
    best_c, best_j = None, -np.inf
    for c in sorted(set(pos) | set(neg)):
        j = Fraction(int((pos >= c).sum()), len(pos)) - Fraction(int((neg >= c).sum()), len(neg))
        if j > best_j:  # the lowest cut-off reaching the best J
            best_c, best_j = c, j
    return float(best_c), float(best_j)  # Fraction -> nearest float, as num / den is


def _brute_auc(pos: np.ndarray, neg: np.ndarray) -> float:
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


@settings(max_examples=300, deadline=None)
@given(scores, scores)
def test_best_cutoff_and_auc_equal_brute_force(pos, neg):
    pos, neg = np.array(pos), np.array(neg)
    cutoff, youden = best_cutoff(pos, neg)
    expected_cutoff, expected_youden = _brute_cutoff(pos, neg)
    assert cutoff == expected_cutoff
    assert youden == expected_youden
    assert auc(pos, neg) == _brute_auc(pos, neg)


def test_empty_sides_give_no_cutoff():
    assert best_cutoff(np.zeros(0), np.array([1.0])) == (None, None)
    assert auc(np.array([1.0]), np.zeros(0)) is None
