"""How much does the nested-CV figure move with the fold split, and what does the veto add?

    python benchmarks/nested_seed_spread.py

``ragtriage calibrate`` reports the outer-fold kappa of the rule-selection procedure for
one split of the 300 shipped grades into 5 folds (seed 20261129). With 300 items that
figure moves by several hundredths from one split to another, so one split can make a
judge look better or worse than the lexical baseline by chance. This script recomputes
it for the shipped seed and 9 more (1-9), for the embedded judge (the recorded results in
``human_grades/_judged/``) and the lexical judge (run here, no model), each with the fact
check as a veto as shipped, without its unstated negations, and without any veto (the
``fact_check`` signal removed, so no candidate carries it). The lexical baseline (word
overlap, thresholded) is computed on the same folds.
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ragtriage.flows.calibrate import calibrate
from ragtriage.judge.api import judge_faithfulness
from ragtriage.judge.items import load_answers

ROOT = Path(__file__).resolve().parents[1]
GRADES = ROOT / "human_grades"
RECORDED = GRADES / "_judged" / "embedded_sentences.jsonl"
DATA = ROOT.parent / "shared" / "data"
FILES = (
    DATA / "begin_wow_faithfulness" / "begin_wow_faithfulness.jsonl",
    DATA / "expertqa_faithfulness" / "expertqa_faithfulness.jsonl",
)
SEEDS = (20261129, 1, 2, 3, 4, 5, 6, 7, 8, 9)
SCOPES = ("pooled", "expertqa", "begin_wow")
Edit = Callable[[dict], dict]


def _as_shipped(row: dict) -> dict:
    return row


def _without_unstated(row: dict) -> dict:
    signals = row["signals"]
    signals["fact_check"] -= signals.get("unstated_negations", 0.0)
    return row


def _without_veto(row: dict) -> dict:
    row["signals"].pop("fact_check", None)
    return row


VARIANTS: dict[str, Edit] = {
    "fact check as shipped": _as_shipped,
    "without unstated negations": _without_unstated,
    "no fact check": _without_veto,
}


def _kappas(rows: list[dict], edit: Edit, folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """Selected-rule and lexical-baseline outer-fold kappa per seed and scope."""
    path = folder / "judged.jsonl"
    path.write_text("".join(json.dumps(edit(copy.deepcopy(r))) + "\n" for r in rows))
    selected, baseline = [], []
    for seed in SEEDS:
        (run,) = calibrate(GRADES, judged=[path], seed=seed, resamples=50)
        scopes = run.record.scopes
        selected.append([scopes[s].selected.cv.kappa for s in SCOPES])
        baseline.append(
            [next(b.cv.kappa for b in scopes[s].baselines if b.name == "lexical") for s in SCOPES]
        )
    return np.array(selected), np.array(baseline)


def _line(name: str, k: np.ndarray) -> str:
    cells = [f"{k[0, j]:.3f} / {k[:, j].mean():.3f} [{k[:, j].min():.2f}, {k[:, j].max():.2f}]"
             for j in range(len(SCOPES))]  # fmt: skip
    return f"{name:48s} " + "  ".join(f"{c:28s}" for c in cells)


def main() -> None:
    items = [item for path in FILES for item in load_answers(path)]
    judged = judge_faithfulness(items, strategy="lexical", cache=None)
    lexical = [json.loads(r.model_dump_json()) for r in judged]
    embedded = [json.loads(line) for line in RECORDED.read_text().splitlines()]
    print(f"outer-fold kappa of the nested-CV rule, seeds {SEEDS[0]} (shipped) and 1-9")
    print("each cell: shipped seed / mean over the 10 seeds [min, max]")
    print(f"{'':48s} " + "  ".join(f"{s:28s}" for s in SCOPES))
    baseline = None
    with tempfile.TemporaryDirectory() as tmp:
        for judge, rows in (("embedded", embedded), ("lexical", lexical)):
            for name, edit in VARIANTS.items():
                selected, baseline = _kappas(rows, edit, Path(tmp))
                print(_line(f"{judge} judge, {name}", selected))
    assert baseline is not None
    print(_line("lexical baseline (word overlap)", baseline))


if __name__ == "__main__":
    main()
