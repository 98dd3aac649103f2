"""``--escalate-to``: only the unsure answers go to the next judge, through litellm to a
local OpenAI-compatible server; each case names the judge that decided it; a judge
without a matching record is refused; the dry run says what it would cost."""

from __future__ import annotations

import json

import pytest

from ragtriage.calibration.decision import ThresholdRule
from ragtriage.calibration.record import load_calibration
from ragtriage.errors import InputError
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.judge.api import fingerprint
from ragtriage.judge.spec import JudgeSpec
from ragtriage.triage.models import Label
from tests.conftest import ROOT
from tests.flows.test_unsure_audit import _files
from tests.support.fake_server import FakeOpenAI

SPEC = "sentences@openai/fake-judge"


def _second_record(tmp_path, base: str):
    """A record for the second judge: faithful when its weakest sentence is supported."""
    record = load_calibration(ROOT / "calibrations/lexical.json")
    rule = ThresholdRule(feature="min_sentence_prob", threshold=0.5)
    record.fingerprint = fingerprint(model="openai/fake-judge", strategy="sentences", api_base=base)
    record.rule, record.fold_rules, record.band = rule, [rule] * 5, None
    record.judge_name = SPEC
    return record.save(tmp_path / "second.json")


def _supported(body, n):
    return 200, '{"supported": true}'


def test_only_the_unsure_answer_is_sent_to_the_second_judge(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # litellm wants one; the server ignores it
    golden, traces, calibration = _files(tmp_path)
    with FakeOpenAI(_supported) as server:
        second = _second_record(tmp_path, server.base)
        result = audit_flow.run(
            AuditConfig(
                golden=golden,
                traces=traces,
                judge="lexical",
                calibration=calibration,
                escalate_to=[JudgeSpec.parse(SPEC)],
                escalate_calibration=[second],
                api_base=server.base,
                cache=None,
            )
        )
        asked = [json.dumps(r["messages"]) for r in server.requests]
    assert asked and all("power supply" in a for a in asked)  # the edge answer only
    assert not any("Penguins" in a or "every unit" in a.split("Sentence:")[-1] for a in asked)
    by = {c.case_id: c for c in result.cases}
    assert by["edge"].label == Label.PASS and by["edge"].decided_by == SPEC
    assert by["sure"].decided_by == "lexical" and by["wrong"].decided_by == "lexical"
    assert by["edge"].judge is not None and by["edge"].judge.fingerprint.judge == "sentences"
    [step] = result.escalations
    assert (step.sent, step.decided) == (1, 1) and step.usage.calls == len(asked)
    assert result.counts["unsure"] == 0
    assert result.config.escalate_to == [SPEC] and result.config.escalate_calibration
    json.dumps(result.model_dump(mode="json"))  # the results file holds the cascade


def test_a_judge_without_a_matching_record_is_refused_before_anything_runs(tmp_path, capsys):
    from ragtriage.cli.main import main

    golden, traces, calibration = _files(tmp_path)
    config = AuditConfig(
        golden=golden,
        traces=traces,
        judge="lexical",
        calibration=calibration,
        escalate_to=[JudgeSpec.parse(SPEC)],
        api_base="http://127.0.0.1:9",  # never reached
        cache=None,
    )
    # the shipped record of the same strategy is another judge's: refused, not used
    with pytest.raises(InputError, match="record differs in model.*; calibrate it on your"):
        audit_flow.run(config)
    code = main(
        ["audit", "--golden", str(golden), "--traces", str(traces), "--judge", "lexical",
         "--calibration", str(calibration), "--escalate-to", SPEC,
         "--api-base", "http://127.0.0.1:9", "-o", str(tmp_path / "out")]
    )  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "ragtriage calibrate GRADES --judge" in err[0]


def test_the_dry_run_prints_each_judges_calls_and_cost(tmp_path, capsys):
    from ragtriage.cli.main import main

    golden, traces, calibration = _files(tmp_path)
    second = _second_record(tmp_path, "http://127.0.0.1:9")
    code = main(
        ["audit", "--golden", str(golden), "--traces", str(traces), "--judge", "lexical",
         "--calibration", str(calibration), "--escalate-to", SPEC,
         "--escalate-calibration", str(second), "--api-base", "http://127.0.0.1:9",
         "--dry-run", "-o", str(tmp_path / "out")]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "dry run: nothing was run" in out
    assert "1. lexical: about 3 answers (every case), 0 calls, $0.0000" in out
    assert f"2. {SPEC}: about" in out
    assert not (tmp_path / "out" / "results.json").exists()


def test_a_closed_endpoint_is_counted_unscored_not_decided(tmp_path, monkeypatch):
    """Issue 52 item 5b: the second judge's endpoint refuses every connection. The case
    it was sent is unscored, the step decided 0, and the judge outcomes count it."""
    import socket

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with socket.socket() as sock:  # a port nothing listens on once this closes
        sock.bind(("127.0.0.1", 0))
        base = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    golden, traces, calibration = _files(tmp_path)
    second = _second_record(tmp_path, base)
    result = audit_flow.run(
        AuditConfig(
            golden=golden,
            traces=traces,
            judge="lexical",
            calibration=calibration,
            escalate_to=[JudgeSpec.parse(SPEC)],
            escalate_calibration=[second],
            api_base=base,
            cache=None,
            timeout=1.0,
        )
    )
    [step] = result.escalations
    unscored = [c for c in result.cases if c.label == Label.UNSCORED]
    assert (step.sent, step.decided, step.unscored) == (1, 0, 1) and len(unscored) == 1
    from ragtriage.render.terminal import escalation_line

    assert "0 decided, 1 unscored (the judge failed), 0 still unsure" in escalation_line(step)
    assert result.generation.outcomes["unscored"] == result.counts["unscored"] == 1
    from ragtriage.results.consistency import check_result

    check_result(result, "results.json")  # the file it writes reads back consistent


def test_an_escalation_whose_rule_reads_no_model_signal_calls_no_model(tmp_path, monkeypatch):
    """--escalate-to embedded under its shipped, model-free rule (issue 53): no model call,
    not even llama.cpp needed."""
    import sys

    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    golden, traces, calibration = _files(tmp_path)
    result = audit_flow.run(
        AuditConfig(
            golden=golden,
            traces=traces,
            judge="lexical",
            calibration=calibration,
            escalate_to=[JudgeSpec.parse("embedded")],
            cache=None,
        )
    )
    [step] = result.escalations
    assert step.sent >= 1 and step.usage is not None and step.usage.calls == 0
