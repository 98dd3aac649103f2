"""Repeated samples of a frozen answer (``--samples K``): the vote, the flip rate, the
sequential stop.

A judge through a provider is not deterministic, even at temperature 0, and the embedded
model samples at a temperature above 0. With ``K`` samples an answer is judged again and
again, one sample after another, each sample its own call and cache entry (the sample
index is in the request, so a re-run costs nothing and a larger ``K`` pays only for the
samples not drawn before).

**The verdict** is what more than half of the ``K`` samples voted. A sample votes the
decision rule's ``faithful``/``unfaithful`` (``verdict``: the caller's rule; by default
score >= 0.5), or its outcome when it was not scored (``no_claims``, ``abstained``); a
failed sample (``unscored``) casts no vote, so failures can keep an answer from a
majority. An answer with no verdict of more than half of ``K`` is ``unstable``: neither
pass nor fail.

**The sequential stop**: after each sample, stop as soon as the outcome of all ``K`` is
decided whatever the remaining samples say: the leading verdict already has more than
``K/2`` votes (the verdict cannot change), or no verdict can reach more than ``K/2`` any
more (``unstable`` cannot change). Never before: a sample that could still change the
outcome is always drawn. A judge that agrees with itself costs ``floor(K/2) + 1`` samples
an answer, not ``K``.

**The flip rate** is the share of the voting samples that differ from the leading verdict
(0.5 at a tie), with its 95 % Wilson interval: of the samples drawn, not of ``K`` (after
an early stop, 2 of 2 agreeing samples read 0 [0, 0.66]).
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
    "noise_interval",
    "settled_probability",
    "stability",
    "vote_prior",
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
    usage = results[0].usage
    for other in results[1:]:
        usage = usage + other.usage
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


# the grid of vote probabilities the prior lives on: 0.5 itself is left out, so every
# grid point has a settled verdict (more than half of endless samples one way)
GRID = tuple(i / 20 for i in range(21) if i != 10)
EM_STEPS = 200
REPLICATES = 50


def vote_prior(votes: list[tuple[int, int]]) -> list[float]:
    """The share of cases at each :data:`GRID` vote probability, estimated from the
    run's own ``(for, voted)`` counts (empirical Bayes: the maximum-likelihood mixture of
    binomials on the grid, by EM from the uniform share, a fixed number of steps).

    The stopping rule does not enter: the sequential stop depends only on the votes
    already drawn, so the likelihood of a case's votes is ``p**for * (1-p)**against``
    however many were drawn (the likelihood principle)."""
    import numpy as np

    (share,) = _em(_likelihood(votes), np.ones((1, len(votes))))
    return [float(s) for s in share]


def _likelihood(votes: list[tuple[int, int]]):
    import numpy as np

    grid = np.array(GRID)
    agree = np.array([a for a, _ in votes], dtype=float)[:, None]
    against = np.array([n - a for a, n in votes], dtype=float)[:, None]
    return grid**agree * (1 - grid) ** against


def settled_probability(votes: list[tuple[int, int]], prior: list[float] | None = None):
    """Each case's P(its settled verdict, the majority of endless samples, is *for*)
    given its ``(for, voted)`` votes, under ``prior`` on the vote probability (default:
    :func:`vote_prior` of ``votes`` itself). A case with no vote keeps the prior's odds."""
    import numpy as np

    share = np.array(vote_prior(votes) if prior is None else prior)
    post = _likelihood(votes) * share
    return post[:, np.array(GRID) > 0.5].sum(axis=1) / post.sum(axis=1)


