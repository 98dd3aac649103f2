"""The pieces under the pages, without a browser: queries, sample, pool, store, marks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtriage.annotate.golden import coverage, golden_row, is_labelled
from ragtriage.annotate.grades import _checked as checked_grade
from ragtriage.annotate.grades import overall
from ragtriage.annotate.pool import Corpus, interleave, run_lists, search_terms
from ragtriage.annotate.queries import fold, read_queries, sample
from ragtriage.annotate.store import Conflict, SessionStore
from ragtriage.data.models import Chunk
from ragtriage.data.tables import Run
from ragtriage.errors import InputError


def test_queries_from_text_csv_and_jsonl(tmp_path: Path):
    text = tmp_path / "log.txt"
    text.write_text("reset my password\n\n  how do I reset my password  \n")
    assert [(q.id, q.text) for q in read_queries(text)] == [
        ("q1", "reset my password"),
        ("q3", "how do I reset my password"),
    ]
    table = tmp_path / "log.csv"
    table.write_text('id,question\n7,"a, b"\n,second\n')
    assert [(q.id, q.text) for q in read_queries(table)] == [("7", "a, b"), ("q3", "second")]
    rows = tmp_path / "log.jsonl"
    rows.write_text('{"query": "x"}\n{"text": ""}\n')
    with pytest.raises(InputError, match=r"log.jsonl:2: field 'text'"):
        read_queries(rows)
    bad = tmp_path / "bad.csv"
    bad.write_text("when,who\n1,2\n")
    with pytest.raises(InputError, match="no query column"):
        read_queries(bad)


def test_fold_uses_golden_checks_duplicates_and_sample_is_seeded(tmp_path: Path):
    log = tmp_path / "log.txt"
    log.write_text(
        "How do I reset my password?\nhow do i reset my password\n"
        "how do I reset my password now\nwhat is RAID 5\n"
    )
    folded = fold(read_queries(log))
    assert (folded.read, folded.exact, folded.near) == (4, 1, 1)
    assert [q.text for q in folded.queries] == ["How do I reset my password?", "what is RAID 5"]
    items = list(range(100))
    assert sample(items, 10, 5) == sample(items, 10, 5)
    assert sample(items, 10, 5) != sample(items, 10, 6)
    assert sorted(sample(items, None, 5)) == items
    # uniform: over many seeds each item is drawn about equally often
    counts = [0] * 10
    for seed in range(2000):
        for i in sample(list(range(10)), 3, seed):
            counts[i] += 1
    assert all(abs(c - 600) < 90 for c in counts), counts


def _corpus() -> Corpus:
    texts = {
        "a": "The N4-300 has four drive bays.",
        "b": "Error E1042 means the pool metadata checksum failed.",
        "c": "E1042 E1042: see the error table. Drive bays are hot-swap.",
    }
    return Corpus({k: Chunk(id=k, text=v) for k, v in texts.items()})


def test_keyword_search_every_term_phrases_and_ranking():
    corpus = _corpus()
    assert corpus.search("e1042").ids == ["c", "b"]  # two occurrences first
    assert corpus.search('"drive bays" hot').ids == ["c"]
    assert corpus.search("N4-300").ids == ["a"]  # a code BM25's tokenizer would split
    assert corpus.search("e104").ids == [] and corpus.search("e104*").ids == ["c", "b"]
    assert corpus.search("").total == 0
    assert search_terms('say "a  phrase" x') == ["a phrase", "say", "x"]
    assert corpus.bm25_ids("what does E1042 mean", 2)[0] in {"b", "c"}


def test_run_candidates_are_its_top_by_score_and_pools_interleave():
    run = Run.from_columns(["q1", "q1", "q1", "q2"], ["a", "b", "c", "a"], [0.1, 0.9, 0.5, 1.0])
    assert run_lists(run, {"q1"}, depth=2) == {"q1": ["b", "c"]}
    assert interleave(["x", "y", "z"], ["y", "w"]) == ["x", "y", "w", "z"]


def test_store_versions_refuse_a_stale_save_and_a_second_writer(tmp_path: Path):
    out = tmp_path / "out.jsonl"
    store = SessionStore(out, lambda data: json.dumps(data["records"]) + "\n")
    store.start({"records": {}})
    assert store.save("q1", {"mark": 1}, 0) == 1
    with pytest.raises(Conflict) as refused:
        store.save("q1", {"mark": 2}, 0)  # a tab that had not seen version 1
    assert refused.value.current == {"mark": 1} and refused.value.version == 1
    assert json.loads(out.read_text()) == {"q1": {"mark": 1}}
    with pytest.raises(InputError, match="another ragtriage annotate"):
        SessionStore(out, str)
    store.close()
    again = SessionStore(out, str)  # the lock went with the first writer
    assert again.load()["records"] == {"q1": {"mark": 1}}
    again.close()


def test_golden_marks_make_cases_and_coverage():
    query = {"id": "q1", "text": "what is RAID 5"}
    graded = {"relevance": {"a": 2, "b": 0}, "tags": ["paraphrase"], "seconds": 30}
    assert golden_row(query, graded, True, "s") == {
        "id": "q1", "query": "what is RAID 5", "expected": ["a"],
        "relevance_grades": {"a": 2, "b": 0}, "tags": ["paraphrase"], "source": "s",
    }  # fmt: skip
    unanswerable = {"relevance": {"a": 1}, "unanswerable": True, "seconds": 10}
    assert golden_row(query, unanswerable, False, "s")["expected"] == []
    assert not is_labelled({"relevance": {"a": 1}, "skipped": True})
    assert not is_labelled({"relevance": {"a": 0}})
    cov = coverage({"sample": [query] * 3, "records": {"1": graded, "2": unanswerable}})
    assert (cov["done"], cov["tags"]["unanswerable"], cov["tags"]["paraphrase"]) == (2, 1, 1)
    assert cov["unanswerable_share"] == 0.5 and cov["median_seconds"] == 20
    assert cov["seconds_left"] == 20 * 48


def test_overall_label_follows_the_sentences_unless_overridden():
    assert overall({"sentences": ["supported", "supported"]}, 2) is True
    assert overall({"sentences": ["supported", None]}, 2) is None
    assert overall({"sentences": [None, "unsupported"]}, 2) is False
    assert overall({"sentences": ["supported", "unsure"]}, 2) is None
    assert overall({"sentences": ["supported", "unsure"], "label": False}, 2) is False
    assert overall({"sentences": []}, 0) is None  # nothing checked is not "all supported"
    assert overall({"sentences": [], "label": True}, 0) is True
    with pytest.raises(InputError, match="expected 2 sentence verdicts"):
        checked_grade({"sentences": ["supported"]}, 2)
    with pytest.raises(InputError, match="record.label"):
        checked_grade({"sentences": [None], "label": "yes"}, 1)


def test_counts_beyond_the_limit_are_exact_for_words_and_a_floor_for_checked_terms(
    monkeypatch,
):
    import ragtriage.annotate.pool as pool

    corpus = _corpus()
    monkeypatch.setattr(pool, "_SCAN_LIMIT", 1)
    found = corpus.search("e1042")  # a word: counted from the index, every match
    assert (found.ids, found.total, found.capped) == (["b"], 2, False)
    codes = Corpus({k: Chunk(id=k, text=f"part a-b {k}") for k in "xyz"})
    found = codes.search("a-b")  # not one word: each candidate checked, up to the limit
    assert (found.ids, found.total, found.capped) == (["x"], 1, True)
    monkeypatch.undo()
    import ragtriage.annotate.search as search

    monkeypatch.setattr(search, "_CHECKED", 2)  # candidates checked at most: a floor
    assert (codes.search("a-b").total, codes.search("a-b").capped) == (2, True)
    monkeypatch.undo()
    assert codes.search('"part a-b"').total == 3  # a phrase: those words in that order
    assert codes.search('"a-b part"').total == 0
    assert codes.search("art").total == 0  # whole words only
    assert codes.search("par*").total == 3  # a prefix
    assert codes.search("?").total == 0  # no word in the term


def test_two_graders_on_one_sample_give_two_grades_per_answer(tmp_path: Path):
    """A second grader grades the same sample (same audit, seed and size) into a file of
    their own beside the first: calibrate folds the rows by id (inter-grader alpha)."""
    from ragtriage.annotate.grades import render_grades
    from ragtriage.calibration.grades import load_grades

    items = [
        {"id": f"c{i}", "question": "q", "contexts": ["p"], "context_ids": ["x"],
         "answer": f"Answer {i}.", "sentences": [f"Answer {i}."], "evidence": [None]}
        for i in range(3)
    ]  # fmt: skip
    for grader, verdict in (("ana", "supported"), ("bo", "unsupported")):
        session = {
            "items": items,
            "records": {"c0": {"sentences": [verdict]}, "c1": {"sentences": ["supported"]}},
            "options": {"grader": grader},
            "audit": {"id": "2026-12-01 abc", "sha256": "abc"},
            "sample": {"seed": 1, "population": 3},
        }
        (tmp_path / f"{grader}.jsonl").write_text(render_grades(session))
    folded = {g.id: g for g in load_grades(tmp_path)}
    assert sorted(folded) == ["c0", "c1"]
    assert [r.grader for r in folded["c0"].grades] == ["ana", "bo"]
    assert folded["c0"].label is None  # a tie is reported, not resolved
    assert folded["c1"].label is True
