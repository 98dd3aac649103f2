"""Write the human-readable reports of an audit next to its ``results.json``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ragtriage.atomic import write_atomic_set
from ragtriage.render.html import ExtraPng, render_html
from ragtriage.render.markdown import render_markdown
from ragtriage.triage.models import AuditResult

__all__ = ["write_reports"]


def write_reports(
    result: AuditResult,
    out_dir: str | Path,
    extra_pngs: Iterable[ExtraPng] = (),
    extra_files: Mapping[str, str | bytes] | None = None,
) -> dict[str, Path]:
    """Write ``report.md`` (for a pull-request comment) and ``report.html`` (self-contained)
    into ``out_dir`` as one set, all or nothing; returns ``{"markdown": path, "html": path}``.

    ``extra_pngs`` are PNG paths or ``(caption, bytes)`` pairs shown in the HTML report's
    calibration section, e.g. the confusion matrix from ``render.calibration_plots.write_plots``.
    ``extra_files`` (name -> content, e.g. ``results.json``) join the same set, so a failure
    never leaves new reports beside an old result or the other way round.
    """
    out = Path(out_dir)
    html = render_html(result, extra_pngs)  # render everything before writing anything
    markdown = render_markdown(result)
    files = {out / name: content for name, content in (extra_files or {}).items()}
    files |= {out / "report.md": markdown, out / "report.html": html}
    write_atomic_set(files)
    return {"markdown": out / "report.md", "html": out / "report.html"}
