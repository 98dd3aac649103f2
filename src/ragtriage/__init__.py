"""ragtriage: audit a RAG system stage by stage.

Stage 1 scores retrieval in isolation (metrics equal to trec_eval's); stage 2 judges
faithfulness with a calibrated LLM judge; triage labels every failing case as a
retrieval, ranking or generation failure. The public functions are imported lazily so
that ``import ragtriage`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("ragtriage")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

_PUBLIC = {
    "audit": "ragtriage.flows.audit_api",
    "AuditConfig": "ragtriage.flows.audit",
    "AuditResult": "ragtriage.triage.models",
    "evaluate_retrieval": "ragtriage.retrieval.evaluate",
    "RetrievalEvaluator": "ragtriage.retrieval.evaluate",
    "judge_faithfulness": "ragtriage.judge.api",
    "RagtriageError": "ragtriage.errors",
    "InputError": "ragtriage.errors",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'ragtriage' has no attribute {name!r}")
