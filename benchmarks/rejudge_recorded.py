"""Rewrite the embedded judge's recorded results from its recorded model responses.

When the model-free signals change (facts, shape, citation checks) but the requests the
model sees do not, the recording (``tests/fixtures/judge/embedded_calibration_recording
.jsonl``) answers every request: replaying it recomputes every result with today's code
and no model. A request the recording lacks ends ``unscored`` (counted below), never
invented; then re-run ``benchmarks/judge_calibration_run.py`` with the model.

    python benchmarks/rejudge_recorded.py
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

from ragtriage.calibration.grades import load_grades
from ragtriage.judge.api import ajudge_run
from ragtriage.llm.replay import ReplayModel

ROOT = Path(__file__).resolve().parents[1]
GRADES = ROOT / "human_grades"
FIXTURES = ROOT / "tests" / "fixtures" / "judge"
RECORDING = FIXTURES / "embedded_calibration_recording.jsonl"
TARGETS = (
    FIXTURES / "embedded_calibration_results.jsonl",
    ROOT / "human_grades" / "_judged" / "embedded_sentences.jsonl",
)


def main() -> None:
    # the graded items as ``ragtriage calibrate`` judges them (BEGIN, then ExpertQA)
    items = [i.judge_item() for i in load_grades(GRADES)]
    model = ReplayModel.load(RECORDING)
    run = asyncio.run(ajudge_run(items, model=model, cache=None))
    text = "".join(r.model_dump_json() + "\n" for r in run.results)
    for target in TARGETS:
        target.write_text(text)
    outcomes = Counter(r.outcome.value for r in run.results)
    print(json.dumps({"items": len(items), "replayed_calls": model.calls, **outcomes}))


if __name__ == "__main__":
    main()
