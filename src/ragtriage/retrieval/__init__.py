"""Stage 1: retrieval scored against a golden set, with metrics equal to trec_eval's.

The public face: :class:`RetrievalEvaluator` (bound once to a golden set, scores any
number of runs), :func:`evaluate_retrieval` and the :class:`RetrievalReport` they return.
The other modules are internal.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_PUBLIC = {
    "RetrievalEvaluator": "ragtriage.retrieval.evaluate",
    "evaluate_retrieval": "ragtriage.retrieval.evaluate",
    "RetrievalReport": "ragtriage.retrieval.models",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
