"""AUC of each signal of the recorded embedded-judge results against the human labels.

A quick separability check (threshold-free); decisions, kappa and calibration belong to
the calibration stage.

    python benchmarks/judge_auc.py
"""

from __future__ import annotations

import json
from pathlib import Path

from sklearn.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "tests" / "fixtures" / "judge" / "embedded_calibration_results.jsonl"
SIGNALS = ("score", "min_sentence_prob", "mean_sentence_prob", "lexical", "min_sentence_lexical")


def main() -> None:
    labels, dataset = {}, {}
    for path in sorted(DATA.glob("*_faithfulness/*.jsonl")):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            labels[row["id"]] = row["human_label"]["faithful"]
            dataset[row["id"]] = row["dataset"]
    rows = [json.loads(line) for line in RESULTS.read_text().splitlines()]
    scored = [r for r in rows if r["outcome"] == "scored"]
    report = {"items": len(rows), "scored": len(scored)}
    for name in (None, *sorted(set(dataset.values()))):
        part = [r for r in scored if name is None or dataset[r["item_id"]] == name]
        y = [labels[r["item_id"]] for r in part]
        values = {
            s: [r["score"] if s == "score" else r["signals"][s] for r in part] for s in SIGNALS
        }
        report[name or "pooled"] = {
            "n": len(part),
            **{s: round(roc_auc_score(y, v), 3) for s, v in values.items()},
        }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
