"""The fast reader's shortcuts give what the exact code gives: the visible-ASCII check
(two passes over the bytes) and doc words by arrow's padding."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from ragtriage.data._trec_fast import fast_ids_usable, write_doc_words
from ragtriage.data.ids import ids_clean, visible_ascii
from ragtriage.data.tables import write_words

IDS = st.lists(
    st.text(st.characters(min_codepoint=0, max_codepoint=0x2FF), min_size=1, max_size=30),
    min_size=1,
    max_size=20,
)


def _exact(values: list[str]) -> bool:
    return all(
        not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c == " " for c in v) for v in values
    )


@settings(max_examples=300, deadline=None)
@given(IDS, st.integers(0, 2))
def test_fast_check_matches_the_rule(values, cut):
    docs = pa.array(values, pa.string()).slice(min(cut, len(values) - 1))
    kept = docs.to_pylist()
    queries = pa.array(["q1"] * len(kept), pa.string())
    assert fast_ids_usable(queries, docs) == _exact(kept)
    assert ids_clean(docs) == all(
        not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in v) for v in kept
    )


@settings(max_examples=300, deadline=None)
@given(IDS, st.integers(0, 2), st.integers(0, 1))
def test_padded_words_are_write_words(values, cut, spare):
    docs = pa.array(values, pa.string()).slice(min(cut, len(values) - 1))
    longest = max(len(v.encode("utf-8")) for v in docs.to_pylist())
    width = max(1, -(-longest // 8)) + spare
    exact = np.full((len(docs), width + 1), 7, np.uint64)
    fast = exact.copy()
    write_words(docs, exact[:, :width])
    write_doc_words(docs, fast[:, :width])
    assert (fast == exact).all()


def test_visible_ascii_bounds():
    assert visible_ascii(np.frombuffer(b"!~az09#", np.uint8))
    for bad in (b" ", b"\x7f", b"\x1f", b"\xc3\xa9"):
        assert not visible_ascii(np.frombuffer(b"ab" + bad, np.uint8))
    assert visible_ascii(np.zeros(0, np.uint8))
