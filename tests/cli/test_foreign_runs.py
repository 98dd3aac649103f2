"""``ragtriage retrieval --run`` reads a ragas dataset or an OpenInference span export.

The same retrieved lists as our JSONL run must give the same report, metric for metric
and query for query: a ragas file with ``retrieved_context_ids`` (JSONL, CSV, Parquet),
one with texts only (ids hashed as the ragas golden adapter hashes them, so the same
file as golden set and run meets itself), and spans (document ids and scores, queries
matched to the golden cases by text).
"""

from __future__ import annotations

import json
from pathlib import Path

import ragtriage
from ragtriage.cli.main import main
from ragtriage.data.formats.text import text_id
from ragtriage.data.golden import load_golden
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "formats"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


RAGAS = _rows(FIXTURES / "ragas_ids.jsonl")
SPANS = _rows(FIXTURES / "openinference_spans.jsonl")
METRICS = ["-m", "ndcg@1,ndcg@2,recall@1,recall@2,mrr,precision@1,map"]


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _golden(tmp_path: Path) -> Path:
    """Our golden set of the ragas fixture's four cases."""
    rows = [
        {"id": f"row{n}", "query": r["user_input"], "expected": r["reference_context_ids"]}
        for n, r in enumerate(RAGAS)
    ]
    return _jsonl(tmp_path / "golden.jsonl", rows)


def _report(tmp_path: Path, golden: Path, run: Path, name: str) -> dict:
    out = tmp_path / f"{name}.json"
    code = main(["retrieval", "--golden", str(golden), "--run", str(run), "-o", str(out),
                 "--quiet", *METRICS])  # fmt: skip
    assert code == 0, name
    return json.loads(out.read_text())


def _same_scores(got: dict, want: dict) -> None:
    assert got["per_query"] == want["per_query"]
    assert got["aggregates"] == want["aggregates"]
    assert got["n_answerable"] == want["n_answerable"]
    # a run of ranks only has no unanswerable-confidence section (issue 26 item 6)
    assert (got["unanswerable"] or {}).get("queries") == (want["unanswerable"] or {}).get("queries")
    assert got["run"].get("scored", True) == want["run"].get("scored", True)


def test_a_ragas_run_with_ids_scores_as_our_jsonl_run(tmp_path):
    golden = _golden(tmp_path)
    rows = [
        {"query_id": f"row{n}", "retrieved": r["retrieved_context_ids"]}
        for n, r in enumerate(RAGAS)
    ]
    ours = _jsonl(tmp_path / "run.jsonl", rows)
    want = _report(tmp_path, golden, ours, "ours")
    for name in ("ragas_ids.jsonl", "ragas_ids.csv", "ragas_ids.parquet"):
        got = _report(tmp_path, golden, FIXTURES / name, name)
        _same_scores(got, want)
        container = name.rsplit(".", 1)[1]
        assert got["run"]["format"] == f"ragas-{container}"
        assert got["run"]["rows"] == want["run"]["rows"]
        matched = "4 traces matched to golden cases by their query text"
        assert any(matched in w for w in got["warnings"])
    assert "format" not in want["run"]


def test_a_ragas_run_of_texts_meets_the_same_files_golden_set(tmp_path):
    """No ids anywhere: the run's ids are hashes of the retrieved texts, the golden set's
    hashes of the reference texts, the same function; and the file matches itself, so
    nothing is said about matching by query text."""
    texts = FIXTURES / "ragas_texts.jsonl"
    golden = load_golden(texts)
    rows = _rows(texts)
    ours = _jsonl(
        tmp_path / "run.jsonl",
        [{"query_id": case.id, "retrieved": [text_id(t) for t in row["retrieved_contexts"]]}
         for case, row in zip(golden.cases, rows, strict=True)],
    )  # fmt: skip
    want = _report(tmp_path, texts, ours, "ours")
    got = _report(tmp_path, texts, texts, "ragas")
    _same_scores(got, want)
    assert want["aggregates"][0]["mean"] is not None
    assert not any("query text" in w for w in got["warnings"])
    assert any("hashes of the normalised text" in w for w in got["warnings"])


def test_a_span_export_is_ranked_as_the_system_listed_it(tmp_path):
    """A span export is a trace: its list is what reached the generator, so it is scored
    in that order, as ``audit --traces`` scores it (issue 27.3, one answer per file, issue
    26.7). One retriever span is given scores that reverse its list order: the ranks stay
    the list's, equal to a JSONL run whose scores follow the span order."""
    spans = [json.loads(json.dumps(s)) for s in SPANS]
    retrievers = [s for s in spans if s["attributes"]["openinference.span.kind"] == "RETRIEVER"]
    flipped = retrievers[0]["attributes"]
    flipped["retrieval.documents.0.document.score"] = 0.2  # c1 (relevant) below c2 now
    export = _jsonl(tmp_path / "spans.jsonl", spans)

    golden = _golden(tmp_path)
    case_of = {r["user_input"]: f"row{n}" for n, r in enumerate(RAGAS)}
    ours = []
    for span in retrievers:
        attrs = span["attributes"]
        if attrs["input.value"] not in case_of:
            continue  # the trace asking a question the golden set lacks
        docs = sorted({int(k.split(".")[2]) for k in attrs if k.endswith(".document.id")})
        ours.append(
            {
                "query_id": case_of[attrs["input.value"]],
                "retrieved": [
                    {
                        "id": attrs[f"retrieval.documents.{i}.document.id"],
                        "score": -float(i),  # the span's list order
                    }
                    for i in docs
                ],
            }  # fmt: skip
        )
    want = _report(tmp_path, golden, _jsonl(tmp_path / "run.jsonl", ours), "ours")
    got = _report(tmp_path, golden, export, "spans")
    assert got["per_query"] == want["per_query"]  # (the scores differ, not the ranks)
    assert got["aggregates"] == want["aggregates"]
    assert got["run"]["format"] == "openinference-jsonl"
    assert got["run"]["order"] == "given"
    assert got["per_query"]["row0"]["mrr"] == 1.0  # ranked as listed, not by the new scores
    assert any("1 matched none" in w for w in got["warnings"])

    fixture = _report(tmp_path, golden, FIXTURES / "openinference_spans.jsonl", "fixture")
    assert fixture["per_query"] == got["per_query"]  # the flipped scores changed no rank


def test_the_python_api_matches_a_ragas_run_to_the_golden_set(tmp_path):
    golden = _golden(tmp_path)
    report = ragtriage.evaluate_retrieval(golden, FIXTURES / "ragas_ids.jsonl", metrics=["mrr"])
    assert sorted(report.per_query.index) == ["row0", "row1", "row2"]
    assert report.run["format"] == "ragas-jsonl"


def test_a_ragas_run_needs_a_golden_set_with_query_texts(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("row0 0 c1 1\n")
    code = main(["retrieval", "--qrels", str(qrels), "--run", str(FIXTURES / "ragas_ids.jsonl"),
                 "--quiet"])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "ragas_ids.jsonl" in err and "--golden" in err and len(err.splitlines()) == 1
