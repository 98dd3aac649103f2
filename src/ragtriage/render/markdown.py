"""The audit as a pull-request comment (GitHub-flavoured markdown).

Everything that came from the corpus, the queries, the answers, ids or tags goes through
:func:`escape`: markdown and HTML specials are neutralised and control characters
stripped, so a hostile chunk cannot inject a link, an image, raw HTML, a heading, a
mention or an extra table column into the comment.
"""

from __future__ import annotations

import re

from ragtriage.render import views
from ragtriage.render.answers import audit_lines
from ragtriage.render.compare import figures, flip_summary, key_tag_diffs, label_line, verdict
from ragtriage.render.format import fmt, fmt_estimate, signed
from ragtriage.render.notices import texts as notice_texts
from ragtriage.render.text import clean
from ragtriage.results.compare import Comparison
from ragtriage.results.run import AuditResult
from ragtriage.triage.cause_types import CAUSE_ACTIONS

__all__ = [
    "MAX_CASES",
    "MAX_CLUSTERS",
    "ANSWER_CHARS",
    "QUERY_CHARS",
    "REASON_CHARS",
    "escape",
    "render_comparison_markdown",
    "render_markdown",
    "table",
]

MAX_CASES = 15
MAX_TAG_ROWS = 40
MAX_CLUSTERS = 20
QUERY_CHARS = 120
REASON_CHARS = 200
ANSWER_CHARS = 300

# Only what markdown would act on is escaped, with a backslash (CommonMark lets any ASCII
# punctuation be escaped, GFM tables honour ``\|``), so the comment read raw stays
# readable (``min_sentence_lexical >= 0.6464``, not ``min\_sentence\_lexical &gt;= ...``):
# ``<`` (raw HTML, autolinks), ``[`` ``]`` (links and images: with both escaped ``(``,
# ``)`` and ``!`` cannot form one), ``*`` ``~`` `````, ``\``, ``|`` (an extra table
# column), ``_`` at a word's edge (inside a word it cannot emphasise), ``&`` that starts
# an entity, ``#`` before a digit (an issue reference on GitHub) and a block marker at the
# start of the text. An ``@`` that could start a mention gets a word joiner after it, so
# "@org/team" in the data notifies no one (``recall@5``, after a letter, is left alone).
_ALWAYS = re.compile(r"[\\`*\[\]|~<]")
_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_ISSUE_REF = re.compile(r"#(?=\d)")
_BLOCK_START = re.compile(
    r"^(?:#{1,6}(?=\s|$)|>|[-+](?=\s|$)|\d+(?=[.)](?:\s|$))|(?=[-=\s]+$)[-=])"
)
_MENTION = re.compile(r"(?<![\w])@")
# GitHub also links bare URLs, www. hosts and e-mail addresses (GFM's autolink extension):
# a word joiner after the scheme, the "www" or the "@" of an address breaks the pattern
# and shows the same text
_AUTOLINK = re.compile(r"(?i)\b(?:https?|ftp)(?=:)|\bwww(?=\.)|(?<=[\w.+-])@(?=[\w-]+\.\w)")


def escape(text: object, limit: int | None = None) -> str:
    """One line of untrusted text as inert markdown (shortened to ``limit`` first)."""
    escaped = _ALWAYS.sub(lambda m: "\\" + m.group(0), clean(text, limit))
    for pattern in (_EDGE_UNDERSCORE, _ENTITY, _ISSUE_REF):
        escaped = pattern.sub(lambda m: "\\" + m.group(0), escaped)
    escaped = _BLOCK_START.sub(lambda m: _block(m.group(0)), escaped)
    escaped = _AUTOLINK.sub(lambda m: m.group(0) + "\u2060", escaped)
    return _MENTION.sub("@\u2060", escaped)


def _block(marker: str) -> str:
    """``# x`` -> ``\\# x``; ``1. x`` -> ``1\\. x`` (a backslash before the dot)."""
    return marker + "\\" if marker[0].isdigit() else "\\" + marker


def render_markdown(result: AuditResult) -> str:
    """The audit in a few sections, headline first, sized for a pull-request comment."""
    parts = [
        _headline(result),
        _leaks(result),
        _clusters(result),  # what failed, before the figures behind it
        _calibration(result),
        _retrieval(result),
        _generation(result),
        _causes(result),
        _diagnostics(result),
        _cases(result),
        _warnings(result),
    ]
    return "\n\n".join(p for p in parts if p).rstrip() + "\n"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _headline(result: AuditResult) -> str:
    counts = views.ordered_counts(result)
    rows = [[views.LABEL_TITLES[label], str(n)] for label, n in counts.items()]
    gate = f"**{escape(views.gate_line(result))}**"  # what CI will say, before anything else
    assumed = views.assumptions_line(result)
    assumed = f"{escape(assumed)}\n\n" if assumed else ""
    if (recorded := views.recorded_line(result)) is not None:  # whose answers, before any figure
        assumed = f"> [!NOTE]\n> {escape(recorded)}\n\n" + assumed
    # first screen: every faithful decision rests on them
    assumed += "".join(f"> [!WARNING]\n> **{escape(m)}**\n\n" for m in views.lead_messages(result))
    by_label = table(["label", "cases"], rows)
    return f"## {escape(views.audit_title(result))}\n\n{gate}\n\n{assumed}" + by_label


