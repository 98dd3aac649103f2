"""ragtriage: audit a RAG system stage by stage.

Stage 1 scores retrieval in isolation (metrics equal to trec_eval's); stage 2 judges
faithfulness with a calibrated LLM judge; triage labels every failing case as a
retrieval, ranking or generation failure.

The public face is this package's ``__all__`` and that of ``ragtriage.data``,
``ragtriage.retrieval``, ``ragtriage.judge``, ``ragtriage.calibration``,
``ragtriage.results`` and ``ragtriage.flows`` (one config and ``run`` per command). The
names are imported lazily, so ``import ragtriage`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("ragtriage")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

# name -> (module, attribute): the public face; every other module is internal (its
# names may move between releases; docs/architecture.md)
_PUBLIC = {
    # the three stages and the audit that runs them together
    "evaluate_retrieval": ("ragtriage.api", "evaluate_retrieval"),
    "RetrievalEvaluator": ("ragtriage.retrieval.evaluate", "RetrievalEvaluator"),
    "judge_faithfulness": ("ragtriage.api", "judge_faithfulness"),
    "calibrate": ("ragtriage.api", "calibrate"),
    "audit": ("ragtriage.api", "audit"),
    "conversations": ("ragtriage.api", "conversations"),
    "AuditConfig": ("ragtriage.flows.audit", "AuditConfig"),
    "compare": ("ragtriage.api", "compare"),
    "load_result": ("ragtriage.results.load", "load_result"),
    "load_golden": ("ragtriage.data.golden", "load_golden"),
    "load_calibration": ("ragtriage.calibration.record", "load_calibration"),
    # result types
    "AuditResult": ("ragtriage.results.run", "AuditResult"),
    "ConversationsResult": ("ragtriage.results.run", "ConversationsResult"),
    "RetrievalReport": ("ragtriage.retrieval.models", "RetrievalReport"),
    "JudgeResult": ("ragtriage.judge.types", "JudgeResult"),
    "CalibrationRecord": ("ragtriage.calibration.record", "CalibrationRecord"),
    "JudgeCalibration": ("ragtriage.results.calibrate", "JudgeCalibration"),
    "Comparison": ("ragtriage.results.compare", "Comparison"),
    # errors a caller catches
    "RagtriageError": ("ragtriage.errors", "RagtriageError"),
    "InputError": ("ragtriage.errors", "InputError"),
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        module, attribute = _PUBLIC[name]
        return getattr(import_module(module), attribute)
    raise AttributeError(f"module 'ragtriage' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
