"""Results as data: reading them back and writing JSON (comparing two and gating one
are commands: ``ragtriage.flows``).

No output formatting lives here; everything a person reads is drawn by ``ragtriage.render``.
"""

from __future__ import annotations

from ragtriage._lazy import lazy_exports

_PUBLIC = {
    "load_result": "ragtriage.results.load",
    "load_audit": "ragtriage.results.load",
    "write_json": "ragtriage.results.files",
}
__all__ = sorted(_PUBLIC)

__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
