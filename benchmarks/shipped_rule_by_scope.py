"""Outer-fold kappa of a calibration record's shipped (pooled) rule, per scope.

The record's items carry ``decision_cv``: each graded answer decided by the rule the
nested selection chose *without* its outer fold, i.e. the honest estimate of the shipped
rule. This splits that agreement by dataset, which the per-scope rows of ``calibrate``
(each scope's own nested selection) do not show:

    python benchmarks/shipped_rule_by_scope.py calibrations/lexical.json [...]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ragtriage.calibration.agreement import agreement
from ragtriage.calibration.record import load_calibration


def by_scope(path: Path) -> dict[str, tuple[float, float, float, int, int, int]]:
    """Scope -> (kappa, low, high, n, judge faithful, human faithful)."""
    record = load_calibration(path)
    rows = [i for i in record.items if i.decision_cv is not None and i.human is not None]
    out = {}
    for scope in ["pooled", *sorted({i.dataset for i in rows})]:
        part = [i for i in rows if scope in ("pooled", i.dataset)]
        y = np.array([float(i.human) for i in part])
        d = np.array([float(bool(i.decision_cv)) for i in part])
        a = agreement(y, d, resamples=2000, seed=record.seed)
        out[scope] = (a.kappa, a.kappa_low, a.kappa_high, len(part), int(d.sum()), int(y.sum()))
    return out


def main() -> None:
    for arg in sys.argv[1:]:
        record = load_calibration(Path(arg))
        print(f"{arg}: rule {record.rule_name}")
        for scope, (k, lo, hi, n, judge, human) in by_scope(Path(arg)).items():
            print(
                f"  {scope:10s} n={n:3d} kappa {k:.2f} [{lo:.2f}, {hi:.2f}]  "
                f"faithful judge {judge} / human {human}"
            )


if __name__ == "__main__":
    main()
