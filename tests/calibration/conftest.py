"""Synthetic grades and judge results: a judge whose score tracks the human label."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Outcome

FINGERPRINT = JudgeFingerprint(
    judge="sentences",
    model="synthetic-1",
    params={"temperature": 0},
    prompt_sha256={"p.md": "ab" * 32},
    package_version="0.1.0",
)


def synthetic(
    n: int = 120,
    seed: int = 0,
    noise: float = 0.25,
    unscored: int = 3,
    fingerprint: JudgeFingerprint = FINGERPRINT,
):
    """(grade rows, judge results): two datasets, labels ~35 % faithful, the judge's score =
    label + gaussian noise, a few no_claims / unscored results, one item without a result."""
    rng = np.random.default_rng(seed)
    rows, results = [], []
    for k in range(n):
        label = bool(rng.random() < 0.35)
        item_id = f"s{k:03d}"
        rows.append(
            {
                "id": item_id,
                "dataset": "alpha" if k % 3 else "beta",
                "label": label,
                "grade": 3 * float(label) if rng.random() < 0.7 else float(rng.integers(0, 4)),
                "question": "q?",
                "contexts": ["the sky is blue"],
                "answer": "the sky is blue" if label else "the sea is green",
            }
        )
        if k == n - 1:
            continue  # no judge result at all: listed as missing
        score = float(np.clip(label * 0.5 + 0.25 + rng.normal(0, noise), 0, 1))
        if k < unscored:
            outcome = Outcome.NO_CLAIMS if k % 2 else Outcome.UNSCORED
            results.append(
                JudgeResult(
                    item_id=item_id,
                    outcome=outcome,
                    reason="synthetic",
                    signals={"lexical": 0.5},
                    fingerprint=fingerprint,
                )
            )
            continue
        results.append(
            JudgeResult(
                item_id=item_id,
                outcome=Outcome.SCORED,
                score=score,
                signals={
                    "model_prob": score,
                    "lexical": float(rng.random()),
                    "answer_words": float(rng.integers(5, 60)),
                },
                fingerprint=fingerprint,
            )
        )
    return rows, results


def write_jsonl(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(
                (row.model_dump_json() if hasattr(row, "model_dump_json") else json.dumps(row))
                + "\n"
            )
    return path


@pytest.fixture
def synthetic_files(tmp_path):
    rows, results = synthetic()
    grades = write_jsonl(tmp_path / "grades" / "synth" / "grades.jsonl", rows)
    judged = write_jsonl(tmp_path / "judged.jsonl", results)
    return grades.parent.parent, judged, results
