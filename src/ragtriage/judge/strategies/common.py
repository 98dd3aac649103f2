"""What every strategy shares: the lexical signals, pre-checks and result assembly."""

from __future__ import annotations

from collections.abc import Sequence

from ragtriage.judge.alignment import SentenceEvidence, align_answer
from ragtriage.judge.facts import fact_signals
from ragtriage.judge.lexical import (
    claim_sentences,
    content_words,
    lexical_support,
    sentence_support,
)
from ragtriage.judge.outcomes import classify_answer
from ragtriage.judge.shape import CITATION_SIGNALS, SHAPE_SIGNALS, citation_signals, shape_signals
from ragtriage.judge.types import (
    Claim,
    JudgeFingerprint,
    JudgeItem,
    JudgeResult,
    Outcome,
    Usage,
)

__all__ = [
    "MODEL_FREE_SIGNALS",
    "alignment_signals",
    "lexical_signals",
    "make_result",
    "precheck",
    "unscored",
]

# What :func:`lexical_signals` computes: signals every judge carries without a model. A
# decision rule made only of these needs no model and transfers across domains as word
# overlap does; calibration prefers one unless a model-based rule is clearly better.
MODEL_FREE_SIGNALS = frozenset(
    """answer_words lexical min_sentence_lexical min_sentence_alignment
    mean_sentence_alignment fact_check swapped_facts novel_facts contradictions unstated_negations
    novel_numbers novel_names negation_mismatch uncited_sentences""".split()
) | frozenset(SHAPE_SIGNALS + CITATION_SIGNALS)


def lexical_signals(
    item: JudgeItem, aligned: list[SentenceEvidence] | None = None
) -> dict[str, float]:
    """The model-free signals carried by every result, so calibration can compare.

    ``lexical`` is the answer's content-word support; it is absent only when the answer
    has no content words (then the outcome is ``no_claims`` and there is nothing to score).
    """
    texts = [c.text for c in item.contexts]
    signals: dict[str, float] = {"answer_words": float(len(content_words(item.answer)))}
    overall = lexical_support(item.answer, texts)
    if overall is not None:
        signals["lexical"] = overall
    per_sentence = [s for _, s in sentence_support(item.answer, texts) if s is not None]
    if per_sentence:
        signals["min_sentence_lexical"] = min(per_sentence)
    signals.update(alignment_signals(item, aligned))
    return signals


def alignment_signals(
    item: JudgeItem, aligned: list[SentenceEvidence] | None = None
) -> dict[str, float]:
    """Per-sentence best-evidence alignment and the fact checks (``judge.alignment``,
    ``judge.facts``); empty when no sentence has content words. ``aligned``: the answer's
    sentences already aligned (the sentences strategy has them), else aligned here."""
    if aligned is None:
        aligned = align_answer(claim_sentences(item.answer), item.contexts)
    if not aligned:
        return {}
    scores = [a.alignment for a in aligned]
    cites = any(a.cited for a in aligned)
    return {
        "min_sentence_alignment": min(scores),
        "mean_sentence_alignment": sum(scores) / len(scores),
        **fact_signals(aligned, cites),
        **shape_signals(item.answer, [c.text for c in item.contexts], aligned),
        **citation_signals(aligned),
    }


def make_result(
    item: JudgeItem,
    fingerprint: JudgeFingerprint,
    usage: Usage | None = None,
    *,
    score: float | None = None,
    outcome: Outcome | None = None,
    reason: str = "",
    signals: dict[str, float] | None = None,
    claims: Sequence[Claim] = (),
) -> JudgeResult:
    """The one way a result is made: ``scored`` when a score is given, else ``outcome``
    with its ``reason``; ``signals`` default to the item's lexical signals."""
    if outcome is None:
        outcome = Outcome.SCORED if score is not None else Outcome.UNSCORED
    if (outcome == Outcome.SCORED) != (score is not None):
        raise ValueError(f"a {outcome.value} result {'needs' if score is None else 'has no'} score")
    return JudgeResult(
        item_id=item.id,
        outcome=outcome,
        score=score,
        signals=lexical_signals(item) if signals is None else signals,
        claims=list(claims),
        reason=reason,
        fingerprint=fingerprint,
        usage=Usage() if usage is None else usage,
    )


def precheck(item: JudgeItem, fingerprint: JudgeFingerprint) -> JudgeResult | None:
    """A result without any model call for answers that assert nothing or abstain."""
    outcome, reason = classify_answer(item.answer)
    if outcome is None:
        return None
    return make_result(item, fingerprint, outcome=outcome, reason=reason)


def unscored(item: JudgeItem, reason: str, fingerprint: JudgeFingerprint, usage: Usage):
    return make_result(item, fingerprint, usage, outcome=Outcome.UNSCORED, reason=reason)
