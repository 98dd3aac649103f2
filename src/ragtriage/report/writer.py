"""Write the human-readable reports of an audit next to its ``results.json``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ragtriage.atomic import write_atomic
from ragtriage.report.html import ExtraPng, render_html
from ragtriage.report.markdown import render_markdown
from ragtriage.triage.models import AuditResult


def write_reports(
    result: AuditResult, out_dir: str | Path, extra_pngs: Iterable[ExtraPng] = ()
) -> dict[str, Path]:
    """Write ``report.md`` (for a pull-request comment) and ``report.html`` (self-contained)
    into ``out_dir``, each atomically; returns ``{"markdown": path, "html": path}``.

    ``extra_pngs`` are PNG paths or ``(caption, bytes)`` pairs shown in the HTML report's
    calibration section, e.g. the confusion matrix from ``calibration.plots.write_plots``.
    """
    out = Path(out_dir)
    html = render_html(result, extra_pngs)  # render both before writing either
    markdown = render_markdown(result)
    return {
        "markdown": write_atomic(out / "report.md", markdown),
        "html": write_atomic(out / "report.html", html),
    }
