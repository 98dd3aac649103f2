"""Claim by claim on ExpertQA: which signal tells a supported sentence from an unsupported one?

    python benchmarks/claim_level_auc.py

ExpertQA's experts judged every claim (about one answer sentence) against its cited
evidence: ``Complete``, ``Partial``, ``Incomplete`` or ``Missing`` (no evidence cited).
An answer is faithful only when all its claims are ``Complete``, so an answer-level
judge can be no better than its sentence-level one. This measures the sentence level
directly, threshold-free (AUC of ``Complete`` against ``Partial``/``Incomplete``; claims
that cite nothing are left out, since they are unsupported by construction):

* the embedded model's ``P(supported)`` for each sentence it scored (recorded results;
  the sentence's text matched to the expert's claim, citation markers ignored);
* word alignment with the sentence's best evidence window and the fact check, for
  every claim (computed here, no model).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sklearn.metrics import roc_auc_score

from ragtriage.judge.alignment import align_sentence
from ragtriage.judge.facts import fact_signals
from ragtriage.judge.types import ContextChunk

ROOT = Path(__file__).resolve().parents[1]
GRADES = ROOT / "human_grades" / "expertqa" / "grades.jsonl"
RESULTS = ROOT / "human_grades" / "_judged" / "embedded_sentences.jsonl"
CHECKED = ("Complete", "Partial", "Incomplete")


def _key(text: str) -> str:
    """A claim's text without citation markers, punctuation or case, for matching."""
    return re.sub(r"\W+", " ", re.sub(r"\[\d+\]", " ", text)).strip().lower()


def _model_rows(grades: dict[str, dict]) -> list[tuple[bool, float, float]]:
    """(Complete, the model's probability, word alignment) of each scored sentence."""
    rows = []
    for line in RESULTS.read_text().splitlines():
        result = json.loads(line)
        item = grades.get(result["item_id"])
        if item is None:
            continue
        support = {_key(c["claim"]): c["support"] for c in item["human_label"]["claims"]}
        chunks = [ContextChunk(id=str(k), text=t) for k, t in enumerate(item["contexts"])]
        for claim in result["claims"]:
            label = support.get(_key(claim["text"]))
            evidence = align_sentence(claim["text"], chunks)
            if claim["probability"] is not None and label in CHECKED and evidence:
                rows.append((label == "Complete", claim["probability"], evidence.alignment))
    return rows


def _word_rows(grades: dict[str, dict]) -> list[tuple[bool, float, float]]:
    rows = []
    for item in grades.values():
        chunks = [ContextChunk(id=str(k), text=t) for k, t in enumerate(item["contexts"])]
        for claim in item["human_label"]["claims"]:
            evidence = align_sentence(claim["claim"], chunks)
            if claim["support"] in CHECKED and evidence is not None:
                facts = fact_signals([evidence], answer_cites=True)["fact_check"]
                rows.append((claim["support"] == "Complete", evidence.alignment, -facts))
    return rows


def main() -> None:
    grades = {}
    for line in GRADES.read_text().splitlines():
        row = json.loads(line)
        grades[row["id"]] = row
    model = _model_rows(grades)
    words = _word_rows(grades)
    y_model, y_words = [r[0] for r in model], [r[0] for r in words]
    print(f"ExpertQA claims, AUC of Complete vs Partial/Incomplete ({len(grades)} answers)")
    print(
        f"embedded model P(supported):   {roc_auc_score(y_model, [r[1] for r in model]):.3f}"
        f"  ({len(model)} scored sentences matched to a claim,"
        f" {sum(y_model) / len(model):.0%} Complete)"
    )
    print(f"word alignment, same sentences: {roc_auc_score(y_model, [r[2] for r in model]):.3f}")
    print(
        f"word alignment, every claim:  {roc_auc_score(y_words, [r[1] for r in words]):.3f}"
        f"  ({len(words)} claims, {sum(y_words) / len(words):.0%} Complete)"
    )
    print(f"fact check (no flag), claims: {roc_auc_score(y_words, [r[2] for r in words]):.3f}")


if __name__ == "__main__":
    main()
