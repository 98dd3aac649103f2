"""``gate`` and ``compare`` read conversations results as they read audits: per turn (the
header's rows) and per conversation (``conversation_pass_rate``, ``failures.conversations``),
and a results file written before the shared header (``ragtriage.conversations/1``, warnings
as words) still loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ragtriage
from ragtriage.cli.main import main
from ragtriage.results.gate import metric_value
from ragtriage.results.load import MODELS, load_result
from ragtriage.results.run import ConversationsResult, RunHeader

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = ROOT / "golden_sets" / "handbook"
TRACES = HANDBOOK / "conversation_traces.jsonl"
OFF_TOPIC = "Bananas are yellow and grow in tropical climates near volcanoes."


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    """The handbook's conversations judged lexically, and again with the first turn of
    ``hc-snapshots`` answered off topic (a generation failure, its conversation failing)."""
    tmp = tmp_path_factory.mktemp("conversations")
    rows = [json.loads(line) for line in TRACES.read_text().splitlines() if line.strip()]
    for row in rows:
        if row["conversation_id"] == "hc-snapshots" and row["turn"] == 1:
            row["answer"] = OFF_TOPIC
    worse = tmp / "traces.jsonl"
    worse.write_text("".join(json.dumps(r) + "\n" for r in rows))
    options = {"judge": "lexical", "cache": tmp / "c.sqlite"}
    ragtriage.conversations(HANDBOOK, TRACES, out=tmp / "base", **options)
    ragtriage.conversations(HANDBOOK, worse, out=tmp / "candidate", **options)
    return tmp / "base" / "results.json", tmp / "candidate" / "results.json"


def test_a_conversations_result_is_read_by_its_schema_with_the_shared_header(runs):
    base, _ = runs
    result = load_result(base)
    assert isinstance(result, ConversationsResult) and isinstance(result, RunHeader)
    assert MODELS[result.schema_version] is ConversationsResult
    assert [row.case_id for row in result.rows] == [turn.case.case_id for turn in result.turns]
    assert result.golden.cases == len(result.turns) and result.golden.conversations == 6


def test_compare_pairs_turns_and_conversations(runs):
    base, candidate = runs
    comparison = ragtriage.compare(base, candidate, resamples=200, permutations=200)
    assert comparison.kind == "conversations"
    rates = {d.name: d for d in comparison.rates}
    assert set(rates) == {"pass_rate", "faithful_rate", "conversation_pass_rate"}
    assert rates["conversation_pass_rate"].n == 6
    assert rates["conversation_pass_rate"].diff == pytest.approx(-1 / 6)
    assert [(f.case_id, f.old.value, f.new.value) for f in comparison.flips] == [
        ("hc-snapshots#1", "pass", "generation")
    ]
    assert comparison.label_changes["generation"] == [2, 3]
    # the candidate's traces file differs: said by code, not found in words
    assert all(w.code != "provenance" for w in comparison.warnings)


def test_gate_holds_per_turn_and_per_conversation_bars(runs, capsys):
    base, candidate = runs
    result = load_result(candidate)
    assert metric_value(result, "failures.conversations") == 4.0
    assert metric_value(result, "conversation_pass_rate") == pytest.approx(2 / 6)
    assert metric_value(result, "failures") == metric_value(load_result(base), "failures") + 1
    args = ["gate", str(candidate), "--baseline", str(base), "--min", "pass_rate=0.5"]
    assert main(args) == 0
    assert main([*args, "--max-drop", "failures.conversations=0"]) == 1
    out = capsys.readouterr().out
    assert "failures.conversations = 4 vs baseline 3" in out


def test_a_conversation_metric_on_an_audit_is_refused(runs, tmp_path, capsys):
    from tests.support.audits import make_audit

    audit = tmp_path / "audit.json"
    audit.write_text(make_audit().model_dump_json())
    assert main(["gate", str(audit), "--min", "conversation_pass_rate=0.5"]) == 2
    assert "needs a conversations result" in capsys.readouterr().err


def test_a_version_1_file_loads_with_its_warnings_given_codes(runs, tmp_path):
    base, _ = runs
    data = json.loads(base.read_text())
    data["schema_version"] = "ragtriage.conversations/1"
    golden = data["golden"]
    data["golden"] = {
        "source": golden["source"],
        "sha256": golden["sha256"],
        "conversations": golden["conversations"],
        "turns": golden["cases"],
        "slice": golden["slice"],
    }
    data["warnings"] = ["REWRITE NOT TESTED: no corpus", "3 traced turns set aside"]
    old = tmp_path / "v1.json"
    old.write_text(json.dumps(data))
    result = load_result(old)
    assert isinstance(result, ConversationsResult) and result.golden.cases == 16
    assert [w.code for w in result.warnings] == ["rewrite_not_tested", "other"]


def test_a_meaningless_conversations_result_fails_the_gate_as_an_audit_does(tmp_path, capsys):
    """Every retrieved and context id renamed to one the corpus lacks: the run's retrieval
    figures mean nothing, so the gate refuses to pass it whatever its bars (issue 53 item 4;
    conversations once defaulted to --on-mismatch warn, which let it pass)."""
    rows = [json.loads(line) for line in TRACES.read_text().splitlines() if line.strip()]
    for row in rows:
        row["retrieved"] = [{**hit, "id": f"missing-{hit['id']}"} for hit in row["retrieved"]]
        row["context_ids"] = [f"missing-{i}" for i in row["context_ids"]]
    traces = tmp_path / "traces.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = ragtriage.conversations(HANDBOOK, traces, out=tmp_path / "out", judge="lexical",
                                     cache=tmp_path / "c.sqlite")  # fmt: skip
    assert result.meaningless and result.config.on_mismatch == "fail"
    capsys.readouterr()
    assert main(["gate", str(tmp_path / "out" / "results.json"), "--min", "pass_rate=0.0"]) == 1
    assert "refusing to pass" in capsys.readouterr().out


def test_compare_shows_a_turns_flip_in_the_terminal_and_markdown(runs, tmp_path, capsys):
    """The flips were in compare's JSON but shown for audits only."""
    base, candidate = runs
    markdown = tmp_path / "c.md"
    assert main(["compare", str(base), str(candidate), "--markdown", str(markdown)]) == 0
    said = capsys.readouterr().out
    assert "Label flips: 1 (1 pass -> failure" in said
    assert "hc-snapshots#1: pass -> generation" in said
    written = markdown.read_text()
    assert "Label flips: 1" in written and "hc-snapshots\\#1: pass -> generation" in written
