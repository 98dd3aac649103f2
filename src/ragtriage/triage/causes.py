"""Why a generation failed, per case, without a model: the answer's sentences against each
context chunk, the golden ids deciding which chunks are the right ones.

Each answer sentence (:func:`ragtriage.judge.lexical.claim_sentences`) is aligned with
every chunk in context on its own (:func:`ragtriage.judge.alignment.align_sentence`) and
classed in this order: **golden** (a golden chunk holds :data:`SUPPORT` of its words and
its facts; **contradicted** instead when it scopes the restated clause to other named
things), **distractor** (a non-golden chunk does: the VX250's speed stated beside
the VX500's is borrowed, not a swap of the golden fact, so this comes before the next),
**contradicted** (a golden chunk holding :data:`ABOUT` of its words fails the fact
check), **none**. A claims judge's
verdicts replace the sentence test where it gave them. How sentences, reference facts
and citations make the causes, and their order, is docs/triage-causes.md ("The causes",
"Pass means answered and faithful"); the order itself is
:data:`ragtriage.triage.cause_types.CAUSE_ORDER`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragtriage.judge.alignment import SentenceEvidence, align_sentence, citation_markers, stem
from ragtriage.judge.facts import fails_fact_check, names, numbers, sentence_facts
from ragtriage.judge.lexical import (
    CITATION,
    REACTIONS,
    claim_sentences,
    content_words,
    split_sentences,
)
from ragtriage.judge.types import ContextChunk, JudgeResult, Outcome, Verdict
from ragtriage.triage.cause_types import CAUSE_ORDER, Cause, CauseEvidence, is_note

__all__ = [
    "ABOUT",
    "ANSWER_CHECK_KAPPA",
    "question_asks",
    "SUPPORT",
    "answers_reference",
    "entails",
    "find_causes",
    "primary",
    "reference_facts",
]

# Round values fixed in advance, not fitted: a chunk supports a sentence when one of its
# windows holds 60 % of the sentence's content words and its facts; a chunk is what the
# sentence is about (and may contradict) when a window holds half of them.
SUPPORT = 0.6
ABOUT = 0.5
_CLAUSE = re.compile(r"\s*;\s*|\s*:\s+")  # "Hot-swap models can ...; on the N2-100, shut down"
_FACT_SPLIT = re.compile(r"\s*[;:]\s*|,\s+(?:and\s+)?|\s+and\s+")


@dataclass(frozen=True)
class _Fit:
    chunk: ContextChunk
    golden: bool
    evidence: SentenceEvidence | None

    @property
    def alignment(self) -> float:
        return self.evidence.alignment if self.evidence else 0.0

    @property
    def span(self) -> str | None:
        return self.evidence.windows[0] if self.evidence and self.evidence.windows else None

    def supports(self) -> bool:
        return self.alignment >= SUPPORT and not self.conflicts()

    def conflicts(self) -> bool:
        return self.evidence is not None and fails_fact_check(sentence_facts(self.evidence))


@dataclass(frozen=True)
class _Sentence:
    text: str
    status: str  # golden, contradicted, distractor, none
    fit: _Fit | None  # the chunk behind the status; None for "none" without any overlap
    note: str = ""
    span: str | None = None  # the chunk's words that show it, when not the best window
    by_judge: bool = False  # the status is the claims judge's verdict


def find_causes(
    *,
    query: str,
    answer: str,
    contexts: Sequence[ContextChunk],
    expected: Sequence[str],
    judge: JudgeResult | None,
    faithful: bool | None,
    reference_answer: str | None = None,
    reference_contradicted: Sequence[str] | None = None,
    answer_check: bool = False,
) -> list[CauseEvidence]:
    """Every cause that holds on one judged answer, primary first; empty for one the judge
    did not score or decide. ``answer_check``: the calibration's answer check backs every
    missing reference fact (:func:`_coverage`); without it, a missing fact the question
    does not ask for is a note (:func:`~ragtriage.triage.cause_types.is_note`), listed last."""
    if judge is None or judge.outcome == Outcome.UNSCORED:
        return []
    golden = set(expected)
    gold_in_context = [c for c in contexts if c.id in golden]
    if judge.outcome in (Outcome.ABSTAINED, Outcome.NO_CLAIMS):
        return [_abstained(query, gold_in_context[0], judge)] if gold_in_context else []
    if faithful is None:
        return []
    sentences = _sentences(answer, judge, contexts, golden, query)
    found = _sentence_causes(sentences, failed=not faithful, answerable=bool(golden))
    found += _citations(answer, contexts, golden)
    if gold_in_context and reference_answer:
        found += _coverage(query, answer, reference_answer, answer_check)
    found += [
        CauseEvidence(
            cause=Cause.CONTRADICTED,
            sentence=claim,
            span=reference_answer,
            note="the reference answer contradicts it (claims judge)",
        )
        for claim in reference_contradicted or []
    ]
    if not faithful and not found:  # the judge failed it where this test finds no cause
        found.append(_weakest(sentences))
    return sorted(found, key=lambda e: (is_note(e), CAUSE_ORDER.index(e.cause)))


def primary(causes: Sequence[CauseEvidence]) -> Cause | None:
    """The first cause in :data:`CAUSE_ORDER` that holds; a note is none."""
    held = (e.cause for e in causes if not is_note(e))
    return min(held, key=CAUSE_ORDER.index, default=None)


def _abstained(query: str, chunk: ContextChunk, judge: JudgeResult) -> CauseEvidence:
    what = "abstained" if judge.outcome == Outcome.ABSTAINED else "asserted nothing"
    ev = align_sentence(query, [chunk])
    return CauseEvidence(
        cause=Cause.IGNORED,
        chunk_id=chunk.id,
        golden=True,
        span=ev.windows[0] if ev and ev.windows else None,
        note=f"the answer {what} although golden chunk {chunk.id} was in context",
    )


def _sentences(
    answer: str,
    judge: JudgeResult,
    contexts: Sequence[ContextChunk],
    golden: set[str],
    query: str,
) -> list[_Sentence]:
    """Each sentence (or the claims judge's claim) with where it stands (module doc)."""
    if any(c.verdict is not None for c in judge.claims):
        return [_claim(c.text, c.verdict, c.chunk_ids, contexts, golden) for c in judge.claims]
    return [_sentence(s, contexts, golden, query) for s in claim_sentences(answer)]


def entails(text: str, claim: str) -> bool:
    """``text`` supports ``claim`` by the sentence test (module doc): a window of it holds
    :data:`SUPPORT` of the claim's content words and its facts."""
    return _fits(claim, [ContextChunk(id="text", text=text)], set())[0].supports()


def _fits(text: str, contexts: Sequence[ContextChunk], golden: set[str]) -> list[_Fit]:
    plain = CITATION.sub(" ", text)  # each chunk on its own: a marker must not pick the pool
    return [_Fit(c, c.id in golden, align_sentence(plain, [c])) for c in contexts]


def _best(fits: Sequence[_Fit]) -> _Fit | None:
    return max(fits, key=lambda f: (f.alignment, f.golden), default=None)


def _sentence(
    text: str, contexts: Sequence[ContextChunk], golden: set[str], query: str
) -> _Sentence:
    fits = _fits(text, contexts, golden)
    gold = [f for f in fits if f.golden]
    other = [f for f in fits if not f.golden]
    supporting = [f for f in gold if f.supports()]
    if supporting:
        fit = _best(supporting)
        assert fit is not None
        scope, clause = _scope_conflict(text, query, fit.chunk.text)
        if scope:
            return _Sentence(text, "contradicted", fit, scope, clause)
        return _Sentence(text, "golden", fit)
    backing = [f for f in other if f.supports()]
    if backing:  # a distractor's fact restated: borrowed, not a swap of the golden one
        return _Sentence(text, "distractor", _best(backing))
    against = [f for f in gold if f.alignment >= ABOUT and f.conflicts()]
    if against:
        return _Sentence(text, "contradicted", _best(against), _conflict_note(against))
    return _Sentence(text, "none", _best(fits))


def _claim(
    text: str,
    verdict: Verdict | None,
    chunk_ids: Sequence[str],
    contexts: Sequence[ContextChunk],
    golden: set[str],
) -> _Sentence:
    fits = _fits(text, contexts, golden)
    cited = [f for f in fits if f.chunk.id in chunk_ids]
    best = _best(cited) or _best([f for f in fits if f.golden]) or _best(fits)
    if verdict == Verdict.CONTRADICTED:
        return _Sentence(text, "contradicted", best, "the judge found it contradicted", None, True)
    if verdict == Verdict.NOT_IN_CONTEXT:
        return _Sentence(text, "none", _best(fits), "the judge found it in no chunk", None, True)
    if cited and golden and not any(f.golden for f in cited):
        return _Sentence(text, "distractor", _best(cited))
    return _Sentence(text, "golden" if golden else "distractor", best)


def _conflict_note(fits: Sequence[_Fit]) -> str:
    fit = _best(fits)
    if fit is None or fit.evidence is None:
        return ""
    facts = sentence_facts(fit.evidence)
    parts = [
        word
        for key, word in (
            ("numbers", "a number"),
            ("names", "a name"),
            ("contradiction", "the opposite statement"),
            ("unstated", "a denial"),
        )
        if facts[key]
    ]
    return f"states {' and '.join(parts)} against golden chunk {fit.chunk.id}"


def _scope_conflict(sentence: str, query: str, chunk: str) -> tuple[str, str]:
    """Why the sentence applies what the chunk says of other models or codes, and the clause
    that scopes it, or ``("", "")``: its best clause names codes (a letter and a digit:
    ``N4-300``, ``E1042``), none of them the ones the sentence or the question is about, and
    another clause of the chunk names one of those. Codes only: a capitalised word
    (``LED``, ``Degraded``) is too often no thing a procedure is scoped to."""
    none = ("", "")
    clauses = [c for s in split_sentences(chunk) for c in _CLAUSE.split(s) if c.strip()]
    if len(clauses) < 2:
        return none
    said = _codes(sentence)
    about = (said | _codes(query)) & set(re.findall(r"[\w'’-]+", chunk.lower()))
    if not about:
        return none
    words = {stem(w) for w in content_words(sentence)}

    def fit(clause: str) -> tuple[int, bool]:  # shared words; a clause naming codes first
        return len(words & {stem(w) for w in content_words(clause)}), bool(_codes(clause))

    best = max(clauses, key=fit)
    named = _codes(best)
    if not named or named & about or named & said or fit(best)[0] < 2:
        return none
    scoped = next((c for c in clauses if c is not best and _codes(c) & about), None)
    if scoped is None:
        return none
    note = (
        f"it applies what the chunk says of {', '.join(sorted(named))} to "
        f"{', '.join(sorted(about))}, for which it says {scoped.strip()!r}"
    )
    return note, best.strip()


def _codes(text: str) -> set[str]:
    return {n for n in names(text) if re.search(r"\d", n) and re.search(r"[a-z]", n)}


def _sentence_causes(
    sentences: Sequence[_Sentence], failed: bool, answerable: bool
) -> list[CauseEvidence]:
    uses_gold = any(s.status == "golden" for s in sentences)
    out = []
    for s in sentences:
        if s.status == "contradicted":
            out.append(_row(Cause.CONTRADICTED, s))
        elif s.status == "distractor" and (failed or (answerable and not uses_gold)):
            out.append(_row(Cause.MISLED, s, "it follows a chunk that is not golden"))
        elif s.status == "none" and (failed or s.by_judge):
            out.append(_row(Cause.UNSUPPORTED, s, "no chunk in context holds it", chunk=False))
    return out


def _weakest(sentences: Sequence[_Sentence]) -> CauseEvidence:
    worst = min(sentences, key=lambda s: s.fit.alignment if s.fit else 0.0, default=None)
    if worst is None:
        return CauseEvidence(cause=Cause.UNSUPPORTED, note="the judge found the answer unfaithful")
    return _row(
        Cause.UNSUPPORTED,
        worst,
        "the judge found it unfaithful; its best chunk holds it only in part",
    )


def _row(cause: Cause, s: _Sentence, note: str = "", chunk: bool = True) -> CauseEvidence:
    fit = s.fit if chunk else None
    return CauseEvidence(
        cause=cause,
        sentence=s.text,
        chunk_id=fit.chunk.id if fit else None,
        golden=fit.golden if fit else None,
        span=s.span or (fit.span if fit else None),
        note=s.note or note,
        source="judge" if s.by_judge else "alignment",
    )


def _terms(text: str) -> set[str]:
    """Light-stemmed content words (hyphenated parts too: "three-year" states "year") and
    numbers as digits ("four" is 4)."""
    words = content_words(text)
    parts = {p for w in words for p in re.split(r"[-’'.]", w) if p}
    return {stem(w) for w in set(words) | parts if w not in REACTIONS} | numbers(text)


def reference_facts(reference: str, query: str) -> list[tuple[str, set[str]]]:
    """The reference answer's facts: its clauses, each with the terms that state it (less
    the question's own words, which any answer may repeat); clauses without any dropped."""
    asked = _terms(query)
    out = []
    for sentence in split_sentences(reference):
        for part in _FACT_SPLIT.split(sentence):
            key = _terms(part) - asked
            if key:
                out.append((part.strip(" ."), key))
    return out


def answers_reference(query: str, answer: str, reference: str) -> bool:
    """The audit's answer check on its own: True when the answer states every fact of the
    reference answer, False when it is ``ignored`` or lacks any fact (what ``calibrate``
    measures against the graders' "answers the question" marks; a record whose check
    agrees with them well enough, :data:`ANSWER_CHECK_KAPPA`, backs every missing fact)."""
    return not _coverage(query, answer, reference, answer_check=True)


# The lower end of the answer check's kappa interval (calibration/answers.py) from which a
# missing reference fact the question does not ask for still fails the answer: Landis and
# Koch's "substantial" agreement, fixed in advance, not fitted.
ANSWER_CHECK_KAPPA = 0.6

# Where a question asks for one more thing: "...N8-900 and can it be extended?", "where is
# bone marrow found what does it do": before a question word or an auxiliary that opens a
# question, after "and"/"or"/a comma, or right after a finished clause's last word.
_OPENS = (
    r"(?:how|what|who|whom|whose|when|where|which|why|can|could|does|do|did|is|are|was|were|"
    r"will|would|should|has|have)\b"
)
_WH = r"(?:how|what|who|whom|whose|when|where|which|why)\b"
_PREP = r"(?:on|for|in|of|at|about|with|from|by|to|during)\s"
_ASK_SPLIT = re.compile(
    rf"\?\s*|;\s*|,?\s+(?:and|or|also)\s+(?={_OPENS})|,\s*(?={_WH})"
    rf"|\s+(?={_WH}\s+(?:is|are|was|were|does|do|did|can|will|should|has|have)\b)"
    rf"|,?\s+and\s+(?={_PREP})",
    re.IGNORECASE,
)
_PRONOUN = re.compile(r"\b(?:it|its|they|them|their|he|his|she|her)\b", re.IGNORECASE)
_ASKING = re.compile(rf"^\s*{_OPENS}", re.IGNORECASE)
# "How long is the warranty on the frame and on the battery?": "on the battery" asks
# the first question again of another thing
_ELLIPTIC = re.compile(rf"^\s*{_PREP}", re.IGNORECASE)


def question_asks(query: str) -> list[str]:
    """The parts of a question that each ask for something ("... the N8-900 and can it be
    extended?" asks two). A part that opens with no question word ("I forgot the admin
    login, how do I...") is context, unless it asks the last question again of another
    thing (:data:`_ELLIPTIC`); a query without any question word is one ask."""
    parts = [p.strip(" ,.") for p in _ASK_SPLIT.split(query) if p and p.strip(" ,.")]
    asks: list[str] = []
    for part in parts:
        if _ASKING.match(part) or (asks and _ELLIPTIC.match(part)):
            asks.append(part)
    return asks or [query.strip()]


def _facts_by_ask(facts: list[tuple[str, set[str]]], asks: list[str]) -> list[list[int]]:
    """Which reference facts answer which ask (indices into ``facts``): each fact goes to
    the ask sharing most words with its clause (words every ask shares, the topic, left
    out); the asks no fact shares a word with get the unclaimed facts, in order, when
    there are as many of each, else none (their facts are then notes)."""
    terms = [_terms(a) for a in asks]
    # "what is the function of insulin and where is it produced": "it" is insulin, so
    # insulin is the topic of both asks, not the first ask's own word
    terms = [t | terms[0] if j and _PRONOUN.search(asks[j]) else t for j, t in enumerate(terms)]
    topic = set.intersection(*terms) if len(terms) > 1 else set()
    terms = [t - topic for t in terms]
    owned: list[list[int]] = [[] for _ in asks]
    for i, (text, _) in enumerate(facts):
        said = _terms(text)
        shares = [len(said & t) for t in terms]
        if max(shares) > 0:
            owned[shares.index(max(shares))].append(i)
    # an ask no fact shares a word with: which fact answers it is a guess, made only when
    # it cannot go wrong, one unclaimed fact per such ask ("Three years, extendable to
    # five": "how long" is answered by the one fact left); else its facts stay unknown
    # (notes, never a failure)
    claimed = {i for row in owned for i in row}
    free = [i for i in range(len(facts)) if i not in claimed]
    empty = [row for row in owned if not row]
    if empty and len(empty) == len(free):
        for row, i in zip(empty, free, strict=True):
            row.append(i)
    return owned


def _coverage(
    query: str, answer: str, reference: str, answer_check: bool = False
) -> list[CauseEvidence]:
    """``ignored`` when the answer states none of the reference's facts; else a row per
    missing fact (a fact is stated when the answer holds at least half of its terms),
    ``incomplete`` and backed by the question when the fact answers an ask of the question
    (:func:`question_asks`) that the answer leaves unanswered (no fact of that ask stated),
    backed by the answer check when ``answer_check`` (a calibration whose check agrees
    with people), else a note (:func:`ragtriage.triage.cause_types.is_note`)."""
    facts = reference_facts(reference, query)
    said = _terms(answer)
    stated = {i for i, (_, key) in enumerate(facts) if len(key & said) >= 0.5 * len(key)}
    if len(stated) == len(facts):
        return []
    if not stated:
        return [
            CauseEvidence(
                cause=Cause.IGNORED,
                span=reference,
                note="the answer states none of the reference answer's facts",
            )
        ]
    asks = question_asks(query)
    unanswered: dict[int, str] = {}
    for ask, owned in zip(asks, _facts_by_ask(facts, asks), strict=True):
        if owned and not stated & set(owned):
            unanswered.update(dict.fromkeys(owned, ask))
    out = []
    for i, (text, _) in enumerate(facts):
        if i in stated:
            continue
        tally = f"{len(stated)} of {len(facts)} reference facts stated"
        if i in unanswered:
            backed, note = "question", f"the question asks {unanswered[i]!r}; {tally}"
        elif answer_check:
            backed, note = "answer_check", f"the calibrated answer check requires it; {tally}"
        else:
            backed, note = None, f"not what the question asks; {tally}"
        out.append(CauseEvidence(cause=Cause.INCOMPLETE, span=text, note=note, backed_by=backed))
    return out


def _citations(
    answer: str, contexts: Sequence[ContextChunk], golden: set[str]
) -> list[CauseEvidence]:
    cited_by = [(s, citation_markers(s)) for s in claim_sentences(answer)]
    cited_by = [(s, m) for s, m in cited_by if m]
    if not cited_by:
        return []
    n = len(contexts)
    golden_cited = any(contexts[k - 1].id in golden for _, m in cited_by for k in m if k <= n)
    out = []
    for sentence, marks in cited_by:
        past = [k for k in marks if k > n or k < 1]
        if past:
            note = f"it cites [{past[0]}] but the context has {n} passages"
            out.append(CauseEvidence(cause=Cause.CITATION_MISSING, sentence=sentence, note=note))
        fits = _fits(sentence, [contexts[k - 1] for k in marks if 1 <= k <= n], golden)
        fit = _best(fits)
        if fit is None:
            continue
        if not any(f.supports() for f in fits):
            cause = Cause.CITATION_UNSUPPORTED
            note = f"the passage it cites ({fit.chunk.id}) does not hold it"
        elif golden_cited and not any(f.golden for f in fits):
            cause = Cause.CITATION_NOT_GOLDEN
            note = ("it cites a chunk that is not golden, while a golden one is cited "
                    "elsewhere in the answer")  # fmt: skip
        else:
            continue
        out.append(CauseEvidence(cause=cause, sentence=sentence, chunk_id=fit.chunk.id,
                                 golden=fit.golden, span=fit.span, note=note))  # fmt: skip
    return out
