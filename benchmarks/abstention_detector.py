"""Precision and recall of the abstention detector on the labelled set of real answers.

    PYTHONPATH=src python benchmarks/abstention_detector.py

The set (tests/fixtures/abstention/labelled.jsonl, built and labelled by
benchmarks/abstention_set.py) has a ``dev`` part, read while the detector
(judge/abstention.py) was written, and a ``test`` part, labelled before the detector
ever read it and not tuned on afterwards. An answer counts as detected when the judge's
pre-check (judge/outcomes.py ``classify_answer``) makes it ``abstained`` or
``no_claims`` without a judge. Printed per part and overall: the confusion, precision
and recall with 95% Wilson intervals, and every error.
"""

from __future__ import annotations

import json
from pathlib import Path

from ragtriage.judge.outcomes import classify_answer
from ragtriage.judge.types import Outcome
from ragtriage.stats import wilson_interval

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "tests" / "fixtures" / "abstention" / "labelled.jsonl"


def detected(answer: str) -> bool:
    return classify_answer(answer)[0] in (Outcome.ABSTAINED, Outcome.NO_CLAIMS)


def _rate(hits: int, n: int) -> str:
    if not n:
        return "- (n=0)"
    est = wilson_interval(hits, n)
    return f"{hits / n:.3f} [{est.low:.3f}, {est.high:.3f}] ({hits}/{n})"


def report(rows: list[dict], name: str) -> list[str]:
    tp = sum(1 for r in rows if r["abstains"] and r["found"])
    fp = sum(1 for r in rows if not r["abstains"] and r["found"])
    fn = sum(1 for r in rows if r["abstains"] and not r["found"])
    tn = len(rows) - tp - fp - fn
    return [
        f"{name}: n={len(rows)} (abstaining {tp + fn}); tp {tp}, fp {fp}, fn {fn}, tn {tn}",
        f"  precision {_rate(tp, tp + fp)}",
        f"  recall    {_rate(tp, tp + fn)}",
    ]


def main() -> None:
    rows = [json.loads(line) for line in SET.read_text().splitlines() if line]
    for row in rows:
        row["found"] = detected(row["answer"])
    lines = []
    for part in ("test", "dev"):
        lines += report([r for r in rows if r["split"] == part], part)
    lines += report(rows, "all")
    for source in sorted({r["source"] for r in rows}):
        lines += report([r for r in rows if r["source"] == source], f"  source {source}")
    errors = [r for r in rows if bool(r["abstains"]) != r["found"]]
    lines.append(f"errors ({len(errors)}):")
    lines += [
        f"  {'missed' if r['abstains'] else 'false alarm'} [{r['split']}, {r['id']}]: "
        f"{r['answer'][:160]!r}"
        for r in errors
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
