"""Repeated samples of a frozen answer (``--samples K``): the vote, the flip rate, the
sequential stop.

A judge through a provider is not deterministic, even at temperature 0, and the embedded
model samples at a temperature above 0. Each sample is its own call and cache entry (the
sample index is in the request), so a re-run costs nothing and a larger ``K`` pays only
for the samples not drawn before. The verdict, ``unstable``, the sequential stop and the
flip rate are docs/judges.md's, 'Repeated samples: ``--samples K``'. Two choices behind
them: a failed sample (``unscored``) casts no vote, so failures can keep an answer from a
majority; and sampling never stops while a sample could still change the outcome, so the
stop saves samples without changing any verdict. The flip rate is of the samples drawn,
not of ``K`` (after an early stop, 2 of 2 agreeing samples read 0 [0, 0.66]).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable

from ragtriage.judge.types import JudgeResult, Outcome, Sample, Stability
from ragtriage.stats import wilson_interval

__all__ = [
    "FAITHFUL",
    "UNFAITHFUL",
    "Verdict",
    "decided",
    "default_verdict",
    "draw",
    "stability",
]

FAITHFUL, UNFAITHFUL = "faithful", "unfaithful"
Verdict = Callable[[JudgeResult], str]


def default_verdict(result: JudgeResult) -> str:
    """A sample's vote without a calibrated rule: its outcome, or score >= 0.5."""
    if result.outcome != Outcome.SCORED or result.score is None:
        return result.outcome.value
    return FAITHFUL if result.score >= 0.5 else UNFAITHFUL


def decided(votes: Counter[str], drawn: int, limit: int) -> bool:
    """Whether the outcome of ``limit`` samples is known after ``drawn`` of them: a
    verdict already has more than half of ``limit``, or none can reach it any more."""
    left = limit - drawn
    if left <= 0:
        return True
    lead = max(votes.values(), default=0)
    return 2 * lead > limit or 2 * (lead + left) <= limit


def stability(samples: list[Sample], limit: int, temperature: float | None) -> Stability:
    votes = Counter(s.verdict for s in samples if s.verdict != Outcome.UNSCORED.value)
    ranked = votes.most_common()
    verdict = ranked[0][0] if ranked and 2 * ranked[0][1] > limit else None
    voted = sum(votes.values())
    flip = low = high = None
    if voted:
        minority = voted - ranked[0][1]
        interval = wilson_interval(minority, voted)
        flip, low, high = interval.estimate, interval.low, interval.high
    return Stability(
        limit=limit,
        temperature=temperature,
        votes=dict(ranked),
        verdict=verdict,
        flip_rate=flip,
        flip_low=low,
        flip_high=high,
        stopped_early=len(samples) < limit,
        samples=samples,
    )


async def draw(
    judge_sample: Callable[[int], Awaitable[JudgeResult]],
    limit: int,
    temperature: float | None,
    verdict: Verdict = default_verdict,
    stop_early: bool = True,
) -> JudgeResult:
    """Judge sample 0, 1, ... until the outcome of ``limit`` samples is decided; the
    result of the first sample that voted the verdict, with every sample's usage and the
    :class:`Stability`; ``unstable`` when no verdict has more than half of ``limit``.
    ``stop_early=False`` draws all ``limit`` (calibration: the rule that will vote is
    chosen after the samples, so no vote may cut them short)."""
    results: list[JudgeResult] = []
    samples: list[Sample] = []
    votes: Counter[str] = Counter()
    while len(results) < limit and (not stop_early or not decided(votes, len(results), limit)):
        result = await judge_sample(len(results))
        vote = verdict(result)
        results.append(result)
        samples.append(
            Sample(outcome=result.outcome, score=result.score, signals=result.signals, verdict=vote)
        )
        if vote != Outcome.UNSCORED.value:
            votes[vote] += 1
    found = stability(samples, limit, temperature)
    usage = sum((r.usage for r in results[1:]), results[0].usage)
    if found.verdict is not None:
        first = next(r for r, s in zip(results, samples, strict=True) if s.verdict == found.verdict)
        return first.model_copy(update={"usage": usage, "stability": found})
    split = ", ".join(f"{v} {n}" for v, n in found.votes.items()) or "no sample voted"
    return results[0].model_copy(
        update={
            "outcome": Outcome.UNSTABLE,
            "score": None,
            "claims": [],
            "reason": f"no verdict of more than half of {limit} samples ({split})",
            "usage": usage,
            "stability": found,
        }
    )
