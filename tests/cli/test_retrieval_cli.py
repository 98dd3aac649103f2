"""``ragtriage retrieval`` end to end: the demo, TREC files, and exit codes."""

from __future__ import annotations

import json

import blake3
import pytrec_eval

from ragtriage.cli.main import main
from tests.conftest import ROOT


def test_demo_bm25_on_clapnq_prints_sections_and_writes_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(
        [
            "retrieval",
            "--golden",
            str(ROOT / "golden_sets/clapnq"),
            "--retriever",
            "bm25",
            "-o",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    for heading in (
        "recall@10",
        "Per tag",
        "Missed queries",
        "Unanswerable queries",
        "Score threshold",
    ):
        assert heading in text
    report = json.loads(out.read_text())
    assert report["n_answerable"] == 180 and report["n_unanswerable"] == 180
    assert len(report["per_query"]) == 180
    recall = next(a for a in report["aggregates"] if a["metric"] == "recall@10")
    assert 0.9 < recall["mean"] <= 1.0 and recall["low"] <= recall["mean"] <= recall["high"]
    assert report["unanswerable"]["n"] == 180 and report["threshold"]["auc"] > 0.5
    assert {s["tag"] for s in report["slices"]} >= {"wh:who", "wh:what"}


def test_trec_files_match_trec_eval_per_query(tmp_path):
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 z 1\n")
    run.write_text("q1 Q0 c 1 3.0 t\nq1 Q0 a 2 2.0 t\nq1 Q0 b 3 2.0 t\nq2 Q0 y 1 1.0 t\n")
    out = tmp_path / "r.json"
    code = main(
        [
            "retrieval",
            "--qrels",
            str(qrels),
            "--run",
            str(run),
            "-m",
            "ndcg@10,map,mrr,precision@2",
            "-o",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    per_query = json.loads(out.read_text())["per_query"]
    evaluator = pytrec_eval.RelevanceEvaluator(
        {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"z": 1}},
        {"ndcg_cut.10", "map", "recip_rank", "P.2"},
    )
    expected = evaluator.evaluate({"q1": {"c": 3.0, "a": 2.0, "b": 2.0}, "q2": {"y": 1.0}})
    for qid in ("q1", "q2"):
        assert abs(per_query[qid]["ndcg@10"] - expected[qid]["ndcg_cut_10"]) < 1e-9
        assert abs(per_query[qid]["map"] - expected[qid]["map"]) < 1e-9
        assert abs(per_query[qid]["mrr"] - expected[qid]["recip_rank"]) < 1e-9
        assert abs(per_query[qid]["precision@2"] - expected[qid]["P_2"]) < 1e-9


def test_bad_input_exits_2_with_file_line_field(tmp_path, capsys):
    golden = tmp_path / "g.jsonl"
    golden.write_text('{"query": "q", "expected": ["a"]}\n{"query": "r", "expected": 5}\n')
    run = tmp_path / "run.jsonl"
    run.write_text('{"query_id": "x", "retrieved": []}\n')
    code = main(["retrieval", "--golden", str(golden), "--run", str(run)])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{golden}:2: field 'expected': expected list, got int" in err
    assert "Traceback" not in err


def test_usage_errors_exit_2(capsys):
    assert main(["retrieval", "--run", "x"]) == 2
    assert "exactly one of --golden or --qrels" in capsys.readouterr().err
    assert main(["retrieval", "--qrels", "q", "--run", "r", "-m", "ndcg@zero"]) == 2


def test_qrels_and_run_are_read_together_and_errors_name_the_file(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n")
    run = tmp_path / "run.jsonl"
    run.write_text('{"query_id": "q1", "retrieved": ["a", "x"]}\n')
    out = tmp_path / "r.json"
    assert main(["retrieval", "--qrels", str(qrels), "--run", str(run), "-o", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["run"]["blake3"] == blake3.blake3(run.read_bytes()).hexdigest()
    assert report["per_query"]["q1"]["mrr"] == 1.0 and report["per_query"]["q2"]["mrr"] == 0.0
    capsys.readouterr()
    qrels.write_text("q1 0 a 1\nq2 0 b high\n")
    assert main(["retrieval", "--qrels", str(qrels), "--run", str(run)]) == 2
    assert f"{qrels}:2: field 'label'" in capsys.readouterr().err


def test_a_bad_metric_fails_before_any_file_is_read(tmp_path, capsys):
    code = main(["retrieval", "--qrels", str(tmp_path / "absent"), "--run", "r", "-m", "ndcg@x"])
    assert code == 2
    assert "absent" not in capsys.readouterr().err


def test_nothing_relevant_reading_is_chosen_said_and_switchable(tmp_path, capsys):
    """--qrels: judged-nothing-relevant queries scored 0 (trec_eval), said in the terminal
    and the JSON; --nothing-relevant unanswerable reports them on their own instead."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 a 0\nq1 0 b 0\nq2 0 a 1\nq5 0 b 1\nq5 0 a 0\n")
    run = tmp_path / "r.txt"
    run.write_text("".join(f"{q} Q0 a 1 1.0 t\n{q} Q0 b 2 0.5 t\n" for q in ("q1", "q2", "q5")))
    args = ["retrieval", "--qrels", str(qrels), "--run", str(run), "-m", "precision@5"]
    results = {}
    for reading in (None, "unanswerable"):
        out = tmp_path / f"{reading}.json"
        extra = ["--nothing-relevant", reading] if reading else []
        assert main([*args, *extra, "-o", str(out)]) == 0
        text = " ".join(capsys.readouterr().out.split())
        data = json.loads(out.read_text())
        results[reading] = (data["aggregates"][0]["mean"], sorted(data["per_query"]))
        shown = reading or "zero"
        assert data["config"]["nothing_relevant"] == shown
        assert f"--nothing-relevant {shown}" in text
    assert results[None] == (0.4 / 3, ["q1", "q2", "q5"])
    assert results["unanswerable"][1] == ["q2", "q5"]
    assert abs(results["unanswerable"][0] - 0.2) < 1e-12
    assert main([*args, "--nothing-relevant", "skip"]) == 2
    assert "nothing-relevant" in capsys.readouterr().err
