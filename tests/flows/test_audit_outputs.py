"""The audit flow writes its own files (``ragtriage.audit(..., out=...)`` writes what
``ragtriage audit --out`` writes) and reads each calibration record once per audit."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

import ragtriage
from ragtriage.calibration import record as record_module
from ragtriage.cli.main import main
from tests.conftest import ROOT

HANDBOOK = ROOT / "golden_sets/handbook"
SHIPPED = ROOT / "calibrations"
# differ between two runs of the same audit: when it ran and how long it took
VARIES = ("created_at", "timings")


def _files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def _results(folder: Path) -> dict:
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if k not in VARIES}


def test_the_python_audit_writes_what_the_command_writes(tmp_path):
    cache = tmp_path / "c.sqlite"
    code = main(
        ["audit", "--golden", str(HANDBOOK), "--generator", "extractive", "--judge", "lexical",
         "--cache", str(cache), "--quiet", "-o", str(tmp_path / "cli")]
    )  # fmt: skip
    assert code == 0
    result = ragtriage.audit(
        HANDBOOK, generator="extractive", judge="lexical", cache=cache, out=tmp_path / "api"
    )
    cli, api = tmp_path / "cli", tmp_path / "api"
    assert _files(api) == _files(cli)
    assert {"results.json", "report.md", "report.html", "calibration/confusion.png"} <= set(
        _files(api)
    )  # the shipped lexical record decided: its plots are drawn
    assert _results(api) == _results(cli)
    for png in (p for p in _files(cli) if p.endswith(".png")):
        assert (api / png).read_bytes() == (cli / png).read_bytes(), png
    assert json.loads((api / "results.json").read_text())["created_at"] == result.created_at


def test_rows_given_in_python_are_named_so_in_the_written_files(tmp_path):
    golden = [json.loads(line) for line in (HANDBOOK / "golden.jsonl").read_text().splitlines()]
    texts = {
        c["id"]: c["text"]
        for c in map(json.loads, (HANDBOOK / "corpus.jsonl").read_text().splitlines())
    }
    traces = [
        {"query_id": c["id"], "retrieved": [{"id": i, "text": texts[i]} for i in c["expected"]]
         or ["nothing"], "answer": "I do not know."}
        for c in golden[:3]
    ]  # fmt: skip
    ragtriage.audit(golden[:3], traces, judge="lexical", cache=tmp_path / "c.sqlite",
                    out=tmp_path / "out")  # fmt: skip
    written = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert written["golden"]["source"] == "<golden given in Python>"
    assert written["traces"]["source"] == "<traces given in Python>"
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    for text in (report, json.dumps(written)):  # never the private temporary folder
        assert re.search(r"ragtriage-\w{8}", text) is None


def _count_reads(monkeypatch) -> Counter:
    """Every calibration record read, by file: ``load_calibration`` reads through
    ``read_json_document``, whichever module imported ``load_calibration``."""
    reads: Counter = Counter()
    real = record_module.read_json_document

    def counted(path, *args, **kwargs):
        reads[Path(path).name] += 1
        return real(path, *args, **kwargs)

    monkeypatch.setattr(record_module, "read_json_document", counted)
    return reads


@pytest.mark.parametrize("given", [True, False], ids=["--calibration", "shipped"])
def test_one_audit_reads_each_calibration_record_once(tmp_path, monkeypatch, given):
    """It read the given file up to four times (refused early, model-free plan, decided,
    drawn) and the shipped ones once per search."""
    calibration = None
    if given:
        calibration = tmp_path / "mine.json"
        shutil.copy(SHIPPED / "lexical.json", calibration)
    reads = _count_reads(monkeypatch)
    result = ragtriage.audit(
        HANDBOOK,
        generator="extractive",
        judge="lexical",
        calibration=calibration,
        cache=tmp_path / "c.sqlite",
        out=tmp_path / "out",
    )
    assert Path(result.calibration.source).name == ("mine.json" if given else "lexical.json")
    assert (tmp_path / "out" / "calibration" / "confusion.png").is_file()
    if given:  # and the shipped ones once each: whether it rests on their grades alone
        assert reads["mine.json"] == 1 and set(reads.values()) == {1}
    else:  # the search stops at the matching record; each file it opened, once
        assert reads["lexical.json"] == 1
        assert set(reads.values()) == {1}


def test_out_without_a_writer_is_refused_before_anything_runs(tmp_path):
    from ragtriage.flows import audit as audit_flow

    config = audit_flow.AuditConfig(golden=tmp_path / "nope", judge="lexical")
    with pytest.raises(TypeError, match="write="):
        audit_flow.run(config, out=tmp_path / "out")


def test_an_out_folder_that_cannot_be_written_is_refused_before_any_work(tmp_path, monkeypatch):
    from ragtriage.flows import audit as audit_flow

    ran = []
    monkeypatch.setattr(audit_flow, "run", lambda *a, **k: ran.append(1))
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    with pytest.raises(ragtriage.InputError) as found:
        ragtriage.audit(HANDBOOK, judge="lexical", out=blocker)
    assert found.value.field == "out" and "is a file" in str(found.value)
    (tmp_path / "out" / "report.md").mkdir(parents=True)
    with pytest.raises(ragtriage.InputError, match="report.md would be written here"):
        ragtriage.audit(HANDBOOK, judge="lexical", out=tmp_path / "out")
    with pytest.raises(ragtriage.InputError, match="is a directory"):
        ragtriage.audit(HANDBOOK, judge="lexical", cache=tmp_path)
    assert ran == []


def test_paths_given_as_text_from_python_are_paths(tmp_path):
    """``cache="x.sqlite"`` was an AttributeError deep in the run (a str has no .parent)."""
    cache = tmp_path / "c.sqlite"
    result = ragtriage.audit(
        str(HANDBOOK), generator="extractive", judge="lexical", cache=str(cache), limit=2
    )
    assert cache.is_file() and len(result.cases) == 2
    config = ragtriage.AuditConfig(golden=str(HANDBOOK), cache=str(cache))  # type: ignore[arg-type]
    assert isinstance(config.golden, Path) and isinstance(config.cache, Path)
