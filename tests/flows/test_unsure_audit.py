"""An answer inside the calibration's band is ``unsure`` everywhere: triage, counts,
clusters, compare, the gate and every report; never a pass, never a generation failure."""

from __future__ import annotations

import json

from ragtriage.calibration.band import Band, GroupBand
from ragtriage.calibration.decision import ThresholdRule
from ragtriage.calibration.record import load_calibration
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.results.compare import label_changes
from ragtriage.results.gate import metric_value
from ragtriage.triage.models import Label
from tests.conftest import ROOT

CONTEXT = "The warranty lasts three years and covers the drives and the fans of every unit."
ANSWERS = {
    # the test's rule (``_files``): faithful if min_sentence_lexical >= 0.646
    "sure": CONTEXT,  # 1.00: 0.35 above the cut-off
    "edge": "The warranty lasts three years and covers drives, fans and the power supply too.",
    "wrong": "Penguins enjoy sliding on icy slopes during long afternoons.",  # 0.00
}


def _files(tmp_path):
    golden = tmp_path / "golden.jsonl"
    golden.write_text(
        "".join(
            json.dumps(
                {
                    "id": i,
                    "query": "What does the warranty cover?",
                    "expected": ["w"],
                    "tags": ["warranty"],
                }
            )
            + "\n"
            for i in ANSWERS
        )  # fmt: skip
    )
    traces = tmp_path / "traces.jsonl"
    traces.write_text(
        "".join(
            json.dumps(
                {
                    "query_id": i,
                    "retrieved": [{"id": "w", "score": 1.0, "text": CONTEXT}],
                    "context_ids": ["w"],
                    "answer": a,
                }
            )
            + "\n"
            for i, a in ANSWERS.items()
        )  # fmt: skip
    )
    record = load_calibration(ROOT / "calibrations/lexical.json")
    # a one-threshold rule (the shipped record's uncited branch of 2026-12-01), so the
    # answers' margins are known by construction
    record.rule = ThresholdRule(feature="min_sentence_lexical", threshold=0.646, direction=1)
    record.band = Band(
        min_agreement=0.85,
        delta=0.1,
        groups={
            "min_sentence_lexical": GroupBand(
                min_distance=0.2, n=80, decided=60, errors=3, upper=0.12
            )
        },
    )
    calibration = record.save(tmp_path / "calibration.json")
    return golden, traces, calibration


def test_an_answer_in_the_band_is_unsure_through_the_whole_audit(tmp_path):
    from ragtriage.cli.main import main

    golden, traces, calibration = _files(tmp_path)
    config = AuditConfig(
        golden=golden, traces=traces, judge="lexical", calibration=calibration, cache=None
    )
    result = audit_flow.run(config)
    labels = {c.case_id: c.label for c in result.cases}
    assert labels == {"sure": Label.PASS, "edge": Label.UNSURE, "wrong": Label.GENERATION}
    edge = next(c for c in result.cases if c.case_id == "edge")
    assert "not sure" in edge.reason and edge.faithful is True  # the rule's leaning is kept
    assert result.counts["unsure"] == 1 and result.counts["generation"] == 1
    unsure = [c for c in result.clusters if c.label == Label.UNSURE]
    assert [(c.tag, c.case_ids) for c in unsure] == [("warranty", ["edge"])]
    assert "annotate grades" in unsure[0].action
    assert metric_value(result, "unsure_rate") == 1 / 3
    assert metric_value(result, "unsure") == 1.0
    assert metric_value(result, "pass_rate") == 1 / 3  # unsure is never a pass
    # without the band the same answer passes: compare names the change
    bandless = load_calibration(calibration)
    bandless.band = None  # the same rule, no band
    plain = audit_flow.run(
        AuditConfig(golden=golden, traces=traces, judge="lexical",
                    calibration=bandless.save(tmp_path / "bandless.json"), cache=None)
    )  # fmt: skip
    assert {c.case_id: c.label for c in plain.cases}["edge"] == Label.PASS
    assert label_changes(plain, result) == {"pass": [2, 1], "unsure": [0, 1]}
    # the reports and the gate
    out = tmp_path / "out"
    code = main(
        ["audit", "--golden", str(golden), "--traces", str(traces), "--judge", "lexical",
         "--calibration", str(calibration), "--cache", str(tmp_path / "c.sqlite"), "-o", str(out)]
    )  # fmt: skip
    assert code == 0
    markdown = (out / "report.md").read_text()
    assert "1 unsure" in markdown.splitlines()[0] and "unsure (judge undecided)" in markdown
    assert "label-unsure" in (out / "report.html").read_text()
    results = str(out / "results.json")
    assert main(["gate", results, "--max", "unsure_rate=0.5"]) == 0
    assert main(["gate", results, "--max", "unsure_rate=0.2"]) == 1
