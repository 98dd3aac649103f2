"""``ragtriage.audit(...)``: the whole audit from Python, returning the result object.

The golden set and the traces are paths, or lists of dicts in the same shapes as the
files. Lists are written to a private temporary folder and read back through the very
loaders the command line uses, so a bad row gets the same error (naming the row as a line
of ``golden.jsonl`` or ``traces.jsonl``) and the same validation as a file would.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ragtriage.triage.audit import AuditConfig
from ragtriage.triage.audit import audit as run_config
from ragtriage.triage.models import AuditResult

__all__ = ["audit"]

Rows = Sequence[Mapping[str, Any]]


def audit(
    golden: str | Path | Rows, traces: str | Path | Rows | None = None, **options: Any
) -> AuditResult:
    """Audit a RAG system; ``options`` are :class:`AuditConfig`'s fields (``judge``,
    ``generator``, ``context_k``, ``limit``, ``cache``...). Without ``traces`` the embedded
    BM25 retriever and generator run on the golden set's corpus."""
    with tempfile.TemporaryDirectory(prefix="ragtriage-") as tmp:
        config = AuditConfig(
            golden=_as_path(golden, Path(tmp) / "golden.jsonl"),
            traces=None if traces is None else _as_path(traces, Path(tmp) / "traces.jsonl"),
            **options,
        )
        return run_config(config)


def _as_path(source: str | Path | Rows, target: Path) -> Path:
    if isinstance(source, str | Path):
        return Path(source)
    lines = (json.dumps(dict(row), ensure_ascii=False) + "\n" for row in source)
    target.write_text("".join(lines), encoding="utf-8")
    return target
