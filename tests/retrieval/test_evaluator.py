"""One evaluator bound to a golden set: built once, scores any run, writes nothing."""

from __future__ import annotations

import json
import subprocess

from ragtriage.cli.main import main
from ragtriage.retrieval import ranking
from ragtriage.retrieval.evaluate import RetrievalEvaluator, evaluate_retrieval
from tests.support import retrievers
from tests.support.lifecycle import write_jsonl

GOLDEN = [
    {"id": "q1", "query": "one", "expected": ["a"]},
    {"id": "q2", "query": "two", "expected": ["b"]},
    {"id": "h", "query": "three", "expected": ["c"], "split": "holdout"},
    {"id": "u", "query": "four", "expected": []},
]
RUNS = [
    {"q1": ["a", "b"], "q2": ["a", "b"], "h": ["c"], "u": ["a"]},
    {"q1": ["b", "a"], "q2": ["b"], "h": ["x", "c"], "u": ["b"]},
]


def _count(monkeypatch, owner, name: str) -> list[int]:
    calls = [0]
    original = getattr(owner, name).__func__

    def counted(cls, *args, **kwargs):
        calls[0] += 1
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(owner, name, classmethod(counted))
    return calls


def test_one_evaluator_scores_many_runs_as_evaluate_retrieval_does(tmp_path, monkeypatch):
    golden = write_jsonl(tmp_path / "g.jsonl", GOLDEN)
    builds = _count(monkeypatch, ranking.JudgedQrels, "build")
    evaluator = RetrievalEvaluator(golden, ["mrr", "recall@1"], split="holdout")
    reports = [evaluator.evaluate(run) for run in RUNS]
    assert builds == [1]  # the qrels structures are built once, for every run
    for run, report in zip(RUNS, reports, strict=True):
        once = evaluate_retrieval(golden, run, ["mrr", "recall@1"], split="holdout")
        assert report.model_dump() == once.model_dump()
    assert [r.aggregate("mrr").mean for r in reports] == [1.0, 0.5]


def test_scoring_the_holdout_writes_no_log_and_runs_no_git(tmp_path, monkeypatch):
    golden = write_jsonl(tmp_path / "g.jsonl", GOLDEN)

    def no_command(*args, **kwargs):
        raise AssertionError("scoring ran a command")

    monkeypatch.setattr(subprocess, "run", no_command)
    report = evaluate_retrieval(golden, RUNS[0], ["mrr"], split="holdout")
    assert report.split.evaluated == "holdout" and report.split.reveals is None
    assert list(tmp_path.iterdir()) == [golden]


def test_cli_repeat_builds_the_qrels_once(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(retrievers.ROOT))
    builds = _count(monkeypatch, ranking.JudgedQrels, "build")
    out = tmp_path / "r.json"
    args = ["retrieval", "--golden", str(retrievers.HANDBOOK), "--quiet", "-o", str(out)]
    args += ["--retriever", "tests.support.retrievers:flaky", "--repeat", "3", "-m", "mrr"]
    assert main(args) == 0
    assert json.loads(out.read_text())["repeat"]["n_runs"] == 3
    assert builds == [1]


def test_query_facts_rank_by_score_not_by_list_order(tmp_path):
    golden = write_jsonl(tmp_path / "g.jsonl", GOLDEN[:2] + GOLDEN[3:])
    # q1 lists "a" first, with the lower score: trec_eval order puts it second
    run = {"q1": {"a": 1.0, "x": 2.0}, "q2": {"b": 5.0}, "u": {"y": 10.0}}
    report = evaluate_retrieval(golden, run, ["mrr"], miss_k=1)
    facts = report.query_facts
    assert list(facts.index) == ["q1", "q2", "u"]
    assert facts["first_relevant_rank"].tolist()[:2] == [2, 1]
    assert facts["first_relevant_rank"].isna().tolist() == [False, False, True]
    assert report.missed[0].query_id == "q1" and report.missed[0].first_relevant_rank == 2
    assert facts["confident"].tolist() == [False, False, True]  # 10.0 >= median 3.5
    assert facts["top1_score"].tolist() == [2.0, 5.0, 10.0]
    assert "query_facts" not in report.model_dump()  # Python callers only, not the file
