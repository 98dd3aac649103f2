"""Inter-grader agreement: Krippendorff's alpha, the ceiling a judge can reach.

If people agree with each other at alpha = 0.6, a judge at kappa 0.6 is as good as another
person; asking for more is asking it to fit one grader's noise.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["krippendorff_alpha_nominal"]


def krippendorff_alpha_nominal(units: Sequence[Sequence[object]]) -> float | None:
    """Nominal Krippendorff's alpha = 1 - D_o / D_e from the coincidence matrix.

    Each unit (item) lists the values its graders gave; units with fewer than two values
    are not pairable and are skipped. For a unit with m values every ordered pair of
    values from different graders adds 1/(m-1) to o[c, k]; with n_c = sum_k o[c, k] and
    n = sum_c n_c,

        alpha = 1 - (n - 1) * sum_{c != k} o[c, k] / sum_{c != k} n_c n_k

    Returns None when no unit has two values or all values are equal (D_e = 0).
    """
    pairable = [list(u) for u in units if len(u) >= 2]
    if not pairable:
        return None
    values = sorted({v for u in pairable for v in u}, key=repr)
    index = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for unit in pairable:
        counts = np.zeros(len(values))
        for v in unit:
            counts[index[v]] += 1
        o += (np.outer(counts, counts) - np.diag(counts)) / (len(unit) - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    disagree_expected = n_c.sum() ** 2 - (n_c**2).sum()
    if disagree_expected == 0:
        return None
    disagree_observed = o.sum() - np.trace(o)
    return float(1.0 - (n - 1) * disagree_observed / disagree_expected)
