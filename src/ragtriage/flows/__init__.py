"""One module per command, holding its config and the function that runs it; ``config.py``
declares the settings they share and ``engine.py`` the one run of audits and conversations.

Each runs a command without the command line, so ``cli/`` only turns options into a
config and a result into output (through ``render/``): ``retrieval.run``, ``judge.run``,
``calibrate.run``, ``compare.run``, ``gate.run``, ``annotate.run``, ``audit.run``,
``conversations.run`` (``audit``, ``conversations`` and ``judge`` have ``arun``, the
coroutine ``run`` runs to its end; ``ragtriage.api``: the Python face, writing what the
command writes with ``out=``), ``golden.split.run``,
``golden.check.run``, ``golden.add.run`` and ``doctor.run``. The results they return live
in the packages below: ``ragtriage.results`` (calibrate, compare, gate, golden split and
add; ``run.py``: ``AuditResult``, ``ConversationsResult``), ``retrieval``
(``RetrievalReport``), ``judge`` (``JudgeRun``) and ``data`` (golden check's
``CheckReport``). A config's fields are declared once with their help, default and range
(``config.py``); the command line is derived from them. The public face: the names below
(configs and results), imported lazily.
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
