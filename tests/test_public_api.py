"""The public face (``ragtriage`` and its public subpackages), and every error under
RagtriageError."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

import ragtriage
from ragtriage.errors import RagtriageError

PACKAGE = Path(ragtriage.__file__).resolve().parent
# Internal control flow: each is caught and turned into an ``unscored`` result before
# anything reaches the user (see their docstrings), so they stay plain exceptions.
INTERNAL_ERRORS = {
    "ragtriage.llm.calls.Unscorable",
    "ragtriage.llm.calls._Reshaped",  # control flow inside Caller.raw, never escapes it
    "ragtriage.system.generate.GenerationFailed",
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


ALL_MODULES = sorted(_module_name(p) for p in PACKAGE.rglob("*.py"))
# The public face: what users import (README, docs). Every other module is internal: its
# names may move between releases (docs/architecture.md), so they are not checked here.
FACE = {
    "ragtriage": {
        "__version__", "evaluate_retrieval", "RetrievalEvaluator", "judge_faithfulness",
        "calibrate", "audit", "conversations", "AuditConfig", "compare", "load_result",
        "load_golden", "load_calibration", "AuditResult", "ConversationsResult",
        "RetrievalReport", "JudgeResult",
        "CalibrationRecord", "JudgeCalibration", "Comparison", "RagtriageError", "InputError",
    },
    "ragtriage.data": {"Chunk", "GoldenCase", "GoldenSet", "Qrels", "Run", "load_golden"},
    "ragtriage.retrieval": {"RetrievalEvaluator", "evaluate_retrieval", "RetrievalReport"},
    "ragtriage.judge": {
        "judge_faithfulness", "ajudge_faithfulness", "fingerprint", "JudgeSpec", "JudgeItem",
        "JudgeResult", "JudgeFingerprint", "Outcome", "ContextChunk",
    },
    "ragtriage.calibration": {
        "CalibrationRecord", "GradedItem", "HumanGrade", "PPIEstimate",
        "StaleCalibrationError", "fit_record", "ensure_fresh", "is_stale", "load_calibration",
        "load_grades", "ppi_rate",
    },
    "ragtriage.results": {
        "load_result", "load_audit", "write_json", "AuditResult", "ConversationsResult",
        "RetrievalReport",
        "JudgeResult", "CalibrationRecord", "Comparison", "GateVerdict",
    },
    "ragtriage.flows": {
        "AuditConfig", "RetrievalConfig", "JudgeConfig", "CalibrateConfig", "CompareConfig",
        "GateConfig", "GateVerdict", "JudgeCalibration", "Comparison",
    },
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(FACE))
def test_the_public_face_is_what_it_says(name):
    module = importlib.import_module(name)
    exported = module.__all__
    assert len(set(exported)) == len(exported), f"{name}.__all__ repeats a name"
    assert set(exported) == FACE[name], f"{name}.__all__ changed: review the public face"
    missing = [n for n in exported if getattr(module, n, None) is None]
    assert not missing, f"{name}.__all__ names what it does not give: {missing}"
    assert set(exported) <= set(dir(module)), f"{name}: dir() hides part of the face"


def test_the_face_gives_the_real_objects():
    from ragtriage.api import audit, conversations
    from ragtriage.flows.calibrate import calibrate
    from ragtriage.retrieval.evaluate import RetrievalEvaluator

    assert ragtriage.audit is audit and ragtriage.calibrate is calibrate
    assert ragtriage.conversations is conversations
    assert ragtriage.RetrievalEvaluator is RetrievalEvaluator
    assert ragtriage.judge.JudgeResult is ragtriage.JudgeResult
    results, flows = (importlib.import_module(f"ragtriage.{n}") for n in ("results", "flows"))
    assert results.Comparison is flows.Comparison is ragtriage.Comparison
    assert results.GateVerdict is flows.GateVerdict
    with pytest.raises(AttributeError):
        ragtriage.no_such_name  # noqa: B018


def test_every_error_is_a_ragtriage_error():
    outside = []
    for name in ALL_MODULES:
        module = importlib.import_module(name)
        for cls_name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != name or not issubclass(cls, BaseException):
                continue
            qualified = f"{name}.{cls_name}"
            if qualified not in INTERNAL_ERRORS and not issubclass(cls, RagtriageError):
                outside.append(qualified)
    assert not outside, f"not under RagtriageError: {outside}"


def test_internal_errors_still_exist():
    for qualified in INTERNAL_ERRORS:
        module, _, name = qualified.rpartition(".")
        assert issubclass(getattr(importlib.import_module(module), name), Exception)


def test_errors_keep_the_bases_callers_catch():
    from ragtriage.judge.prompts import PromptError
    from ragtriage.judge.strategies.base import UnknownStrategyError
    from ragtriage.llm.base import PermanentModelError, TransientModelError

    assert issubclass(PromptError, ValueError)
    assert issubclass(UnknownStrategyError, ValueError)
    for cls in (PromptError, UnknownStrategyError, PermanentModelError, TransientModelError):
        assert issubclass(cls, RagtriageError)
    assert str(PromptError("bad prompt")) == "bad prompt"
    assert TransientModelError("busy", retry_after=2.0).retry_after == 2.0
