"""A package's public names, imported on first use: ``import ragtriage.judge`` stays as
cheap as the CLI's start-up needs, and ``dir()`` shows the face, not the machinery."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(
    package: str, public: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: each name in ``public`` is read from
    the module it maps to when first asked for."""

    def __getattr__(name: str) -> Any:
        if name in public:
            return getattr(import_module(public[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(public)

    return __getattr__, __dir__
