"""API keys come from the environment only and reach no output, cache, log or report."""

from __future__ import annotations

import json
from pathlib import Path

from ragtriage.cli.main import main
from tests.conftest import ROOT
from tests.support.fault_server import FaultServer

CANARY = "sk-canary-7f3e9a1b2c4d5e6f-ragtriage"


def test_key_is_used_but_never_written(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    golden = ROOT / "golden_sets/handbook"
    traces = tmp_path / "traces.jsonl"
    rows = []
    for case in (json.loads(line) for line in (golden / "golden.jsonl").open()):
        rows.append(
            {
                "query_id": case["id"],
                "retrieved": ["nas-overview", "warranty"],
                "context_k": 2,
                "answer": "The warranty is three years.",
            }
        )
    traces.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "out"
    cache = tmp_path / "cache.sqlite"
    with FaultServer(lambda n: "429" if n % 5 == 0 else "ok") as server:
        code = main(
            [
                "audit",
                "--golden",
                str(golden),
                "--traces",
                str(traces),
                "--judge",
                "openai/fake-judge",
                "--api-base",
                server.base,
                "--cache",
                str(cache),
                "-o",
                str(out),
            ]
        )
        # an error path too: a judge call that fails permanently must not echo the key
        answers = tmp_path / "answers.jsonl"
        answers.write_text(
            json.dumps({"id": "x", "question": "q", "contexts": ["c"], "answer": "a"}) + "\n"
        )
        main(
            [
                "judge",
                "--answers",
                str(answers),
                "--judge",
                "openai/fake-judge",
                "--api-base",
                "http://127.0.0.1:9/v1",
                "--cache",
                str(cache),
                "-o",
                str(out / "judged.json"),
                "--quiet",
            ]
        )
        seen = list(server.auth_headers)
    assert code == 0
    assert seen and all(h == f"Bearer {CANARY}" for h in seen)  # the key was really used
    captured = capsys.readouterr()
    assert CANARY not in captured.out and CANARY not in captured.err
    files = [p for p in list(out.rglob("*")) + [cache] if Path(p).is_file()]
    assert {p.name for p in files} >= {"results.json", "report.md", "report.html", "cache.sqlite"}
    for path in files:
        assert CANARY.encode() not in path.read_bytes(), path
