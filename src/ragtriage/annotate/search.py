"""The keyword search over the whole corpus, through a word index built once.

A term matches whole words, case-folded: ``e1042`` finds "Error E1042." but not "E10420"; a
term of several words (a code such as ``n4-300``, a quoted phrase) matches those words in
that order, as written (``n4-300`` does not find "N4 300"); a trailing ``*`` matches a
prefix (``bay*``: bay, bays). Scanning a large corpus for each search was too slow, so every
passage's words (maximal runs of ``\\w``) are indexed, the vocabulary sorted so that the
words with a prefix are one contiguous range of postings. A term's words each narrow the
candidates (a mask per word); a term of several words is then checked in the candidates only
(a regular expression with word boundaries). A term without a word character matches
nothing.
"""

from __future__ import annotations

import bisect
import re

import numpy as np

__all__ = ["WordIndex"]

_WORD = re.compile(r"\w+")
_LAST = "\U0010ffff"  # sorts after every word: the end of a prefix's range
# Candidates of a term of several words checked at most (in corpus order): the work of a
# phrase of two words found in a third of the corpus stays bounded; its count is a floor.
_CHECKED = 20_000


class WordIndex:
    """Passages (case-folded texts) and the index of their words."""

    def __init__(self, passages: list[str]) -> None:
        self.passages = passages
        per_passage = [set(_WORD.findall(p)) for p in passages]
        self.vocab = sorted(set().union(*per_passage))
        code = {word: i for i, word in enumerate(self.vocab)}
        sizes = np.fromiter((len(w) for w in per_passage), np.int64, len(passages))
        words = np.fromiter((code[w] for ws in per_passage for w in ws), np.int32, sizes.sum())
        docs = np.repeat(np.arange(len(passages), dtype=np.int32), sizes)
        order = np.argsort(words, kind="stable")  # by word, passages ascending within one
        self.postings = docs[order]
        self.indptr = np.searchsorted(words[order], np.arange(len(self.vocab) + 1))
        self.size = len(passages)

    def matching(self, terms: list[str], limit: int) -> tuple[np.ndarray, bool]:
        """Passage indices (ascending) holding every term, and whether the list stopped
        short: more than ``limit`` matches, or more than ``_CHECKED`` candidates, of a term
        that needs the check (a phrase of two common words has tens of thousands)."""
        mask = np.ones(self.size, bool)
        checks = []
        for term in terms:
            prefix = term.endswith("*")
            pieces = _WORD.findall(term.rstrip("*"))
            if not pieces:
                return np.zeros(0, np.int64), False
            for i, piece in enumerate(pieces):
                mask &= self._holding(piece, prefix and i == len(pieces) - 1)
            if len(pieces) > 1:
                checks.append((term.rstrip("*"), _pattern(term.rstrip("*"), prefix)))
        found = np.flatnonzero(mask)
        if not checks:
            return found, False
        texts = self.passages
        candidates = found.tolist()
        capped = len(candidates) > _CHECKED
        candidates = candidates[:_CHECKED]
        for text, _ in checks:  # a plain substring test first: C speed, drops most
            candidates = [i for i in candidates if text in texts[i]]
        kept: list[int] = []
        for i in candidates:
            if all(pattern.search(texts[i]) for _, pattern in checks):
                if len(kept) == limit:
                    return np.array(kept, np.int64), True
                kept.append(i)
        return np.array(kept, np.int64), capped

    def _holding(self, word: str, prefix: bool) -> np.ndarray:
        """Mask of the passages holding ``word`` (or a word starting with it)."""
        low = bisect.bisect_left(self.vocab, word)
        high = bisect.bisect_left(self.vocab, word + _LAST) if prefix else low + 1
        if not prefix and (low == len(self.vocab) or self.vocab[low] != word):
            high = low
        mask = np.zeros(self.size, bool)
        mask[self.postings[self.indptr[low] : self.indptr[high]]] = True
        return mask


def _pattern(term: str, prefix: bool) -> re.Pattern[str]:
    """``term`` as written, starting and (unless a prefix) ending at word boundaries."""
    return re.compile(r"(?<!\w)" + re.escape(term) + ("" if prefix else r"(?!\w)"))
