"""The audit pays only for what its rule uses.

When the calibration matching the judge decides by a rule that reads no model signal,
the audit computes those signals without the model and does not call it to judge; the
status says which rule decided and why. A rule that reads a model signal still calls it.
"""

from __future__ import annotations

import pytest

from ragtriage.calibration.decision import ThresholdRule, VetoRule, uses_model
from ragtriage.calibration.record import load_calibration
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.judge.api import fingerprint
from ragtriage.judge.strategies.common import MODEL_FREE_SIGNALS
from ragtriage.llm.local import LocalModel
from ragtriage.triage.calibrated import CalibrationRecords
from tests.conftest import ROOT

HANDBOOK = ROOT / "golden_sets/handbook"
SHIPPED = ROOT / "calibrations/embedded-sentences.json"


def test_the_shipped_embedded_rule_reads_no_model_signal():
    """What nested cross-validation picked on the shipped grades (a model-free rule; if a
    recalibration picks a model rule, the audit must call the model and this changes)."""
    record = load_calibration(SHIPPED)
    assert record.fingerprint.judge == "sentences"
    assert not uses_model(record.rule, MODEL_FREE_SIGNALS)


def test_the_default_judge_is_not_called_when_its_rule_uses_no_model(tmp_path, monkeypatch):
    async def no_call(self, request):
        pytest.fail("the embedded model was called to judge although the rule ignores it")

    monkeypatch.setattr(LocalModel, "complete", no_call)
    result = audit_flow.run(
        AuditConfig(golden=HANDBOOK, generator="extractive", cache=tmp_path / "c.sqlite")
    )
    status = result.calibration
    assert status.model_consulted is False
    assert status.source and status.source.endswith("embedded-sentences.json")
    assert status.stale == [] and status.kappa is not None
    assert "not consulted" in status.note and "signals-logistic" in status.note
    assert result.judge_usage.calls == 0
    assert status.fingerprint is not None and status.fingerprint.judge == "sentences"
    assert sum(result.counts.values()) == len(result.cases) > 0


def test_a_rule_reading_a_model_signal_calls_the_model(tmp_path):
    record = load_calibration(SHIPPED)
    model_rule = VetoRule(
        rule=ThresholdRule(feature="min_sentence_prob", threshold=0.5), veto="model_fact_check"
    )
    path = record.model_copy(update={"rule": model_rule}).save(tmp_path / "model.json")
    planned = fingerprint(model="embedded")
    assert CalibrationRecords().model_free(path, planned) is None
    assert CalibrationRecords().model_free(SHIPPED, planned) is not None
    # a judge without a model has nothing to skip
    assert CalibrationRecords().model_free(SHIPPED, fingerprint(strategy="lexical")) is None