def _caveat(notes: list[str]) -> str:
    """What changes the meaning of the figures that follow, set right above them."""
    if not notes:
        return ""
    return "> [!WARNING]\n> " + escape("These figures: " + "; ".join(notes) + ".") + "\n\n"


def _leaks(result: AuditResult) -> str:
    section = result.retrieval.leaks
    if section is None or not section.n_leaking:
        return ""
    lines = [
        f"> [!CAUTION]\n> **Access control: {section.n_leaking} of "
        f"{section.n_cases_checked} checked cases retrieved a forbidden chunk in the "
        f"top {section.k}.**"
    ]
    lines += [
        f"> - {escape(leak.query_id, 60)}: {escape(leak.forbidden_id, 60)} at rank {leak.rank}"
        for leak in section.cases[:MAX_CASES]
    ]
    return "\n".join(lines)


def _calibration(result: AuditResult) -> str:
    cal = result.calibration
    lines = []
    message = views.stale_message(result)
    if message:
        lines.append(f"> [!WARNING]\n> **{escape(message)}**\n")
    lines.append("### Calibration")
    lines.append(f"- record: {escape(views.calibration_source(cal.source), 120)}")
    few = views.few_grades_words(result)
    kappa = fmt_estimate(cal.kappa) + (f" ({few})" if few else "")
    lines.append(f"- decision: {escape(views.decision_words(result))}; kappa: {kappa}")
    if cal.note:
        lines.append(f"- note: {escape(cal.note, REASON_CHARS)}")
    return "\n".join(lines)


def _retrieval(result: AuditResult) -> str:
    report = result.retrieval
    rows = [
        [escape(a.metric), fmt(a.mean), f"{fmt(a.low)} to {fmt(a.high)}", str(a.n)]
        for a in report.aggregates
    ]
    title = f"### Stage 1: retrieval ({report.n_answerable} answerable queries)"
    caveat = _caveat(views.caveats(result)["retrieval"])
    text = title + "\n\n" + caveat + table(["metric", "mean", "95% CI", "n"], rows)
    for line in (views.threshold_line(report), views.unanswerable_line(report)):
        if line:
            text += f"\n\n{escape(line)}"
    return text


def _generation(result: AuditResult) -> str:
    gen = result.generation
    outcomes = ", ".join(f"{escape(k)} {v}" for k, v in sorted(gen.outcomes.items()))
    rows = [
        ["naive (judge at face value)", fmt_estimate(gen.naive_faithful_rate)],
        ["corrected (prediction-powered)", fmt_estimate(gen.corrected_faithful_rate)],
    ]
    note = f"\n\nCorrected rate {escape(gen.corrected_note)}" if gen.corrected_note else ""
    for line in audit_lines(result):
        note += "\n\n" + escape(line)
    notes = views.caveats(result)
    if notes["corrected"]:
        rows[1][1] += " (" + escape("; ".join(notes["corrected"])) + ")"
    return (
        f"### Stage 2: generation ({gen.n_judged} answers judged; {outcomes or 'no outcomes'})"
        "\n\n"
        + _caveat(notes["generation"])
        + table(["faithful rate", "estimate [95% CI]"], rows)
        + note
    )


def _clusters(result: AuditResult) -> str:
    if not result.clusters:
        return ""
    ordered = views.ordered_clusters(result)
    rows = [
        [escape(c.label.value), escape(c.cause.value) if c.cause else "-", escape(c.tag, 60),
         str(c.count), escape(c.action, REASON_CHARS)]
        for c in ordered[:MAX_CLUSTERS]
    ]  # fmt: skip
    first = f"{escape(views.MISMATCH_FIRST)}\n\n" if result.meaningless else ""
    header = ["stage", "cause", "tag", "cases", "suggested action"]
    text = "### Failure clusters\n\n" + first + table(header, rows)
    if len(ordered) > MAX_CLUSTERS:
        text += f"\n\n{len(ordered) - MAX_CLUSTERS} more clusters in the HTML report."
    return text


