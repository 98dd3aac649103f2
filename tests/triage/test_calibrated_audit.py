"""The audit finds the shipped calibration matching its judge, and flags a stale one."""

from __future__ import annotations

import json

from ragtriage.cli.main import main
from ragtriage.triage.audit import AuditConfig, audit
from tests.conftest import ROOT

HANDBOOK = ROOT / "golden_sets/handbook"


def test_shipped_lexical_calibration_is_found_and_used(tmp_path):
    result = audit(
        AuditConfig(
            golden=HANDBOOK, generator="extractive", judge="lexical", cache=tmp_path / "c.sqlite"
        )
    )
    status = result.calibration
    assert status.source and status.source.endswith("calibrations/lexical.json")
    assert status.stale == [] and status.kappa is not None
    record = json.loads((ROOT / "calibrations/lexical.json").read_text())
    assert status.threshold == record["rule"].get("threshold")
    corrected = result.generation.corrected_faithful_rate
    assert corrected is not None
    assert 0.0 <= corrected.low <= corrected.estimate <= corrected.high <= 1.0


def test_stale_calibration_is_flagged_and_refused_by_the_gate(tmp_path, capsys):
    record = json.loads((ROOT / "calibrations/lexical.json").read_text())
    record["fingerprint"]["prompt_sha256"] = {"faithfulness.lexical.v0.md": "0" * 64}
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(record))
    out = tmp_path / "out"
    code = main(
        [
            "audit",
            "--golden",
            str(HANDBOOK),
            "--generator",
            "extractive",
            "--judge",
            "lexical",
            "--calibration",
            str(stale),
            "--cache",
            str(tmp_path / "c.sqlite"),
            "-o",
            str(out),
        ]
    )
    assert code == 0
    assert "STALE CALIBRATION" in capsys.readouterr().out
    result = json.loads((out / "results.json").read_text())
    assert result["calibration"]["stale"] == ["prompt_sha256.faithfulness.lexical.v0.md"]
    assert main(["gate", str(out / "results.json"), "--min", "mrr=0.1"]) == 1
    assert "stale" in capsys.readouterr().out.lower()
    # --allow-stale lets the bars decide; the handbook's leak still fails the gate
    assert main(["gate", str(out / "results.json"), "--min", "mrr=0.1", "--allow-stale"]) == 1
    assert "forbidden chunks retrieved" in capsys.readouterr().out
