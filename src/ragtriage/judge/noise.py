"""The interval judge noise leaves open on a rate (``gate`` with ``--samples``).

A case judged with ``--samples K`` counts by its samples' majority, but a majority of a
few votes is itself wrong with a probability that grows with the case's flip rate. What
the gate bounds is the *settled* rate: each case counted by the majority of endless samples.

**The model**: each case has a vote probability ``p`` (the chance one sample votes *for*
the rate), drawn from one distribution over this judge's cases on this golden set, on
:data:`GRID`, estimated from the run's votes (empirical Bayes: the maximum-likelihood
mixture of binomials); its settled verdict is *for* when ``p > 0.5``. The sequential stop
depends only on votes already drawn, so it leaves the likelihood unchanged.

**Why not that estimate alone**: a flaky judge's votes barely tell a case at 0.35 from one
at 0.65, and the single best estimate put cases on the wrong side of 0.5 often enough that
the gate's false alarms far exceeded the stated rate
(``benchmarks/results/gate_noise_sim.txt``, the 556d519 row). So the upper end takes, of
every distribution the votes do not reject (a profile-likelihood bound: log-likelihood
within ``chi2(1).ppf(level) / 2`` of the best), the one under which most cases whose
majority is *against* settle *for*, and adds the ``1 - (1 - level) / 2`` quantile of how
many of them do (exact, Poisson-binomial); the lower end the same the other way round.
Leaving out the cases that settle against an end's side makes each end conservative; the
interval always holds the majorities' own rate.

**Valid when** the cases' vote probabilities come from one population and a case's
samples are independent given its probability (``benchmarks/gate_noise_sim.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np  # loaded already: results.gate, which reads this, loads it

__all__ = ["GRID", "noise_interval", "settled_probability", "vote_prior"]

# the grid of vote probabilities the distribution lives on: 0.5 itself is left out, so
# every grid point has a settled verdict (more than half of endless samples one way)
GRID = tuple(i / 20 for i in range(21) if i != 10)
EM_STEPS = 500
Votes = list[tuple[int, int]]


def noise_interval(
    fixed: int, total: int, votes: Votes, level: float = 0.95
) -> tuple[float, float]:
    """``(low, high)`` on a rate over ``total`` cases: ``fixed`` cases count for it
    whatever the judge says; each case of ``votes`` ``(for, voted)`` counts by its
    samples' majority and may yet settle the other way (module docstring)."""
    point = fixed + sum(2 * agree > voted for agree, voted in votes)
    if not votes:
        return point / total, point / total
    low, high = _turned(votes, level)
    return max(0.0, (point - low) / total), min(1.0, (point + high) / total)


def vote_prior(votes: Votes) -> list[float]:
    """The share of cases at each :data:`GRID` vote probability, estimated from the
    run's own ``(for, voted)`` counts (maximum likelihood, by EM from the uniform share)."""
    kinds, counts = np.unique(np.array(votes).reshape(-1, 2), axis=0, return_counts=True)
    return [float(s) for s in _em(_likelihood(kinds), counts)]


def settled_probability(votes: Votes, prior: list[float] | None = None) -> Any:
    """Each case's P(its settled verdict is *for*) given its ``(for, voted)`` votes,
    under ``prior`` on :data:`GRID` (default: :func:`vote_prior` of ``votes``)."""
    share = np.array(vote_prior(votes) if prior is None else prior)
    return _settled_on(_likelihood(np.array(votes).reshape(-1, 2)), share, _upper())


def _turned(votes: Votes, level: float) -> tuple[int, int]:
    """How many cases whose majority is for (against) the rate may settle the other way,
    at the upper ``1 - (1 - level) / 2`` quantile under the least favourable
    distribution the votes do not reject."""
    from scipy.stats import chi2

    kinds, counts = np.unique(np.array(votes), axis=0, return_counts=True)
    like, tail = _likelihood(kinds), (1 - level) / 2
    best = _em(like, counts)
    floor = _loglik(like, counts, best) - chi2.ppf(level, 1) / 2
    majority = 2 * kinds[:, 0] > kinds[:, 1]
    turned = []
    for rows, side in ((majority, 1 - _upper()), (~majority, _upper())):
        if not rows.any():
            turned.append(0)
            continue
        share = _least_favourable(like, counts, rows, side, best, floor)
        turned.append(_quantile(counts[rows], _settled_on(like[rows], share, side), tail))
    return turned[0], turned[1]


