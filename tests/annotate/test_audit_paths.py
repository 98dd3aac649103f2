"""``annotate grades --audit`` from another folder than the audit ran in (issue 53 item 5):
the audit records the golden set's path as given ("golden_sets/handbook"), and from
elsewhere it read "golden: file not found"."""

from __future__ import annotations

from ragtriage.flows import audit as audit_flow
from ragtriage.flows.annotate import GradesConfig, prepare
from ragtriage.flows.audit import AuditConfig
from ragtriage.render.writer import write_audit
from tests.conftest import ROOT


def test_the_audits_relative_golden_path_is_found_from_elsewhere(tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / "golden_sets").mkdir(parents=True)
    import shutil

    shutil.copytree(ROOT / "golden_sets" / "handbook", project / "golden_sets" / "handbook")
    monkeypatch.chdir(project)
    config = AuditConfig(
        golden="golden_sets/handbook", generator="extractive", judge="lexical",
        cache=tmp_path / "c.sqlite",
    )  # fmt: skip
    audit_flow.run(config, out=project / "results", write=write_audit)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    prepared = prepare(
        GradesConfig(audit=project / "results" / "results.json", out=tmp_path / "g.jsonl",
                     sample=2, browser=False)
    )  # fmt: skip
    assert prepared is not None