def noise_interval(
    fixed: int, total: int, votes: list[tuple[int, int]], level: float = 0.95
) -> tuple[float, float]:
    """The interval judge noise leaves open on a rate over ``total`` cases: ``fixed``
    cases count for the rate whatever the judge says; each case of ``votes`` ``(for,
    voted)`` counts by its samples' majority, and may yet settle the other way.

    **What it bounds**: the *settled* rate, each case counted by the majority of endless
    samples. A case's samples leave that open: a majority of 3 or 5 votes is itself wrong
    with a probability that grows with the case's flip rate (flip rate 0.4, 5 votes:
    0.32), and the sequential stop keeps a case's votes few.

    **How**: each case's P(settled for | its votes) by :func:`settled_probability` under
    the prior the run's own votes estimate (:func:`vote_prior`, empirical Bayes: how
    often cases of this judge on this golden set are near a coin flip, and on which
    side). The settled count is at most the majority count plus the cases whose majority
    is against the rate that settle for it; the upper end adds that number's exact
    (Poisson-binomial) ``1 - (1 - level) / 2`` quantile, the lower end the same the other
    way round. Leaving out the cases that settle the other way makes each end
    conservative.

    **Valid when** the cases are exchangeable draws from one population of vote
    probabilities (so the run's own votes estimate its shape) and samples of a case are
    independent given its probability; the stop is ignorable (see :func:`vote_prior`).
    The estimated prior's own error enters through bootstrap reweightings of the cases
    (:func:`_turned`); with cases near a coin flip the interval can still be too narrow,
    as benchmarks/gate_noise_sim.py measures."""
    point = fixed + sum(2 * agree > voted for agree, voted in votes)
    tail = (1 - level) / 2
    low, high = _turned(votes, tail)
    return max(0.0, (point - low) / total), min(1.0, (point + high) / total)


def _turned(votes: list[tuple[int, int]], tail: float) -> tuple[int, int]:
    """The ``1 - tail`` quantiles of how many cases whose majority is for (against) the
    rate settle the other way: each case's chance under a prior re-estimated on
    :data:`REPLICATES` Bayesian-bootstrap reweightings of the cases (fixed seed), the
    count's distribution averaged over them, so the prior's own error is in it."""
    import numpy as np
    from scipy.stats import beta

    if not votes:
        return 0, 0
    kinds, counts = np.unique(np.array(votes), axis=0, return_counts=True)
    rng = np.random.default_rng(0)
    weights = rng.gamma(np.broadcast_to(counts, (REPLICATES, counts.size)))
    like = _likelihood([tuple(v) for v in kinds.tolist()])
    post = like[None] * _em(like, weights)[:, None, :]
    p_for = post[:, :, np.array(GRID) > 0.5].sum(axis=2) / post.sum(axis=2)
    # never less doubt than Jeffreys' prior alone leaves: a prior estimated from few
    # flaky cases can all but rule out a turn that one prior free of the run allows
    jeffreys = beta.sf(0.5, kinds[:, 0] + 0.5, kinds[:, 1] - kinds[:, 0] + 0.5)
    majority = 2 * kinds[:, 0] > kinds[:, 1]
    return (
        _quantile(counts[majority], np.maximum(1 - p_for, 1 - jeffreys)[:, majority], tail),
        _quantile(counts[~majority], np.maximum(p_for, jeffreys)[:, ~majority], tail),
    )


def _em(like, weights):
    """Grid priors maximising each replicate's weighted likelihood (EM, uniform start)."""
    import numpy as np

    share = np.full((weights.shape[0], like.shape[1]), 1 / like.shape[1])
    w = weights / weights.sum(axis=1, keepdims=True)
    for _ in range(EM_STEPS):
        post = like[None] * share[:, None, :]
        post /= post.sum(axis=2, keepdims=True)
        share = (post * w[:, :, None]).sum(axis=1)
    return share


def _quantile(counts, probs, tail: float) -> int:
    """The ``1 - tail`` quantile of a sum of binomials ``(counts[t], probs[b, t])``,
    its distribution averaged over the replicates ``b``."""
    import numpy as np
    from scipy.signal import fftconvolve
    from scipy.stats import binom

    dist = np.ones((probs.shape[0], 1))
    for t, c in enumerate(counts.tolist()):
        pmf = binom.pmf(np.arange(c + 1)[None, :], c, probs[:, t : t + 1])
        dist = np.clip(fftconvolve(dist, pmf, axes=1), 0, None)
    mean = dist.mean(axis=0)
    return int(np.searchsorted(np.cumsum(mean) / mean.sum(), 1 - tail - 1e-12))
