"""An install without the ``local`` extra (no llama-cpp-python): auditing traces with a
model-free judge needs no model, since the traces carry their answers (issue 26, item 2).
``sys.modules["llama_cpp"] = None`` makes the package unimportable even where it is
installed, as on a wheel install without the extra."""

from __future__ import annotations

import json
import sys

import pytest

import ragtriage
from ragtriage.cli.main import main
from ragtriage.llm.weights import ModelUnavailable
from tests.conftest import ROOT

RAGAS = ROOT / "tests" / "fixtures" / "formats" / "ragas_ids.jsonl"  # written by ragas 0.4.3


@pytest.fixture(autouse=True)
def no_llama(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)


def test_the_readmes_traces_example_runs_without_llama_cpp(tmp_path, capsys):
    out = tmp_path / "out"
    # README: ragtriage audit --golden eval.jsonl --traces eval.jsonl --judge lexical
    args = ["audit", "--golden", str(RAGAS), "--traces", str(RAGAS), "--judge", "lexical"]
    code = main([*args, "--out", str(out), "--cache", str(tmp_path / "c.sqlite")])
    assert code == 0, capsys.readouterr().err
    result = json.loads((out / "results.json").read_text())
    assert result["judge_fingerprint"]["judge"] == "lexical"
    assert sum(result["counts"].values()) == len(RAGAS.read_text().splitlines())


def test_the_python_api_audits_traces_without_llama_cpp(tmp_path):
    rows = [json.loads(line) for line in RAGAS.read_text().splitlines()]
    result = ragtriage.audit(rows, rows, judge="lexical", cache=tmp_path / "c.sqlite")
    assert len(result.cases) == len(rows)
    assert result.config.generator is None  # not used: the traces carry the answers


def test_the_embedded_judge_under_its_model_free_rule_needs_no_model(tmp_path):
    """The shipped embedded record's rule reads no model signal (issue 29), so judging
    traces with the default judge never loads the model: the audit says so."""
    rows = [json.loads(line) for line in RAGAS.read_text().splitlines()]
    result = ragtriage.audit(rows, rows, cache=tmp_path / "c.sqlite")
    assert len(result.cases) == len(rows)
    assert result.calibration is not None and result.calibration.model_consulted is False


def test_generating_with_the_local_model_still_needs_it(tmp_path):
    golden = ROOT / "golden_sets" / "handbook"
    with pytest.raises(ModelUnavailable, match="llama-cpp-python"):
        # --live: the shipped answers of the handbook set would need no model
        ragtriage.audit(golden, judge="lexical", limit=1, live=True, cache=tmp_path / "c.sqlite")
