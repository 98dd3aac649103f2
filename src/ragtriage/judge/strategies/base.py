"""The strategy protocol and the registry every judge spec and command resolves through.

A strategy turns one :class:`JudgeItem` into one :class:`JudgeResult`, through a
:class:`Caller` when it needs a model. It says so itself (``needs_model``), and tells a
``--dry-run`` which requests it would send (``planned_requests``) and how many tokens it
expects back (``completion_tokens``), so no caller branches on strategy names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ragtriage.errors import InputError
from ragtriage.judge.types import JudgeFingerprint, JudgeItem, JudgeResult
from ragtriage.llm.base import ModelRequest
from ragtriage.llm.calls import Caller

__all__ = [
    "STRATEGIES",
    "Strategy",
    "StrategyFactory",
    "UnknownStrategyError",
    "get_strategy",
    "needs_model",
    "register",
    "strategy_factory",
]


class Strategy(Protocol):
    name: str
    needs_model: bool
    params: Mapping[str, Any]
    prompt_sha256: Mapping[str, str]

    async def judge(
        self, item: JudgeItem, caller: Caller | None, fingerprint: JudgeFingerprint
    ) -> JudgeResult: ...

    def planned_requests(self, item: JudgeItem) -> list[ModelRequest]:
        """The requests :meth:`judge` would send for ``item`` (none without a model)."""
        ...

    def completion_tokens(self, item: JudgeItem, local: bool) -> int:
        """Completion tokens expected per request (``local``: the embedded model)."""
        ...


class StrategyFactory(Protocol):
    """A registered strategy class: its name, whether it needs a model, a constructor
    from the judge options (each strategy takes the options it knows, ignores the rest)."""

    name: str
    needs_model: bool

    def from_options(self, **options: Any) -> Strategy: ...


STRATEGIES: dict[str, StrategyFactory] = {}


class UnknownStrategyError(InputError, ValueError):
    """A strategy name that is not registered; the message lists the registered ones."""


def register(factory: Any) -> Any:
    """Class decorator: register a strategy under its ``name``."""
    STRATEGIES[factory.name] = factory
    return factory


def strategy_factory(name: str, field: str = "--judge") -> StrategyFactory:
    """The registered strategy ``name``; an unknown name is an error listing the known,
    naming ``field``: the option or setting the name came from."""
    import ragtriage.judge.strategies  # noqa: F401 - registers the built-in strategies

    try:
        return STRATEGIES[name]
    except KeyError:
        known = ", ".join(sorted(STRATEGIES))
        raise UnknownStrategyError(
            f"unknown strategy {name!r}; known strategies: {known}", field=field
        ) from None


def get_strategy(name: str, **options: Any) -> Strategy:
    """A strategy object built from the judge options (``context_chars``, ...)."""
    return strategy_factory(name).from_options(**options)


def needs_model(name: str | None) -> bool:
    """Whether strategy ``name`` calls a model; ``None`` (the model's default) does."""
    return name is None or strategy_factory(name).needs_model
