"""What an answer looks like, and the citation-level check of an answer that cites.

One threshold on word overlap cannot serve a one-line chat reply and a 200-word report
whose every sentence paraphrases a cited web page: the pooled rule called few held-out
ExpertQA answers faithful where graders found many. So a decision rule may depend on the
answer's **shape**, computed from the answer and its context only (never from which
dataset it came from), so the same rule applies to a user's answers: ``cites``,
``answer_sentences``, ``context_share`` (its content words over its context's) and
``paraphrase_share`` (claim sentences below :data:`VERBATIM` alignment).

For an answer that cites, the **citation-level check** is what ExpertQA's graders judged:
every claim supported by the passages it cites (:mod:`ragtriage.judge.alignment` already
restricts a citing sentence's evidence to them): ``cited_min_alignment`` (a sentence citing
nothing counts 0) and ``citation_failures`` (the share of sentences that cite nothing or
fail the fact check against what they cite). Both are absent for an answer that cites
nothing: there is no citation to check.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragtriage.judge.alignment import SentenceEvidence
from ragtriage.judge.facts import fails_fact_check, sentence_facts
from ragtriage.judge.lexical import content_words

__all__ = ["CITATION_SIGNALS", "SHAPE_SIGNALS", "VERBATIM", "citation_signals", "shape_signals"]

SHAPE_SIGNALS = ("cites", "answer_sentences", "context_share", "paraphrase_share")
CITATION_SIGNALS = ("cited_min_alignment", "citation_failures")
# A sentence with at least this share of its content words in one evidence window is a
# restatement, not a paraphrase (a round value fixed in advance, not fitted).
VERBATIM = 0.8


def shape_signals(
    answer: str, contexts: Sequence[str], aligned: Sequence[SentenceEvidence]
) -> dict[str, float]:
    """The shape features of an answer (module doc); empty without aligned sentences."""
    if not aligned:
        return {}
    context_words = sum(len(content_words(c)) for c in contexts)
    paraphrased = sum(ev.alignment < VERBATIM for ev in aligned)
    return {
        "cites": float(any(ev.cited for ev in aligned)),
        "answer_sentences": float(len(aligned)),
        "context_share": len(content_words(answer)) / max(1, context_words),
        "paraphrase_share": paraphrased / len(aligned),
    }


def citation_signals(aligned: Sequence[SentenceEvidence]) -> dict[str, float]:
    """The citation-level check of an answer that cites (module doc); empty otherwise."""
    if not any(ev.cited for ev in aligned):
        return {}
    support = [ev.alignment if ev.cited else 0.0 for ev in aligned]
    failed = sum(not ev.cited or fails_fact_check(sentence_facts(ev)) for ev in aligned)
    return {"cited_min_alignment": min(support), "citation_failures": failed / len(aligned)}
