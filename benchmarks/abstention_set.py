"""Build the labelled abstention set (tests/fixtures/abstention/labelled.jsonl), by hand.

    python benchmarks/abstention_set.py RUN1.jsonl RUN2.jsonl RUN3.jsonl

Real answers only, each labelled by reading it (``abstains``: 1 when the answer declines
to answer and asserts nothing else; a hedged partial answer, a refusal followed by an
answer, and a denial that answers are 0). Labels are below, keyed by id; the detector
(judge/abstention.py) was not run on an answer before its label was written.

* ``clapnq-qwen``: the embedded model's answers to the shipped ClapNQ queries
  (benchmarks/abstention_gather.py: its runs 1-3, given on the command line; run 3 was
  stopped after 23 answers, for time); split
  ``test`` for run 3 (labelled before the detector ever read it, and nothing in the
  detector changed after; its first answers were read while the last detector commit,
  c3d36d2, was made, which none of them prompted), ``dev`` for runs 1-2 (read while the
  detector was written; answer 0 prompted the "but do not mention" rule).
* ``expertqa`` (MIT) and ``begin-wow`` (CC BY 4.0), from /work/shared/data (source,
  commit and licence in its READMEs): every answer with a phrase of a gap ("not
  provided", "not sure", "cannot", ...) and the first 15 answers (by id hash) with a
  negation; split ``dev``.
* ``fixtures``: the answers of this repository's conversation and user fixtures (files
  written by DeepEval, ragas and OpenInference) and the extractive generator's
  abstention; split ``dev``.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared/data")
OUT = ROOT / "tests" / "fixtures" / "abstention" / "labelled.jsonl"
GAP = re.compile(
    r"(not (mention|say|provide|contain|specif|state|clear|sure|know|able|find|directly|give|"
    r"possible)|couldn't|could not|cannot|can't|unable|don't know|do not know|no (direct |"
    r"specific )?information|not enough|unclear|unknown|I'm sorry|sorry|no idea|impossible to)",
    re.I,
)
NEGATION = re.compile(r"\b(not|no|never|n't|cannot|none|nothing|without)\b", re.I)
# the Qwen answers, in the order of the gather runs (0-15: runs 1-2, then run 3)
QWEN = {
    0: 1, 1: 0, 2: 0, 3: 0, 4: 1, 5: 0, 6: 0, 7: 1, 8: 0, 9: 0, 10: 0, 11: 0, 12: 0, 13: 0,
    14: 0, 15: 0,
    # run 3 (test)
    16: 1, 17: 1, 18: 1, 19: 0, 20: 0, 21: 1, 22: 0, 23: 0, 24: 1, 25: 1, 26: 0, 27: 0,
    28: 1, 29: 1, 30: 0, 31: 1, 32: 0, 33: 0, 34: 0, 35: 0, 36: 1, 37: 0, 38: 0,
}  # fmt: skip
FIXTURE_FILES = (
    "tests/fixtures/conversations/turns.jsonl",
    "tests/fixtures/users/ours_traces.jsonl",
    "examples/own_system/traces.jsonl",
    "golden_sets/handbook/conversation_traces.jsonl",
)
FIXTURE_ABSTAINS = {
    "The documents do not say.",
    "I don't know.",
    "The warranty page does not say whether accidental damage is covered, so I don't know.",
    "The context does not contain the answer.",
}


def _shared(name: str, source: str) -> list[dict]:
    rows = [json.loads(line) for line in (SHARED / name).read_text().splitlines() if line]
    gaps = [r for r in rows if GAP.search(r["answer"])]
    negations = sorted(
        (r for r in rows if NEGATION.search(r["answer"]) and r not in gaps),
        key=lambda r: hashlib.sha256(r["id"].encode()).hexdigest(),
    )[:15]
    # every one of them answers (a hedge or a gap note beside an answer is no abstention)
    return [
        {"id": r["id"], "source": source, "split": "dev", "question": r["question"],
         "answer": r["answer"], "abstains": 0}
        for r in gaps + negations
    ]  # fmt: skip


def _fixtures() -> list[dict]:
    answers: dict[str, None] = {}
    for name in FIXTURE_FILES:
        for line in (ROOT / name).read_text().splitlines():
            answer = json.loads(line).get("answer") if line.strip() else None
            if isinstance(answer, str) and answer.strip():
                answers.setdefault(answer)
    answers.setdefault("The context does not contain the answer.")
    return [
        {"id": f"fixture-{n}", "source": "fixtures", "split": "dev", "question": "",
         "answer": a, "abstains": int(a in FIXTURE_ABSTAINS)}
        for n, a in enumerate(answers)
    ]  # fmt: skip


def _qwen(paths: list[str]) -> list[dict]:
    rows = [json.loads(line) for p in paths for line in Path(p).read_text().splitlines() if line]
    return [
        {"id": r["id"], "source": "clapnq-qwen", "split": "test" if n >= 16 else "dev",
         "question": r["query"], "answer": r["answer"], "abstains": QWEN[n]}
        for n, r in enumerate(rows) if n in QWEN
    ]  # fmt: skip


def main() -> None:
    rows = _qwen(sys.argv[1:]) + _fixtures()
    rows += _shared("expertqa_faithfulness/expertqa_faithfulness.jsonl", "expertqa")
    rows += _shared("begin_wow_faithfulness/begin_wow_faithfulness.jsonl", "begin-wow")
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} answers, {sum(r['abstains'] for r in rows)} abstaining, to {OUT}")


if __name__ == "__main__":
    main()
