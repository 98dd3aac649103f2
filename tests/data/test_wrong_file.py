"""A file given to the wrong command is named as what it is, with the command that takes
it (issue 35 item 9): one check, ``data/sniff.py``, asked by every reader."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ragtriage.cli.main import main
from ragtriage.data.sniff import sniff
from tests.conftest import ROOT

FILES = ROOT / "tests" / "fixtures" / "headline"
TRACES = FILES / "traces.jsonl"
GOLDEN = FILES / "golden"
HANDBOOK = ROOT / "golden_sets" / "handbook"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> Path:
    """An audit's results.json, report.md and report.html, and a calibration record."""
    out = tmp_path_factory.mktemp("audit")
    args = ["audit", "--golden", str(GOLDEN), "--traces", str(TRACES), "--judge", "lexical",
            "--cache", str(out / "c.sqlite"), "-o", str(out), "--quiet"]  # fmt: skip
    assert main(args) == 0
    grades = out / "my_grades.jsonl"
    shutil.copy(FILES / "my_grades.jsonl", grades)
    args = ["calibrate", str(grades), "--judge", "lexical", "--out", str(out / "cal"),
            "--no-plots", "--folds", "2", "--resamples", "100"]  # fmt: skip
    assert main(args) == 0
    return out


def test_each_kind_is_recognised(outputs):
    assert sniff(TRACES) == "traces"
    assert sniff(GOLDEN / "golden.jsonl") == "golden"
    assert sniff(GOLDEN / "corpus.jsonl") == "corpus"
    assert sniff(FILES / "my_grades.jsonl") == "grades"
    assert sniff(outputs / "results.json") == "audit"
    assert sniff(outputs / "report.md") == "report_md"
    assert sniff(outputs / "report.html") == "report_html"
    assert sniff(outputs / "cal" / "lexical" / "calibration.json") == "calibration"
    assert sniff(FILES / "README.md") is None  # not ours: the reader's own error stands
    assert sniff(HANDBOOK / "conversation_traces.jsonl") == "conversation_traces"
    assert sniff(HANDBOOK / "conversations.jsonl") == "conversation_golden"


TRACES_SAY = (
    "this is a traces file, not an audit result (results.json) or a retrieval report: "
    "give it to audit --traces (or retrieval --run)"
)
REPORT_SAY = (
    "this is an audit's Markdown report (report.md), not an audit result (results.json) "
    "or a retrieval report: give the results.json beside it to gate or compare"
)
CASES = [
    (["gate", "{traces}"], TRACES_SAY),
    (["compare", "{traces}", "{out}/results.json"], TRACES_SAY),
    (["annotate", "grades", "--audit", "{traces}", "-o", "{out}/g.jsonl"], TRACES_SAY),
    (["gate", "{out}/report.md"], REPORT_SAY),
    (["gate", "{out}/report.html"], "this is an audit's HTML report (report.html)"),
    (["audit", "--golden", "{out}/results.json", "--traces", "{traces}", "--judge", "lexical",
      "-o", "{out}/x"], "this is an audit result (results.json), not a golden set: give it "
     "to gate, compare or annotate grades --audit"),
    (["calibrate", "{golden}/golden.jsonl", "--judge", "lexical", "--out", "{out}/c2"],
     "this is a golden set, not a human grades file: give it to audit --golden (or golden check)"),
    (["calibrate", "{traces}", "--judge", "lexical", "--out", "{out}/c2"],
     "this is a traces file, not a human grades file"),
    (["audit", "--golden", "{golden}", "--traces", "{golden}/golden.jsonl", "--judge",
      "lexical", "-o", "{out}/x"], "this is a golden set, not a traces file"),
    (["retrieval", "--golden", "{golden}", "--run", "{golden}/golden.jsonl"],
     "this is a golden set, not a traces file"),
    (["audit", "--golden", "{golden}", "--traces", "{traces}", "--judge", "lexical",
      "--calibration", "{out}/results.json", "-o", "{out}/x"],
     "this is an audit result (results.json), not a calibration record"),
    (["gate", "{out}/cal/lexical/calibration.json"],
     "this is a calibration record, not an audit result (results.json) or a retrieval report: "
     "give it to audit --calibration"),
    (["calibrate", "{handbook}/conversation_traces.jsonl", "--judge", "lexical", "--out",
      "{out}/c2"], "this is a conversation traces file, not a human grades file: give it to "
     "conversations --traces"),
    (["calibrate", "{handbook}/conversations.jsonl", "--judge", "lexical", "--out", "{out}/c2"],
     "this is a conversational golden set, not a human grades file: give it to "
     "conversations --golden"),
    (["audit", "--golden", "{handbook}/conversation_traces.jsonl", "--traces", "{traces}",
      "--judge", "lexical", "-o", "{out}/x"],
     "this is a conversation traces file, not a golden set: give it to conversations --traces"),
    (["audit", "--golden", "{handbook}", "--traces", "{handbook}/conversation_traces.jsonl",
      "--judge", "lexical", "-o", "{out}/x"],
     "this is a conversation traces file, not a traces file: give it to conversations --traces"),
    (["retrieval", "--golden", "{handbook}", "--run", "{handbook}/conversation_traces.jsonl"],
     "this is a conversation traces file, not a traces file"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "said"), CASES, ids=[" ".join(c[0][:2]) for c in CASES])
def test_a_file_given_to_the_wrong_command_is_named(args, said, outputs, capsys):
    paths = {"traces": TRACES, "golden": GOLDEN, "out": outputs, "handbook": HANDBOOK}
    code = main([a.format(**paths) for a in args])
    err = capsys.readouterr().err
    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("ragtriage: error:")]
    assert len(errors) == 1 and said in errors[0], err  # one line


@pytest.mark.parametrize("kind", ["traces", "results", "golden"])
def test_a_wrong_calibration_file_is_refused_before_anything_is_judged(
    kind, outputs, tmp_path, monkeypatch, capsys
):
    """The record was read only when the reports were written, after every answer was
    judged: a wrong --calibration cost a whole audit before it was named."""
    import ragtriage.flows.audit as flow

    def judged(*_a, **_k):
        raise AssertionError("judged before the calibration record was read")

    monkeypatch.setattr(flow, "ajudge", judged)
    monkeypatch.setattr(flow, "run_system", judged)
    wrong = {"traces": TRACES, "results": outputs / "results.json",
             "golden": GOLDEN / "golden.jsonl"}[kind]  # fmt: skip
    said = {"traces": "this is a traces file, not a calibration record: give it to audit --traces",
            "results": "this is an audit result (results.json), not a calibration record",
            "golden": "this is a golden set, not a calibration record"}[kind]  # fmt: skip
    cache = tmp_path / "c.sqlite"
    args = ["audit", "--golden", str(GOLDEN), "--traces", str(TRACES), "--judge", "lexical",
            "--calibration", str(wrong), "--cache", str(cache),
            "-o", str(tmp_path / "x")]  # fmt: skip
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("ragtriage: error:")]
    assert len(errors) == 1 and said in errors[0] and str(wrong) in errors[0], err
    assert not cache.exists()  # no response was cached: nothing ran
    assert not (tmp_path / "x" / "results.json").exists()
