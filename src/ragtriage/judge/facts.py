"""Fact-level checks that catch one-fact swaps, without a model.

A generator that changes one fact (a year, an amount, a person, a place) or flips a
statement leaves nearly every word of the answer in the context, so overall word overlap
barely moves. What moves is the *fact*: the changed token is absent from the evidence of
the sentence that states it. Per answer sentence, against its **sources** (its cited
passages, else those of its best windows: :func:`ragtriage.judge.alignment.align_sentence`):

* **numbers** the sources lack, compared as numbers (:func:`novel_numbers`); "one" is
  never a number here: it is mostly a pronoun;
* **names** the sources lack (:func:`names`, :func:`_absent_names`);
* **negation mismatch**: the sentence negates and its best window does not, or the other
  way round (a weak signal, not part of the fact check);
* **unstated negations** (:func:`unstated_negation`);
* **contradictions**, *locally*, against the best window only (:func:`contradicts`): the
  second window is often about another entity (the other hemisphere), and checking it
  failed many more correct answers.

Per answer (:func:`fact_signals`), ``swapped_facts`` counts the sentences that restate
their best window (:data:`RESTATED`) and fail the fact check: what the calibrated
decisions veto on (``calibration.decision.VetoRule``). ``uncited_sentences`` is 0 when the
answer cites nothing: then citations are not in use.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence

from ragtriage.judge.alignment import SentenceEvidence, stem, stems
from ragtriage.judge.lexical import CITATION, STOPWORDS

__all__ = [
    "RESTATED",
    "VERSION",
    "contradicts",
    "fact_signals",
    "fails_fact_check",
    "names",
    "negated",
    "novel_numbers",
    "numbers",
    "sentence_facts",
    "unstated_negation",
]

# In every judge's fingerprint: a calibration fitted on other fact signals is stale.
VERSION = (
    "facts v3: local contradictions with the best window; facts in the passages restated;"
    " quoted negators inert; a sentence's first word may be a name; unstated negations;"
    " accents ignored in names; 'without' is no denial; spelt numbers in the sources; spelt swaps;"
    " v4: 'note' is no 'not'; compass compounds, polarity verbs and negating prefixes as antonyms"
    " v5: swapped_facts (a restated sentence failing the fact check)"
)

# A sentence restates its best window when at least this share of its content words is
# there (its alignment). A restated sentence that fails the fact check is a swap: one fact
# changed in an otherwise copied statement. The whole fact check also fires on faithful
# paraphrases (their sentences match no window closely, so a name the writer added is a
# name no window states): benchmarks/results/rule_candidates.txt. The constructed swaps
# of tests/judge/test_facts.py restate at 0.71 to 1.0.
RESTATED = 0.7

_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_UNITS = "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
_TEENS = "sixteen seventeen eighteen nineteen"
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety"
_SPELT = {w: str(n) for n, w in enumerate(f"{_UNITS} {_TEENS}".split(), start=2)}
_SPELT.update({w: str(10 * n) for n, w in enumerate(_TENS.split(), start=2)})
_DIGIT = {w: n for n, w in enumerate("one two three four five six seven eight nine".split(), 1)}
_SPELT_NUMBER = re.compile(
    rf"\b({'|'.join(_TENS.split())})[- ]({'|'.join(_DIGIT)})\b|\b({'|'.join(_SPELT)})\b", re.I
)
_ANY_NUMBER = f"{_NUMBER.pattern}|{_SPELT_NUMBER.pattern}"  # digits or spelt
_NAME = re.compile(r"\b[A-Z][\w'’-]*[a-z0-9][\w'’-]*\b|\b[A-Z]{2,}\b")
_ASIDE = re.compile(r"\([^()]*\)")  # "The Mach Five ( マッハ 号 ) is": asides break adjacency
_QUOTED = re.compile(r"``.*?''|\"[^\"]*\"|“[^”]*”")  # a title: `` It 's Now or Never ''
# Sentence openers that are not names (beside the stopwords and -ly adverbs), and the
# singular verbs after which a capitalised first word is taken as a name's subject.
_OPENERS = frozenset(
    """according additionally although another because both currently despite due each
    either every finally first firstly furthermore given hence instead many meanwhile
    moreover most nevertheless nonetheless one other others overall regarding second
    several similarly since some still such therefore thus today third though unlike
    until whereas whether yet""".split()
)
_SINGULAR_VERBS = frozenset("is was has had does did will can remains became".split())
_POSSESSIVE = re.compile(r"['’]s$|['’]$", re.I)
# Capitalised words that are not names: sentence-initial function words after a colon or
# quote, pronouns, months and days are facts, so they stay in.
_NOT_NAMES = frozenset(
    "I A An The This That These Those It Its He She They We You Our Your Their His Her "
    "In On At For From By With As If When While However Also And But Or So Yes No".split()
)


# Common English antonyms, written as general vocabulary (not from any evaluation set);
# every form a swap may use is listed, since the light stemmer does not undo -er/-est.
_PAIRS = """increase decrease|increase fall|increase drop|increase decline|rise fall|rise drop
rise decline|grow shrink|more less|more fewer|most least|higher lower|highest lowest
high low|larger smaller|largest smallest|large small|bigger smaller|biggest smallest
big small|longer shorter|longest shortest|long short|older younger|oldest youngest
old young|old new|earlier later|earliest latest|early late|before after|first last
above below|over under|upper lower|top bottom|inside outside|internal external
maximum minimum|majority minority|major minor|positive negative|allow forbid
allow prohibit|accept reject|include exclude|win lose|winner loser|open close|open closed
legal illegal|true false|always never|strong weak|stronger weaker|strongest weakest
fast slow|faster slower|fastest slowest|hot cold|warm cool|north south|east west
northern southern|eastern western|start end|begin end|beginning end|gain loss
increase reduce|rise sink|cheap expensive|cheaper dearer|safe dangerous|import export
buy sell|success failure|succeed fail|add remove|enable disable|male female|men women
man woman|boy girl|father mother|son daughter|husband wife|king queen|brother sister
best worst|better worse|good bad|rich poor|heavy light|heavier lighter|wide narrow
deep shallow|thick thin|full empty|wet dry|hard soft|easy difficult|light dark
day night|summer winter|spring autumn|arrive depart|enter exit|push pull|attack defend
love hate|friend enemy|ally enemy|public private|global local|urban rural|ancient modern
front back|left right|inner outer|input output|dead alive|birth death|present absent
same different|common rare|simple complex|natural artificial|visible invisible
possible impossible|known unknown|able unable|lead follow|teacher student|buyer seller
employer employee|parent child|predator prey|acid base|solid liquid|victory defeat
won lost|entrance exit|maximum least|increasing decreasing|higher fewer
northeast southeast|northeast northwest|northeast southwest|northwest southwest
northwest southeast|southeast southwest|northeastern southeastern|northwestern southwestern
northern south|southern north|allow ban|permit ban|permit forbid|permitted forbidden
permit prohibit|approve reject|confirm deny|admit deny|pass fail|passed failed|guilty innocent
support oppose|often rarely|often seldom|usually rarely|frequently rarely|all none
everyone nobody|everything nothing|always rarely|up down|upward downward|raise lower
rising falling|increased reduced|gained lost|expand contract|expanded contracted|add subtract
plus minus|ascend descend|ascending descending|import exported|mandatory optional
required optional|compulsory voluntary|permanent temporary|asleep awake|sooner later
past future|previous next|former latter|minimum most|least most|nearest farthest
nearer farther|closest farthest|cheapest dearest|hotter colder|hottest coldest
warmer cooler|warmest coolest|wider narrower|widest narrowest|deeper shallower
deepest shallowest|thicker thinner|thickest thinnest|richer poorer|richest poorest
easier harder|easiest hardest|heaviest lightest|earliest last|first latest|western east
eastern west|odd even|lowest most|below over|under above|underneath above|beneath above
""".replace("\n", "|").strip("|")
_IRREGULAR = {
    "fell": "fall", "fallen": "fall", "rose": "rise", "risen": "rise", "grew": "grow",
    "grown": "grow", "shrank": "shrink", "shrunk": "shrink", "lost": "lose", "won": "win",
    "began": "begin", "begun": "begin", "sold": "sell", "bought": "buy", "closed": "close",
    "less": "less", "fewer": "fewer", "led": "lead", "men": "man", "women": "woman",
    "children": "child", "loved": "love", "hated": "hate",
}  # fmt: skip
_NEGATORS = frozenset("not no never none neither nor cannot without nobody nothing".split())
_NEGATION = re.compile(rf"\b(?:{'|'.join(sorted(_NEGATORS))})\b|n['’]t\b", re.I)
_DENIALS = _NEGATORS - {"without"}  # what states that something is not so


def _root(word: str) -> str:
    """Irregular forms mapped, then the light stem without a final e (increase(d)); a
    stopword stays as it is, so "there" is still a stopword, not the content word "ther"."""
    if word in STOPWORDS or word in _NEGATORS:
        return word
    root = stem(_IRREGULAR.get(word, word))
    cut = root[:-1] if root.endswith("e") and len(root) > 3 else root
    # "note" less its e is "not", "notes" less its -es too: a content word never becomes
    # a negator or a stopword (a doctor's note once read as an unstated denial)
    for form in (cut, root):
        if form not in _NEGATORS and form not in STOPWORDS:
            return form
    return word


_ANTONYMS: dict[str, set[str]] = {}
for _pair in _PAIRS.split("|"):
    _a, _b = (_root(w) for w in _pair.split())
    if _a != _b:
        _ANTONYMS.setdefault(_a, set()).add(_b)
        _ANTONYMS.setdefault(_b, set()).add(_a)


def numbers(text: str, spelt: bool = True) -> set[str]:
    """Numbers in ``text``, normalised (thousands separators and trailing ``.0`` dropped);
    with ``spelt``, spelt cardinals too, as digits ("ten" is 10)."""
    out = {_spelt(m) for m in _SPELT_NUMBER.finditer(text)} if spelt else set()
    for raw in _NUMBER.findall(CITATION.sub(" ", text)):
        value = raw.replace(",", "")
        if "." in value:
            value = value.rstrip("0").rstrip(".")
        out.add(value)
    return out


def novel_numbers(sentence: str, sources: str) -> set[str]:
    """The sentence's numbers its sources lack: every number in digits, and a spelt one
    only where the sources count the same thing with another number ("every three hours"
    against "every two hours"). A spelt "two" is as often a plain word ("two or more",
    "the two meridians") as a fact, so it is checked where it replaces one."""
    stated = numbers(sources)
    out = numbers(sentence, spelt=False) - stated
    for match in _SPELT_NUMBER.finditer(sentence):
        value, counted = _spelt(match), _counted(sentence, match.end())
        if counted and value not in stated and _counts_of(sources, counted) - {value}:
            out.add(value)
    return out


def _counted(text: str, end: int) -> str:
    """The word a number at ``end`` counts ("hours" in "two hours"), lower-cased."""
    word = re.match(r"[\s-]*([A-Za-z]+)", text[end:])
    return word.group(1).lower() if word else ""


def _counts_of(text: str, counted: str) -> set[str]:
    """The numbers (digits or spelt) that count ``counted`` in ``text``."""
    out: set[str] = set()
    for match in re.finditer(rf"({_ANY_NUMBER})[\s-]+{re.escape(counted)}\b", text, re.I):
        out |= numbers(match.group(1))
    return out


def _spelt(match: re.Match[str]) -> str:
    """The digits of a spelt number: "twenty-five" is 25, "seven" is 7."""
    tens, unit, single = match.groups()
    if single:
        return _SPELT[single.lower()]
    return str(int(_SPELT[tens.lower()]) + _DIGIT[unit.lower()])


def names(sentence: str) -> set[str]:
    """Capitalised words of a sentence, lower-cased, without a possessive ``'s``
    (``Dawson's`` is the name ``Dawson``). The first word only when it reads as a name
    (:func:`_opens_with_name`): sentences start with a capital anyway."""
    text = CITATION.sub(" ", sentence)
    words = _NAME.findall(text)
    first = re.match(r"\W*([\w'’-]+)", text)
    start = first.group(1) if first else ""
    keep = _opens_with_name(text, start)
    return {
        _POSSESSIVE.sub("", w).lower()
        for w in words
        if w not in _NOT_NAMES and (w != start or keep)
    }


def _opens_with_name(text: str, start: str) -> bool:
    """The first word is a name when it is capitalised, not a function word, an opener
    ("Additionally") or an -ly adverb, and either starts a run of capitalised words
    ("Manchester Bridge is") or is the subject of a singular verb ("Scotland does not").
    A plural subject ("Researchers have") is more often a common noun, so it stays out."""
    if not start[:1].isupper() or start in _NOT_NAMES or start.lower() in STOPWORDS:
        return False
    if start.lower() in _OPENERS or start.lower().endswith("ly"):
        return False
    after = text[text.index(start) + len(start) :].split()
    nxt = after[0] if after else ""
    starts_a_name = bool(_NAME.fullmatch(nxt)) and nxt not in _NOT_NAMES
    return starts_a_name or nxt in _SINGULAR_VERBS


def negated(text: str) -> bool:
    return _NEGATION.search(text) is not None


def contradicts(sentence: str, window: str) -> bool:
    """The window states what the sentence states with the opposite polarity, or with an
    antonym, *locally*: the flipped word keeps its neighbours.

    * antonym: the sentence says ``w`` where the window says an antonym of ``w`` (and
      not ``w`` itself), and the two share content-word neighbours (three on each side;
      two shared, or one when the texts restate each other): "the *longest* running
      character" against "the *shortest* running character";
    * negation: a negator in one text whose nearest content words before and after it
      stand at most five words apart, with no negator around them, in the other: "is
      *not* open to trucks" against "is open to trucks".

    Local, so a long sentence that restates only part of its window is still checked,
    and a "not" elsewhere in the window (about something else) is not a contradiction.
    """
    said, seen = _tokens(sentence), _tokens(window)
    restated = _restated(sentence, window)
    need = 1 if restated else 2
    flipped = _negation_flip(said, seen, restated) or _negation_flip(seen, said, restated)
    return _antonym_swap(said, seen, need) or flipped


def _restated(sentence: str, window: str) -> bool:
    """Each holds at least 80 % of the other's content words (one swapped word aside)."""
    said, seen = set(stems(sentence)), set(stems(window))
    common = len(said & seen)
    return bool(said and seen) and all(common >= 0.8 * (len(x) - 1) for x in (said, seen))


def _tokens(text: str) -> list[str]:
    """Every word's and number's root outside parentheses (stopwords kept: ``more``,
    ``less`` and ``not`` matter here). A negator inside quotes is part of a title ("It's
    Now or Never"), not of the statement: it is kept as a plain word."""
    text = _ASIDE.sub(" ", CITATION.sub(" ", text)).lower()
    text = _QUOTED.sub(lambda m: _NEGATION.sub(_quoted_negator, m.group(0)), text)
    text = text.replace("n't", " not").replace("n’t", " not")
    return [_root(w) for w in re.findall(r"[a-z0-9]+", text)]


def _quoted_negator(match: re.Match[str]) -> str:
    return "q" + re.sub(r"\W", "", match.group(0))  # "never" -> "qnever": a content word


def _neighbours(tokens: list[str], i: int, reach: int = 3) -> set[str]:
    """The ``reach`` content words on each side of position ``i`` (stopwords skipped, so
    "the *last* use of this term" reaches ``use`` and ``term``)."""
    before = [t for t in tokens[:i] if _is_content(t)][-reach:]
    after = [t for t in tokens[i + 1 :] if _is_content(t)][:reach]
    return set(before + after)


def _is_content(token: str) -> bool:
    return token not in STOPWORDS and token not in _NEGATORS and len(token) > 2


# Negating prefixes: "unlikely" against "likely", "illegal" against "legal", "disagree"
# against "agree" (roots: "disagr" and "agr"). Only a content word of three letters or
# more on both sides, never a word the fixed list pairs already ("inside" is not "in" +
# "side"), and, like every antonym, only where the neighbours are shared.
_PREFIXES = ("un", "non", "in", "im", "il", "ir", "dis")


def _prefix_flips(word: str, seen: set[str]) -> set[str]:
    """The words of ``seen`` that are ``word`` with a negating prefix added or removed."""
    if word in _ANTONYMS or not _is_content(word):
        return set()
    out = {p + word for p in _PREFIXES if p + word in seen and p + word not in _ANTONYMS}
    for p in _PREFIXES:
        rest = word[len(p) :]
        if word.startswith(p) and _is_content(rest) and rest in seen and rest not in _ANTONYMS:
            out.add(rest)
    return out


def _antonym_swap(said: list[str], seen: list[str], need: int) -> bool:
    """An antonym of a sentence word in the window sharing ``need`` of its neighbours,
    unless the window also states the word itself, or the sentence the antonym, in the
    same place (with at least as many of those neighbours). Antonyms: the fixed list,
    and a negating prefix added or removed (:func:`_prefix_flips`)."""
    seen_set = set(seen)
    for i, word in enumerate(said):
        if not _is_content(word) and word not in _ANTONYMS:
            continue
        flips = (_ANTONYMS.get(word, set()) | _prefix_flips(word, seen_set)) & seen_set
        if not flips:
            continue
        mine = _neighbours(said, i)
        for j in (j for j, t in enumerate(seen) if t in flips):
            theirs = _neighbours(seen, j)
            shared = len(mine & theirs)
            if shared < need:
                continue
            if not _stated_too(seen, word, mine, shared) and not _stated_too(
                said, seen[j], theirs, shared
            ):
                return True
    return False


def _stated_too(tokens: list[str], word: str, around: set[str], shared: int) -> bool:
    """``tokens`` say ``word`` too, with at least ``shared`` of the words ``around`` it:
    "the West Branch begins ..., and the East Branch begins ..." states both."""
    return any(
        t == word and len(_neighbours(tokens, k) & around) >= shared for k, t in enumerate(tokens)
    )


def _negation_flip(said: list[str], seen: list[str], restated: bool) -> bool:
    """A negator in ``said`` whose content-word neighbours appear close together in
    ``seen`` with no negator among or around them. With no content word before it ("It
    is not produced artificially"), the next two content words after it stand in, but
    only adjacent (at most one word between) and only when the texts restate each other:
    without an anchor before the negator, two words are easily found elsewhere."""
    for i, word in enumerate(said):
        if word not in _NEGATORS or "or" in said[max(0, i - 2) : i]:
            continue  # "may or may not", "whether or not": both, not a flip
        if _NEGATORS & set(said[max(0, i - 6) : i]):
            continue  # "does n't mean they are n't used": a double negation
        before = next(iter(_plain_words(said[max(0, i - 4) : i][::-1])), None)
        after = _plain_words(said[i + 1 : i + 6])
        if before and after and _stated_plainly(before, after[0], seen, reach=5):
            return True
        pair_only = not before and len(after) > 1 and restated
        if pair_only and _stated_plainly(after[0], after[1], seen, reach=2):
            return True
    return False


def _stated_plainly(first: str, second: str, seen: list[str], reach: int) -> bool:
    """``first`` then ``second`` at most ``reach`` words on in ``seen``, no negator
    around them."""
    return any(
        t == first
        and second in seen[j + 1 : j + 1 + reach]
        and not _NEGATORS & set(seen[max(0, j - 2) : j + 2 + reach])
        for j, t in enumerate(seen)
    )


def _plain_words(tokens: list[str]) -> list[str]:
    """The tokens that are neither stopwords nor negators, in order."""
    return [t for t in tokens if t not in STOPWORDS and t not in _NEGATORS]


def _absent_names(found: set[str], pool: str) -> int:
    """Names with a part the pool lacks. Compared part by part (``Marie-Claude`` against a
    tokenised ``Marie - Claude``) and without possessives, so a name the evidence states
    in another spelling of the same words is not a new fact; two adjacent pool words also
    count joined (``South East`` and ``south-east`` state ``Southeast``)."""
    words = _name_parts(pool)
    pool_words = set(words) | {a + b for a, b in zip(words, words[1:], strict=False)}
    return sum(1 for w in found if any(p not in pool_words for p in _name_parts(w)))


def _name_parts(text: str) -> list[str]:
    """Lower-cased words without possessives or accents: "Makedonia" is "Makedonía"."""
    plain = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return [_POSSESSIVE.sub("", w) for w in re.findall(r"[\w’']+", plain) if w]


def sentence_facts(ev: SentenceEvidence) -> dict[str, int]:
    """One sentence's fact checks against its own sources and best windows (module doc):
    counts of novel numbers and names, and 0/1 for a contradiction, an unstated denial, a
    polarity mismatch and a missing citation marker."""
    best = ev.windows[0] if ev.windows else ""
    sentence = CITATION.sub(" ", ev.sentence)
    return {
        "numbers": len(novel_numbers(ev.sentence, ev.sources)),
        "names": _absent_names(names(ev.sentence), ev.sources),
        "contradiction": int(contradicts(sentence, best)),
        "unstated": int(unstated_negation(sentence, " ".join(ev.windows))),
        "mismatch": int(negated(sentence) != negated(best)),
        "uncited": int(not CITATION.search(ev.sentence)),
    }


def _checked(facts: Mapping[str, int]) -> int:
    """What the fact check counts: novel numbers and names, contradictions, denials."""
    return facts["numbers"] + facts["names"] + facts["contradiction"] + facts["unstated"]


def fails_fact_check(facts: Mapping[str, int]) -> bool:
    """Whether the fact check finds anything (:func:`_checked`)."""
    return _checked(facts) > 0


def fact_signals(aligned: Sequence[SentenceEvidence], answer_cites: bool) -> dict[str, float]:
    """The fact-level signals of an answer from its sentences' evidence (see module doc)."""
    total: Counter[str] = Counter()
    for ev in aligned:
        facts = sentence_facts(ev)
        total.update(facts)
        total["swapped"] += int(ev.alignment >= RESTATED and fails_fact_check(facts))
    return {
        "fact_check": float(_checked(total)),
        "novel_facts": float(total["numbers"] + total["names"]),
        "swapped_facts": float(total["swapped"]),
        "contradictions": float(total["contradiction"]),
        "unstated_negations": float(total["unstated"]),
        "novel_numbers": float(total["numbers"]),
        "novel_names": float(total["names"]),
        "negation_mismatch": float(total["mismatch"]),
        "uncited_sentences": total["uncited"] / max(1, len(aligned)) if answer_cites else 0.0,
    }


def unstated_negation(sentence: str, evidence: str) -> bool:
    """The sentence denies something ("X is not Y") where its evidence (its best windows)
    negates nothing: a negative claim the evidence does not state. Not counted: a hedge
    ("may or may not"), a negator in a quoted title or an aside of the sentence
    (:func:`_tokens`), and "without" ("get back in without losing files" states a goal,
    not a denial). Any negator in the evidence, asides and quotes included, counts as
    stated: "( since it is only a sample and is not representative )" is evidence."""
    said = _tokens(sentence)
    denies = any(w in _DENIALS and "or" not in said[max(0, i - 2) : i] for i, w in enumerate(said))
    return denies and not negated(evidence)
