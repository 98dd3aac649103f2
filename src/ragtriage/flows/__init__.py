"""One module per command: its config and the function that runs it (its result's type
lives in ``ragtriage.results``).

Each runs a command without the command line, so ``cli/`` only turns options into a
config and a result into output (through ``render/``): ``retrieval.run``, ``judge.run``,
``calibrate.run``, ``compare.run``, ``gate.run``, ``annotate.run``, ``audit.run`` and
``conversations.run`` (``audit``, ``conversations`` and ``judge`` have ``arun``, the
coroutine ``run`` runs to its end; ``audit_api.audit``: the audit from
Python values, writing what the command writes with ``out=``);
``golden.split.run``, ``golden.check.run`` and ``golden.add.run``; ``doctor.run``. A
config's fields are declared once with their help, default and range (``config.py``); the command
line is derived from them. The public face: the names below (configs and results),
imported lazily.
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
