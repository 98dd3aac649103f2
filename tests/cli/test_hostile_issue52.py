"""Issue 52's inputs through the real command line: one line naming file, line and field
(exit 2), never a traceback or a hang (``tests/support/harness.run_cli``'s alarm)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.harness import assert_refused, run_cli

CONV = Path(__file__).resolve().parents[1] / "fixtures" / "conversations"
USERS = Path(__file__).resolve().parents[1] / "fixtures" / "users"


def _conversations(traces: Path, out: Path) -> list:
    return ["conversations", "--golden", CONV, "--traces", traces, "--judge", "lexical",
            "--cache", out / "c.sqlite", "-o", out / "o", "--quiet"]  # fmt: skip


@pytest.mark.parametrize("kind", ["list", "object"])
def test_a_ragas_tool_message_nested_60000_deep(tmp_path, kind):
    rows = [json.loads(line) for line in (CONV / "ragas_multiturn.jsonl").read_text().splitlines()]
    deep = (
        "[" * 60_000 + "]" * 60_000
        if kind == "list"
        else "[" + '{"a":' * 60_000 + "1" + "}" * 60_000 + "]"
    )
    rows[1]["user_input"][2]["content"] = "<MARK>"
    lines = [json.dumps(r) for r in rows]
    lines[1] = lines[1].replace('"<MARK>"', json.dumps(deep))
    traces = tmp_path / "ragas.jsonl"
    traces.write_text("\n".join(lines) + "\n")
    out = run_cli(_conversations(traces, tmp_path), "issue 52: nesting")
    assert_refused(out, f"{traces}:2", "user_input[2].content", "nested")


def test_conversation_spans_with_deep_metadata(tmp_path):
    rows = [
        json.loads(line) for line in (CONV / "langchain_sessions.jsonl").read_text().splitlines()
    ]
    i = next(i for i, r in enumerate(rows) if "metadata" in r.get("attributes", {}))
    rows[i]["attributes"]["metadata"] = "<MARK>"
    lines = [json.dumps(r) for r in rows]
    lines[i] = lines[i].replace('"<MARK>"', json.dumps("[" * 80_000 + "]" * 80_000))
    traces = tmp_path / "spans.jsonl"
    traces.write_text("\n".join(lines) + "\n")
    out = run_cli(_conversations(traces, tmp_path), "issue 52: nesting")
    assert "Traceback" not in out.err and out.code in (0, 2), str(out)
    if out.code == 2:
        assert_refused(out, str(traces), "metadata", "nested")


@pytest.mark.parametrize("value", [{"intValue": "not-a-number"}, {"intValue": "9" * 5000},
                                   {"arrayValue": [{"stringValue": "a"}]}])  # fmt: skip
def test_otlp_values_through_audit(tmp_path, value):
    request = json.loads((USERS / "langchain_otlp.jsonl").read_text())
    request["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"].append(
        {"key": "llm.token_count.total", "value": value}
    )
    traces = tmp_path / "otlp.jsonl"
    traces.write_text(json.dumps(request) + "\n")
    out = run_cli(["audit", "--golden", USERS / "handbook", "--traces", traces, "--judge",
                   "lexical", "--cache", tmp_path / "c.sqlite", "-o", tmp_path / "o",
                   "--quiet"], "issue 52: OTLP values")  # fmt: skip
    assert_refused(out, f"{traces}:1", "attributes[llm.token_count.total]")


def test_a_router_alias_bomb_through_judge(tmp_path):
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    router = tmp_path / "router.yaml"
    router.write_text("\n".join(lines) + "\nmodel_list:\n  - model_name: judge\n"
                      "    litellm_params:\n      model: openai/fake-judge\n"
                      "router_settings:\n  x: *l8\n")  # fmt: skip
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": "a", "question": "q", "contexts": ["c"], "answer": "a"}))
    out = run_cli(["judge", "--answers", answers, "--judge", f"router:{router}", "--no-cache"],
                  "issue 52: router")  # fmt: skip
    assert_refused(out, str(router), "alias")
