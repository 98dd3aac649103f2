"""Group failures by stage and tag, and say what to fix first.

The suggestions encode practitioners' experience: misses on exact codes mean lexical
matching is missing, misses on multi-section answers mean the chunking splits answers,
ranking failures mean the right chunk is there but cut off, generation failures with
good context point at the prompt or the model.
"""

from __future__ import annotations

from collections import defaultdict

from ragtriage.triage.models import FAILURES, CaseResult, Cluster, Label

__all__ = ["CHUNK_TAGS", "CODE_TAGS", "NO_TAG", "clusters", "next_action"]

CODE_TAGS = ("code", "sku", "id", "keyword", "exact", "number")
CHUNK_TAGS = ("multi", "section", "table", "long")
NO_TAG = "(untagged)"


def next_action(label: Label, tag: str, answerable: bool = True) -> str:
    lowered = tag.lower()
    if label == Label.RETRIEVAL:
        if any(t in lowered for t in CODE_TAGS):
            return "exact codes/keywords are missed: add keyword (BM25) or hybrid search"
        if any(t in lowered for t in CHUNK_TAGS):
            return "multi-section answers are missed: revisit chunking (size, overlap, structure)"
        if "paraphrase" in lowered:
            return "paraphrases are missed: add dense/hybrid retrieval or query rewriting"
        return "relevant chunks are not retrieved: read these queries, then try hybrid search"
    if label == Label.RANKING:
        return "relevant chunks are retrieved but cut off: add a reranker or raise k"
    if not answerable or "unanswerable" in lowered:
        return "hallucinated answers to unanswerable queries: instruct and test abstention"
    return "good context, bad answer: improve the generation prompt or the model"


def clusters(cases: list[CaseResult]) -> list[Cluster]:
    """Failures per (stage, tag), largest first; an untagged failure gets ``(untagged)``."""
    groups: dict[tuple[Label, str], list[CaseResult]] = defaultdict(list)
    for case in cases:
        if case.label not in FAILURES:
            continue
        for tag in case.tags or [NO_TAG]:
            groups[(case.label, tag)].append(case)
    out = [
        Cluster(
            label=label,
            tag=tag,
            count=len(members),
            case_ids=[c.case_id for c in members],
            action=next_action(label, tag, all(c.answerable for c in members)),
        )
        for (label, tag), members in groups.items()
    ]
    return sorted(out, key=lambda c: (-c.count, FAILURES.index(c.label), c.tag))
