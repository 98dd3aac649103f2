"""The Python face, beside the command line: every entry a caller runs from Python.

``ragtriage`` re-exports these names. Each composes a command's flow (``flows/``) with
what writes its files (``render/writer.py``), as the command in ``cli/`` does, so
``out=`` writes exactly the files the command writes; this module and ``cli/`` are the
top layer (``tests/test_layers.py``).

* :func:`audit`: both stages and one label per golden case (``ragtriage audit``);
* :func:`conversations`: the same engine, turn by turn with history (``ragtriage
  conversations``);
* :func:`compare`: two results paired (``ragtriage compare``), from results or files;
* :func:`calibrate`, :func:`evaluate_retrieval`, :func:`judge_faithfulness`: calibration
  on human grades, stage 1 alone, stage 2 alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragtriage.atomic import output_dir, output_file
from ragtriage.data.containers import as_source
from ragtriage.flows import audit as audit_flow
from ragtriage.flows import conversations as conversations_flow
from ragtriage.flows.calibrate import calibrate
from ragtriage.judge.api import judge_faithfulness
from ragtriage.render.writer import (
    audit_paths,
    check_audit_folder,
    write_audit,
    write_conversations,
)
from ragtriage.results import compare as comparing
from ragtriage.results.load import Result, load_result
from ragtriage.results.run import AuditResult, ConversationsResult
from ragtriage.retrieval.evaluate import evaluate_retrieval

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Rows",
    "audit",
    "calibrate",
    "compare",
    "conversations",
    "evaluate_retrieval",
    "judge_faithfulness",
]

Rows = Sequence[Mapping[str, Any]]


def audit(
    golden: str | Path | Rows | pd.DataFrame,
    traces: str | Path | Rows | pd.DataFrame | None = None,
    *,
    out: str | Path | None = None,
    **options: Any,
) -> AuditResult:
    """Audit a RAG system; ``options`` are :class:`~ragtriage.flows.audit.AuditConfig`'s
    fields (``judge``, ``generator``, ``context_k``, ``limit``, ``cache``...). The golden
    set and traces are paths, lists of dicts in the files' shapes, DataFrames or a ragas
    ``EvaluationDataset`` (another tool's rows recognised as its file would be); they go
    through the very loaders the command line uses (``data.containers.as_source``), and
    a bad row is named by its position or DataFrame index. Without ``traces`` the embedded
    BM25 retriever and generator run on the golden set's corpus. ``out``: a folder to
    write ``results.json``, ``report.md``, ``report.html`` and the calibration's plots
    into, as ``ragtriage audit --out`` does (refused before any work when it cannot be
    written)."""
    if out is not None:
        check_audit_folder(Path(out), "out")
    if options.get("cache") is not None:
        output_file(Path(options["cache"]), "cache")
    config = audit_flow.AuditConfig(
        golden=as_source(golden, "golden"),
        traces=None if traces is None else as_source(traces, "traces"),
        **options,
    )
    folder = None if out is None else Path(out)
    return audit_flow.run(config, out=folder, write=write_audit)


def conversations(
    golden: str | Path,
    traces: str | Path,
    *,
    out: str | Path | None = None,
    **options: Any,
) -> ConversationsResult:
    """Audit a multi-turn system turn by turn; ``options`` are
    :class:`~ragtriage.flows.conversations.ConversationsConfig`'s fields (``judge``,
    ``calibration``, ``probe_k``, ``cache``...). ``out``: a folder to write
    ``results.json``, ``report.md`` and ``report.html`` into, as ``ragtriage
    conversations --out`` does (refused before any work when it cannot be written)."""
    if out is not None:
        output_dir(Path(out), "out", [p.name for p in audit_paths(Path(out)).values()])
    if options.get("cache") is not None:
        output_file(Path(options["cache"]), "cache")
    config = conversations_flow.ConversationsConfig(
        golden=Path(golden), traces=Path(traces), **options
    )
    folder = None if out is None else Path(out)
    # written by the flow, as an audit's are; no calibration plots, so no record
    return conversations_flow.run(config, folder, lambda made, _, to: write_conversations(made, to))


def compare(
    base: Result | str | Path, candidate: Result | str | Path, **options: Any
) -> comparing.Comparison:
    """Two results paired (``ragtriage compare``): audits, conversations results (per turn
    and per conversation), retrieval reports, or their files (``results.json``, a
    retrieval report); ``options``: ``seed``, ``resamples``, ``permutations``."""
    return comparing.compare(_result(base), _result(candidate), **options)


def _result(value: Result | str | Path) -> Result:
    return load_result(value) if isinstance(value, str | Path) else value
