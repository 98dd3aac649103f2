"""An audit from other tools' files gives the labels our own formats give (issue 17).

The same four cases (a pass, a retrieval miss, an unfaithful answer, an unanswerable
query answered with an abstention) as our golden JSONL + trace JSONL, as a ragas JSONL
file alone, a ragas Parquet file alone, an OpenInference span export plus a golden set,
and two DataFrames. The lexical judge runs: no model, no network.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

import ragtriage
from ragtriage.cli.main import main
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "formats"
RAGAS = [json.loads(line) for line in (FIXTURES / "ragas_ids.jsonl").read_text().splitlines()]
WANT = ["pass", "retrieval", "generation", "pass"]


def _ours(tmp_path: Path) -> tuple[Path, Path]:
    golden = [
        {
            "id": f"row{n}",
            "query": r["user_input"],
            "expected": r["reference_context_ids"],
            **({"reference_answer": r["reference"]} if "reference" in r else {}),
        }
        for n, r in enumerate(RAGAS)
    ]
    traces = [
        {
            "query_id": f"row{n}",
            "retrieved": [
                {"id": i, "text": t}
                for i, t in zip(r["retrieved_context_ids"], r["retrieved_contexts"], strict=True)
            ],
            "answer": r["response"],
        }
        for n, r in enumerate(RAGAS)
    ]
    paths = tmp_path / "golden.jsonl", tmp_path / "traces.jsonl"
    for path, rows in zip(paths, (golden, traces), strict=True):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return paths


def _labels(result: ragtriage.AuditResult) -> list[tuple[str, str]]:
    return [(c.query, str(c.label)) for c in result.cases]


def test_every_source_gives_the_labels_of_our_own_formats(tmp_path):
    options = {"judge": "lexical", "cache": tmp_path / "c.sqlite", "context_k": 2}
    golden, traces = _ours(tmp_path)
    ours = ragtriage.audit(golden, traces, **options)
    assert [label for _, label in _labels(ours)] == WANT
    assert (ours.golden.format, ours.traces.format) == ("ragtriage-jsonl", "ragtriage-jsonl")

    ragas_jsonl = FIXTURES / "ragas_ids.jsonl"
    ragas_parquet = FIXTURES / "ragas_ids.parquet"
    spans = FIXTURES / "openinference_spans.jsonl"
    sources = {
        "ragas-jsonl": (ragas_jsonl, ragas_jsonl),
        "ragas-parquet": (ragas_parquet, ragas_parquet),
        "openinference": (golden, spans),
        "ragas frames": (pd.read_parquet(ragas_parquet), pd.read_parquet(ragas_parquet)),
        "our frames": (pd.read_json(golden, lines=True), pd.read_json(traces, lines=True)),
    }
    for name, (g, t) in sources.items():
        result = ragtriage.audit(g, t, **options)
        assert _labels(result) == _labels(ours), name
        assert result.retrieval.aggregates == ours.retrieval.aggregates, name

    from_spans = ragtriage.audit(golden, spans, **options)
    assert from_spans.traces.format == "openinference-jsonl"
    assert len(from_spans.mismatches["traced_not_in_golden"]) == 1  # the unknown question


def test_cli_audit_from_a_ragas_file_names_the_format(tmp_path, capsys):
    ragas_jsonl = str(FIXTURES / "ragas_ids.jsonl")
    out = tmp_path / "out"
    code = main(
        ["audit", "--golden", ragas_jsonl, "--traces", ragas_jsonl, "--judge", "lexical",
         "--context-k", "2", "--cache", str(tmp_path / "c.sqlite"), "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    assert "read: golden set ragas-jsonl, traces ragas-jsonl" in capsys.readouterr().out
    result = json.loads((out / "results.json").read_text())
    assert result["golden"]["format"] == result["traces"]["format"] == "ragas-jsonl"
    assert [c["label"] for c in result["cases"]] == WANT


def test_cli_columns_option(tmp_path, capsys):
    golden = tmp_path / "golden.csv"
    pd.DataFrame(
        {"prompt": [r["user_input"] for r in RAGAS],
         "gold": [json.dumps(r["reference_context_ids"]) for r in RAGAS]}
    ).to_csv(golden, index=False)  # fmt: skip
    args = ["audit", "--golden", str(golden), "--traces", str(FIXTURES / "ragas_ids.csv"),
            "--judge", "lexical", "--context-k", "2", "--cache", str(tmp_path / "c.sqlite"),
            "--out", str(tmp_path / "out")]  # fmt: skip
    assert main(args) == 2
    assert "field 'query'" in capsys.readouterr().err
    assert main([*args, "--columns", "query=prompt,expected=gold"]) == 0
    result = json.loads((tmp_path / "out" / "results.json").read_text())
    assert result["golden"]["format"] == "ragtriage-csv"
    assert result["traces"]["format"] == "ragas-csv"
    assert [c["label"] for c in result["cases"]] == WANT
    assert main([*args, "--columns", "query"]) == 2
    assert "--columns" in capsys.readouterr().err


def test_a_ragas_evaluation_dataset_object(tmp_path):
    """What ``ragas.EvaluationDataset`` offers (``samples``, ``to_list``), without ragas."""

    class Dataset:
        samples = RAGAS

        def to_list(self) -> list[dict]:
            return [dict(r) for r in RAGAS]

    result = ragtriage.audit(
        Dataset(), Dataset(), judge="lexical", cache=tmp_path / "c.sqlite", context_k=2
    )
    assert [str(c.label) for c in result.cases] == WANT


def test_one_ragas_file_as_both_says_nothing_about_matching(tmp_path, capsys):
    """Given as golden set and traces, a ragas file's rows match themselves: the note on
    matching by query text is for traces from another file (a copy still gets it)."""
    options = {"judge": "lexical", "cache": tmp_path / "c.sqlite", "context_k": 2}
    note = "matched to golden cases by their query text"
    ragas_jsonl = FIXTURES / "ragas_ids.jsonl"
    alone = ragtriage.audit(ragas_jsonl, ragas_jsonl, **options)
    assert not any(note in w.text for w in alone.warnings), alone.warnings
    assert [str(c.label) for c in alone.cases] == WANT

    copy = tmp_path / "traces.jsonl"
    copy.write_bytes(ragas_jsonl.read_bytes())
    other = ragtriage.audit(ragas_jsonl, copy, **options)
    assert any(
        w.code == "reader" and f"4 traces {note}, 0 matched none" in w.text for w in other.warnings
    )

    out = tmp_path / "out"
    code = main(
        ["audit", "--golden", str(ragas_jsonl), "--traces", str(ragas_jsonl), "--judge",
         "lexical", "--context-k", "2", "--cache", str(tmp_path / "c.sqlite"), "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    assert note not in capsys.readouterr().out
    written = json.loads((out / "results.json").read_text())["warnings"]
    assert not any(note in w["text"] for w in written)
