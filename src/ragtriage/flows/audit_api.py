"""``ragtriage.audit(...)``: the whole audit from Python, returning the result object.

The golden set and the traces are paths, lists of dicts in the same shapes as the files,
pandas DataFrames with those columns (list columns as lists or arrays; a missing value
is an absent field), or a ragas ``EvaluationDataset`` (with the ``ragas`` extra). Rows in
another tool's shape (ragas samples, a Phoenix spans DataFrame) are recognised as a file
of that shape would be; ``columns=`` maps other column names onto ours. Rows go through
the very loaders the command line uses (``data.containers.as_source``), so a bad row gets
the same validation as a file would; its error names the caller's row by its position
(or DataFrame index): ``<golden given in Python>:3: field 'query': ...``. With ``out=``
the audit writes the files ``ragtriage audit --out`` writes (``render.writer.write_audit``):
this module is the Python face's composition of the flow and its writer, as
``cli/audit.py`` is the command line's, and the one ``flows`` module the layer test lets
import ``render`` (its writer).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragtriage.atomic import output_file
from ragtriage.calibration.record import CalibrationRecord
from ragtriage.data.containers import as_source
from ragtriage.flows.audit import AuditConfig
from ragtriage.flows.audit import run as run_config
from ragtriage.triage.models import AuditResult

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["audit"]

Rows = Sequence[Mapping[str, Any]]


def audit(
    golden: str | Path | Rows | pd.DataFrame,
    traces: str | Path | Rows | pd.DataFrame | None = None,
    *,
    out: str | Path | None = None,
    **options: Any,
) -> AuditResult:
    """Audit a RAG system; ``options`` are :class:`AuditConfig`'s fields (``judge``,
    ``generator``, ``context_k``, ``limit``, ``cache``...). Without ``traces`` the embedded
    BM25 retriever and generator run on the golden set's corpus. ``out``: a folder to
    write ``results.json``, ``report.md``, ``report.html`` and the calibration's plots
    into, as ``ragtriage audit --out`` does (refused before any work when it cannot be
    written, as the command line refuses it)."""
    if out is not None:
        from ragtriage.render.writer import check_audit_folder  # the composition: see above

        check_audit_folder(Path(out), "out")
    if options.get("cache") is not None:
        output_file(Path(options["cache"]), "cache")
    config = AuditConfig(
        golden=as_source(golden, "golden"),
        traces=None if traces is None else as_source(traces, "traces"),
        **options,
    )

    def write(result: AuditResult, record: CalibrationRecord | None, folder: Path):
        from ragtriage.render.writer import write_audit  # the composition: see above

        return write_audit(result, record, folder)

    return run_config(config, out=None if out is None else Path(out), write=write)
