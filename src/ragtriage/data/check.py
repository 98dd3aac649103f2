"""``ragtriage golden check``: is the golden set still valid against this corpus?

Golden sets outlive corpora: a document is deleted or re-chunked, the chunk ids change,
and every case that expected the old ids silently scores 0 ever after (the retriever is
blamed for the corpus). Queries get copied, so two cases weigh one question twice. This
check lists:

* **missing ids**: expected (judged) or forbidden ids that are not in the corpus; a case
  whose every relevant id is gone is **invalid**;
* **duplicate queries**: equal after normalisation (NFKC, case-folded, punctuation
  dropped, whitespace collapsed), and **near-duplicates**: token-set Jaccard similarity
  >= 0.8 (``NEAR_DUPLICATE``: "how do I reset my password" vs "how do I reset my
  password now" is 0.86; 0.8 keeps paraphrases with one word changed in five apart);
* **untagged cases**: they fall out of every per-tag slice.

It also says which golden-set and corpus versions (content hashes) it checked, the same
hashes every result records.

The duplicate test is shared: ``golden add`` refuses a case that repeats one already in
the set, and the query sampler of ``annotate golden`` folds repeated log queries, both
with :func:`normalise`, :func:`jaccard` / :func:`duplicate_of` and ``NEAR_DUPLICATE``.
:func:`with_corpus` gives a golden set another corpus (``retrieval --corpus``).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from ragtriage.data.golden import load_chunks
from ragtriage.data.models import Chunk, GoldenSet, corpus_sha256
from ragtriage.data.tables import Qrels
from ragtriage.errors import InputError

__all__ = [
    "CheckReport",
    "DuplicatePair",
    "MissingId",
    "NEAR_DUPLICATE",
    "check_golden",
    "duplicate_of",
    "duplicate_queries",
    "jaccard",
    "missing_ids",
    "normalise",
    "with_corpus",
]

NEAR_DUPLICATE = 0.8
_PUNCT = re.compile(r"[^\w\s]+")


class MissingId(BaseModel):
    case_id: str
    doc_id: str
    field: Literal["expected", "relevance_grades", "forbidden"]


class DuplicatePair(BaseModel):
    first: str
    second: str
    kind: Literal["exact", "near"]
    jaccard: float


class CheckReport(BaseModel):
    golden: dict[str, Any]
    corpus: dict[str, Any] | None = None
    missing_ids: list[MissingId] = Field(default_factory=list)
    invalid_cases: list[str] = Field(default_factory=list)  # every relevant id is gone
    duplicates: list[DuplicatePair] = Field(default_factory=list)
    untagged: list[str] = Field(default_factory=list)
    near_duplicate_threshold: float = NEAR_DUPLICATE

    @property
    def ok(self) -> bool:
        """Untagged cases are a warning; missing ids and duplicates fail the check."""
        return not (self.missing_ids or self.duplicates)


def normalise(query: str) -> str:
    text = unicodedata.normalize("NFKC", query).casefold()
    return " ".join(_PUNCT.sub(" ", text).split())


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def duplicate_queries(golden: GoldenSet, threshold: float = NEAR_DUPLICATE) -> list[DuplicatePair]:
    """Each case that repeats an earlier one, paired with the earliest such earlier case.

    Exact duplicates (equal normalised text) are found by hashing; near duplicates
    (token-set Jaccard >= ``threshold``) by an exact prefix-filter join (:func:`_near_pairs`)
    over one representative per distinct text. Both are sub-quadratic on real golden sets,
    and the list holds at most one pair per case: 3,000 copies of one query are 2,999
    pairs, not 4.5 million. A case equal to an earlier one is paired with it as ``exact``;
    otherwise with the earliest earlier case it nearly duplicates, as ``near``.
    """
    texts = [normalise(c.query) for c in golden.cases]
    pairs = sorted((b, a, kind) for b, (a, kind) in duplicate_of(texts, threshold).items())
    cases = golden.cases
    return [
        DuplicatePair(
            first=cases[a].id,
            second=cases[b].id,
            kind=kind,  # type: ignore[arg-type]
            jaccard=round(jaccard(frozenset(texts[a].split()), frozenset(texts[b].split())), 4),
        )
        for b, a, kind in pairs
    ]


def duplicate_of(
    texts: Sequence[str], threshold: float = NEAR_DUPLICATE
) -> dict[int, tuple[int, str]]:
    """``{later: (earlier, kind)}`` over normalised texts: each index that repeats an
    earlier text, with the earliest such text, ``exact`` (equal) or ``near`` (token-set
    Jaccard >= ``threshold``). The one duplicate test: :func:`duplicate_queries` and the
    query folding of ``ragtriage annotate golden`` both call it."""
    first_of: dict[str, int] = {}  # normalised text -> index of its first occurrence
    reps: list[int] = []  # index of each distinct text, in order
    found: dict[int, tuple[int, str]] = {}
    for index, text in enumerate(texts):
        if text in first_of:
            found[index] = (first_of[text], "exact")
        else:
            first_of[text] = index
            reps.append(index)
    tokens = [frozenset(texts[i].split()) for i in reps]
    for later, earlier in _near_pairs(tokens, threshold).items():
        found[reps[later]] = (reps[earlier], "near")
    return found


def _near_pairs(sets: list[frozenset[str]], threshold: float) -> dict[int, int]:
    """``{j: i}``: for each set j, the smallest i < j with Jaccard(i, j) >= ``threshold``.

    Prefix filtering (Chaudhuri et al. 2006; Bayardo et al. 2007), exact: order every set's
    tokens rarest first; two sets with Jaccard >= t share a token among the first
    ``|x| - ceil(t|x|) + 1`` of each. Only pairs sharing such a prefix token are candidates,
    pruned further by size (``t|x| <= |y| <= |x|/t``) and by position (the overlap still
    possible after the first shared token must reach ``t/(1+t) (|x|+|y|)``), and only the
    survivors are compared. Posting lists are numpy arrays, so a token shared by every
    query (templated queries) costs a vector operation per query, not a Python loop.
    """
    if threshold <= 0:
        threshold = 1e-9  # every pair qualifies in principle; the prefix is the whole set
    frequency: dict[str, int] = {}
    for tokens in sets:
        for token in tokens:
            frequency[token] = frequency.get(token, 0) + 1
    ordered = [sorted(t, key=lambda w: (frequency[w], w)) for t in sets]
    postings = _postings(ordered, threshold)
    found: dict[int, int] = {}
    for j, ranked in enumerate(ordered):
        earlier = _first_match(j, ranked, sets, postings, threshold)
        if earlier is not None:
            found[j] = earlier
    return found


def _prefix_length(size: int, threshold: float) -> int:
    return max(0, size - math.ceil(threshold * size - 1e-9) + 1)


def _postings(ordered: list[list[str]], threshold: float) -> dict[str, tuple[np.ndarray, ...]]:
    """Token -> (set ids, positions, set sizes) over every set's prefix, ids ascending."""
    lists: dict[str, tuple[list[int], list[int], list[int]]] = {}
    for i, tokens in enumerate(ordered):
        for position, token in enumerate(tokens[: _prefix_length(len(tokens), threshold)]):
            ids, positions, sizes = lists.setdefault(token, ([], [], []))
            ids.append(i)
            positions.append(position)
            sizes.append(len(tokens))
    return {
        token: (np.array(ids), np.array(positions), np.array(sizes))
        for token, (ids, positions, sizes) in lists.items()
    }


