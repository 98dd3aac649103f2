"""The public surface: ``__all__`` in every public module, every error under RagtriageError."""

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
    "ragtriage.models.calls.Unscorable",
    "ragtriage.models.calls._Reshaped",  # control flow inside Caller.raw, never escapes it
    "ragtriage.system.generate.GenerationFailed",
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# public modules: names not starting with "_", plus the package itself
PUBLIC = sorted(_module_name(p) for p in PACKAGE.rglob("*.py") if not p.name.startswith("_")) + [
    "ragtriage"
]
ALL_MODULES = sorted(_module_name(p) for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("name", PUBLIC)
def test_public_module_has_all(name):
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    assert len(set(exported)) == len(exported), f"{name}.__all__ repeats a name"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"


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
    from ragtriage.models.base import PermanentModelError, TransientModelError

    assert issubclass(PromptError, ValueError)
    assert issubclass(UnknownStrategyError, ValueError)
    for cls in (PromptError, UnknownStrategyError, PermanentModelError, TransientModelError):
        assert issubclass(cls, RagtriageError)
    assert str(PromptError("bad prompt")) == "bad prompt"
    assert TransientModelError("busy", retry_after=2.0).retry_after == 2.0
