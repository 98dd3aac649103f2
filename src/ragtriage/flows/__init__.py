"""One module per command: its config, its ``run`` and its result.

``audit`` (``audit_api``: the same from Python values), ``retrieval``, ``judge``,
``calibrate``, ``compare``, ``gate``, ``golden`` (split, check, add), ``annotate`` and
``doctor`` each
run a command without the command line, so ``cli/`` only turns options into a config and
a result into output (through ``render/``). A config's fields are declared once with
their help, default and range (``config.py``); the command line is derived from them.
The public face: the configs below, and ``run`` of each module.
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
    "GateVerdict": "ragtriage.flows.gate",
    "JudgeCalibration": "ragtriage.flows.calibrate",
    "Comparison": "ragtriage.flows.compare",
}
__all__ = sorted(_PUBLIC)

__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
