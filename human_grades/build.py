"""Rebuild the shipped human grades from the shared calibration sets (stdlib only).

Usage: ``python human_grades/build.py [--shared ../shared/data]``

Each row of ``<dataset>_faithfulness.jsonl`` is copied unchanged (question, contexts,
answer, the original ``human_label`` object, source model, meta) and gets the fields
ragtriage's grade reader uses: ``label`` (faithful, bool), ``grade`` (ExpertQA only: the
fraction of the answer's claims the expert judged completely supported, an ordinal-ish
grade in [0, 1]) and ``grader`` (the source has one aggregated judgement per item).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = {
    "expertqa": ("expertqa_faithfulness", "expertqa_faithfulness.jsonl", "expert"),
    "begin_wow": ("begin_wow_faithfulness", "begin_wow_faithfulness.jsonl", "begin-crowd"),
}


def convert(row: dict, grader: str) -> dict:
    label = row["human_label"]
    out = {"id": row["id"], "dataset": row["dataset"], "label": bool(label["faithful"])}
    if "fraction_claims_complete" in label:
        out["grade"] = label["fraction_claims_complete"]
    out["grader"] = grader
    out.update({k: v for k, v in row.items() if k not in out})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared" / "data")
    args = parser.parse_args()
    for name, (folder, filename, grader) in SOURCES.items():
        rows = [
            json.loads(line)
            for line in (args.shared / folder / filename).read_text("utf-8").splitlines()
            if line.strip()
        ]
        target = HERE / name / "grades.jsonl"
        with target.open("w", encoding="utf-8", newline="\n") as fh:
            for row in rows:
                fh.write(json.dumps(convert(row, grader), ensure_ascii=False) + "\n")
        faithful = sum(r["human_label"]["faithful"] for r in rows)
        print(f"{target}: {len(rows)} rows, {faithful} faithful")


if __name__ == "__main__":
    main()
