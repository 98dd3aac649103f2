"""Conformance with RAGChecker: given its own claim-level entailment labels (its example,
``tests/fixtures/ragchecker``), our diagnostics equal the metrics RAGChecker computed from
them, per answer and for the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtriage.judge.diagnostics import (
    DIAGNOSTICS,
    ClaimChecks,
    case_diagnostics,
    mean_diagnostics,
)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "ragchecker"
GROUPS = {"overall": "precision recall f1", "retriever": "claim_recall context_precision"}


def _entailed(labels):
    """RAGChecker's ``to_bool``: only "Entailment" counts (Neutral and Contradiction not)."""
    if isinstance(labels, str):
        return labels == "Entailment"
    return tuple(_entailed(x) for x in labels)


def _checks(result: dict, relevant=None) -> ClaimChecks:
    return ClaimChecks(
        answer_in_reference=_entailed(result["answer2response"]),
        reference_in_answer=_entailed(result["response2answer"]),
        answer_in_chunks=_entailed(result["retrieved2response"]),
        reference_in_chunks=_entailed(result["retrieved2answer"]),
        relevant=relevant,
    )


@pytest.fixture(scope="module")
def outputs() -> dict:
    return json.loads((FIXTURE / "checking_outputs.json").read_text())


def test_each_answer_equals_ragcheckers_metrics(outputs):
    assert len(outputs["results"]) == 2
    for result in outputs["results"]:
        ours = case_diagnostics(_checks(result))
        assert set(ours) == set(DIAGNOSTICS) == set(result["metrics"])
        for name in DIAGNOSTICS:  # the same float operations: equal to the last bit or so
            assert ours[name] == pytest.approx(result["metrics"][name], abs=1e-12), name


def test_the_run_equals_ragcheckers_printed_figures(outputs):
    run = mean_diagnostics([case_diagnostics(_checks(r)) for r in outputs["results"]])
    theirs = {name: v for group in outputs["metrics"].values() for name, v in group.items()}
    assert set(theirs) == set(DIAGNOSTICS)
    # RAGChecker prints the mean x 100 rounded to 0.1: exactly these
    assert {name: round(run[name] * 100, 1) for name in DIAGNOSTICS} == theirs


def test_the_inputs_are_the_outputs_answers(outputs):
    inputs = json.loads((FIXTURE / "checking_inputs.json").read_text())["results"]
    assert [r["response"] for r in inputs] == [r["response"] for r in outputs["results"]]


def test_golden_relevance_changes_only_what_the_docs_say(outputs):
    """Golden ids instead of RAGChecker's entailment-based relevance: context precision and
    the two noise sensitivities may move, nothing else (judge/diagnostics.py)."""
    result = outputs["results"][0]
    n_chunks = len(result["retrieved_context"])
    golden = tuple(i == 0 for i in range(n_chunks))
    theirs = case_diagnostics(_checks(result))
    ours = case_diagnostics(_checks(result, relevant=golden))
    moved = {name for name in DIAGNOSTICS if ours[name] != pytest.approx(theirs[name])}
    assert moved <= {
        "context_precision",
        "noise_sensitivity_in_relevant",
        "noise_sensitivity_in_irrelevant",
    }
    assert ours["context_precision"] == 1 / n_chunks

    # every wrong answer claim entailed by some chunk is counted once, relevant or not
    def noise(figures):
        return figures["noise_sensitivity_in_relevant"] + figures["noise_sensitivity_in_irrelevant"]

    assert noise(ours) == pytest.approx(noise(theirs))
