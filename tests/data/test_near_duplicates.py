"""The fast near-duplicate join folds exactly the groups the previous implementation did.

``_old_near_pairs`` is the implementation before the pure-Python posting path (numpy on
every posting list), copied here unchanged as the oracle; a brute-force scan over all
pairs checks both on the smaller sets."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from ragtriage.data.check import (
    NEAR_DUPLICATE,
    WIDE_POSTING,
    _near_pairs,
    duplicate_of,
    jaccard,
    normalise,
)


def _old_prefix_length(size: int, threshold: float) -> int:
    return max(0, size - math.ceil(threshold * size - 1e-9) + 1)


def _old_near_pairs(sets: list[frozenset[str]], threshold: float) -> dict[int, int]:
    if threshold <= 0:
        threshold = 1e-9
    frequency: dict[str, int] = {}
    for tokens in sets:
        for token in tokens:
            frequency[token] = frequency.get(token, 0) + 1
    ordered = [sorted(t, key=lambda w: (frequency[w], w)) for t in sets]
    lists: dict[str, tuple[list[int], list[int], list[int]]] = {}
    for i, tokens in enumerate(ordered):
        for position, token in enumerate(tokens[: _old_prefix_length(len(tokens), threshold)]):
            ids, positions, sizes = lists.setdefault(token, ([], [], []))
            ids.append(i)
            positions.append(position)
            sizes.append(len(tokens))
    postings = {t: (np.array(a), np.array(b), np.array(c)) for t, (a, b, c) in lists.items()}
    found: dict[int, int] = {}
    for j, tokens in enumerate(ordered):
        size = len(tokens)
        candidates = []
        for position, token in enumerate(tokens[: _old_prefix_length(size, threshold)]):
            ids, positions, sizes = postings[token]
            keep = ids < j
            keep &= (sizes >= threshold * size - 1e-9) & (sizes * threshold <= size + 1e-9)
            needed = threshold / (1 + threshold) * (size + sizes) - 1e-9
            keep &= 1 + np.minimum(size - position - 1, sizes - positions - 1) >= needed
            candidates.append(ids[keep])
        if not candidates:
            continue
        for i in np.unique(np.concatenate(candidates)):
            if jaccard(sets[int(i)], sets[j]) >= threshold:
                found[j] = int(i)
                break
    return found


def _brute(sets: list[frozenset[str]], threshold: float) -> dict[int, int]:
    return {
        j: next(i for i in range(j) if jaccard(sets[i], sets[j]) >= threshold)
        for j in range(len(sets))
        if any(jaccard(sets[i], sets[j]) >= threshold for i in range(j))
    }


BASE = [
    "reset my password",
    "how do I reset the router",
    "café opening hours Zürich",
    "error E1042 on startup",
    "ＦＵＬＬ width query",
    "straße closed today",
    "",
    "refund policy for damaged items please",
    "日本語 の 質問 です",
    "a b c d e f g h i j",
]


def _variant(rng: random.Random, text: str, vocabulary: list[str]) -> str:
    """A near-duplicate or an unrelated edit: case, whitespace, punctuation, a word
    dropped, added or swapped, or an empty line."""
    words = text.split()
    choice = rng.randrange(9)
    if choice == 0:
        return text.upper()
    if choice == 1:
        return "  " + "\t".join(words) + " \n"
    if choice == 2:
        return "".join(w + rng.choice(["?", "!", ",", "...", " - "]) for w in words)
    if choice == 3 and words:
        words.pop(rng.randrange(len(words)))
    elif choice == 4:
        words.insert(rng.randrange(len(words) + 1), rng.choice(vocabulary))
    elif choice == 5 and words:
        words[rng.randrange(len(words))] = rng.choice(vocabulary)
    elif choice == 6:
        return ""
    elif choice == 7:
        rng.shuffle(words)
    else:
        words = [rng.choice(vocabulary) for _ in range(rng.randint(1, 12))]
    return " ".join(words)


def _log(seed: int, n: int, templated: bool) -> list[str]:
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(40)] + ["Ünïcode", "naïve", "ß", "ﬁle", "—"]
    queries = list(BASE)
    while len(queries) < n:
        text = _variant(rng, rng.choice(queries), vocabulary)
        queries.append(("how do i " + text) if templated and rng.random() < 0.7 else text)
    return queries


@pytest.mark.parametrize("templated", [False, True])
@pytest.mark.parametrize("threshold", [NEAR_DUPLICATE, 0.5, 0.0, 1.0])
def test_same_groups_as_the_old_join(templated: bool, threshold: float) -> None:
    texts = [normalise(q) for q in _log(7, 3000, templated)]
    sets = [frozenset(t.split()) for t in dict.fromkeys(texts)]  # one per distinct text
    new = _near_pairs(sets, threshold)
    assert new == _old_near_pairs(sets, threshold)
    assert len(new) > 100  # the log holds many near duplicates: the test compares something
    if templated:  # sets past MAX_KEYS subsets take the prefix-filter path
        assert any(len(s) > 13 for s in sets)


def test_wide_postings_take_the_numpy_path_and_agree() -> None:
    # a token in every query: its posting list is far longer than WIDE_POSTING
    texts = [normalise(q) for q in _log(11, 2000, templated=True)]
    sets = [frozenset(t.split()) for t in dict.fromkeys(texts)]
    assert sum("how" in s for s in sets) > 10 * WIDE_POSTING
    assert _near_pairs(sets, NEAR_DUPLICATE) == _old_near_pairs(sets, NEAR_DUPLICATE)


@pytest.mark.parametrize("seed", range(5))
def test_matches_brute_force(seed: int) -> None:
    texts = [normalise(q) for q in _log(seed, 300, templated=seed % 2 == 0)]
    sets = [frozenset(t.split()) for t in dict.fromkeys(texts)]
    assert _near_pairs(sets, NEAR_DUPLICATE) == _brute(sets, NEAR_DUPLICATE)


def test_folding_of_case_whitespace_punctuation_unicode_and_empty_lines() -> None:
    texts = [
        normalise(q)
        for q in [
            "Please reset my password",
            "  please reset   MY password!! ",
            "please, reset my password?",
            "",
            "   ",
            "please ＲＥＳＥＴ my password",
            "please reset my password now",  # Jaccard 4/5: near
            "Straße",
            "STRASSE",
            "totally different",
        ]
    ]
    found = duplicate_of(texts)
    assert found == {
        1: (0, "exact"),
        2: (0, "exact"),
        4: (3, "exact"),
        5: (0, "exact"),
        6: (0, "near"),
        8: (7, "exact"),  # casefold: ß -> ss
    }


def test_a_shared_key_is_a_match_so_templated_queries_are_no_candidates(monkeypatch) -> None:
    """Queries that share all but one of 7 words (every pair at Jaccard 0.75, just below
    0.8) share subsets of 6 words, but no key: the exact test never runs. Keyed by every
    subset of ceil(0.8 * 7) = 6 words, each of the 2,000 was a candidate of all earlier
    ones (benchmarks/results/golden_check_duplicates.txt: 30.5 s on 10,000)."""
    from ragtriage.data import check

    calls = []
    real = check.jaccard
    monkeypatch.setattr(check, "jaccard", lambda a, b: calls.append(1) or real(a, b))
    sets = [frozenset(f"what is the price of item {i}".split()) for i in range(2000)]
    assert _near_pairs(sets, NEAR_DUPLICATE) == {}
    assert calls == []
    near = [frozenset(f"a b c d e f g h i x{i}".split()) for i in range(300)]
    assert _near_pairs(near, NEAR_DUPLICATE) == {j: 0 for j in range(1, 300)}
