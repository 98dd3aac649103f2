"""``golden check``: ids gone from the corpus, duplicate queries, untagged cases; versions."""

from __future__ import annotations

import hashlib
import json

import pytest

from ragtriage.cli.main import main
from ragtriage.data.check import (
    check_golden,
    duplicate_queries,
    normalise,
)
from ragtriage.data.golden import load_golden
from ragtriage.data.models import Chunk, GoldenCase, GoldenSet, corpus_sha256
from ragtriage.retrieval.evaluate import evaluate_retrieval
from tests.conftest import ROOT
from tests.support.lifecycle import write_jsonl


def cases(*queries: str) -> GoldenSet:
    return GoldenSet(
        cases=[GoldenCase(id=f"c{i}", query=q, tags=("t",)) for i, q in enumerate(queries)]
    )


def test_normalise_folds_case_width_punctuation_and_space():
    assert normalise("  What's   the N4-300\u00a0PRICE?? ") == "what s the n4 300 price"
    assert normalise("ＡＢＣ") == "abc"


def test_exact_and_near_duplicates_at_the_documented_threshold():
    golden = cases(
        "How do I reset my password?",
        "how do i reset my password",  # exact after normalisation
        "how do i reset my password now",  # 6/7 = 0.857 >= 0.8: near
        "how do i change my password",  # 5/7 = 0.714: kept apart
    )
    pairs = {(p.first, p.second, p.kind) for p in duplicate_queries(golden)}
    # one pair per repeating case, with the earliest case it repeats (c2 is near c0 and
    # c1 alike; c1 is c0's exact copy, so listing both would count one question twice)
    assert pairs == {("c0", "c1", "exact"), ("c0", "c2", "near")}
    near = next(p for p in duplicate_queries(golden) if p.second == "c2")
    assert near.jaccard == pytest.approx(6 / 7, abs=1e-4)
    # a=4 tokens, b=5 sharing 4: Jaccard exactly 0.8 is a near-duplicate
    assert duplicate_queries(cases("a b c d", "a b c d e"))[0].jaccard == 0.8


def test_missing_ids_invalid_cases_and_untagged(tmp_path):
    golden = GoldenSet(
        cases=[
            GoldenCase(id="gone", query="q1", relevance={"old-1": 1, "old-2": 0}, tags=("t",)),
            GoldenCase(id="half", query="q2", relevance={"old-1": 1, "kept": 1}),
            GoldenCase(
                id="acl", query="q3", relevance={"kept": 1}, forbidden=("old-3",), tags=("t",)
            ),
        ]
    )
    report = check_golden(golden, {"kept": Chunk(id="kept", text="x")})
    assert {(m.case_id, m.doc_id, m.field) for m in report.missing_ids} == {
        ("gone", "old-1", "expected"),
        ("gone", "old-2", "relevance_grades"),
        ("half", "old-1", "expected"),
        ("acl", "old-3", "forbidden"),
    }
    assert report.invalid_cases == ["gone"]
    assert report.untagged == ["half"]
    assert not report.ok


def test_cli_check_on_a_rechunked_corpus_exits_1(tmp_path, capsys):
    src = ROOT / "golden_sets/handbook"
    corpus = [json.loads(line) for line in (src / "corpus.jsonl").read_text().splitlines()]
    rechunked = [r for r in corpus if r["id"] != "raid-rebuild"]
    rechunked += [
        {"id": "raid-rebuild-1", "text": "part 1"},
        {"id": "raid-rebuild-2", "text": "part 2"},
    ]
    new_corpus = write_jsonl(tmp_path / "corpus.jsonl", rechunked)
    out = tmp_path / "check.json"
    code = main(
        ["golden", "check", "--golden", str(src), "--corpus", str(new_corpus), "-o", str(out)]
    )
    assert code == 1
    text = capsys.readouterr().out
    assert "hb-05: raid-rebuild (expected)" in text and "golden check: FAILED" in text
    report = json.loads(out.read_text())
    assert report["invalid_cases"] == []  # hb-05 still has n2-100-specs
    assert report["corpus"]["chunks"] == 19


def test_shipped_golden_sets_pass_the_check(capsys):
    for name in ("handbook", "clapnq"):
        assert main(["golden", "check", "--golden", str(ROOT / "golden_sets" / name)]) == 0
    assert capsys.readouterr().out.count("golden check: OK") == 2


def test_corpus_hash_ignores_row_order_but_not_content():
    a = {"x": Chunk(id="x", text="one"), "y": Chunk(id="y", text="two")}
    b = {"y": a["y"], "x": a["x"]}
    assert corpus_sha256(a) == corpus_sha256(b)
    assert corpus_sha256(a) != corpus_sha256({**a, "y": Chunk(id="y", text="two!")})
    assert corpus_sha256(a) != corpus_sha256({**a, "y": Chunk(id="y", text="two", tenant="t")})


def test_golden_hash_unchanged_by_the_new_optional_fields():
    plain = GoldenSet(cases=[GoldenCase(id="q", query="x", relevance={"a": 1})])
    # the formula used before the access/split/source fields existed
    before = json.dumps(
        [{"id": "q", "query": "x", "relevance": {"a": 1}, "tags": [], "reference_answer": None}],
        sort_keys=True,
    ).encode()
    assert plain.content_hash() == hashlib.sha256(before).hexdigest()
    held = GoldenCase(id="q", query="x", relevance={"a": 1}, split="holdout")
    assert GoldenSet(cases=[held]).content_hash() != plain.content_hash()


def test_results_record_golden_set_and_corpus_hashes(tmp_path):
    golden = load_golden(ROOT / "golden_sets/handbook")
    run = {c.id: ["nas-overview"] for c in golden.cases}
    base = evaluate_retrieval(golden, run, ["mrr"]).golden
    smaller = golden.model_copy(update={"corpus": dict(list(golden.corpus.items())[:-1])})
    other = evaluate_retrieval(smaller, run, ["mrr"]).golden
    assert base["sha256"] == other["sha256"] and base["corpus_sha256"] != other["corpus_sha256"]
