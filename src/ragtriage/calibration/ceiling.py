"""The human ceiling: how well the graders agree with each other where an item has two or
more grades, with intervals, and the judge's agreement on the same items beside it (the
validity card, issue 51 item 2).

Graders: nominal Krippendorff's alpha (``intergrader.py``) over every multi-graded item,
and Cohen's kappa between each item's first two grades; the judge: Cohen's kappa of its
out-of-fold decisions against the graders' majority on those items. A judge at the
graders' own agreement is as good as another grader: asking for more is asking it to fit
one grader's noise.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from pydantic import BaseModel, ConfigDict

from ragtriage.calibration.agreement import cohen_kappa
from ragtriage.calibration.grades import GradedItem
from ragtriage.calibration.intergrader import krippendorff_alpha_nominal
from ragtriage.calibration.record import CalibrationRecord
from ragtriage.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_statistic

__all__ = ["Ceiling", "Interval3", "human_ceiling"]

Interval3 = tuple[float, float, float]  # value, low, high (NaN when undefined)


class Ceiling(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    n_items: int
    """Items graded two or more times (count)."""
    graders: dict[str, int]
    """Grader -> grades given on those items."""
    alpha: Interval3
    """Krippendorff's alpha between graders, with its bootstrap 95 % interval."""
    kappa: Interval3
    """Cohen's kappa between each item's first two grades, with its interval."""
    judge_n: int
    """Of those items, the ones with a majority label and an out-of-fold judge decision."""
    judge_kappa: Interval3
    """The judge's kappa against the graders' majority on them, with its interval."""


def _nan(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def human_ceiling(
    items: list[GradedItem],
    record: CalibrationRecord,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Ceiling | None:
    """The ceiling on ``items`` (module docstring); None when no item has two grades."""
    multi = [i for i in items if len(i.grades) >= 2]
    if not multi:
        return None
    units = [[g.label for g in i.grades] for i in multi]
    first = np.array([float(u[0]) for u in units])
    second = np.array([float(u[1]) for u in units])

    def alpha(idx: np.ndarray) -> float:
        return _nan(krippendorff_alpha_nominal([units[k] for k in idx]))

    def kappa(idx: np.ndarray) -> float:
        return cohen_kappa(first[idx], second[idx])

    decided = {i.id: i.decision_cv for i in record.items if i.decision_cv is not None}
    both = [i for i in multi if i.label is not None and i.id in decided]
    human = np.array([float(bool(i.label)) for i in both])
    judge = np.array([float(bool(decided[i.id])) for i in both])

    def judge_kappa(idx: np.ndarray) -> float:
        return cohen_kappa(human[idx], judge[idx])

    def figure(statistic, n: int) -> Interval3:
        if n == 0:
            return (float("nan"),) * 3
        low, high = bootstrap_statistic(n, statistic, resamples=resamples, seed=seed)
        return statistic(np.arange(n)), low, high

    return Ceiling(
        n_items=len(multi),
        graders=dict(Counter(g.grader or "unnamed" for i in multi for g in i.grades)),
        alpha=figure(alpha, len(units)),
        kappa=figure(kappa, len(units)),
        judge_n=len(both),
        judge_kappa=figure(judge_kappa, len(both)),
    )
