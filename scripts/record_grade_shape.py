"""Write the shape of the shipped grades into the shipped calibration records.

    python scripts/record_grade_shape.py

The records in ``calibrations/`` were calibrated before records kept the shape of their
graded answers (``calibration.fit_check``); this adds it, computed exactly as
``ragtriage calibrate`` does (the judge's signals of each scored, labelled grade plus its
context length), from the lexical judge run here and from the embedded judge's recorded
results, and changes nothing else in the records.
"""

from __future__ import annotations

import json
from pathlib import Path

from ragtriage.calibration.decision import result_features
from ragtriage.calibration.fit_check import grade_shape
from ragtriage.calibration.grades import load_grades
from ragtriage.calibration.judges import read_judged, run_judge
from ragtriage.judge.spec import JudgeSpec
from ragtriage.judge.types import Outcome

ROOT = Path(__file__).resolve().parents[1]
GRADES = ROOT / "human_grades"


def main() -> None:
    items = load_grades(GRADES)
    lexical, _, _ = run_judge(
        JudgeSpec.parse("lexical"), [i.judge_item() for i in items], GRADES / "_judged"
    )
    embedded = read_judged(GRADES / "_judged" / "embedded_sentences.jsonl")
    for name, results in (("lexical.json", lexical), ("embedded-sentences.json", embedded)):
        by = {r.item_id: r for r in results}
        rows = [
            {**result_features(by[i.id]), "context_chars": float(sum(len(c) for c in i.contexts))}
            for i in items
            if i.label is not None and i.id in by and by[i.id].outcome == Outcome.SCORED
        ]
        path = ROOT / "calibrations" / name
        record = json.loads(path.read_text())
        record["grade_shape"] = grade_shape(rows).model_dump()
        path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        print(f"{path.name}: grade shape of {len(rows)} graded answers written")


if __name__ == "__main__":
    main()
