"""Stage 1: retrieval scored against a golden set, with metrics equal to trec_eval's.

The public face: :class:`RetrievalEvaluator` (bound once to a golden set, scores any
number of runs), :func:`evaluate_retrieval` and the :class:`RetrievalReport` they return.
The other modules are internal.
"""

from __future__ import annotations

from ragtriage._lazy import lazy_exports

_PUBLIC = {
    "RetrievalEvaluator": "ragtriage.retrieval.evaluate",
    "evaluate_retrieval": "ragtriage.retrieval.evaluate",
    "RetrievalReport": "ragtriage.retrieval.models",
}
__all__ = sorted(_PUBLIC)

__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
