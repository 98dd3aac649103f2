"""The duplicate checks against a set-based oracle, on ids shaped like real collections',
with real fingerprints and with every fingerprint forced equal (so that the exact
comparison, not the hash, decides)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtriage.data import trec
from ragtriage.data.tables import Qrels, Run, doc_words
from ragtriage.data.trec import first_duplicate, read_trec_qrels
from ragtriage.errors import InputError
from ragtriage.retrieval import ranking
from tests.support.collection_ids import id_pool

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def constant(words: np.ndarray) -> np.ndarray:
    """Every id collides: the exact comparison is all that separates them."""
    return np.full(words.shape[:-1], 7, np.uint64)


@contextmanager
def fingerprints(forced: bool) -> Iterator[None]:
    """A block in which trec.py and ranking.py use colliding id hashes, or the real ones."""
    with pytest.MonkeyPatch.context() as patch:
        if forced:
            patch.setattr(trec, "id_hash", constant)
            patch.setattr(ranking, "id_hash", constant)
        yield


def oracle_first_duplicate(pairs: list[tuple[str, str]]) -> tuple[int, int] | None:
    """``(row, first row)`` of the first pair seen before, by a dict of Python tuples."""
    seen: dict[tuple[str, str], int] = {}
    for row, pair in enumerate(pairs):
        if pair in seen:
            return row, seen[pair]
        seen[pair] = row
    return None


@st.composite
def judgements(draw) -> list[tuple[str, str]]:
    docs = draw(id_pool(1, 12))
    queries = draw(st.lists(st.sampled_from(["301", "q1", "LA-q", "クエリ"]), min_size=1))
    pairs = draw(st.lists(st.tuples(st.sampled_from(queries), st.sampled_from(docs)), max_size=40))
    if draw(st.booleans()):  # distinct pairs: the case that used to be reported
        pairs = list(dict.fromkeys(pairs))
    return pairs


def codes_and_words(pairs: list[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    index: dict[str, int] = {}
    codes = np.array([index.setdefault(q, len(index)) for q, _ in pairs], np.int64)
    return codes, doc_words([d for _, d in pairs])


@SETTINGS
@given(judgements(), st.booleans())
def test_first_duplicate_equals_the_set_oracle(pairs, forced):
    with fingerprints(forced):
        assert first_duplicate(*codes_and_words(pairs)) == oracle_first_duplicate(pairs)


@SETTINGS
@given(judgements().filter(bool), st.booleans(), st.booleans())
def test_qrels_reader_finds_exactly_the_oracles_duplicate(tmp_path_factory, pairs, forced, fast):
    path = tmp_path_factory.mktemp("q") / "qrels"
    header = "" if fast else "# line parser\n"
    path.write_text(header + "".join(f"{q} 0 {d} 1\n" for q, d in pairs), encoding="utf-8")
    expected = oracle_first_duplicate(pairs)
    with fingerprints(forced):
        if expected is None:
            qrels = read_trec_qrels(path)
            read = zip(qrels.query_ids[qrels.query], qrels.doc.to_pylist(), strict=True)
            assert list(read) == pairs
            return
        with pytest.raises(InputError, match="duplicate judgement") as info:
            read_trec_qrels(path)
    row, first = expected
    offset = 1 + (not fast)
    assert info.value.line == row + offset
    assert f"already judged on line {first + offset}" in info.value.message


def test_three_equal_fingerprints_of_distinct_pairs_are_no_duplicate():
    """The crash on trec_eval's qrels.test: a run of 3+ equal fingerprints listed its
    middle rows twice, so distinct pairs looked duplicated."""
    pairs = [("301", "FR940104-0-00001"), ("301", "FR940104-0-00002"), ("301", "LA090389-0100")]
    with fingerprints(forced=True):
        assert first_duplicate(*codes_and_words(pairs)) is None


@st.composite
def runs_with_repeats(draw):
    docs = draw(id_pool(1, 10))
    rows = draw(
        st.lists(
            st.tuples(st.sampled_from(["q1", "q2"]), st.sampled_from(docs), st.integers(0, 5)),
            min_size=1,
            max_size=30,
        )
    )
    return sorted(rows, key=lambda r: r[0]), docs


@SETTINGS
@given(runs_with_repeats(), st.booleans())
def test_run_duplicates_are_counted_as_the_oracle_counts(collection, forced):
    rows, docs = collection
    run = Run.from_columns([q for q, _, _ in rows], [d for _, d, _ in rows], [s for *_, s in rows])
    qrels = Qrels.from_pairs(["q1", "q2"], [("q1", docs[0], 1), ("q2", docs[-1], 1)])
    with fingerprints(forced):
        _, stats = ranking.rank(run, qrels)
    assert stats.duplicates == len(rows) - len({(q, d) for q, d, _ in rows})
