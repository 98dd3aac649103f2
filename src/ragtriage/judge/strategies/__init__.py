"""Faithfulness strategies: ``claims`` (one call per answer), ``sentences`` (small local
models, one probability per sentence), ``lexical`` (no model). Importing the package
registers them in :data:`ragtriage.judge.strategies.base.STRATEGIES`."""

from ragtriage.judge.strategies import claims, lexical_strategy, sentences  # noqa: F401
from ragtriage.judge.strategies.base import (
    STRATEGIES,
    Strategy,
    get_strategy,
    needs_model,
    register,
)

__all__ = ["STRATEGIES", "Strategy", "get_strategy", "needs_model", "register"]
