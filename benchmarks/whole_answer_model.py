"""Does the embedded model add to the smooth rule when it reads the whole answer? (issue 54 item 4)

    python benchmarks/judge_calibration_run.py --threads 2 --budget-chars 0 \\
        --results human_grades/_judged/embedded_sentences_whole.jsonl \\
        --recording /tmp/whole_recording.jsonl --cache .ragtriage/whole.sqlite
    python benchmarks/whole_answer_model.py > benchmarks/results/whole_answer_model.txt

At the shipped 1,000-character budget the model sees the weakest-aligned sentences of an
answer until the budget is spent (about one of six of a long cited answer). With
``--budget-chars 0`` it judges every sentence. On the 300 shipped grades, with calibrate's
folds (5, seed 20261129), this compares, for both recordings:

* the smooth rule alone (``signals-logistic``, model-free, under the swap veto), and the
  same logistic with the model's ``min_sentence_prob`` and ``mean_sentence_prob`` added
  (``signals-logistic+model``): 5-fold cross-validated kappa, pooled and per dataset;
* the procedure ``calibrate`` runs (nested selection, the model tier needing one standard
  error over the best model-free rule) with ``signals-logistic+model`` among the
  candidates: its outer-fold kappa and what the outer folds chose.

A model feature ships only if the procedure picks it in the outer folds.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rule_candidates import _kappa  # noqa: E402  (the same bootstrap interval)
from selective_band import _inputs  # noqa: E402  (the same inputs, one loader)

from ragtriage.calibration.fit import scope_candidates  # noqa: E402
from ragtriage.calibration.judges import read_judged  # noqa: E402
from ragtriage.calibration.select import (  # noqa: E402
    SMOOTH,
    Candidate,
    _smooth_fit,
    _vetoed,
    nested_select,
)
from ragtriage.calibration.threshold import cross_fit  # noqa: E402
from ragtriage.judge.strategies.common import MODEL_FREE_SIGNALS  # noqa: E402
from ragtriage.stats import DEFAULT_SEED  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
JUDGED = ROOT / "human_grades" / "_judged"
RECORDINGS = {
    "shipped budget (1,000 characters)": JUDGED / "embedded_sentences.jsonl",
    "whole answer (--budget-chars 0)": JUDGED / "embedded_sentences_whole.jsonl",
}
MODEL_FEATURES = ("min_sentence_prob", "mean_sentence_prob")
WITH_MODEL = f"{SMOOTH}+model"


def _with_model(table) -> Candidate:
    free = tuple(sorted(k for k in table if k in MODEL_FREE_SIGNALS and k != "swapped_facts"))
    return Candidate(WITH_MODEL, _vetoed(_smooth_fit(free + MODEL_FEATURES)), model_free=False)


def _row(name, y, datasets, oof) -> str:
    cells = [_kappa(y, oof)] + [
        _kappa(y[datasets == d], oof[datasets == d]) for d in ("expertqa", "begin_wow")
    ]
    return f"  {name:<26} " + "  ".join(f"{c:<19}" for c in cells)


def main() -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    print(f"# python benchmarks/whole_answer_model.py   (commit {commit}; 300 shipped grades,")
    print(f"# 5 folds, seed {DEFAULT_SEED}; kappa [bootstrap 95 % CI])")
    for label, path in RECORDINGS.items():
        results = read_judged(path)
        table, y, folds, derived, datasets = _inputs(results)
        cands = scope_candidates(table, derived, False) + [_with_model(table)]
        by = {c.name: c for c in cands}
        print(f"\n{label}: {len(y)} scored answers")
        heads = ("pooled", "expertqa", "begin_wow")
        print(f"  {'rule':<26} " + "  ".join(f"{h:<19}" for h in heads))
        for name in (SMOOTH, WITH_MODEL, "min_sentence_prob"):
            if name in by:
                oof, _ = cross_fit(by[name].fit, table, y, folds)
                print(_row(name, y, datasets, oof))
        selection, oof, _, _ = nested_select(cands, table, y, folds, DEFAULT_SEED, datasets)
        print(_row("PROCEDURE (nested)", y, datasets, oof))
        print(f"  chosen on all: {selection.chosen}; outer folds chose {selection.fold_choices}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
