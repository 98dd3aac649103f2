"""``ragtriage compare``: its config and :func:`run`; the paired statistics and the
:class:`~ragtriage.results.compare.Comparison` they fill live in ``results/compare.py``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from ragtriage.errors import InputError
from ragtriage.flows.config import MAX_RESAMPLES, SEED, Setting
from ragtriage.results.compare import Comparison, compare
from ragtriage.results.load import load_result
from ragtriage.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = ["CompareConfig", "run"]


@dataclass
class CompareConfig:
    base: Annotated[
        Path,
        Setting("Baseline: results.json or a retrieval report.", argument=True),
    ]
    candidate: Annotated[Path, Setting("Candidate, of either kind.", argument=True)]
    seed: Annotated[int, SEED] = DEFAULT_SEED
    resamples: Annotated[int, Setting("Bootstrap resamples.", min=1, max=MAX_RESAMPLES)] = (
        DEFAULT_RESAMPLES
    )
    permutations: Annotated[
        int, Setting("Randomization-test permutations.", min=1, max=MAX_RESAMPLES)
    ] = 10000


def run(config: CompareConfig) -> Comparison:
    """Read both results and compare them; two with no query in common are refused (a
    comparison of nothing is no result)."""
    result = compare(
        load_result(config.base),
        load_result(config.candidate),
        seed=config.seed,
        resamples=config.resamples,
        permutations=config.permutations,
    )
    if result.n_common == 0:
        raise InputError(
            f"{config.base} and {config.candidate} have no query in common", field="candidate"
        )
    return result
