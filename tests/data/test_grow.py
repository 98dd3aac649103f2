"""``golden add``'s plan (data/grow.py): refusals come from data/check.py's one duplicate
test, and a record must load like any other case."""

from __future__ import annotations

import pytest

from ragtriage.data.check import NEAR_DUPLICATE, jaccard, normalise
from ragtriage.data.grow import Candidate, duplicate_reason, open_target, plan
from ragtriage.errors import InputError
from tests.support.lifecycle import write_jsonl

TAKEN = [
    {"id": "a", "query": "How do I reset my password?", "expected": ["x"]},
    {"id": "b", "query": "Where is the invoice archive?", "expected": ["y"]},
]


def _rec(case_id, query, expected=("x",)):
    return {"id": case_id, "query": query, "expected": list(expected), "tags": []}


def test_an_exact_and_a_near_duplicate_are_named_by_their_case():
    assert duplicate_reason(_rec("n", "how do I RESET my password"), TAKEN) == (
        "query duplicates case 'a'"
    )
    near = "how do I reset my password now"
    tokens = frozenset(normalise(near).split())
    assert jaccard(tokens, frozenset(normalise(TAKEN[0]["query"]).split())) >= NEAR_DUPLICATE
    assert duplicate_reason(_rec("n", near), TAKEN) == "query duplicates case 'a'"
    assert duplicate_reason(_rec("n", "how do I cook pasta"), TAKEN) is None


def test_the_same_id_is_named_before_a_later_duplicate_query():
    assert duplicate_reason(_rec("a", "Where is the invoice archive"), TAKEN) == (
        "id 'a' is already in the golden set"
    )
    # a query repeating an earlier case than the one sharing the id names the query
    assert duplicate_reason(_rec("b", "how do I reset my password"), TAKEN) == (
        "query duplicates case 'a'"
    )


def test_the_plan_refuses_duplicates_among_the_new_records_and_unknown_ids(tmp_path):
    golden = write_jsonl(tmp_path / "golden.jsonl", TAKEN)
    write_jsonl(tmp_path / "corpus.jsonl", [{"id": i, "text": i} for i in "xyz"])
    new = [
        Candidate("c", _rec("c", "What does the z chunk say?", ["z"]), ["z", "x"]),
        Candidate("d", _rec("d", "what does the z chunk say"), []),
        Candidate("e", _rec("e", "A fresh question", ["gone"]), []),
    ]
    planned = plan(open_target(tmp_path), new)
    assert planned.target == str(golden)
    assert [r["id"] for r in planned.records] == ["c"]
    assert planned.retrieved == {"c": ["z", "x"]}
    assert [(r.case_id, r.reason) for r in planned.refused] == [
        ("d", "query duplicates case 'c'"),
        ("e", "expected ids not in the corpus: gone"),
    ]


def test_a_record_that_would_not_load_is_refused_with_its_line(tmp_path):
    write_jsonl(tmp_path / "golden.jsonl", TAKEN)
    bad = Candidate("q", {"id": "q", "query": "", "expected": ["x"], "tags": []})
    with pytest.raises(InputError) as caught:
        plan(open_target(tmp_path), [bad])
    assert caught.value.line == 3


def test_the_plan_refuses_what_the_record_by_record_test_refuses(tmp_path):
    """One pass of the duplicate test over every text gives the refusals of testing each
    new record against the records kept before it, also when a record's earliest
    duplicate is a new record refused for its ids."""
    import random

    rng = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "reset", "password", "invoice", "bays"]
    old = [
        {
            "id": f"o{i}",
            "query": " ".join(rng.choices(words, k=rng.randint(2, 6))),
            "expected": ["x"],
        }
        for i in range(40)
    ]
    write_jsonl(tmp_path / "golden.jsonl", old)
    write_jsonl(tmp_path / "corpus.jsonl", [{"id": "x", "text": "x"}])
    new = [
        Candidate(
            f"n{i}",
            _rec(
                rng.choice([f"n{i}", "o3", f"n{i - 1}"]),
                " ".join(rng.choices(words, k=rng.randint(2, 6))),
                ["x"] if rng.random() < 0.7 else ["gone"],
            ),
        )
        for i in range(60)
    ]
    planned = plan(open_target(tmp_path), new)
    kept = [dict(r) for r in old]
    expected = []
    for candidate in new:
        reason = duplicate_reason(candidate.record, kept) or (
            "expected ids not in the corpus: gone"
            if candidate.record["expected"] == ["gone"]
            else None
        )
        if reason:
            expected.append((candidate.case_id, reason))
        else:
            kept.append(candidate.record)
    assert [(r.case_id, r.reason) for r in planned.refused] == expected
    assert planned.records == kept[len(old) :]
    assert any("duplicates" in why for _, why in expected) and any(
        "id " in why for _, why in expected
    )