def _first_match(
    j: int,
    tokens: list[str],
    sets: list[frozenset[str]],
    postings: dict[str, tuple[np.ndarray, ...]],
    threshold: float,
) -> int | None:
    """The smallest i < j whose set is within ``threshold`` of set j, or None."""
    size = len(tokens)
    candidates: list[np.ndarray] = []
    for position, token in enumerate(tokens[: _prefix_length(size, threshold)]):
        ids, positions, sizes = postings[token]
        keep = ids < j
        keep &= (sizes >= threshold * size - 1e-9) & (sizes * threshold <= size + 1e-9)
        needed = threshold / (1 + threshold) * (size + sizes) - 1e-9
        keep &= 1 + np.minimum(size - position - 1, sizes - positions - 1) >= needed
        candidates.append(ids[keep])
    if not candidates:
        return None
    mine = sets[j]
    for i in np.unique(np.concatenate(candidates)):  # ascending: the earliest match wins
        if jaccard(sets[i], mine) >= threshold:
            return int(i)
    return None


def missing_ids(golden: GoldenSet, corpus: dict[str, Chunk]) -> list[MissingId]:
    out = []
    for case in golden.cases:
        for doc, grade in case.relevance.items():
            if doc not in corpus:
                field = "expected" if grade >= 1 else "relevance_grades"
                out.append(MissingId(case_id=case.id, doc_id=doc, field=field))
        out += [
            MissingId(case_id=case.id, doc_id=doc, field="forbidden")
            for doc in case.forbidden
            if doc not in corpus
        ]
    return out


def check_golden(golden: GoldenSet, corpus: dict[str, Chunk] | None = None) -> CheckReport:
    """Every check above; the id checks need a corpus (given, or the golden set's own)."""
    corpus = corpus if corpus is not None else golden.corpus
    gone = missing_ids(golden, corpus) if corpus is not None else []
    gone_by_case: dict[str, set[str]] = {}
    for m in gone:
        gone_by_case.setdefault(m.case_id, set()).add(m.doc_id)
    invalid = [
        c.id
        for c in golden.cases
        if c.answerable() and set(c.expected()) <= gone_by_case.get(c.id, set())
    ]
    return CheckReport(
        golden={
            "source": golden.source,
            "sha256": golden.content_hash(),
            "cases": len(golden.cases),
        },
        corpus=(
            {"sha256": corpus_sha256(corpus), "chunks": len(corpus)} if corpus is not None else None
        ),
        missing_ids=gone,
        invalid_cases=invalid,
        duplicates=duplicate_queries(golden),
        untagged=[c.id for c in golden.cases if not c.tags],
    )


def with_corpus(target: GoldenSet | Qrels, path: Path) -> GoldenSet:
    """The golden set with ``path`` as its corpus (replacing any corpus beside it)."""
    if not isinstance(target, GoldenSet):
        raise InputError("--corpus needs --golden (qrels carry no cases)", field="corpus")
    return target.model_copy(update={"corpus": load_chunks(path)})
