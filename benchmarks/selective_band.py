"""Can the judge decide half of the shipped grades at 0.85 agreement, honestly?

    python benchmarks/selective_band.py > benchmarks/results/selective_band.txt

For the lexical judge (run here, no model) and the embedded judge (the recorded results in
``human_grades/_judged/``), on the 300 shipped grades with ``calibrate``'s folds (5,
seed 20261129): the rule is chosen by nested cross-validation as ``calibrate`` does, and
the selective band (``calibration.band``: fixed-sequence testing with a Clopper-Pearson
bound, per group of the rule, Bonferroni over groups) is fitted inside each outer fold
on the training folds' out-of-fold margins; the held-out fold is decided or left unsure
by the training rule and band. Printed: the outer-fold coverage (share decided) and the
agreement of the decided answers with the humans, each with a Wilson 95 % interval, for
targets 0.80 / 0.85 / 0.90 at delta 0.05, 0.1 (the default), 0.2, 0.3 and 0.5: the
coverage-agreement curve per confidence level (1 - delta) a user picks from.

The last table is the coverage-agreement curve the margins allow at best: the outer-fold
answers ranked by their margin's percentile within its group and decided from the top.
It is no rule (the ranking is scored on the answers it ranks, no band is fitted), only
the ceiling of what any band on these margins could reach.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from ragtriage.calibration.band import margins
from ragtriage.calibration.fit import _features, _table, scope_candidates
from ragtriage.calibration.grades import load_grades
from ragtriage.calibration.judges import read_judged, run_judge
from ragtriage.calibration.select import nested_band, nested_select
from ragtriage.calibration.threshold import stratified_folds, subset
from ragtriage.judge.spec import JudgeSpec
from ragtriage.judge.types import Outcome
from ragtriage.stats import DEFAULT_SEED, wilson_interval

ROOT = Path(__file__).resolve().parents[1]
GRADES = ROOT / "human_grades"
RECORDED = GRADES / "_judged" / "embedded_sentences.jsonl"
TARGETS = (0.80, 0.85, 0.90)
DELTAS = (0.05, 0.1, 0.2, 0.3, 0.5)
COVERAGES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _share(k: int, n: int) -> str:
    if n == 0:
        return "  -   (none)        "
    w = wilson_interval(k, n)
    return f"{w.estimate:.3f} [{w.low:.2f}, {w.high:.2f}]"


def _inputs(results):
    items = load_grades(GRADES)
    by = {r.item_id: r for r in results}
    used = [
        i
        for i in items
        if i.label is not None and i.id in by and by[i.id].outcome == Outcome.SCORED
    ]
    table = _table([_features(i, by[i.id]) for i in used])
    scored = [r for r in results if r.outcome == Outcome.SCORED]
    derived = {k for k in table if not any(k in r.signals or k == "score" for r in scored)}
    y = np.array([float(bool(i.label)) for i in used])
    folds = stratified_folds([f"{i.dataset}|{i.label}" for i in used], 5, DEFAULT_SEED)
    datasets = np.array([i.dataset for i in used])
    return table, y, folds, derived, datasets


def _judge(name: str):
    if name == "lexical":
        items = load_grades(GRADES)
        results, _, _ = run_judge(
            JudgeSpec.parse("lexical"), [i.judge_item() for i in items], GRADES / "_judged"
        )
        return results
    return read_judged(RECORDED)


def _scope(label, table, y, folds, cands, datasets):
    selection, oof, fold_rules, _ = nested_select(cands, table, y, folds, DEFAULT_SEED, datasets)
    ok = np.isfinite(oof)
    print(f"\n{label}: rule chosen {selection.chosen}; outer folds chose {selection.fold_choices}")
    print(
        f"  every answer decided: agreement {_share(int((oof[ok] == y[ok]).sum()), int(ok.sum()))}"
    )
    head = f"{'coverage [95% CI]':<22} {'decided agreement [95% CI]':<26}"
    print(f"  {'target':>6} {'delta':>5}   {head} decided/n")
    for delta in DELTAS:
        for target in TARGETS:
            decided, _, _ = nested_band(
                selection, cands, table, y, folds, DEFAULT_SEED, target, delta
            )
            take = decided & ok
            k, n = int(take.sum()), int(ok.sum())
            right = int((oof[take] == y[take]).sum())
            met = k and right / k >= target and k / n >= 0.5
            cells = f"{_share(k, n):<22} {_share(right, k):<26}"
            print(f"  {target:>6.2f} {delta:>5.2f}   {cells} {k}/{n} {'MEETS' if met else ''}")
    return oof, fold_rules


def _ceiling(table, y, folds, oof, fold_rules) -> None:
    """Outer-fold answers ranked by their margin's percentile within its group."""
    groups = np.empty(len(y), dtype=object)
    distance = np.full(len(y), np.nan)
    for f, rule in zip(np.unique(folds), fold_rules, strict=True):
        m = folds == f
        groups[m], distance[m] = margins(rule, subset(table, m))
    ok = np.isfinite(distance) & np.isfinite(oof)
    pct = np.full(len(y), np.nan)
    for g in set(groups[ok]):
        m = ok & (groups == g)
        ranks = distance[m].argsort().argsort()
        pct[m] = (ranks + 1) / m.sum()
    order = np.argsort(-np.where(ok, pct, -1), kind="stable")[: int(ok.sum())]
    right = (oof[order] == y[order]).astype(int)
    print("  ceiling (no rule: ranked on the answers scored): coverage -> agreement")
    cells = []
    for c in COVERAGES:
        k = max(1, int(round(c * len(order))))
        cells.append(f"{c:.1f}: {right[:k].mean():.3f}")
    print("   ", "  ".join(cells))


def main() -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    print(f"# python benchmarks/selective_band.py   (commit {commit}; 300 shipped grades,")
    print(f"# 5 folds, seed {DEFAULT_SEED}; MEETS: decided agreement >= target, coverage >= 0.5)")
    print("# outer-fold figures of the selective band fitted inside the nested cross-validation")
    for judge in ("lexical", "embedded"):
        table, y, folds, derived, datasets = _inputs(_judge(judge))
        lexical_judge = judge == "lexical"
        cands = scope_candidates(table, derived, lexical_judge)
        oof, rules = _scope(f"{judge} judge, pooled", table, y, folds, cands, datasets)
        _ceiling(table, y, folds, oof, rules)
        for name in sorted(set(datasets)):
            m = datasets == name
            part = subset(table, np.flatnonzero(m))
            cands = scope_candidates(part, derived, lexical_judge)
            oof, rules = _scope(f"{judge} judge, {name}", part, y[m], folds[m], cands, datasets[m])
            _ceiling(part, y[m], folds[m], oof, rules)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