def _causes(result: AuditResult) -> str:
    """Generation failures grouped by primary cause, each with its action and, per case,
    the failing sentence and the chunk it aligns with (or "no chunk")."""
    groups = views.causes_by_primary(result)
    check = views.answer_check_line(result)
    if not groups and check is None:
        return ""
    lines = ["### Generation failures by cause"]
    if check is not None:
        lines.append(f"\n{escape(check)}")
    for cause, cases in groups:
        lines.append(
            f"\n**{escape(cause.value)}** ({len(cases)}): {escape(CAUSE_ACTIONS[cause])}\n"
        )
        for case in cases[:MAX_CASES]:
            lines.append(
                f"- {escape(case.case_id, 40)}: {escape(views.evidence_line(case), REASON_CHARS)}"
            )
        if len(cases) > MAX_CASES:
            lines.append(f"- ... {len(cases) - MAX_CASES} more in the HTML report")
    return "\n".join(lines)


def _diagnostics(result: AuditResult) -> str:
    diag = result.diagnostics
    if diag is None:
        return ""
    rows = [[escape(name), fmt_estimate(est)] for name, est in diag.run.items()]
    return (
        f"### RAGChecker diagnostics ({diag.n} cases with a reference answer)\n\n"
        + table(["diagnostic", "mean [95% CI]"], rows)
        + f"\n\nEntailment: {escape(diag.entailment)}; relevant chunks are the golden ones."
    )


def _cases(result: AuditResult) -> str:
    cases = views.ordered_cases(result)[:MAX_CASES]
    if not cases:
        return ""
    rows = [  # a failed case is read by its answer
        [escape(c.case_id, 40), escape(c.label.value), escape(c.query, QUERY_CHARS),
         escape(c.answer, ANSWER_CHARS) or "-", escape(c.reason, REASON_CHARS)]
        for c in cases
    ]  # fmt: skip
    more = len(result.cases) - len(cases)
    header = ["case", "label", "query", "answer", "reason"]
    text = "### Cases, worst first\n\n" + table(header, rows)
    plural = "case" if more == 1 else "cases"
    return text + (f"\n\n{more} more {plural} in the HTML report." if more > 0 else "")


def _warnings(result: AuditResult) -> str:
    warnings = views.audit_notices(result)
    if not warnings:
        return ""
    return "### Warnings\n\n" + "\n".join(f"- {escape(w, REASON_CHARS)}" for w in warnings)


def _diff_rows(diffs, tagged: bool = False) -> list[list[str]]:
    rows = []
    for d in diffs:
        interval = "-" if d.low is None else f"{signed(d.low)} to {signed(d.high)}"
        shown = f"**{interval}**" if d.real() else interval
        tag = [escape(d.tag, 60)] if tagged else []
        rows.append([*tag, escape(d.name), *figures(d), shown, fmt(d.p_value), fmt(d.p_holm)])
    return rows


def render_comparison_markdown(comparison: Comparison, max_flips: int = 30) -> str:
    """``ragtriage compare`` as markdown for the same comment; an interval is bold when the
    difference is real (``Diff.real``: why both tests, results/compare.py)."""
    header = ["metric", "n", "base", "candidate", "diff", "95% CI", "p", "p (Holm)"]
    parts = [f"### Compared with the baseline ({comparison.n_common} queries in common)"]
    # our own sentences, whole: cut at 200 characters they ended mid-name
    parts += [f"> [!WARNING]\n> {escape(w)}" for w in notice_texts(comparison.warnings)]
    parts.append(f"**Verdict:** {escape(verdict(comparison), REASON_CHARS)}")
    if (labels := label_line(comparison)) is not None:
        parts.append(escape(labels))
    parts.append("#### Retrieval metrics\n\n" + table(header, _diff_rows(comparison.metrics)))
    if comparison.rates:
        parts.append("#### Audit rates\n\n" + table(header, _diff_rows(comparison.rates)))
    if comparison.diagnostics:
        parts.append(
            "#### RAGChecker diagnostics (paired over cases; noise sensitivity and "
            "hallucination are better lower)\n\n"
            + table(header, _diff_rows(comparison.diagnostics))
        )
    tags = key_tag_diffs(comparison)
    if tags:
        shown = tags[:MAX_TAG_ROWS]
        rest = len(tags) - len(shown)
        parts.append(
            "#### Per tag\n\n"
            + table(["tag", *header], _diff_rows(shown, tagged=True))
            + (f"\n\n{rest} more tag rows in --output" if rest > 0 else "")
        )
    if comparison.kind != "retrieval":  # an audit's cases, a conversations result's turns
        flips = [
            f"- {escape(f.case_id, 60)}: {f.old.value} -> {f.new.value}"
            for f in comparison.flips[:max_flips]
        ]
        more = len(comparison.flips) - len(flips)
        parts.append(
            f"Label flips: {flip_summary(comparison)}"
            + ("\n\n" if flips else "")
            + "\n".join(flips)
            + (f"\n- ... {more} more" if more > 0 else "")
        )
    return "\n\n".join(parts) + "\n"