def _least_favourable(like: Any, counts: Any, rows: Any, side: Any, best: Any, floor: float):
    """The distribution, of those whose log-likelihood is at least ``floor``, under which
    most of the ``rows`` cases are expected to settle on ``side`` (SLSQP from ``best``;
    where it stops outside the set, the last point inside on the way to it)."""
    from scipy.optimize import minimize

    weight, part = counts[rows].astype(float), like[rows]
    toward = part * side

    def minus_expected(share):
        num, den = toward @ share, part @ share
        # SLSQP may try a share under which a case's votes are impossible (0 / 0): a nan
        # its line search backs away from, not a warning on the user's terminal
        with np.errstate(divide="ignore", invalid="ignore"):
            grad = (toward * den[:, None] - part * num[:, None]) / den[:, None] ** 2
            return -(weight @ (num / den)), -(weight @ grad)

    def slack(share):
        return _loglik(like, counts, share) - floor

    def slack_grad(share):
        with np.errstate(divide="ignore", invalid="ignore"):
            return (counts / (like @ share)) @ like

    found = minimize(
        minus_expected, best, jac=True, method="SLSQP", bounds=[(0.0, 1.0)] * len(GRID),
        constraints=[
            {"type": "eq", "fun": lambda s: s.sum() - 1, "jac": lambda s: np.ones_like(s)},
            {"type": "ineq", "fun": slack, "jac": slack_grad},
        ],
        options={"maxiter": 200, "ftol": 1e-9},
    )  # fmt: skip
    share = np.clip(found.x, 0.0, None)
    share = _inside(best, share / share.sum(), slack)
    return share if minus_expected(share)[0] <= minus_expected(best)[0] else best


def _inside(start: Any, end: Any, slack) -> Any:
    """The point nearest ``end`` on the segment from ``start`` (inside) where ``slack``
    is not negative (the log-likelihood is concave, so the inside part is one piece)."""
    if slack(end) >= 0:
        return end
    low, high = 0.0, 1.0
    for _ in range(30):
        mid = (low + high) / 2
        low, high = (mid, high) if slack(start + mid * (end - start)) >= 0 else (low, mid)
    return start + low * (end - start)


def _settled_on(like: Any, share: Any, side: Any) -> Any:
    """Each row's P(its vote probability is on ``side`` of 0.5) under ``share``."""
    return (like * side) @ share / (like @ share)


def _upper() -> Any:
    return (np.array(GRID) > 0.5).astype(float)


def _likelihood(kinds: Any) -> Any:
    """Each ``(for, voted)`` row's binomial likelihood at each :data:`GRID` point."""
    grid = np.array(GRID)
    agree = kinds[:, :1].astype(float)
    against = kinds[:, 1:2].astype(float) - agree
    return grid**agree * (1 - grid) ** against


def _loglik(like: Any, counts: Any, share: Any) -> float:
    with np.errstate(divide="ignore"):
        return float(counts @ np.log(like @ share))


def _em(like: Any, counts: Any) -> Any:
    """The grid distribution maximising the counts' likelihood (EM, uniform start)."""
    share = np.full(like.shape[1], 1 / like.shape[1])
    weight = counts / counts.sum()
    for _ in range(EM_STEPS):
        post = like * share
        post /= post.sum(axis=1, keepdims=True)
        share = weight @ post
    return share


def _quantile(counts: Any, probs: Any, tail: float) -> int:
    """The ``1 - tail`` quantile of a sum of binomials ``(counts[t], probs[t])``."""
    from scipy.signal import fftconvolve
    from scipy.stats import binom

    dist = np.ones(1)
    for count, prob in zip(counts.tolist(), probs.tolist(), strict=True):
        pmf = binom.pmf(np.arange(count + 1), count, prob)
        dist = np.clip(fftconvolve(dist, pmf), 0, None)
    return int(np.searchsorted(np.cumsum(dist) / dist.sum(), 1 - tail - 1e-12))
