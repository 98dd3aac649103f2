"""Stage 2: the faithfulness judge.

``ragtriage.judge.api`` holds the public entry points (``judge_faithfulness``, its async
variant, ``fingerprint``); ``types`` is the result contract shared with calibration and
triage. Nothing heavy (litellm, llama.cpp) is imported until a model is actually used.
"""

from __future__ import annotations

from ragtriage._lazy import lazy_exports

_PUBLIC = {
    "judge_faithfulness": "ragtriage.judge.api",
    "ajudge_faithfulness": "ragtriage.judge.api",
    "fingerprint": "ragtriage.judge.api",
    "JudgeSpec": "ragtriage.judge.spec",
    "JudgeItem": "ragtriage.judge.types",
    "JudgeResult": "ragtriage.judge.types",
    "JudgeFingerprint": "ragtriage.judge.types",
    "Outcome": "ragtriage.judge.types",
    "ContextChunk": "ragtriage.judge.types",
}
__all__ = sorted(_PUBLIC)

__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
