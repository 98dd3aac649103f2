"""The lexical judge: word overlap between answer and context, no model at all.

A real baseline, not a toy: the share of the answer's content words (lower-cased,
stopwords and citation markers such as ``[1]`` removed) that occur in the context. Every
judge result carries it, so calibration can always ask whether a model beats it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "CITATION",
    "REACTIONS",
    "STOPWORDS",
    "WORDS_VERSION",
    "claim_sentences",
    "content_words",
    "lexical_support",
    "sentence_support",
    "split_sentences",
]

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers herself him himself his how
    i if in into is it its itself just me more most my myself no nor not now of off on
    once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves may might must shall one""".split()
)
CITATION = re.compile(r"\[\s*\d+(?:\s*[,-]\s*\d+)*\s*\]")  # [1], [1, 3], [2-4]
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
# A period after these ends an abbreviation, not a sentence: "Dr. Monica Quartermaine",
# "Robert S.P. Beekes" (a single capital is an initial). Not "No.": it is also an answer.
_ABBREVIATIONS = frozenset(
    """dr mr mrs ms st jr sr prof gen lt col capt sgt rev hon gov sen rep mt vol fig vs
    etc inc ltd co corp dept univ approx est""".split()
)
_LAST_WORD = re.compile(r"(?:^|[\s(\"'.])([A-Za-z]{1,5})\.$")
# A contraction is as empty as its parts: "it's", "that's", "I'm" and "don't" say nothing
# the context must contain (before, a chatty "that's" counted as a word the context lacks).
_CLITIC = re.compile(r"^(\w+)['’](s|re|m|ve|ll|d)$")
_NOT = re.compile(r"^(\w*)n['’]t$")  # don't, isn't, can't (ca), won't (wo), "does n't"
_NOT_HEADS = frozenset(["", "ca", "wo", "ai", "sha", "need"])
# Words of a reaction, not of a claim: "Yes.", "Great question!", "That's cool.", "Thanks!",
# "I agree." A sentence made only of these (and stopwords) asserts nothing the context
# could support, so it is not checked when the answer has other sentences; a fixed list,
# not fitted to any grades.
REACTIONS = frozenset(
    """yes yeah yep yup nope sure okay ok oh ah wow well great good cool nice awesome
    interesting fascinating amazing indeed absolutely certainly definitely course thanks
    thank hello hi hey agree question happy glad help helps hope sorry true right exactly""".split()
)
# A list item's marker ("1.", "2)", "-", "•") is layout, not a sentence or a number: "1."
# before "The warranty ..." was split off as a sentence stating the number 1.
_LIST_MARKER = re.compile(r"^\s*(?:[-*•+]|\(?\d{1,3}[.)])\s+")
_HEADING = re.compile(r"#{1,6}\s")  # a markdown heading: "## Warranty"
# Attribution to the context is not a claim about the world: "According to the provided
# documents, the warranty lasts two years." states what the context says, and its words
# ("according", "provided", "documents") are never in the context, which cost it the
# overlap a calibrated rule needs. Removed from the start of a sentence before it is checked.
_SOURCE = (
    r"(?:the |these |this |those )?(?:provided |given |retrieved |above |available |supplied )?"
    r"(?:context|contexts|documents?|passages?|sources?|information|text|excerpts?"
    r"|search results|results|documentation|materials?)(?: provided| given| above)?"
)
# Discourse openers ("In conclusion,", "**Summary:**") frame a claim the same way.
_OPENER = (
    r"(?:in summary|in short|in conclusion|to summarize|to sum up|overall|summary|answer|note)"
)
_ATTRIBUTION = re.compile(
    rf"^(?:according to|based on|as (?:stated|mentioned|described|noted|shown) in|per|from)"
    rf" {_SOURCE}\s*[,:]\s*"
    rf"|^[*_]*{_OPENER}[*_]*\s*[,:][*_]*\s+"
    rf"|^{_SOURCE} (?:states?|says?|mentions?|indicates?|shows?|explains?|notes?|suggests?)"
    rf"(?: that)?[,:]?\s+",
    re.IGNORECASE,
)
# In every judge's fingerprint: a calibration fitted on other words and sentences is stale.
WORDS_VERSION = (
    "words v3: contractions of stopwords are stopwords; reactions, headings and lead-ins"
    " are no claims; list markers are layout; attributions to the context are no words"
)


def content_words(text: str) -> list[str]:
    """Lower-cased words of ``text`` without stopwords and citation markers."""
    text = CITATION.sub(" ", text).lower()
    return [w for w in _WORD.findall(text) if not _stopword(w)]


def _stopword(word: str) -> bool:
    """A stopword, or a contraction of one ("it's", "we'll", "doesn't")."""
    if word in STOPWORDS:
        return True
    clitic = _CLITIC.match(word)
    if clitic:
        return clitic.group(1) in STOPWORDS
    negated = _NOT.match(word)
    return negated is not None and (negated[1] in STOPWORDS or negated[1] in _NOT_HEADS)


def claim_sentences(text: str) -> list[str]:
    """The sentences that assert something, each without a leading attribution to the
    context ("According to the documents, "): those with content words, less reactions
    ("Yes.", "Great question!"), markdown headings and lead-ins ending in a colon ("Here
    is what I found:") when any sentence says more. An answer that only reacts keeps its
    sentences, so a bare "Yes." is still judged rather than silently passed."""
    worded = [(s, set(content_words(s))) for s in map(_unattributed, split_sentences(text))]
    sentences = [s for s, words in worded if words]
    claims = [s for s, words in worded if words and not _framing(s, words)]
    return claims or sentences


def _unattributed(sentence: str) -> str:
    return _ATTRIBUTION.sub("", sentence)


def _framing(sentence: str, words: set[str]) -> bool:
    """A reaction, a markdown heading or a lead-in: framing around claims, not a claim."""
    heading = _HEADING.match(sentence) is not None
    lead_in = sentence.rstrip("*_ ").endswith(":")
    return heading or lead_in or words <= REACTIONS


def split_sentences(text: str) -> list[str]:
    """Deterministic sentence split: punctuation followed by a capital or digit, except
    after an abbreviation or an initial (:func:`_abbreviated`)."""
    blocks = (_LIST_MARKER.sub("", block) for block in text.splitlines())
    parts = (p.strip() for block in blocks for p in _split_block(block))
    return [p for p in parts if p]


def _split_block(block: str) -> list[str]:
    out, start = [], 0
    for gap in _SENTENCE.finditer(block):
        if not _abbreviated(block[start : gap.start()]):
            out.append(block[start : gap.start()])
            start = gap.end()
    return [*out, block[start:]]


def _abbreviated(head: str) -> bool:
    """``head`` ends with an initial ("S.P.", "U.S.") or a listed abbreviation ("Dr.")."""
    last = _LAST_WORD.search(head)
    if last is None:
        return False
    word = last.group(1)
    return (len(word) == 1 and word.isupper()) or word.lower() in _ABBREVIATIONS


def lexical_support(answer: str, contexts: Sequence[str]) -> float | None:
    """Share of the answer's content words found in the context; ``None`` if it has none."""
    return _share(content_words(answer), set(content_words(" ".join(contexts))))


def sentence_support(answer: str, contexts: Sequence[str]) -> list[tuple[str, float | None]]:
    """``(sentence, lexical support)`` for each sentence of the answer."""
    vocabulary = set(content_words(" ".join(contexts)))
    return [(s, _share(content_words(s), vocabulary)) for s in claim_sentences(answer)]


def _share(words: list[str], vocabulary: set[str]) -> float | None:
    return sum(w in vocabulary for w in words) / len(words) if words else None
