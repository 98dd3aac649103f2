"""Fact-level checks that catch one-fact swaps, without a model.

A generator that changes one fact (a year, an amount, a person, a place) or flips a
statement leaves nearly every word of the answer in the context, so overall word overlap
barely moves. What moves is the *fact*: the changed token is absent from the evidence of
the sentence that states it. Per answer sentence, against its evidence pool (the passages
it cites, else the whole context; :mod:`ragtriage.judge.alignment`):

* **numbers** (``1998``, ``3.5``, ``72``, ``40%``) the pool does not contain, compared as
  numbers (``1,000`` = ``1000``);
* **names**: capitalised words not at the start of the sentence (``Berlin``, ``Curie``)
  the pool does not contain, case-insensitively;
* **negation mismatch**: the sentence negates (``not``, ``never``, ``no``, ``n't``...) and
  its best evidence window does not, or the other way round: "X is not Y" against "X is Y";
* **contradictions**: when sentence and window restate each other (each holds at least
  80 % of the other's content words, one swapped word aside), the opposite polarity or an
  antonym swap (the sentence says ``fell`` where its window says ``rose`` and not ``fell``; a
  small fixed list of common pairs).

Signals (per answer): ``novel_numbers``, ``novel_names``, ``novel_facts`` (their sum),
``contradictions``, ``fact_check`` (numbers + names + contradictions: what every
calibrated decision vetoes on, ``calibration.decision.VetoRule``), ``negation_mismatch``
(any polarity difference against the best window, restated or not: a weak signal), and
``uncited_sentences`` (share of sentences without a citation marker, when
the answer cites anything; 0 when it cites nothing, since then citations are not in use):
a sentence with no cited evidence is unsupported by construction in citation-style
answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragtriage.judge.alignment import SentenceEvidence, stem, stems
from ragtriage.judge.lexical import CITATION

__all__ = ["contradicts", "fact_signals", "names", "negated", "numbers"]

_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_NAME = re.compile(r"\b[A-Z][\w'’-]*[a-z0-9][\w'’-]*\b|\b[A-Z]{2,}\b")
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|neither|nor|cannot|without|nobody|nothing)\b|n['’]t\b", re.I
)
# Capitalised words that are not names: sentence-initial function words after a colon or
# quote, pronouns, months and days are facts, so they stay in.
_NOT_NAMES = frozenset(
    "I A An The This That These Those It Its He She They We You Our Your Their His Her "
    "In On At For From By With As If When While However Also And But Or So Yes No".split()
)


_PAIRS = """increase decrease|increase fall|increase drop|increase decline|rise fall|rise drop
rise decline|grow shrink|more less|more fewer|higher lower|larger smaller|bigger smaller
before after|earlier later|first last|above below|maximum minimum|most least|majority minority
positive negative|allow forbid|allow prohibit|accept reject|include exclude|win lose|open close
legal illegal|true false|always never|strong weak|fast slow|hot cold|north south|east west
start end|begin end|gain loss|increase reduce|rise sink|cheaper expensive|safe dangerous
internal external|import export|buy sell|success failure|add remove|enable disable""".replace(
    "\n", "|"
)
_IRREGULAR = {
    "fell": "fall", "fallen": "fall", "rose": "rise", "risen": "rise", "grew": "grow",
    "grown": "grow", "shrank": "shrink", "shrunk": "shrink", "lost": "lose", "won": "win",
    "began": "begin", "begun": "begin", "sold": "sell", "bought": "buy", "closed": "close",
    "less": "less", "fewer": "fewer",
}  # fmt: skip


def _root(word: str) -> str:
    """Irregular forms mapped, then the light stem without a final e (increase(d))."""
    root = stem(_IRREGULAR.get(word, word))
    return root[:-1] if root.endswith("e") and len(root) > 3 else root


_ANTONYMS: dict[str, set[str]] = {}
for _pair in _PAIRS.split("|"):
    _a, _b = (_root(w) for w in _pair.split())
    _ANTONYMS.setdefault(_a, set()).add(_b)
    _ANTONYMS.setdefault(_b, set()).add(_a)


def numbers(text: str) -> set[str]:
    """Numbers in ``text``, normalised (thousands separators and trailing ``.0`` dropped)."""
    out = set()
    for raw in _NUMBER.findall(CITATION.sub(" ", text)):
        value = raw.replace(",", "")
        if "." in value:
            value = value.rstrip("0").rstrip(".")
        out.add(value)
    return out


def names(sentence: str) -> set[str]:
    """Capitalised words of a sentence except its first word, lower-cased."""
    words = _NAME.findall(CITATION.sub(" ", sentence))
    first = re.match(r"\W*([\w'’-]+)", sentence)
    start = first.group(1) if first else ""
    return {w.lower() for w in words if w not in _NOT_NAMES and w != start}


def negated(text: str) -> bool:
    return _NEGATION.search(text) is not None


def contradicts(sentence: str, window: str) -> bool:
    """The same statement with the opposite polarity, or an antonym swap (module doc).

    Only when sentence and window restate each other (each holds at least 80 % of the
    other's content words, one swapped word aside): a "not" or a "less" elsewhere in a long
    window is about something else. An antonym counts when the sentence lacks the
    window's word and does not say both ("higher incomes, lower poverty" is no swap)."""
    said, seen = set(stems(sentence)), set(stems(window))
    common = len(said & seen)
    if not said or not seen or common < 0.8 * (len(said) - 1) or common < 0.8 * (len(seen) - 1):
        return False
    if negated(sentence) != negated(window):
        return True
    said_all, seen_all = _all_stems(sentence), _all_stems(window)
    return any(
        w not in seen_all and (_ANTONYMS.get(w, set()) & seen_all) - said_all for w in said_all
    )


def _all_stems(text: str) -> set[str]:
    """Every word stemmed, stopwords included (``more``/``less`` are antonyms)."""
    return {_root(w) for w in re.findall(r"[a-z]+", text.lower())}


def _absent_names(found: set[str], pool: str) -> int:
    pool_words = set(re.findall(r"[\w'’-]+", pool.lower()))
    return sum(1 for w in found if w not in pool_words)


def fact_signals(aligned: Sequence[SentenceEvidence], answer_cites: bool) -> dict[str, float]:
    """The fact-level signals of an answer from its sentences' evidence (see module doc)."""
    novel_numbers = novel_names = mismatches = contradictions = uncited = 0
    for ev in aligned:
        novel_numbers += len(numbers(ev.sentence) - numbers(ev.pool))
        novel_names += _absent_names(names(ev.sentence), ev.pool)
        best = ev.windows[0] if ev.windows else ""
        sentence = CITATION.sub(" ", ev.sentence)
        mismatches += negated(sentence) != negated(best)
        contradictions += contradicts(sentence, best)
        uncited += not CITATION.search(ev.sentence)
    n = max(1, len(aligned))
    return {
        "fact_check": float(novel_numbers + novel_names + contradictions),
        "novel_facts": float(novel_numbers + novel_names),
        "contradictions": float(contradictions),
        "novel_numbers": float(novel_numbers),
        "novel_names": float(novel_names),
        "negation_mismatch": float(mismatches),
        "uncited_sentences": uncited / n if answer_cites else 0.0,
    }
