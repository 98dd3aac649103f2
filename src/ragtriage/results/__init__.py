"""Results as data: the root types of what the commands produce, reading them back
(``load.py``), the paired statistics of a comparison (``compare.py``) and the gate's bars
and policy (``gate.py``). The commands that run them are ``ragtriage.flows``; no output
formatting lives here, everything a person reads is drawn by ``ragtriage.render``.
"""

from __future__ import annotations

from ragtriage._lazy import lazy_exports

_PUBLIC = {
    "load_result": "ragtriage.results.load",
    "load_audit": "ragtriage.results.load",
    "write_json": "ragtriage.results.files",
    # the root type of each file we write: a run's here (results/run.py), the others
    # beside the stage that fills them
    "AuditResult": "ragtriage.results.run",
    "ConversationsResult": "ragtriage.results.run",
    "RetrievalReport": "ragtriage.retrieval.models",
    "JudgeResult": "ragtriage.judge.types",
    "CalibrationRecord": "ragtriage.calibration.record",
    "Comparison": "ragtriage.results.compare",
    "GateVerdict": "ragtriage.results.gate",
}
__all__ = sorted(_PUBLIC)

__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
