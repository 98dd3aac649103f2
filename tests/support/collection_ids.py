"""Hypothesis strategies for doc and query ids shaped like real collections' ids.

Short random ids (``d07``) fit in one 8-byte word, so they never exercised the
multi-word paths (fingerprints, tie-breaks on long ids, the exact duplicate check) that
real collections hit on every line: TREC disks (``LA090389-0100``, ``FR940104-0-00001``),
MS MARCO v2.1 segments, ClueWeb, UUIDs, non-ASCII ids, and ids of 1 to 60 bytes that
share long prefixes.
"""

from __future__ import annotations

import uuid

from hypothesis import strategies as st


def _number(width: int, high: int | None = None) -> st.SearchStrategy[str]:
    return st.integers(0, high or 10**width - 1).map(lambda n: f"{n:0{width}d}")


def _date() -> st.SearchStrategy[str]:
    return st.tuples(st.integers(1, 12), st.integers(1, 31), st.integers(88, 94)).map(
        lambda t: f"{t[0]:02d}{t[1]:02d}{t[2]:02d}"
    )


TREC_LA = st.tuples(_date(), _number(4, 300)).map(lambda t: f"LA{t[0]}-{t[1]}")
TREC_FR = st.tuples(_date(), st.integers(0, 2), _number(5, 200)).map(
    lambda t: f"FR{t[0]}-{t[1]}-{t[2]}"
)
TREC_OTHER = st.one_of(
    _number(4).map(lambda n: f"FBIS3-{int(n)}"),
    _number(4).map(lambda n: f"FT911-{int(n)}"),
    _number(5).map(lambda n: f"CR93E-{int(n)}"),
)
MSMARCO = st.tuples(
    st.integers(0, 58), st.integers(0, 10**10), st.integers(0, 40), st.integers(0, 10**10)
).map(lambda t: f"msmarco_v2.1_doc_{t[0]:02d}_{t[1]}#{t[2]}_{t[3]}")
CLUEWEB = st.tuples(
    st.sampled_from(["clueweb09-en", "clueweb09-de", "clueweb12-"]),
    _number(4, 20),
    _number(2, 99),
    _number(5, 99999),
).map(lambda t: f"{t[0]}{t[1]}{'tw' if t[0] == 'clueweb12-' else ''}-{t[2]}-{t[3]}")
UUIDS = st.uuids(version=4).map(str) | st.binary(min_size=16, max_size=16).map(
    lambda b: str(uuid.UUID(bytes=b))
)
NON_ASCII = st.tuples(
    st.sampled_from(["文档", "dokumént", "док", "ドキュメント", "🙂", "é", "ß"]),
    st.integers(0, 999),
).map(lambda t: f"{t[0]}-{t[1]}")
# long shared prefixes: ids equal in their first words, different in the last bytes
PREFIXED = st.tuples(
    st.sampled_from(["", "a" * 7, "b" * 8, "urn:collection:2024:", "x" * 40, "p" * 55]),
    st.text(alphabet="0123456789abcdef-_#", min_size=1, max_size=5),
).map(lambda t: (t[0] + t[1])[:60])

FAMILIES = {
    "trec_la": TREC_LA,
    "trec_fr": TREC_FR,
    "trec_other": TREC_OTHER,
    "msmarco_v2.1": MSMARCO,
    "clueweb": CLUEWEB,
    "uuid": UUIDS,
    "non_ascii": NON_ASCII,
    "prefixed": PREFIXED,
}
ANY_ID = st.one_of(*FAMILIES.values())


@st.composite
def id_pool(draw, min_size: int = 1, max_size: int = 30) -> list[str]:
    """Distinct ids, from one family or mixed, as a collection's doc ids would be."""
    family = draw(st.sampled_from([*FAMILIES.values(), ANY_ID]))
    return draw(st.lists(family, min_size=min_size, max_size=max_size, unique=True))
