"""The audit as one self-contained HTML file: figures inline, nothing fetched.

Three layers keep hostile corpus text inert. Jinja2 autoescaping is on for every value,
and a ``finalize`` hook strips control characters from each one; the template builds no
event handler, URL or style from data; and a ``Content-Security-Policy`` meta tag
(``default-src 'none'``) forbids script and network access even if an escape is missed.
Figures are PNG data URIs, the only thing the policy lets the page load.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from ragtriage.errors import InputError
from ragtriage.render import plots, views
from ragtriage.render.answers import audit_lines
from ragtriage.render.format import fmt, fmt_estimate
from ragtriage.render.text import strip_controls
from ragtriage.results.run import AuditResult
from ragtriage.triage.models import FAILURES, CaseResult

__all__ = ["CSP", "ExtraPng", "PNG_SIGNATURE", "data_uri", "environment", "render_html"]

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# An extra figure: a PNG file, or (caption, PNG bytes).
ExtraPng = str | Path | tuple[str, bytes]
# Captions of the calibration figures (render.calibration_plots.write_plots), by file stem
CAPTIONS = {
    "confusion": "Calibration: human grade against the rule applied, out of fold",
    "kappa_threshold": "Calibration: kappa against a threshold on the judge score",
    "score_distribution": "Calibration: judge scores of faithful and unfaithful grades",
}


def _finalize(value: object) -> object:
    """Every ``{{ value }}`` passes here before autoescaping: strip control characters. An
    already-escaped ``Markup`` (from ``join``) is cleaned too and stays ``Markup``: removing
    characters cannot create a tag."""
    if isinstance(value, Markup):
        return Markup(strip_controls(str(value), keep_newlines=True))
    if isinstance(value, str):
        return strip_controls(value, keep_newlines=True)
    return value


def environment() -> Environment:
    return Environment(
        loader=PackageLoader("ragtriage.render", "templates"),
        autoescape=True,
        finalize=_finalize,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def data_uri(png: bytes) -> str:
    """A ``data:image/png;base64`` URI (base64 holds no character HTML treats specially)."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _extra(item: ExtraPng) -> tuple[str, bytes]:
    if isinstance(item, tuple):
        caption, png = item
    else:
        path = Path(item)
        try:
            png = path.read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read figure: {exc.strerror}", path=path) from None
        caption = CAPTIONS.get(path.stem, path.stem.replace("_", " "))
    if not png.startswith(PNG_SIGNATURE):
        raise InputError("not a PNG image", path=str(caption))
    return str(caption), png


SINGLE_PANEL_PX = 600  # a calibration figure of one scope (one panel) is ~400-450 px wide


def _png_width(png: bytes) -> int:
    """The image's width in pixels, from its IHDR chunk (bytes 16-20 of any PNG): a
    one-panel figure stays its own size; only several panels take the page's width."""
    return int.from_bytes(png[16:20], "big") if len(png) >= 24 else 0


def _figures(result: AuditResult) -> dict[str, str | None]:
    made = {
        "metrics": plots.metric_bars(result.retrieval),
        "scores": plots.score_distributions(result.retrieval.threshold),
        "failures": plots.failure_breakdown(result),
    }
    return {name: data_uri(png) if png else None for name, png in made.items()}


def _case_view(case: CaseResult) -> dict[str, object]:
    expected = set(case.expected)
    context = set(case.context_ids)
    scores = case.retrieved_scores + [None] * (len(case.retrieved_ids) - len(case.retrieved_scores))
    judge = case.judge
    return {
        "case": case,
        "failed": case.label in FAILURES,
        "retrieved": [
            {
                "rank": i + 1,
                "id": doc,
                "score": fmt(score),
                "relevant": doc in expected,
                "in_context": doc in context,
            }
            for i, (doc, score) in enumerate(zip(case.retrieved_ids, scores, strict=False))
        ],
        "score": fmt(judge.score, 3) if judge else "-",
        "outcome": judge.outcome.value if judge else "not judged",
        "claims": judge.claims if judge else [],
        "judge_reason": judge.reason if judge else "",
        "answer_parts": _marked(case.answer, [e.sentence for e in case.causes if e.sentence]),
        "causes": [{"e": e, "where": views.chunk_words(e)} for e in case.causes],
    }


def _marked(answer: str, sentences: list[str]) -> list[tuple[str, bool]]:
    """The answer cut into ``(text, failing)`` pieces, so the page marks each failing
    sentence where it stands (a sentence not found verbatim is shown in the causes only)."""
    spans = sorted({(i, i + len(s)) for s in sentences if s and (i := answer.find(s)) >= 0})
    out, at = [], 0
    for start, end in spans:
        if start < at:  # overlapping sentences: the first one marked
            continue
        out += [(answer[at:start], False), (answer[start:end], True)]
        at = end
    out.append((answer[at:], False))
    return [(text, failing) for text, failing in out if text]


def render_html(result: AuditResult, extra_pngs: Iterable[ExtraPng] = ()) -> str:
    """The whole report as one HTML string; ``extra_pngs`` (PNG paths or ``(caption, bytes)``,
    e.g. the calibration's confusion matrix) go in the calibration section."""
    counts = views.ordered_counts(result)
    extras = [
        {"caption": c, "uri": data_uri(png), "wide": _png_width(png) > SINGLE_PANEL_PX}
        for c, png in map(_extra, extra_pngs)
    ]
    template = environment().get_template("report.html.j2")
    return template.render(
        csp=CSP,
        r=result,
        notices=views.audit_notices(result),
        counts=[(views.LABEL_TITLES[label], label.value, n) for label, n in counts.items()],
        title=views.audit_title(result),
        calibration_source=views.calibration_source(result.calibration.source),
        gate_line=views.gate_line(result),
        answer_check=views.answer_check_line(result),
        answers=audit_lines(result),
        assumed=views.assumptions_line(result),
        recorded=views.recorded_line(result),
        caveats=views.caveats(result),
        few_grades=views.few_grades_words(result),
        judge_words=views.judge_words(result),
        mismatch_first=views.MISMATCH_FIRST if result.meaningless else None,
        gate_fails=views.gate_fails(result),
        decision=views.decision_words(result),
        stale=views.stale_message(result),
        leads=views.lead_messages(result),
        figures=_figures(result),
        extras=extras,
        clusters=views.ordered_clusters(result),
        cases=[_case_view(c) for c in views.ordered_cases(result)],
        fmt=fmt,
        fmt_estimate=fmt_estimate,
        threshold_line=views.threshold_line(result.retrieval),
        unanswerable_line=views.unanswerable_line(result.retrieval),
    )
