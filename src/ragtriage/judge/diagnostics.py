"""RAGChecker's diagnostics of one answer, from claim-level entailment labels.

RAGChecker (amazon-science/RAGChecker, Apache-2.0; ``ragchecker/computation.py``) checks
four entailments between the answer's claims, the reference answer's claims and the
context chunks; per answer:

* ``precision``/``recall``: answer claims the reference entails / reference claims the
  answer entails; ``f1`` of the two (0 when either is 0);
* ``claim_recall``: reference claims some chunk entails; ``context_precision``: chunks
  that entail some reference claim (RAGChecker's *relevant* chunks);
  ``context_utilization``: of the reference claims the chunks entail, those the answer
  entails too;
* ``noise_sensitivity_in_relevant`` / ``_in_irrelevant``: wrong answer claims (not
  entailed by the reference) entailed by a relevant / only by an irrelevant chunk;
* ``hallucination``: wrong answer claims no chunk entails; ``self_knowledge``: right ones
  no chunk entails; ``faithfulness``: answer claims some chunk entails.

Every empty case is 0, as there; a run's figure is the mean over answers (RAGChecker
prints it x 100). **Where we differ, on purpose**, only when ``relevant`` is given: a
chunk is relevant when it is golden, not when it happens to entail a reference claim,
which changes ``context_precision`` and the noise sensitivities; with ``relevant=None``
every figure is RAGChecker's own (``tests/judge/test_diagnostics.py`` holds them equal
on RAGChecker's example).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

__all__ = ["DIAGNOSTICS", "ClaimChecks", "case_diagnostics", "mean_diagnostics"]

DIAGNOSTICS = (
    "precision",
    "recall",
    "f1",
    "claim_recall",
    "context_precision",
    "context_utilization",
    "noise_sensitivity_in_relevant",
    "noise_sensitivity_in_irrelevant",
    "hallucination",
    "self_knowledge",
    "faithfulness",
)


class ClaimChecks(BaseModel):
    """One answer's entailment labels, RAGChecker's four checks (True: entailed)."""

    model_config = ConfigDict(frozen=True)

    answer_in_reference: tuple[bool, ...]  # RAGChecker's answer2response: per answer claim
    reference_in_answer: tuple[bool, ...]  # response2answer: per reference claim
    answer_in_chunks: tuple[tuple[bool, ...], ...]  # retrieved2response: [answer claim][chunk]
    reference_in_chunks: tuple[tuple[bool, ...], ...]  # retrieved2answer: [ref claim][chunk]
    # per chunk: golden or not; None: RAGChecker's own (a chunk entailing a reference claim)
    relevant: tuple[bool, ...] | None = None


def _mean(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else 0.0


def _any_row(matrix: Sequence[Sequence[bool]]) -> list[bool]:
    return [any(row) for row in matrix]


def _any_column(matrix: Sequence[Sequence[bool]]) -> list[bool]:
    return [any(col) for col in zip(*matrix, strict=True)]


def case_diagnostics(c: ClaimChecks) -> dict[str, float]:
    """Every figure of :data:`DIAGNOSTICS` for one answer (module doc), in [0, 1]."""
    precision = _mean(c.answer_in_reference)
    recall = _mean(c.reference_in_answer)
    out = {
        "precision": precision,
        "recall": recall,
        "f1": 2 * precision * recall / (precision + recall) if precision and recall else 0.0,
    }
    ref_chunks = c.reference_in_chunks
    has_ref_chunks = bool(ref_chunks) and bool(ref_chunks[0])
    recalled = _any_row(ref_chunks) if has_ref_chunks else []
    out["claim_recall"] = _mean(recalled)
    useful = _any_column(ref_chunks) if has_ref_chunks else []
    relevant = list(c.relevant) if c.relevant is not None else useful
    out["context_precision"] = (
        _mean(relevant) if (c.relevant is not None and relevant) or has_ref_chunks else 0.0
    )
    used = [r and a for r, a in zip(recalled, c.reference_in_answer, strict=False)]
    out["context_utilization"] = sum(used) / sum(recalled) if any(recalled) else 0.0
    out.update(_noise(c, relevant, has_ref_chunks))
    out.update(_unfaithfulness(c))
    return out


def _noise(c: ClaimChecks, relevant: list[bool], has_ref_chunks: bool) -> dict[str, float]:
    chunks = c.answer_in_chunks
    known = c.relevant is not None or has_ref_chunks
    if not c.answer_in_reference or not chunks or not chunks[0] or not known:
        return {"noise_sensitivity_in_relevant": 0.0, "noise_sensitivity_in_irrelevant": 0.0}
    in_relevant = [any(e and r for e, r in zip(row, relevant, strict=True)) for row in chunks]
    in_irrelevant = [
        any(e and not r for e, r in zip(row, relevant, strict=True)) and not rel
        for row, rel in zip(chunks, in_relevant, strict=True)
    ]
    wrong = [not x for x in c.answer_in_reference]
    return {
        "noise_sensitivity_in_relevant": _mean(_both(in_relevant, wrong)),
        "noise_sensitivity_in_irrelevant": _mean(_both(in_irrelevant, wrong)),
    }


def _both(a: Sequence[bool], b: Sequence[bool]) -> list[bool]:
    return [x and y for x, y in zip(a, b, strict=True)]


def _unfaithfulness(c: ClaimChecks) -> dict[str, float]:
    chunks = c.answer_in_chunks
    if not chunks or not chunks[0]:
        return {"hallucination": 0.0, "self_knowledge": 0.0, "faithfulness": 0.0}
    grounded = _any_row(chunks)
    right = list(c.answer_in_reference)
    if right:
        hallucination = _mean([not g and not r for g, r in zip(grounded, right, strict=True)])
        self_knowledge = _mean([not g and r for g, r in zip(grounded, right, strict=True)])
    else:
        hallucination = self_knowledge = 0.0
    return {
        "hallucination": hallucination,
        "self_knowledge": self_knowledge,
        "faithfulness": _mean(grounded),
    }


def mean_diagnostics(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    """A run's figures: the mean over answers of each (RAGChecker's aggregate, before it
    multiplies by 100 and rounds); empty without answers."""
    if not rows:
        return {}
    return {name: sum(r[name] for r in rows) / len(rows) for name in DIAGNOSTICS}
