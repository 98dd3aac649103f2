"""A claims judge also checks answers against the golden reference answer."""

from __future__ import annotations

import json

from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.llm.base import ModelResponse
from ragtriage.triage.cause_types import Cause
from ragtriage.triage.models import Label
from tests.support.fakes import ScriptedModel


def claims_reply(request, number):
    """Supported by the retrieved context; contradicted by the reference answer."""
    prompt = "\n".join(m.content for m in request.messages)
    verdict = "contradicted" if 'id="reference"' in prompt else "supported"
    body = {"kind": "claims", "claims": [{"claim": "It has six bays.", "verdict": verdict}]}
    return ModelResponse(text=json.dumps(body), prompt_tokens=10, completion_tokens=5)


def test_answer_contradicting_the_reference_is_a_generation_failure(tmp_path):
    golden = tmp_path / "golden.jsonl"
    golden.write_text(
        json.dumps(
            {
                "id": "q",
                "query": "How many bays?",
                "expected": ["a"],
                "reference_answer": "It has four bays.",
            }
        )
        + "\n"
    )
    traces = tmp_path / "t.jsonl"
    traces.write_text(
        json.dumps(
            {
                "query_id": "q",
                "answer": "It has six bays.",
                "retrieved": [{"id": "a", "text": "Bays: six."}],
            }
        )
        + "\n"
    )
    model = ScriptedModel(claims_reply)
    config = AuditConfig(golden=golden, traces=traces, judge=model, cache=tmp_path / "c.sqlite")
    result = audit_flow.run(config)
    row = result.cases[0]
    assert row.label == Label.GENERATION and "contradicts the reference" in row.reason
    assert model.calls == 2  # the answer against its context, then against the reference
    # both calls are in the audit's usage and cache figures (the reference's were dropped)
    assert (result.judge_usage.calls, result.judge_usage.prompt_tokens) == (2, 20)
    assert result.judge_cache == {"hits": 0, "misses": 2, "writes": 2}
    assert result.config.judge == "fake/model"
    assert "UNCALIBRATED" in result.calibration.note  # no record for this judge: 0.5, flagged
    assert result.calibration.threshold == 0.5
    no_check = audit_flow.run(
        AuditConfig(
            golden=golden,
            traces=traces,
            judge=model,
            cache=tmp_path / "c.sqlite",
            check_reference=False,
        )
    )
    # without the claims judge's check the answer is still no pass: it states none of the
    # reference answer's facts (the model-free coverage, triage/causes.py), not a contradiction
    row = no_check.cases[0]
    assert row.label == Label.GENERATION and "contradicts the reference" not in row.reason
    assert row.cause == Cause.IGNORED and row.causes[0].span == "It has four bays."
    assert model.calls == 2  # the first run's answer call came from the cache
