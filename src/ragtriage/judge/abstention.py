"""Does an answer abstain? Recognised clause by clause, as people and models write it.

An answer abstains when it says the sources lack the answer, that the writer could not
find or does not know it, or refuses, and asserts nothing else. One that says so *and*
answers part of the question is a hedged partial answer, judged claim by claim like any
other. "No, the N2-100 does not support ZFS." is no abstention: a denial is a claim unless
its subject is where the answer would come from (the context, the documents, "I").

Each clause (sentences cut at ``so``, ``but``, ``however``, semicolons, ``which``) is a
**gap** (a source that does not say, or a writer who does not know or could not find:
:data:`_GAP`), **filler** (apologies, a referral, what the sources are about instead, a
restated question: :data:`_FILLER`) or a **claim** (anything else with content words).
Abstained: at least one gap and no claim; the outcome (judge/outcomes.py) is
``abstained`` when a gap names the sources or the information, else ``no_claims`` (a
bare refusal). Measured on a labelled set of real answers:
``benchmarks/abstention_detector.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ragtriage.judge.lexical import content_words, split_sentences

__all__ = ["Reading", "clauses", "read_abstention"]

Kind = Literal["gap", "filler", "claim"]

# where an answer would come from: "the handbook does not say" is a gap, "the N2-100 does
# not support" a claim
_SOURCE = (
    r"(?:the |these |this |those |my |our |your |any |provided |given |retrieved |available )*"
    r"(?:provided |given |retrieved |supplied |available |above |following |attached |relevant )*"
    r"(?:context|contexts|passages?|documents?|docs?|documentation|texts?|sources?|handbook|"
    r"manuals?|guides?|articles?|excerpts?|snippets?|pages?|materials?|records?|knowledge base|"
    r"faqs?|wiki|search results|results|files?|information(?: (?:provided|given|available|"
    r"i have|at hand))?|data(?: provided| given)?|references?|notes|paragraphs?|content)"
)
_SAY = (
    r"(?:say|mention|state|specify|contain|include|provide|give|cover|discuss|address|list|"
    r"describe|indicate|tell|explain|detail|clarify|answer|reference|talk about|offer|show|"
    r"note|refer to|identify|name|reveal|disclose|confirm|define|have|hold|touch on|go into|"
    r"deal with|specify|spell out|make (?:any )?mention of)"
)
_SAID = (
    r"(?:mentioned|specified|stated|addressed|discussed|documented|said|indicated|explained|"
    r"detailed|disclosed|clarified|referenced|answered)"
)
_SAID_IN = (
    r"(?:covered|listed|provided|given|included|available|found|described|contained|shown|"
    r"present|known|clear|answered|there)"
)
_NOT = r"(?:not|n['’]t|never)"
_ADV = r"(?:\w+ly |any |explicitly |actually |really |even |at all )*"
_FIND = (
    r"(?:find|locate|see|determine|identify|answer|tell|say|provide|confirm|verify|give|"
    r"help|know|speak to|comment|access|retrieve|access|spot|figure out|work out|offer)"
)

_GAP = [
    # the sources do not say: "The handbook does not say whether ...", "the docs don't"
    rf"\b{_SOURCE}\s+(?:do|does|did|can|could|will|would|may|might)\s*{_NOT}\s+{_ADV}{_SAY}\b",
    rf"\bit\s+(?:does|did)\s*{_NOT}\s+{_ADV}(?:say|mention|specify|state|tell|indicate|explain)\b",
    rf"\b{_SOURCE}\s+(?:is|are|was|were|remains?)\s+silent\b",
    rf"\b{_SOURCE}\s+(?:lacks?|contains? no|contain nothing|has no|have no|makes? no|gives? no|"
    rf"provides? no|offers? no|includes? no|says? nothing|mentions? nothing|holds? no)\b",
    rf"\b(?:nothing|none)\s+(?:in|of|from)\s+{_SOURCE}\b",
    rf"\bnothing\s+(?:here|there|i (?:have|found|see|can find))?\s*(?:{_SAY}s?|says|tells|"
    r"mentions|answers|covers|indicates|suggests)\b",
    # a subject left out after "but": "..., but do not mention the names"
    rf"^\s*(?:do|does|did)\s*{_NOT}\s+{_ADV}{_SAY}\b",
    # passive: "is not mentioned", "isn't listed in the passages", "not directly addressed"
    rf"\b(?:is|are|was|were|has been|have been|be)\s*{_NOT}\s+{_ADV}{_SAID}\b",
    rf"\b(?:is|are|was|were|has been|have been|be)\s*{_NOT}\s+{_ADV}{_SAID_IN}\s+"
    rf"(?:\w+ )?(?:in|by|within|from|among|anywhere in|on|inside)\s+{_SOURCE}\b",
    rf"\b(?:cannot|can['’]t|could not|couldn['’]t|can not)\s+be\s+{_ADV}(?:answered|determined|"
    r"found|confirmed|inferred|deduced|established|verified|derived|known|said|told|identified)\b",
    rf"\b(?:does|do|did)\s*{_NOT}\s+(?:appear|seem)\s+(?:in|to be (?:mentioned|covered|"
    rf"addressed|discussed|included|listed|stated|specified)|anywhere)\b",
    # no information: "there is no information about", "no mention of", "not enough info"
    r"\b(?:there(?:\s+(?:is|are|was|were)|['’]s)|i\s+(?:have|had|got|found|see))\s+(?:no|not any|"
    r"nothing|little|insufficient)\s+(?:\w+ ){0,2}?(?:information|mention|details?|data|"
    r"reference|indication|answer|record|specifics?|info|guidance|word)\b",
    r"^\s*(?:\w+,\s*)?no\s+(?:\w+ )?(?:information|mention|details?|data|answer|info|record)\s+"
    r"(?:about|on|of|regarding|is|was|for|concerning|found|available|given|provided)\b",
    r"\b(?:not|in)?\s*(?:enough|sufficient|insufficient)\s+(?:\w+ ){0,2}?(?:information|"
    r"details?|data|context|info|evidence)\b",
    rf"\b(?:unclear|not clear|unknown|not known)\s+(?:from|in|based on)\s+{_SOURCE}\b",
    r"\b(?:beyond|outside)\s+(?:the\s+)?scope\s+of\b",
    r"\bno\s+(?:\w+\s+)?(?:answer|mention)\s+(?:to|of|in)\b",
    # the writer does not know, could not find, cannot answer
    rf"\b(?:i|we)\s*(?:'m|am|was|were|are)?\s*(?:do|did|does|could|can|cannot|can['’]t|was|am|"
    rf"'m|were|have|had|'ve)?\s*{_NOT}?\s*(?:been\s+)?(?:able to|unable to|find myself unable "
    rf"to)\s+{_FIND}\b",
    rf"\b(?:i|we)\s+(?:could|can|do|did|would|will)?\s*{_NOT}\s+{_ADV}{_FIND}\b",
    rf"\b(?:i|we)\s+(?:cannot|can['’]t|couldn['’]t|can not|could not)\s+{_ADV}{_FIND}\b",
    rf"\b(?:i|we)\s+(?:do|did|does)\s*{_NOT}\s+(?:\w+ )?(?:have|see|find|know)\b",
    r"\b(?:i|we)\s*(?:'m|am|are|was)\s+(?:not|un)\s*(?:sure|certain|aware)\b",
    r"^\s*(?:i['’]?m\s+)?(?:not|un)\s*(?:sure|certain)\b",
    r"\b(?:i|we)\s+(?:have|had)\s+(?:no|not)\s+(?:any\s+)?(?:idea|clue|way of knowing|"
    r"information|details|data|knowledge|access)\b",
    r"^\s*(?:no idea|unknown|n/?a|none|not known|not specified|not stated|not mentioned|"
    r"not available|no answer|cannot say|can['’]t say|hard to say|unclear)[.!]?\s*$",
    r"\bi\s+(?:couldn['’]t|could not|did not|didn['’]t|was unable to)\s+(?:find|locate|see)\b",
    r"\bnot\s+(?:able|possible)\s+to\s+(?:answer|determine|say|tell|find|confirm|know)\b",
    r"\b(?:impossible|not possible|difficult|hard)\s+to\s+(?:accurately\s+|definitively\s+)?"
    r"(?:answer|determine|say|tell|know)\b(?!.*\b(?:because|since|as)\b)",
]
_GAP_RE = [re.compile(p, re.IGNORECASE) for p in _GAP]
# a gap that names where the answer would come from or the information itself
_NAMES_SOURCE = re.compile(
    rf"\b{_SOURCE}\b|\binformation\b|\bmention|\bnothing\b|\bfind\b|\bfound\b", re.IGNORECASE
)

_FILLER = [
    r"^\s*(?:i['’]?m |i am |we['’]re |we are )?(?:so |very |really )?"
    r"(?:sorry|afraid|apologi[sz]e)\b[^.]{0,40}$",
    r"^\s*(?:sorry|unfortunately|apologies|regrettably|alas|hmm+|well)[.!,]?\s*$",
    r"\b(?:please|kindly)\s+(?:\w+\s+)?(?:contact|check|ask|consult|refer|reach out|speak|talk|"
    r"email|call|see|visit|look|try|contact)\b",
    r"\b(?:you|one)\s+(?:may|might|could|should|can|would)\s+(?:\w+\s+)?(?:want|need|wish|like)?"
    r"\s*(?:to\s+)?(?:contact|check|ask|consult|reach out|refer to|speak|talk|email|call|look|"
    r"verify|confirm|search|try)\b",
    r"\b(?:i|we)\s+(?:would\s+)?(?:recommend|suggest|advise|encourage)\s+(?:\w+\s+)?"
    r"(?:contacting|checking|asking|consulting|reaching|speaking|talking|looking|verifying|"
    r"referring|that you)\b",
    r"\b(?:for|to get)\s+(?:more|further|accurate|specific|up-to-date|the latest)\s+"
    r"(?:information|details|info)\b",
    r"\b(?:hope this helps|let me know|feel free|happy to help|glad to help)\b",
    r"^\s*(?:can|could|would)\s+you\b",
    r"\?\s*$",
    # what the sources are about instead: "The passages discuss X", "they only cover Y"
    rf"^\s*(?:\w+,\s*)?(?:but\s+)?(?:{_SOURCE}|they|it)\s+(?:only\s+|mainly\s+|mostly\s+|instead\s+)?"
    r"(?:provides?|gives?|contains?|offers?|includes?|talks? about|discuss(?:es)?|focus(?:es)? on|"
    r"describes?|covers?|deals? with|is about|are about|refers? to|relates? to|mentions?|"
    r"concerns?|centers? on|presents?|explains?)\b"
    r"(?!.*(?:\bthat\b|\bsuch as\b|\bincluding\b|\bnamely\b|\be\.g\.|\bfor example\b|\[\d))",
    r"^\s*the (?:question|query)\b",
    r"^\s*(?:based on|according to|from) (?:the |this |these )?(?:\w+ )?(?:information|context|"
    r"passages?|documents?)[^,]*$",
]
_FILLER_RE = [re.compile(p, re.IGNORECASE) for p in _FILLER]

# clause boundaries inside a sentence: "..., so I don't know", "...; however, it says"
_CUT = re.compile(
    r"\s*;\s*|,?\s+(?:so|but|however|and so|therefore|hence|which means)\s*,?\s+"
    r"|,\s+(?:though|although|yet|whereas|which)\s+|(?<=[a-z])\s+[-–—]\s+(?=[a-z])|:\s+",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^\s*(?:however|unfortunately|sadly|regrettably|also|additionally|moreover|still|"
    r"but|and|so|therefore|thus|hence|that said|again|honestly|actually|currently|at present|"
    r"based on (?:the |this |these )?(?:\w+ )?(?:context|passages?|documents?|information|"
    r"sources?|text)(?: (?:provided|given))?|according to (?:the |this |these )?(?:\w+ )?"
    r"(?:context|passages?|documents?|information|sources?|text)(?: (?:provided|given))?|"
    r"from (?:the |this |these )?(?:\w+ )?(?:context|passages?|documents?|information)"
    r"(?: (?:provided|given))?)\s*,?\s*",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Reading:
    """An answer read for abstention: each clause with its kind, and the verdict."""

    clauses: tuple[tuple[str, Kind], ...]

    @property
    def abstains(self) -> bool:
        kinds = [k for _, k in self.clauses]
        return "gap" in kinds and "claim" not in kinds

    @property
    def names_source(self) -> bool:
        """A gap names the sources or the information ("the documents do not say"), not
        only the writer ("I don't know"): ``abstained`` rather than a bare refusal."""
        return any(k == "gap" and _NAMES_SOURCE.search(c) for c, k in self.clauses)


def clauses(answer: str) -> list[str]:
    """The answer's clauses: its sentences, each cut at the joints above (``_CUT``)."""
    out = []
    for sentence in split_sentences(answer.replace("\u2019", "'")):
        for part in _CUT.split(sentence):
            part = part.strip(" ,.!")
            if part:
                out.append(part)
    return out


def _kind(clause: str) -> Kind:
    bare = _LEAD.sub("", clause, count=1)
    if any(p.search(bare) for p in _GAP_RE):
        return "gap"
    if any(p.search(bare) for p in _FILLER_RE) or not content_words(bare):
        return "filler"
    return "claim"


def read_abstention(answer: str) -> Reading:
    """Each clause of ``answer`` with its kind (module doc)."""
    return Reading(tuple((c, _kind(c)) for c in clauses(answer)))
