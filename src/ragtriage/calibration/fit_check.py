"""Does the record fit these answers? The shape of the graded answers against the audit's.

A rule fitted on short chat turns decides long cited reports by thresholds it never saw
them at (measured from outside, the shipped rule called far fewer long conversational
answers faithful than people did). So the record keeps the shape of its graded answers
(:func:`grade_shape`) and the audit compares its own with it (:func:`misfit`; thresholds
and warning: docs/calibration.md, 'Does the record fit your answers?').
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict

__all__ = ["FEATURES", "FeatureRange", "GradeShape", "grade_shape", "misfit"]

# feature -> how a sentence names it
FEATURES = {
    "answer_words": "answers are",
    "answer_sentences": "answers have",
    "paraphrase_share": "answers paraphrase",
    "context_chars": "contexts are",
}
CITES = "cites"
CITE_GAP = 0.25
GRADE_MORE = 40  # the grades to ask for (the example; PPI's interval at 40: +-0.12)


class FeatureRange(BaseModel):
    """One shape feature over the graded answers."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    low: float
    """Its 5th percentile."""
    median: float
    """Its median."""
    high: float
    """Its 95th percentile."""
    n: int
    """Graded answers with the feature (count)."""


class GradeShape(BaseModel):
    """The shape of the graded answers a record was fitted on."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    features: dict[str, FeatureRange]
    """Feature (``answer_words``, ``answer_sentences``, ``paraphrase_share``,
    ``context_chars``) -> its range over the graded answers."""
    cites: float | None = None
    """Share 0-1 of graded answers that cite a passage; null when not reported."""


def _column(rows: list[dict[str, float]], name: str) -> np.ndarray:
    x = np.array([r.get(name, np.nan) for r in rows], dtype=float)
    return x[np.isfinite(x)]


def grade_shape(rows: list[dict[str, float]]) -> GradeShape:
    """The shape of answers given as feature rows (the judge's signals plus
    ``context_chars``)."""
    out = {}
    for name in FEATURES:
        x = _column(rows, name)
        if len(x):
            low, median, high = np.percentile(x, [5, 50, 95])
            out[name] = FeatureRange(low=low, median=median, high=high, n=len(x))
    cites = _column(rows, CITES)
    return GradeShape(features=out, cites=float((cites >= 0.5).mean()) if len(cites) else None)


def _number(x: float) -> str:
    return f"{x:.2f}" if abs(x) < 10 else f"{x:.0f}"


def misfit(
    shape: GradeShape, rows: list[dict[str, float]], audit: str = "results.json"
) -> list[str]:
    """What differs between the audit's answers (feature rows) and the graded ones beyond
    what the grades cover, one sentence each, the last saying what to do; empty when
    they fit."""
    found = []
    for name, words in FEATURES.items():
        graded = shape.features.get(name)
        x = _column(rows, name)
        if graded is None or not len(x):
            continue
        median = float(np.median(x))
        if graded.low <= median <= graded.high:
            continue
        ratio = median / graded.median if graded.median > 0 else float("inf")
        how = f"{ratio:.1f}x" if np.isfinite(ratio) else "far beyond"
        found.append(
            f"your {words} {how} the graded answers' ({name} median {_number(median)} vs "
            f"{_number(graded.median)}; the grades cover {_number(graded.low)} to "
            f"{_number(graded.high)})"
        )
    cites = _column(rows, CITES)
    if shape.cites is not None and len(cites):
        share = float((cites >= 0.5).mean())
        if abs(share - shape.cites) >= CITE_GAP:
            found.append(
                f"{100 * share:.0f} % of your answers cite passages, {100 * shape.cites:.0f} % "
                "of the graded ones"
            )
    if not found:
        return []
    n = min(GRADE_MORE, len(rows))
    return [
        "THE CALIBRATION DOES NOT FIT THESE ANSWERS: " + "; ".join(found),
        f"Grade {n} of them with `ragtriage annotate grades --audit {audit} -o grades.jsonl`, "
        "calibrate on them (`ragtriage calibrate grades.jsonl --judge ...`) and audit with "
        "--calibration",
    ]
