"""Results as data: reading them back and writing JSON (comparing two and gating one
are commands: ``ragtriage.flows``).

No output formatting lives here; everything a person reads is drawn by ``ragtriage.render``.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_PUBLIC = {
    "load_result": "ragtriage.results.load",
    "load_audit": "ragtriage.results.load",
    "write_json": "ragtriage.results.files",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
