"""The demo audits the answers the embedded model wrote that ship beside the golden set
(issue 53 item 1): no llama.cpp build on the way to the first report, and every report
says whose answers they are and how to have the model write them now."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from ragtriage.cli.main import main
from ragtriage.data.golden import load_golden
from ragtriage.data.models import DEFAULT_CONTEXT_K
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.flows.config import DEFAULT_DEPTH
from ragtriage.llm.base import cache_key
from ragtriage.llm.recorded import RECORDED_ANSWERS, read_recording
from ragtriage.llm.weights import MODEL_NAME, ModelUnavailable
from ragtriage.retrieval.retrievers import run_retriever
from ragtriage.system.generate import LocalGenerator
from tests.conftest import ROOT

HANDBOOK = ROOT / "golden_sets" / "handbook"
PROVENANCE = {
    "model": "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
    "weights_sha256": "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    "prompt": "generate.answer.v1.md",
    "prompt_sha256": "0" * 64,
    "written": "2026-12-04",
    "commit": "abc1234",
    "command": "python scripts/record_answers.py golden_sets/handbook",
}


class _Named:
    name = f"local/{MODEL_NAME}"
    params: dict = {}


def _recorded_set(tmp_path, skip: str | None = None):
    """The handbook set with a recording of made-up answers keyed as the model's."""
    folder = tmp_path / "handbook"
    shutil.copytree(HANDBOOK, folder, ignore=shutil.ignore_patterns(RECORDED_ANSWERS))
    golden = load_golden(folder)
    _, hits = run_retriever(golden, "bm25", DEFAULT_DEPTH, texts=True)
    generator = LocalGenerator(caller=None)  # type: ignore[arg-type]  # only builds requests
    rows = [{"model": _Named.name, "params": {}, "note": "test", "provenance": PROVENANCE}]
    for case in golden.cases:
        if case.id == skip:
            continue
        request = generator.request(case.query, hits[case.id][:DEFAULT_CONTEXT_K])
        text = f"Recorded answer to {case.id}."
        rows.append({"key": cache_key(_Named(), request), "query_id": case.id,
                     "response": {"text": text}})  # fmt: skip
    (folder / RECORDED_ANSWERS).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


@pytest.fixture
def no_llama(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)


def test_the_demo_reads_the_shipped_answers_without_llama_cpp(tmp_path, no_llama, capsys):
    folder = _recorded_set(tmp_path)
    out = tmp_path / "out"
    code = main(["audit", "--golden", str(folder), "--out", str(out),
                 "--cache", str(tmp_path / "c.sqlite")])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    result = json.loads((out / "results.json").read_text())
    answers = {c["case_id"]: c["answer"] for c in result["cases"]}
    assert answers["hb-01"] == "Recorded answer to hb-01."
    recorded = result["traces"]["recorded"]
    assert recorded["answers"] == 16 and recorded["written"] == "2026-12-04"
    assert result["judge_usage"]["calls"] == 0
    # the first lines of every report say whose answers these are, and how to regenerate
    head = printed.splitlines()[:4]
    assert any("written by the embedded model" in line for line in head), head
    assert "--live" in printed and "record_answers.py" in printed
    assert "written by the embedded model" in (out / "report.md").read_text()[:1500]
    assert "written by the embedded model" in (out / "report.html").read_text()


def test_live_writes_them_now_and_so_needs_the_model(tmp_path, no_llama):
    folder = _recorded_set(tmp_path)
    with pytest.raises(ModelUnavailable, match="llama-cpp-python"):
        audit_flow.run(AuditConfig(golden=folder, live=True, cache=tmp_path / "c.sqlite"))


def test_a_case_the_recording_lacks_needs_the_model_before_anything_runs(tmp_path, no_llama):
    folder = _recorded_set(tmp_path, skip="hb-07")
    with pytest.raises(ModelUnavailable, match="llama-cpp-python"):
        audit_flow.run(AuditConfig(golden=folder, cache=tmp_path / "c.sqlite"))


def test_a_recording_without_provenance_is_refused(tmp_path):
    path = tmp_path / RECORDED_ANSWERS
    path.write_text(json.dumps({"model": "local/x", "params": {}}) + "\n")
    with pytest.raises(Exception, match="provenance"):
        read_recording(path)


def test_the_shipped_handbook_recording_names_its_provenance():
    """The file the README's first command audits: complete, and from the pinned model."""
    from ragtriage.llm.weights import MODEL_SHA256

    recording = read_recording(HANDBOOK / RECORDED_ANSWERS)
    golden = load_golden(HANDBOOK)
    assert recording.query_ids == {c.id for c in golden.cases}
    assert recording.provenance["weights_sha256"] == MODEL_SHA256
    assert recording.model == f"local/{MODEL_NAME}"
    assert "scripts/record_answers.py" in recording.provenance["command"]
