"""Agreement between a judge's binary decisions and human labels: pure functions.

Conventions: ``human`` and ``judge`` are arrays of 0/1 with 1 = faithful. The class a
judge is *for* is the unfaithful one, so precision/recall/F1 treat "unfaithful" as the
positive class ("did the judge catch the unfaithful answers?").
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict

from ragtriage.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, NanFloat, bootstrap_statistic

__all__ = [
    "Agreement",
    "agreement",
    "cohen_kappa",
    "confusion",
    "kappa_score",
    "rank_correlations",
]


def confusion(human: np.ndarray, judge: np.ndarray) -> list[list[int]]:
    """2x2 counts ``[[hu_ju, hu_jf], [hf_ju, hf_jf]]``: rows human, columns judge,
    index 0 = unfaithful, 1 = faithful (the layout of sklearn's ``confusion_matrix``)."""
    h = np.asarray(human, dtype=int)
    j = np.asarray(judge, dtype=int)
    return [[int(np.sum((h == a) & (j == b))) for b in (0, 1)] for a in (0, 1)]


def cohen_kappa(human: np.ndarray, judge: np.ndarray) -> float:
    """Cohen's kappa = (p_o - p_e) / (1 - p_e).

    p_o is the observed agreement and p_e = sum_c p_human(c) * p_judge(c) the agreement two
    independent raters with the same marginals would reach by chance; kappa is used rather
    than accuracy because with a 75/25 base rate "always unfaithful" is 75 % accurate and
    kappa 0. When p_e = 1 (both raters give one and the same class everywhere) kappa is
    undefined and NaN is returned, so a degenerate bootstrap resample is dropped.
    """
    h = np.asarray(human, dtype=float)
    j = np.asarray(judge, dtype=float)
    n = len(h)
    if n == 0:
        return float("nan")
    p_o = float(np.mean(h == j))
    ph, pj = h.mean(), j.mean()
    p_e = ph * pj + (1 - ph) * (1 - pj)
    if p_e >= 1.0 - 1e-12:
        return float("nan")
    return (p_o - p_e) / (1.0 - p_e)


def kappa_score(human: np.ndarray, judge: np.ndarray) -> float:
    """Kappa over the items ``judge`` decides (finite), -1 where it is undefined or none is
    decided: the worst score, for choosing among rules by kappa."""
    ok = np.isfinite(judge)
    return float(np.nan_to_num(cohen_kappa(human[ok], judge[ok]), nan=-1.0)) if ok.any() else -1.0


def _safe_div(a: float, b: float) -> float:
    return a / b if b else float("nan")


class Agreement(BaseModel):
    """All agreement figures for one set of decisions.

    Kappa's interval is stored flat (``kappa_low``, ``kappa_high``) beside the other
    figures, as results files have it, not as a nested :class:`ragtriage.stats.Estimate`.
    A figure undefined on these decisions is NaN (null in JSON, read back as NaN).
    """

    model_config = ConfigDict(use_attribute_docstrings=True)

    n: int
    """Items compared: scored, with a human label and a decision (count)."""
    accuracy: NanFloat
    """Fraction 0-1 of items where the decision matches the human label."""
    kappa: NanFloat
    """Cohen's kappa of decisions against human labels, -1 to 1 (0: chance); null when
    undefined (one class only)."""
    kappa_low: NanFloat
    """Lower end of kappa's 95% percentile-bootstrap interval; null with one item."""
    kappa_high: NanFloat
    """Upper end of kappa's 95% percentile-bootstrap interval; null with one item."""
    confusion: list[list[int]]  # rows human (unfaithful, faithful), columns judge
    """Counts: rows the human label (unfaithful, faithful), columns the decision (same
    order)."""
    precision_unfaithful: NanFloat
    """Of items decided unfaithful, the fraction 0-1 humans call unfaithful; null when none
    is decided so."""
    recall_unfaithful: NanFloat
    """Of items humans call unfaithful, the fraction 0-1 decided unfaithful; null when there
    are none."""
    f1_unfaithful: NanFloat
    """F1 of precision_unfaithful and recall_unfaithful, 0-1; null when no item is
    unfaithful on either side."""
    human_faithful_rate: NanFloat
    """Fraction 0-1 of items humans call faithful."""
    judge_faithful_rate: NanFloat
    """Fraction 0-1 of items decided faithful."""
    spearman: float | None = None
    """Spearman's rho, -1 to 1, of the judge score against the ordinal grades; null without
    3 graded items and 3 distinct grades, or for other rules than the score's."""
    kendall: float | None = None
    """Kendall's tau-b, -1 to 1, of the judge score against the ordinal grades; null as
    ``spearman``."""


def agreement(
    human: np.ndarray,
    judge: np.ndarray,
    *,
    scores: np.ndarray | None = None,
    grades: np.ndarray | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Agreement:
    """Accuracy, kappa with a percentile-bootstrap 95 % interval (items resampled in pairs,
    seeded), confusion matrix, P/R/F1 for unfaithful, base rates; Spearman's rho and
    Kendall's tau-b between ``scores`` and ordinal ``grades`` where grades are given
    (NaN grades are skipped) and take more than two values."""
    h = np.asarray(human, dtype=int)
    j = np.asarray(judge, dtype=int)
    n = len(h)
    cm = confusion(h, j)
    tp = cm[0][0]  # unfaithful caught
    precision = _safe_div(tp, cm[0][0] + cm[1][0])
    recall = _safe_div(tp, cm[0][0] + cm[0][1])
    # no unfaithful item on either side: P, R and F1 are all undefined (NaN), as sklearn's
    # zero_division=nan has them; with some unfaithful item and none caught, F1 is 0
    nothing = cm[0][0] + cm[1][0] + cm[0][1] == 0
    f1 = (
        float("nan")
        if nothing
        else _safe_div(2 * precision * recall, precision + recall)
        if tp
        else 0.0
    )
    kappa = cohen_kappa(h, j)
    low, high = (
        bootstrap_statistic(
            n, lambda idx: cohen_kappa(h[idx], j[idx]), resamples=resamples, seed=seed
        )
        if n > 1
        else (float("nan"), float("nan"))
    )
    rho = tau = None
    if scores is not None and grades is not None:
        rho, tau = rank_correlations(np.asarray(scores, float), np.asarray(grades, float))
    return Agreement(
        n=n,
        accuracy=float(np.mean(h == j)) if n else float("nan"),
        kappa=kappa,
        kappa_low=low,
        kappa_high=high,
        confusion=cm,
        precision_unfaithful=precision,
        recall_unfaithful=recall,
        f1_unfaithful=f1,
        human_faithful_rate=float(h.mean()) if n else float("nan"),
        judge_faithful_rate=float(j.mean()) if n else float("nan"),
        spearman=rho,
        kendall=tau,
    )


def rank_correlations(scores: np.ndarray, grades: np.ndarray) -> tuple[float | None, float | None]:
    """Spearman's rho and Kendall's tau-b (scipy; ties handled), or ``(None, None)`` when
    fewer than three graded items or fewer than three distinct grades."""
    from scipy.stats import kendalltau, spearmanr

    keep = np.isfinite(grades) & np.isfinite(scores)
    s, g = scores[keep], grades[keep]
    if len(g) < 3 or len(np.unique(g)) < 3:
        return None, None
    return float(spearmanr(s, g).statistic), float(kendalltau(s, g).statistic)
