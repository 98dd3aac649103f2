"""Group failures by stage and tag, and say what to fix first: the patterns and their
next actions are docs/audit-your-system.md's ("Clusters and next actions").
"""

from __future__ import annotations

from collections import Counter, defaultdict

from ragtriage.judge.types import Outcome
from ragtriage.triage.cause_types import CAUSE_ACTIONS, Cause
from ragtriage.triage.models import FAILURES, CaseResult, Cluster, Label

__all__ = [
    "CHUNK_TAGS",
    "CLUSTERED",
    "CODE_TAGS",
    "NO_TAG",
    "UNSURE_ACTION",
    "clusters",
    "next_action",
]

CODE_TAGS = ("code", "sku", "id", "keyword", "exact", "number")
CHUNK_TAGS = ("multi", "section", "table", "long")
NO_TAG = "(untagged)"


OVER_ABSTAIN = (
    "the answer abstains although the relevant chunk was in context: the prompt makes the "
    "model refuse too readily, or the chunk does not read as the answer"
)
HALLUCINATED = "hallucinated answers to unanswerable queries: instruct and test abstention"
BAD_ANSWER = "good context, bad answer: improve the generation prompt or the model"
UNSURE_ACTION = (
    "the judge cannot decide these answers at the calibrated agreement: grade them "
    "(ragtriage annotate grades) or judge them again with a stronger judge (--escalate-to)"
)
# clustered besides the failures: never a failure, but a pile of work of its own
CLUSTERED = (*FAILURES, Label.UNSURE)


def next_action(
    label: Label, tag: str, answerable: bool = True, lexical_retriever: bool = False
) -> str:
    """The fix a pattern suggests; ``lexical_retriever``: the audit ran BM25 itself, so
    "add keyword search" would be no advice."""
    lowered = tag.lower()
    if label == Label.RETRIEVAL:
        if any(t in lowered for t in CODE_TAGS):
            if lexical_retriever:
                return (
                    "exact codes/keywords are missed even by BM25: check how codes are "
                    "tokenised (E-1042 vs E1042) and that the chunk holding them is indexed"
                )
            return "exact codes/keywords are missed: add keyword (BM25) or hybrid search"
        if any(t in lowered for t in CHUNK_TAGS):
            return "multi-section answers are missed: revisit chunking (size, overlap, structure)"
        if "paraphrase" in lowered:
            return "paraphrases are missed: add dense/hybrid retrieval or query rewriting"
        return "relevant chunks are not retrieved: read these queries, then try hybrid search"
    if label == Label.RANKING:
        return "relevant chunks are retrieved but cut off: add a reranker or raise k"
    if not answerable or "unanswerable" in lowered:
        return HALLUCINATED
    return BAD_ANSWER


def _generation_action(members: list[CaseResult]) -> str:
    """The advice for most of a generation cluster's cases: an answerable query whose
    answer abstained is over-abstention, not a hallucination; an unanswerable one answered
    is. An answerable case with a cause (triage/causes.py) gets that cause's action."""

    def kind(case: CaseResult) -> str:
        if not case.answerable:
            return HALLUCINATED
        if case.cause is not None:
            return CAUSE_ACTIONS[case.cause]
        outcome = case.judge.outcome if case.judge is not None else None
        return OVER_ABSTAIN if outcome == Outcome.ABSTAINED else BAD_ANSWER

    return Counter(kind(c) for c in members).most_common(1)[0][0]


def clusters(cases: list[CaseResult], lexical_retriever: bool = False) -> list[Cluster]:
    """Failures per (stage, tag), largest first, ``unsure`` cases after the failures of the
    same size; a case with several tags is in several clusters, so the counts add up to more
    than the failures."""
    groups: dict[tuple[Label, str, Cause | None], list[CaseResult]] = defaultdict(list)
    for case in cases:
        if case.label not in CLUSTERED:
            continue
        for tag in case.tags or [NO_TAG]:  # generation failures split by cause too
            groups[(case.label, tag, case.cause)].append(case)
    out = [
        Cluster(
            label=label,
            tag=tag,
            cause=cause,
            count=len(members),
            case_ids=[c.case_id for c in members],
            action=UNSURE_ACTION
            if label == Label.UNSURE
            else _generation_action(members)
            if label == Label.GENERATION
            else next_action(label, tag, lexical_retriever=lexical_retriever),
        )
        for (label, tag, cause), members in groups.items()
    ]
    return sorted(out, key=lambda c: (-c.count, CLUSTERED.index(c.label), c.tag, c.cause or ""))
