"""``ragtriage.audit(...)``: the whole audit from Python, returning the result object.

The golden set and the traces are paths, lists of dicts in the same shapes as the files,
pandas DataFrames with those columns (list columns as lists or arrays; a missing value
is an absent field), or a ragas ``EvaluationDataset`` (with the ``ragas`` extra). Rows in
another tool's shape (ragas samples, a Phoenix spans DataFrame) are recognised as a file
of that shape would be; ``columns=`` maps other column names onto ours. Rows are written
to a private temporary folder and read back through the very loaders the command line
uses, so a bad row gets the same error (naming the row as a line of ``golden.jsonl`` or
``traces.jsonl``) and the same validation as a file would.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragtriage.triage.audit import AuditConfig
from ragtriage.triage.audit import audit as run_config
from ragtriage.triage.models import AuditResult

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["audit"]

Rows = Sequence[Mapping[str, Any]]


def audit(
    golden: str | Path | Rows | pd.DataFrame,
    traces: str | Path | Rows | pd.DataFrame | None = None,
    **options: Any,
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


def _as_path(source: str | Path | Rows | pd.DataFrame, target: Path) -> Path:
    if isinstance(source, str | Path):
        return Path(source)
    if hasattr(source, "samples") and hasattr(source, "to_list"):  # ragas EvaluationDataset
        rows: Rows = source.to_list()
    else:
        rows = _frame_rows(source) if hasattr(source, "to_dict") else source
    # default=str: a span's timestamps and the like are recorded, never needed as values
    lines = (json.dumps(dict(row), ensure_ascii=False, default=str) + "\n" for row in rows)
    target.write_text("".join(lines), encoding="utf-8")
    return target


def _frame_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """DataFrame rows as plain JSON values: arrays to lists, missing values left out."""
    return [
        {k: _plain(v) for k, v in row.items() if not _missing(v)}
        for row in frame.to_dict(orient="records")
    ]


def _plain(value: Any) -> Any:
    if hasattr(value, "tolist"):  # numpy arrays and scalars (Parquet list columns)
        value = value.tolist()
    if isinstance(value, list | tuple):  # e.g. a list of span documents, each a dict
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if not _missing(v)}
    return value


def _missing(value: Any) -> bool:
    if value is None:
        return True
    return isinstance(value, float) and value != value  # NaN: pandas' empty cell
