"""overlap@k against an exact-search run, and the spread of repeated runs."""

from __future__ import annotations

import json
import math

import blake3
import pytest

from ragtriage.cli.main import main
from ragtriage.data.golden import load_golden
from ragtriage.retrieval.evaluate import evaluate_retrieval
from ragtriage.retrieval.repeat import repeated
from ragtriage.retrieval.retrievers import Hit
from ragtriage.retrieval.retrievers import run_retriever as run_callable
from tests.support import retrievers
from tests.support.lifecycle import run_rows, write_jsonl

GOLDEN = [{"id": q, "query": q, "expected": ["a"]} for q in ("q1", "q2", "q3")]


def test_overlap_at_k_by_hand(tmp_path):
    golden = write_jsonl(tmp_path / "g.jsonl", GOLDEN)
    run = {"q1": ["a", "b", "c", "d"], "q2": ["a", "b"], "q3": ["z"]}
    reference = write_jsonl(
        tmp_path / "exact.jsonl",
        run_rows({"q1": ["a", "c", "e", "f"], "q2": ["b", "x", "y"], "other": ["a"]}),
    )
    report = evaluate_retrieval(
        golden, run, ["recall@1", "recall@3", "recall@5"], reference=reference
    )
    section = report.reference_overlap
    # k=1: q1 {a}/{a} = 1, q2 {a}/{b} = 0; k=3: 2/3 and 1/3 ("e" counts though the ANN run
    # never saw it); k=5: the exact lists are shorter, so 2/4 and 1/3
    assert section.means == pytest.approx(
        {"overlap@1": 0.5, "overlap@3": 0.5, "overlap@5": (0.5 + 1 / 3) / 2}
    )
    assert section.n_queries == 2 and section.missing_in_reference == ["q3"]
    assert [(q.query_id, round(q.overlap, 4)) for q in section.lowest] == [
        ("q2", 0.3333),
        ("q1", 0.5),
    ]
    # the reference file's digest is BLAKE3's (b3sum prints the same); a run given as a
    # dict was read from no file, so it has none
    assert section.source == str(reference)
    assert section.blake3 == blake3.blake3(reference.read_bytes()).hexdigest()
    assert not {"blake3", "sha256"} & report.run.keys()


def test_overlap_uses_trec_order_for_ties(tmp_path):
    golden = write_jsonl(tmp_path / "g.jsonl", GOLDEN[:1])
    tied = write_jsonl(
        tmp_path / "tied.jsonl",
        [{"query_id": "q1", "retrieved": [{"id": "a", "score": 1.0}, {"id": "b", "score": 1.0}]}],
    )
    # ties go to the higher doc id (trec_eval): the exact top 1 is "b"
    report = evaluate_retrieval(golden, {"q1": ["b", "a"]}, ["recall@1"], reference=tied)
    assert report.reference_overlap.means == {"overlap@1": 1.0}


def test_cli_ann_against_exact_on_the_handbook(tmp_path, capsys):
    golden = load_golden(retrievers.HANDBOOK)
    exact = write_jsonl(
        tmp_path / "exact.jsonl",
        run_rows({c.id: [h.id for h in retrievers.exact(c.query, 10)] for c in golden.cases}),
    )
    ann = write_jsonl(
        tmp_path / "ann.jsonl",
        run_rows({c.id: [h.id for h in retrievers.approximate(c.query, 10)] for c in golden.cases}),
    )
    out = tmp_path / "r.json"
    assert (
        main(
            [
                "retrieval",
                "--golden",
                str(retrievers.HANDBOOK),
                "--run",
                str(ann),
                "--reference-run",
                str(exact),
                "-m",
                "recall@10",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert "Overlap with reference run" in capsys.readouterr().out
    section = json.loads(out.read_text())["reference_overlap"]
    assert 0.5 < section["means"]["overlap@10"] < 1.0  # two chunks are missing from the index
    assert (
        main(
            [
                "retrieval",
                "--golden",
                str(retrievers.HANDBOOK),
                "--run",
                str(exact),
                "--reference-run",
                str(exact),
                "-m",
                "recall@10",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert json.loads(out.read_text())["reference_overlap"]["means"] == {"overlap@10": 1.0}


def test_repeat_spread_and_changed_queries_by_hand(tmp_path):
    golden = load_golden(write_jsonl(tmp_path / "g.jsonl", GOLDEN[:2]))
    draws = iter(
        [
            {"q1": ["a", "b"], "q2": ["a"]},
            {"q1": ["b", "a"], "q2": ["a"]},
            {"q1": ["a", "b"], "q2": ["a"]},
        ]
    )

    def retrieve():
        ranked = next(draws)
        hits = {q: [Hit(d, -i) for i, d in enumerate(ids)] for q, ids in ranked.items()}
        return ranked, hits

    report = repeated(3, retrieve, lambda run: evaluate_retrieval(golden, run, ["mrr"]))
    spread = report.repeat.metrics[0]
    # run means of mrr: 1, 0.75, 1
    assert (spread.min, spread.max) == (0.75, 1.0)
    assert spread.mean == pytest.approx(11 / 12)
    assert spread.std == pytest.approx(math.sqrt(((1 / 12) ** 2 * 2 + (1 / 6) ** 2) / 2))
    assert report.repeat.changed_queries == ["q1"] and report.repeat.k == 10  # miss_k
    assert report.aggregate("mrr").mean == 1.0  # the first run's report


def test_cli_repeat_with_a_non_deterministic_callable(tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(retrievers.ROOT))
    out = tmp_path / "r.json"
    assert (
        main(
            [
                "retrieval",
                "--golden",
                str(retrievers.HANDBOOK),
                "--retriever",
                "tests.support.retrievers:flaky",
                "--repeat",
                "4",
                "-m",
                "mrr",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert "Repeated runs: 4" in capsys.readouterr().out
    section = json.loads(out.read_text())["repeat"]
    assert section["n_runs"] == 4 and section["changed_queries"]
    mrr = section["metrics"][0]
    assert mrr["min"] <= mrr["mean"] <= mrr["max"] and mrr["std"] >= 0


def test_deterministic_retriever_has_no_spread(tmp_path):
    out = tmp_path / "r.json"
    assert (
        main(
            [
                "retrieval",
                "--golden",
                str(retrievers.HANDBOOK),
                "--retriever",
                "bm25",
                "--repeat",
                "2",
                "-m",
                "mrr,recall@5",
                "--quiet",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    section = json.loads(out.read_text())["repeat"]
    assert section["changed_queries"] == [] and all(m["std"] == 0 for m in section["metrics"])


def test_repeat_needs_a_retriever(tmp_path, capsys):
    golden = write_jsonl(tmp_path / "g.jsonl", GOLDEN)
    run = write_jsonl(tmp_path / "r.jsonl", run_rows({"q1": ["a"]}))
    assert main(["retrieval", "--golden", str(golden), "--run", str(run), "--repeat", "3"]) == 2
    assert "--repeat needs --retriever" in capsys.readouterr().err


def test_retriever_runs_only_on_the_evaluated_slice(tmp_path):
    rows = [{**r, "split": "holdout" if r["id"] == "q3" else "dev"} for r in GOLDEN]
    golden = load_golden(write_jsonl(tmp_path / "g.jsonl", rows))
    from ragtriage.data.holdout import evaluated_slice

    _, hits = run_callable(evaluated_slice(golden, False), "tests.support.retrievers:exact", 3)
    assert set(hits) == {"q1", "q2"}
