"""``ragtriage.audit(...)``: the whole audit from Python, returning the result object.

The golden set and the traces are paths, lists of dicts in the same shapes as the files,
pandas DataFrames with those columns (list columns as lists or arrays; a missing value
is an absent field), or a ragas ``EvaluationDataset`` (with the ``ragas`` extra). Rows in
another tool's shape (ragas samples, a Phoenix spans DataFrame) are recognised as a file
of that shape would be; ``columns=`` maps other column names onto ours. Rows are written
to a private temporary folder and read back through the very loaders the command line
uses, so a bad row gets the same validation as a file would; its error names the
caller's row (and DataFrame index), not the temporary file, and the result records what
was given, not where it was written. With ``out=`` the audit writes its files through the
``write`` it is given: ``ragtriage.api.audit`` (the Python face, beside the CLI) passes
render's ``write_audit``, as ``cli/audit.py`` does.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragtriage.atomic import output_file
from ragtriage.calibration.record import CalibrationRecord
from ragtriage.errors import InputError
from ragtriage.flows.audit import AuditConfig, AuditWriter
from ragtriage.flows.audit import run as run_config
from ragtriage.results.run import AuditResult

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["audit"]

Rows = Sequence[Mapping[str, Any]]


def audit(
    golden: str | Path | Rows | pd.DataFrame,
    traces: str | Path | Rows | pd.DataFrame | None = None,
    *,
    out: str | Path | None = None,
    write: AuditWriter | None = None,
    **options: Any,
) -> AuditResult:
    """Audit a RAG system from Python values (``ragtriage.api.audit`` passes ``write``,
    render's ``write_audit``, for ``out``); ``options`` are :class:`AuditConfig`'s fields."""
    if options.get("cache") is not None:
        output_file(Path(options["cache"]), "cache")
    with tempfile.TemporaryDirectory(prefix="ragtriage-") as tmp:
        given: dict[str, list[Any]] = {}  # temporary file -> the caller's row labels
        config = AuditConfig(
            golden=_as_path(golden, Path(tmp) / "golden.jsonl", given),
            traces=None if traces is None else _as_path(traces, Path(tmp) / "traces.jsonl", given),
            **options,
        )

        def named(result: AuditResult, record: CalibrationRecord | None, folder: Path):
            assert write is not None  # arun refuses out= without write=
            return write(_without_paths(result, given), record, folder)

        try:
            folder = None if out is None else Path(out)
            result = run_config(config, out=folder, write=named if write else None)
        except InputError as exc:
            raise _as_rows(exc, given) from None
        return _without_paths(result, given)


def _as_path(
    source: str | Path | Rows | pd.DataFrame, target: Path, given: dict[str, list[Any]]
) -> Path:
    if isinstance(source, str | Path):
        return Path(source)
    if hasattr(source, "samples") and hasattr(source, "to_list"):  # ragas EvaluationDataset
        rows: Rows = source.to_list()
    else:
        rows = _frame_rows(source) if hasattr(source, "to_dict") else source
    frame_index = getattr(source, "index", None) if hasattr(source, "to_dict") else None
    labels: list[Any] = list(frame_index) if frame_index is not None else []
    # default=str: a span's timestamps and the like are recorded, never needed as values
    lines = (json.dumps(dict(row), ensure_ascii=False, default=str) + "\n" for row in rows)
    target.write_text("".join(lines), encoding="utf-8")
    given[str(target)] = labels or list(range(len(rows)))
    return target


def _name(path: str) -> str:
    return f"<{Path(path).stem} given in Python>"


def _as_rows(exc: InputError, given: dict[str, list[Any]]) -> InputError:
    """An error about a temporary file, told in the caller's terms: which of their rows
    (and its DataFrame index), not line N of a file they never wrote."""
    if exc.path not in given:
        return exc
    labels = given[exc.path]
    where = ""
    if exc.line is not None and 1 <= exc.line <= len(labels):
        label = labels[exc.line - 1]
        where = f"row {exc.line - 1}" + (f" (index {label!r})" if label != exc.line - 1 else "")
        where += ": "
    return InputError(where + exc.message, path=_name(exc.path), field=exc.field)


def _without_paths(result: AuditResult, given: dict[str, list[Any]]) -> AuditResult:
    """The result with the temporary files' paths replaced by what the caller gave."""

    def named(text: str) -> str:
        for path in given:
            text = text.replace(path, _name(path))
        return text

    golden = result.golden.model_copy(update={"source": named(result.golden.source)})
    traces = result.traces.model_copy(update={"source": named(result.traces.source)})
    judged = result.retrieval.golden  # the retrieval report records its judgments' source
    retrieval = result.retrieval.model_copy(
        update={"golden": {k: named(v) if isinstance(v, str) else v for k, v in judged.items()}}
    )
    settings = result.config.model_dump()
    config = result.config.model_copy(
        update={k: named(v) for k, v in settings.items() if isinstance(v, str)}
    )
    warnings = [w.model_copy(update={"text": named(w.text)}) for w in result.warnings]
    update = {"golden": golden, "traces": traces, "retrieval": retrieval, "config": config}
    return result.model_copy(update={**update, "warnings": warnings})


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
