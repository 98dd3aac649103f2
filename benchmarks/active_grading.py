"""Active vs uniform grading at equal budget: interval width and coverage over 500 seeds.

    python benchmarks/active_grading.py > benchmarks/results/active_grading.txt

An audit of N = 2000 answers, of which a budget of n = 150 expected grades is drawn,
either uniformly (each answer with probability n / N) or by the active design of
``calibration.active`` (probabilities proportional to the square root of the judge's
error rate at the answer's margin, learnt from 300 graded answers by ``fit_error_curve``,
with 20 % of the budget uniform); the faithful rate is then estimated by the inverse-probability-
weighted estimator (the same for both designs) with its 95 % interval, 500 seeds each.

Two populations:

* **shipped grades**: half of the 300 shipped grades (seeded) resampled with
  replacement, each answer keeping its real human grade, the lexical judge's out-of-fold
  decision (the rule chosen by nested CV, ``calibrate``'s folds) and its margin from that
  fold rule's cut-off: the judge's errors where they really fall; the design's error
  curve is learnt from the other half. The true rate is that of the half resampled.
* **simulated judge**: margins uniform on [0, 1], the judge wrong with probability 0.45
  within 0.2 of its cut-off and 0.03 beyond, true rate 0.5: a judge whose margin says
  where it errs.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from ragtriage.calibration.active import (
    draw,
    fit_error_curve,
    inclusion_probabilities,
    ipw_rate,
)
from ragtriage.calibration.band import margins
from ragtriage.calibration.fit import fit_record
from ragtriage.calibration.grades import load_grades
from ragtriage.calibration.judges import run_judge
from ragtriage.calibration.threshold import subset
from ragtriage.judge.spec import JudgeSpec

ROOT = Path(__file__).resolve().parents[1]
N, BUDGET, SEEDS = 2000, 150, 500


def _shipped() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per graded answer: out-of-fold decision, human grade, margin, group."""
    from ragtriage.calibration.fit import _features, _table
    from ragtriage.judge.types import Outcome

    items = load_grades(ROOT / "human_grades")
    results, _, _ = run_judge(
        JudgeSpec.parse("lexical"), [i.judge_item() for i in items], ROOT / "human_grades/_judged"
    )
    record = fit_record(items, results, judge_name="lexical", grades_digest={}, resamples=100)
    by = {r.item_id: r for r in results}
    rows = {i.id: _features(i, by[i.id]) for i in items if by[i.id].outcome == Outcome.SCORED}
    kept = [i for i in record.items if i.decision_cv is not None and i.human is not None]
    table = _table([rows[i.id] for i in kept])
    folds = np.array([i.fold for i in kept])
    groups = np.empty(len(kept), dtype=object)
    distance = np.full(len(kept), np.nan)
    for f, rule in enumerate(record.fold_rules):
        m = folds == f
        groups[m], distance[m] = margins(rule, subset(table, m))
    f_ = np.array([float(i.decision_cv) for i in kept])
    y = np.array([float(i.human) for i in kept])
    return f_, y, distance, groups


def _simulated(rng: np.random.Generator, n: int):
    d = rng.random(n)
    wrong = rng.random(n) < np.where(d < 0.2, 0.45, 0.03)
    y = (rng.random(n) < 0.5).astype(float)
    f_ = np.where(wrong, 1 - y, y)
    return f_, y, d, np.zeros(n, dtype=object)


def _run(name: str, population, calibration, truth: float) -> None:
    """``calibration``: graded answers (decision, grade, margin, group) apart from the
    audit's, from which the design learns where the judge errs (``fit_error_curve``)."""
    cf, cy, cd, cg = calibration
    curve = fit_error_curve(cg, cd, cf == cy)
    widths = {"uniform": [], "active": []}
    covered = {"uniform": 0, "active": 0}
    labelled = {"uniform": [], "active": []}
    for seed in range(SEEDS):
        rng = np.random.default_rng(seed)
        f_, y, d, g = population(rng)
        spread = np.sqrt(curve.rate(g, d))  # the residual's standard deviation, estimated
        designs = {
            "uniform": np.full(len(f_), BUDGET / len(f_)),
            "active": inclusion_probabilities(spread, BUDGET),
        }
        for design, pi in designs.items():
            drawn = draw(pi, seed + 10_000)
            est = ipw_rate(f_, drawn, y, pi)
            widths[design].append(est.high - est.low)
            covered[design] += est.low <= truth <= est.high
            labelled[design].append(int(drawn.sum()))
    w_u, w_a = np.mean(widths["uniform"]), np.mean(widths["active"])
    print(f"\n{name}: N = {N}, budget {BUDGET} expected grades, {SEEDS} seeds, truth {truth:.3f}")
    for design in ("uniform", "active"):
        print(
            f"  {design:8s} mean width {np.mean(widths[design]):.4f}  coverage "
            f"{covered[design] / SEEDS:.3f}  grades drawn {np.mean(labelled[design]):.1f}"
        )
    print(f"  active interval {100 * (1 - w_a / w_u):.1f} % narrower than uniform")


def main() -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    print(f"# python benchmarks/active_grading.py   (commit {commit})")
    f_, y, d, g = _shipped()
    # the design learns where the judge errs from one half of the grades; the audits are
    # resampled from the other half, so the design is never scored on what it learnt from
    half = np.random.default_rng(7).permutation(len(y)) < len(y) // 2
    learn = (f_[half], y[half], d[half], g[half])
    pool = np.flatnonzero(~half)

    def shipped(rng):
        idx = pool[rng.integers(0, len(pool), N)]
        return f_[idx], y[idx], d[idx], g[idx]

    truth = float(y[pool].mean())
    _run("shipped grades, lexical judge's out-of-fold decisions", shipped, learn, truth)
    graded = _simulated(np.random.default_rng(999_999), 300)  # 300 grades of its own
    _run("simulated judge, errors near its cut-off", lambda rng: _simulated(rng, N), graded, 0.5)


if __name__ == "__main__":
    main()
