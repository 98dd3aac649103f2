"""The audit pays only for what its rule uses.

When the calibration matching the judge decides by a rule that reads no model signal,
the audit computes those signals without the model and does not call it to judge; the
status says which rule decided and why. A rule that reads a model signal still calls it.
"""

from __future__ import annotations

import json

import pytest

from ragtriage.calibration.decision import ThresholdRule, VetoRule, uses_model
from ragtriage.calibration.record import load_calibration
from ragtriage.cli.main import main
from ragtriage.errors import InputError
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.judge.api import fingerprint
from ragtriage.judge.strategies.common import MODEL_FREE_SIGNALS
from ragtriage.llm.local import LocalModel
from ragtriage.results.load import load_result
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


def test_a_model_free_audit_reads_back_for_gate_and_compare(tmp_path, monkeypatch, capsys):
    """The judge that ran (lexical) is not the judge calibrated (sentences): the written
    result must still read back with its ``stale: []``, or the demo could not be gated."""
    monkeypatch.setattr(LocalModel, "complete", None)  # no model call either way
    out = tmp_path / "audit"
    args = ["--golden", str(HANDBOOK), "--generator", "extractive", "--quiet"]
    assert main(["audit", *args, "--cache", str(tmp_path / "c.sqlite"), "-o", str(out)]) == 0
    read = load_result(out / "results.json")
    assert read.calibration.model_consulted is False and read.calibration.stale == []
    capsys.readouterr()
    # the gate reads it: the bar holds, and the handbook's planted leak fails it (exit 1)
    assert main(["gate", str(out / "results.json"), "--min", "pass_rate=0"]) == 1
    gated = capsys.readouterr().out
    assert "ok: pass_rate" in gated and "hb-15" in gated
    assert main(["compare", str(out / "results.json"), str(out / "results.json")]) == 0
    # a model-free field the record was measured with differs: stale again, and said so
    data = json.loads((out / "results.json").read_text())
    data["judge_fingerprint"]["params"]["facts"] = "facts v0"
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(InputError, match="calibration.stale"):
        load_result(tmp_path / "edited.json")


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


def test_audit_with_the_cache_variable_naming_a_folder(tmp_path, monkeypatch):
    """The README's demo with ``RAGTRIAGE_CACHE`` set to a folder: it exited 2 with
    "cannot open the response cache: unable to open database file"."""
    from ragtriage.cli.main import main

    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv("RAGTRIAGE_CACHE", str(folder))
    code = main(
        ["audit", "--golden", "handbook", "--limit", "2", "-o", str(tmp_path / "r"), "--quiet"]
    )
    assert code == 0 and (tmp_path / "r" / "results.json").is_file()
    assert (folder / "cache.sqlite").is_file()
