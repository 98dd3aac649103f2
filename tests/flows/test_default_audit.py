"""The quick-start path itself: the embedded generator and judge, end to end (slow).

Two shipped handbook cases, audited exactly as the README's first command does (BM25,
the embedded model generating in its worker process, and judging only if the shipped
rule reads a model signal); checks labels, outcomes and the three written reports.
"""

from __future__ import annotations

import json

import pytest

from ragtriage.cli.main import main
from tests.llm.test_local_model import _available

pytestmark = pytest.mark.slow
LABELS = {"pass", "retrieval", "ranking", "generation", "unscored"}
OUTCOMES = {"scored", "no_claims", "abstained", "unscored"}


def test_quick_start_audit_on_two_cases(tmp_path, monkeypatch):
    if not _available():
        pytest.fail("the embedded model must be installed: bash scripts/setup.sh --local")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "results"
    # --live: the model writes the answers (without it they come from the shipped recording)
    args = ["audit", "--golden", "handbook", "--limit", "2", "--live"]
    code = main([*args, "-o", str(out), "--quiet"])
    assert code == 0
    result = json.loads((out / "results.json").read_text())
    cases = {c["case_id"]: c for c in result["cases"]}
    assert sorted(cases) == ["hb-01", "hb-02"]
    for case in cases.values():
        assert case["label"] in LABELS and case["reason"]
        assert case["judge"]["outcome"] in OUTCOMES
        assert case["answer"].strip() and "generation failed" not in case["answer"]
        assert case["first_relevant_rank"] == 1  # BM25 finds both product-code chunks
    # the shipped embedded rule reads no model signal (signals-logistic under the swap
    # veto): the model generated but was not consulted to judge, and the calibration says so
    assert result["calibration"]["fingerprint"]["model"].startswith("local/")
    assert result["calibration"]["model_consulted"] is False
    assert "not consulted" in result["calibration"]["note"]
    assert result["judge_usage"]["calls"] == 0
    assert sum(result["counts"].get(label, 0) for label in LABELS) == 2
    assert "hb-01" in (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "hb-02" in html
