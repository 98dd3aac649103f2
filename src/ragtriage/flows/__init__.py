"""One module per command, holding its config and the function that runs it; ``config.py``
declares the settings they share and ``engine.py`` the one run of audits and conversations.

Each runs a command without the command line, so ``cli/`` only turns options into a
config and a result into output (through ``render/``); which module holds which command's
run is docs/architecture.md, "One home per command"; results live in ``ragtriage.results``
but for ``RetrievalReport`` (``retrieval``), ``JudgeRun`` (``judge``) and golden check's
``CheckReport`` (``data``). The public face: the
names below (configs and results), imported lazily.
"""

from __future__ import annotations

from ragtriage._lazy import lazy_exports

_PUBLIC = {
    "AuditConfig": "ragtriage.flows.audit",
    "RetrievalConfig": "ragtriage.flows.retrieval",
    "JudgeConfig": "ragtriage.flows.judge",
    "CalibrateConfig": "ragtriage.flows.calibrate",
    "CompareConfig": "ragtriage.flows.compare",
    "GateConfig": "ragtriage.flows.gate",
    "GateVerdict": "ragtriage.results.gate",
    "JudgeCalibration": "ragtriage.results.calibrate",
    "Comparison": "ragtriage.results.compare",
}
__all__ = sorted(_PUBLIC)

__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
