"""A run's files, as the command line and ``out=`` from Python write them: ``results.json``
with the reports beside it, and for an audit the plots of the calibration it was decided by."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ragtriage.atomic import output_dir, write_atomic_set
from ragtriage.calibration.record import CalibrationRecord
from ragtriage.errors import InputError
from ragtriage.render.calibration_plots import write_plots
from ragtriage.render.html import ExtraPng, render_html
from ragtriage.render.markdown import render_markdown
from ragtriage.results.files import json_bytes
from ragtriage.results.run import AuditResult, ConversationsResult

__all__ = [
    "audit_paths",
    "check_audit_folder",
    "write_audit",
    "write_conversations",
    "write_reports",
]


def audit_paths(out: Path) -> dict[str, Path]:
    """What :func:`write_audit` writes into ``out``, by name (the plots aside)."""
    return {
        "results": out / "results.json",
        "markdown": out / "report.md",
        "html": out / "report.html",
    }


def check_audit_folder(out: Path, option: str) -> None:
    """Refuse, before any work, a folder :func:`write_audit` could not write into (the
    command line and ``ragtriage.audit(out=...)`` alike)."""
    output_dir(out, option, [path.name for path in audit_paths(out).values()])
    output_dir(out / "calibration", option)  # where a calibration's plots go


def write_audit(
    result: AuditResult, record: CalibrationRecord | None, out: Path
) -> dict[str, Path]:
    """``results.json``, ``report.md`` and ``report.html`` as one all-or-nothing set; the
    plots of ``record``, written first into ``out/calibration``, go into the HTML."""
    pngs: list[Path] = []
    if record is not None:
        try:
            pngs = write_plots(record, out / "calibration")
        except OSError as exc:  # e.g. a directory where a PNG goes
            raise InputError(
                f"cannot write the calibration plots: {exc.strerror or exc}",
                path=exc.filename or out / "calibration",
                field="--out",
            ) from None
    write_reports(result, out, extra_pngs=pngs, extra_files={"results.json": json_bytes(result)})
    return audit_paths(out)


def write_reports(
    result: AuditResult,
    out_dir: str | Path,
    extra_pngs: Iterable[ExtraPng] = (),
    extra_files: Mapping[str, str | bytes] | None = None,
) -> dict[str, Path]:
    """``report.md`` and ``report.html`` written into ``out_dir`` as one all-or-nothing set
    with ``extra_files`` (name -> content, e.g. ``results.json``), so a failure never leaves
    new reports beside an old result; ``extra_pngs``: see :func:`render_html`."""
    out = Path(out_dir)
    html = render_html(result, extra_pngs)  # render everything before writing anything
    markdown = render_markdown(result)
    files = {out / name: content for name, content in (extra_files or {}).items()}
    files |= {out / "report.md": markdown, out / "report.html": html}
    write_atomic_set(files)
    return {"markdown": out / "report.md", "html": out / "report.html"}


def write_conversations(result: ConversationsResult, out: Path) -> dict[str, Path]:
    """``results.json``, ``report.md`` and ``report.html`` of a conversations run, as one
    all-or-nothing set."""
    from ragtriage.render import conversations as views

    paths = audit_paths(out)
    write_atomic_set(
        {
            paths["results"]: json_bytes(result),
            paths["markdown"]: views.render_markdown(result),
            paths["html"]: views.render_html(result),
        }
    )
    return paths
