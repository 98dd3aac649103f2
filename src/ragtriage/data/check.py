"""Is the golden set still valid against this corpus? (the checks of ``ragtriage golden
check``, run by :mod:`ragtriage.flows.golden.check`; what it lists: docs/golden-sets.md,
"Versioning against the corpus")

Golden sets outlive corpora: a document is deleted or re-chunked, the chunk ids change,
and every case that expected the old ids silently scores 0 ever after (the retriever is
blamed for the corpus). Queries get copied, so two cases weigh one question twice.
``NEAR_DUPLICATE`` is 0.8: "how do I reset my password" vs "how do I reset my password
now" is 0.86, and 0.8 keeps paraphrases with one word changed in five apart.

The duplicate test is this module's one :func:`duplicate_of` (over :func:`normalise`-d
texts): ``golden add`` refuses a case that repeats one already in the set with it
(:func:`ragtriage.data.grow.duplicate_reason`), and the query sampler of ``annotate
golden`` folds repeated log queries with it.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
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
    pairs, not 4.5 million.
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
    Jaccard >= ``threshold``)."""
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

    Exact, in two parts. Sets x and y have Jaccard >= t exactly when they share at least
    ``m = ceil(t(|x| + |y|) / (1 + t))`` tokens, so a set of size a is keyed, for each size
    b a partner may have (``ta <= b <= a/t``, of the sizes present), by its subsets of size
    ``m(a, b)`` tagged (a, b), and looks up the same subsets tagged (b, a): a shared key is
    then both necessary and sufficient, so templated queries that share all but one word
    (every pair just below t) are no candidates at all, where a key of ``ceil(ta)`` tokens
    made every pair one (benchmarks/results/golden_check_duplicates.txt). A set with few
    keys (every query of up to 13 words at 0.8) is keyed (keys are hashes: a collision only
    adds a candidate, which the exact test then drops). Larger sets, rare in a query log, go
    through prefix filtering (Chaudhuri et al. 2006; Bayardo et al. 2007): order every set's
    tokens rarest first; two sets with Jaccard >= t share a token among the first
    ``|x| - ceil(t|x|) + 1`` of each; pairs sharing such a prefix token are candidates,
    pruned by size and position. A keyed set is compared by prefix only with large sets (a
    pair of keyed sets always shares a key), so each pair is found by at least one part and
    the earliest match wins.
    """
    if threshold <= 0:
        threshold = 1e-9  # every pair qualifies in principle; the prefix is the whole set
    sizes = [len(t) for t in sets]
    present = sorted(set(sizes))
    plans = {n: _partners(n, present, threshold) for n in present}  # once per size
    keyable = {n: sum(math.comb(n, m) for _, m in plan) <= MAX_KEYS for n, plan in plans.items()}
    keyed = [keyable[n] for n in sizes]
    large = [i for i, k in enumerate(keyed) if not k]
    probe = _prefix_probe(sets, threshold, large) if large else None
    holders: dict[int, list[int]] = {}  # key -> every earlier set holding it
    found: dict[int, int] = {}
    for j, tokens in enumerate(sets):
        candidates: set[int] = set()
        if keyed[j]:
            ordered, size = sorted(tokens), len(tokens)
            for partner, shared in plans[size]:
                for subset in combinations(ordered, shared):
                    candidates.update(holders.get(hash((subset, partner, size)), ()))
                    holders.setdefault(hash((subset, size, partner)), []).append(j)
        if probe is not None:
            candidates.update(probe(j, only_large=keyed[j]))
        mine = tokens
        for i in sorted(candidates):  # ascending: the earliest match wins
            if jaccard(sets[i], mine) >= threshold:
                found[j] = i
                break
    return found


# A set with more candidate intersections than this goes through prefix filtering.
MAX_KEYS = 100


def _partners(size: int, present: list[int], threshold: float) -> list[tuple[int, int]]:
    """``(b, m)`` for each present size b a set of ``size`` tokens may reach Jaccard
    ``threshold`` with, and the tokens ``m`` two such sets must share."""
    return [
        (other, max(0, math.ceil(threshold * (size + other) / (1 + threshold) - 1e-9)))
        for other in present
        if threshold * size - 1e-9 <= other and other * threshold <= size + 1e-9
    ]


def _prefix_probe(
    sets: list[frozenset[str]], threshold: float, large: list[int]
) -> Callable[..., list[int]]:
    """``probe(j, only_large)``: the earlier sets sharing a prefix token with set j that
    pass the size and position filters (only the large ones, if asked)."""
    frequency: dict[str, int] = {}
    for tokens in sets:
        for token in tokens:
            frequency[token] = frequency.get(token, 0) + 1
    key = frequency.__getitem__
    # rarest first, ties by the token itself: a fixed total order
    ordered = [sorted(sorted(t), key=key) for t in sets]
    # never past the set's end (the empty set's formula gives 1)
    prefixes = [min(len(t), _prefix_length(len(t), threshold)) for t in ordered]
    every = _postings(ordered, prefixes, range(len(sets)))
    only = _postings(ordered, prefixes, large)
    wide = {name: _wide(p) for name, p in (("every", every), ("only", only))}

    def probe(j: int, only_large: bool) -> list[int]:
        postings, wides = (only, wide["only"]) if only_large else (every, wide["every"])
        return _candidates(j, ordered[j], prefixes[j], postings, wides, threshold)

    return probe


def _wide(
    postings: dict[str, tuple[list[int], list[int], list[int]]],
) -> dict[str, tuple[np.ndarray, ...]]:
    return {
        token: tuple(np.array(column) for column in lists)
        for token, lists in postings.items()
        if len(lists[0]) > WIDE_POSTING
    }


# A posting list longer than this is filtered with numpy (a token in every templated
# query); shorter ones, nearly all of them in a real log, in plain Python, where a numpy
# call's fixed cost (a few microseconds each, several per token) would dominate.
WIDE_POSTING = 64


def _prefix_length(size: int, threshold: float) -> int:
    return max(0, size - math.ceil(threshold * size - 1e-9) + 1)


def _postings(
    ordered: list[list[str]], prefixes: list[int], which: Iterable[int]
) -> dict[str, tuple[list[int], list[int], list[int]]]:
    """Token -> (set ids, positions, set sizes) over the prefixes of the sets ``which``
    (ascending), ids ascending."""
    lists: dict[str, tuple[list[int], list[int], list[int]]] = {}
    for i in which:
        tokens = ordered[i]
        size = len(tokens)
        for position in range(prefixes[i]):
            ids, positions, sizes = lists.setdefault(tokens[position], ([], [], []))
            ids.append(i)
            positions.append(position)
            sizes.append(size)
    return lists


def _candidates(
    j: int,
    tokens: list[str],
    prefix: int,
    postings: dict[str, tuple[list[int], list[int], list[int]]],
    wide: dict[str, tuple[np.ndarray, ...]],
    threshold: float,
) -> list[int]:
    """The sets i < j sharing a prefix token with set j that pass the size and position
    filters. Candidates pass the same size and position filters, with the same tolerances, on the
    Python path and the numpy path, so the result does not depend on which one ran."""
    size = len(tokens)
    low = threshold * size - 1e-9  # sizes >= low
    high = size + 1e-9  # sizes * threshold <= high
    share = threshold / (1 + threshold)
    candidates: set[int] = set()
    for position in range(prefix):
        token = tokens[position]
        left = size - position - 1
        if token in wide:
            ids, positions, sizes = wide[token]
            end = int(np.searchsorted(ids, j))  # ids ascending: those < j
            ids, positions, sizes = ids[:end], positions[:end], sizes[:end]
            keep = (sizes >= low) & (sizes * threshold <= high)
            needed = share * (size + sizes) - 1e-9
            keep &= 1 + np.minimum(left, sizes - positions - 1) >= needed
            candidates.update(ids[keep].tolist())
            continue
        if token not in postings:
            continue  # only the large sets are indexed, and none has this token
        ids_, positions_, sizes_ = postings[token]
        for k, i in enumerate(ids_):
            if i >= j:
                break
            other = sizes_[k]
            if (
                other >= low
                and other * threshold <= high
                and 1 + min(left, other - positions_[k] - 1) >= share * (size + other) - 1e-9
            ):
                candidates.add(i)
    return list(candidates)


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
