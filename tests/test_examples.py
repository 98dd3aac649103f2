"""Every example in examples/ runs as its docs say: the user's own retriever and generator
as callables, the trace file its logger writes, and the CI script's audit, compare and
gate. The lexical judge only: no network and no model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragtriage.cli.main import main
from tests.conftest import ROOT

OWN = ROOT / "examples" / "own_system"
GATE = ROOT / "examples" / "ci" / "gate.sh"
ANSWERABLE_PASS = {"cy-01", "cy-02", "cy-03", "cy-04", "cy-06", "cy-07"}


def _labels(results: Path) -> dict[str, str]:
    data = json.loads(results.read_text(encoding="utf-8"))
    return {case["case_id"]: case["label"] for case in data["cases"]}


def _audit(out: Path, *system: str) -> int:
    args = ["audit", "--golden", str(OWN), *system, "--judge", "lexical"]
    return main([*args, "--out", str(out), "--quiet"])


@pytest.fixture
def pipeline_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(OWN))
    yield
    sys.modules.pop("pipeline", None)


def test_the_trace_logger_writes_the_committed_trace_file():
    written = subprocess.run(
        [sys.executable, str(OWN / "write_traces.py")],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(OWN)},
    ).stdout
    assert written == (OWN / "traces.jsonl").read_text(encoding="utf-8")


def test_own_callables_audit_labels_each_stage(tmp_path, pipeline_importable):
    code = _audit(tmp_path, "--retriever", "pipeline:search", "--generator", "pipeline:answer")
    assert code == 0
    labels = _labels(tmp_path / "results.json")
    golden = [json.loads(x)["id"] for x in (OWN / "golden.jsonl").read_text().splitlines()]
    assert sorted(labels) == sorted(golden)
    # the keyword retriever finds no word of "headgear compulsory teenagers": a miss
    assert labels["cy-09"] == "retrieval"
    # the right chunk was in context, but the extractive answer abstained
    assert labels["cy-05"] == "generation"
    # the unanswerable query is answered with an abstention: right
    assert labels["cy-08"] == "pass"
    assert {c for c, label in labels.items() if label == "pass"} >= ANSWERABLE_PASS
    for name in ("report.md", "report.html"):
        assert (tmp_path / name).stat().st_size > 0


def test_the_trace_file_audits_as_the_callables_do(tmp_path, pipeline_importable):
    assert _audit(tmp_path / "traces", "--traces", str(OWN / "traces.jsonl")) == 0
    system = ("--retriever", "pipeline:search", "--generator", "pipeline:answer")
    assert _audit(tmp_path / "callables", *system) == 0
    traced = _labels(tmp_path / "traces" / "results.json")
    assert traced == _labels(tmp_path / "callables" / "results.json")


def _gate_script(tmp_path: Path, out: str, **env: str) -> subprocess.CompletedProcess:
    command = f"{sys.executable} -m ragtriage.cli.main"
    pythonpath = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        ["bash", str(GATE)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "RAGTRIAGE": command, "PYTHONPATH": pythonpath, "OUT": out, **env},
        timeout=300,
    )


def test_ci_script_passes_the_example_and_fails_a_worse_retriever(tmp_path):
    base = _gate_script(tmp_path, "base")
    assert base.returncode == 0, base.stdout + base.stderr
    assert (tmp_path / "base" / "results.json").exists()

    # The same system with a retriever that lost two documents: the gate must fail.
    worse = tmp_path / "worse.jsonl"
    lost = {"membership-prices", "rent-a-bike"}
    with worse.open("w", encoding="utf-8") as f:
        for line in (OWN / "traces.jsonl").read_text(encoding="utf-8").splitlines():
            trace = json.loads(line)
            trace["retrieved"] = [h for h in trace["retrieved"] if h["id"] not in lost]
            trace["context_ids"] = [i for i in trace["context_ids"] if i not in lost]
            f.write(json.dumps(trace) + "\n")
    baseline = str(tmp_path / "base" / "results.json")
    candidate = _gate_script(tmp_path, "candidate", TRACES=str(worse), BASELINE=baseline)
    assert candidate.returncode == 1, candidate.stdout + candidate.stderr
    assert "recall@3" in candidate.stdout
    assert (tmp_path / "candidate" / "diff.md").stat().st_size > 0


def test_texts_only_rows_as_the_deepeval_recipe_writes_them_audit_the_same(tmp_path):
    """docs/audit-your-system.md's DeepEval recipe: ragas-shaped rows with texts, no ids."""
    queries = {
        case["id"]: case["query"]
        for case in map(json.loads, (OWN / "golden.jsonl").read_text().splitlines())
    }
    rows = tmp_path / "deepeval.jsonl"
    with rows.open("w", encoding="utf-8") as f:
        for trace in map(json.loads, (OWN / "traces.jsonl").read_text().splitlines()):
            row = {
                "user_input": queries[trace["query_id"]],
                "retrieved_contexts": [h["text"] for h in trace["retrieved"]],
                "response": trace["answer"],
            }
            f.write(json.dumps(row) + "\n")
    assert _audit(tmp_path / "rows", "--traces", str(rows)) == 0
    assert _audit(tmp_path / "traces", "--traces", str(OWN / "traces.jsonl")) == 0
    assert _labels(tmp_path / "rows" / "results.json") == _labels(
        tmp_path / "traces" / "results.json"
    )


def test_the_python_call_in_the_docs_gives_the_cli_labels(tmp_path):
    import ragtriage

    result = ragtriage.audit(OWN, OWN / "traces.jsonl", judge="lexical")
    frame = result.to_pandas()
    assert _audit(tmp_path, "--traces", str(OWN / "traces.jsonl")) == 0
    assert dict(zip(frame["case_id"], frame["label"], strict=True)) == _labels(
        tmp_path / "results.json"
    )
