"""Does the shape-aware selection beat the pooled one over many fold splits, per scope?

    python benchmarks/shape_seed_spread.py

For the shipped seed and 9 more, the lexical judge's results on the 300 shipped grades
(run here, no model) and the embedded judge's recorded ones go through the nested
selection twice on the same folds: with the pooled candidates only (every single signal
and the fixed combinations, each with the fact check as a veto, as before shape rules
existed) and with the shape-aware candidates added. Each cell is the outer-fold kappa of
the *pooled* procedure's decisions, over all answers and per dataset (the shipped rule's
figure on each kind of answer), as shipped seed / mean over the 10 seeds [min, max].
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ragtriage.calibration.agreement import cohen_kappa
from ragtriage.calibration.combine import usable_features
from ragtriage.calibration.decision import FACT_VETO, result_features
from ragtriage.calibration.grades import load_grades
from ragtriage.calibration.judges import read_judged
from ragtriage.calibration.select import candidates, nested_select
from ragtriage.calibration.shape import shape_usable
from ragtriage.calibration.threshold import stratified_folds
from ragtriage.judge.api import judge_faithfulness
from ragtriage.judge.strategies.common import MODEL_FREE_SIGNALS
from ragtriage.judge.types import Outcome
from ragtriage.stats import DEFAULT_SEED

ROOT = Path(__file__).resolve().parents[1]
GRADES = ROOT / "human_grades"
RECORDED = GRADES / "_judged" / "embedded_sentences.jsonl"
SEEDS = (DEFAULT_SEED, 1, 2, 3, 4, 5, 6, 7, 8, 9)
SCOPES = ("pooled", "expertqa", "begin_wow")


def _table(items, results):
    by_id = {r.item_id: r for r in results}
    used = [i for i in items if i.label is not None and by_id[i.id].outcome == Outcome.SCORED]
    rows = [result_features(by_id[i.id]) for i in used]
    names = sorted({k for r in rows for k in r})
    table = {k: np.array([r.get(k, np.nan) for r in rows]) for k in names}
    y = np.array([float(bool(i.label)) for i in used])
    return used, table, y


def spread(items, results, model_free):
    used, table, y = _table(items, results)
    signals = usable_features(table, sorted(table))
    out = {}
    for shape in (False, True):
        cands = candidates(signals, veto=FACT_VETO in signals, model_free=model_free,
                           shape=shape and shape_usable(table))  # fmt: skip
        cells = {s: [] for s in SCOPES}
        for seed in SEEDS:
            folds = stratified_folds([f"{i.dataset}|{i.label}" for i in used], 5, seed)
            _, oof, _, _ = nested_select(cands, table, y, folds, seed)
            for scope in SCOPES:
                mask = np.array([scope in ("pooled", i.dataset) for i in used]) & np.isfinite(oof)
                cells[scope].append(cohen_kappa(y[mask], oof[mask]))
        out["shape-aware" if shape else "pooled candidates"] = cells
    return out


def main() -> None:
    items = load_grades(GRADES)
    lexical = judge_faithfulness([i.judge_item() for i in items], judge="lexical", cache=None)
    judges = {
        "lexical judge": (lexical, None),
        "embedded judge (recorded)": (read_judged(RECORDED), MODEL_FREE_SIGNALS),
    }
    print("outer-fold kappa of the pooled nested-CV rule, by scope of the answers it decides")
    print("each cell: shipped seed / mean over 10 fold splits [min, max]")
    print(f"{'':44s}" + "".join(f"{s:30s}" for s in SCOPES))
    for judge, (results, free) in judges.items():
        for kind, cells in spread(items, results, free).items():
            row = "".join(
                f"{v[0]:.3f} / {np.mean(v):.3f} [{min(v):.2f}, {max(v):.2f}]    "
                for v in (cells[s] for s in SCOPES)
            )
            print(f"{judge + ', ' + kind:44s}{row}")


if __name__ == "__main__":
    main()
