"""``ragtriage conversations``: the terminal summary, report.md and report.html.

Conversations are shown as threads: each turn's user message, the rewritten query, what
reached the generator, the answer and its label; a conversation's first failing turn is
opened (``<details open>`` in the page), the others folded. Untrusted text stays inert
as in the audit's reports (render/markdown.escape, the page's autoescaping and CSP).
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ragtriage.render.answers import matrix_line
from ragtriage.render.format import fmt
from ragtriage.render.html import CSP, environment
from ragtriage.render.markdown import escape
from ragtriage.render.markdown import table as markdown_table
from ragtriage.render.notices import lines as notice_lines
from ragtriage.render.notices import texts as notice_texts
from ragtriage.render.text import shorten
from ragtriage.results.run import ConversationsResult
from ragtriage.triage.conversations import ConversationSummary, TurnResult

__all__ = ["SLICE_METRICS", "conversations_summary", "render_html", "render_markdown"]

SLICE_METRICS = ("recall@{k}", "mrr", "ndcg@10")


def _metrics(result: ConversationsResult) -> list[str]:
    k = result.config.context_k
    names = [m.format(k=k) for m in SLICE_METRICS]
    have = set(result.slices[0].means) if result.slices else set()
    return [m for m in names if m in have]


def headline(result: ConversationsResult) -> str:
    """The counts, led by what makes them meaningless (as an audit's headline is)."""
    counts = ", ".join(f"{label} {n}" for label, n in result.counts.items())
    failing = sum(c.first_failing_turn is not None for c in result.conversations)
    lead = "".join(f"MEANINGLESS: {reason}; " for reason in result.meaningless.values())
    return lead + (
        f"{len(result.conversations)} conversations, {len(result.turns)} turns: {counts}; "
        f"{failing} conversations have a failing turn"
    )


def _matrix(result: ConversationsResult) -> str | None:
    """The answer-or-abstain line: its own line in every output (Markdown and HTML would
    run a newline inside the headline into it)."""
    return matrix_line(result.answer_matrix, result.counts.get("unsure", 0))


def _slice_rows(result: ConversationsResult) -> list[list[str]]:
    names = _metrics(result)
    return [
        [s.slice, str(s.n_turns), str(s.n_answerable), *(fmt(s.means.get(m)) for m in names)]
        for s in result.slices
    ]


def conversations_summary(result: ConversationsResult, console: Console) -> None:
    console.print(Text(headline(result), style="bold"))
    if matrix := _matrix(result):
        console.print(Text(matrix))
    for said, style in notice_lines(result.warnings):  # lead notices by the headline
        console.print(Text(said, style=style))
    console.print(f"traces: {result.traces.format}; calibration: {result.calibration.note}")
    names = _metrics(result)
    console.print("retrieval per turn (slice, turns, answerable, " + ", ".join(names) + "):")
    for row in _slice_rows(result):
        console.print("  " + "  ".join(row))
    for conv in result.conversations:
        if conv.first_failing_turn is None:
            continue
        turn = _turn(result, conv.conversation_id, conv.first_failing_turn)
        line = Text(f"  {conv.conversation_id} turn {turn.turn} [{turn.label.value}]: ")
        line.append(shorten(turn.case.query, 60))
        line.append(f" - {turn.reason}", style="dim")
        console.print(line)


def _turn(result: ConversationsResult, conv: str, number: int) -> TurnResult:
    return next(t for t in result.turns if t.conversation_id == conv and t.turn == number)


def _threads(result: ConversationsResult) -> list[tuple[ConversationSummary, list[TurnResult]]]:
    turns: dict[str, list[TurnResult]] = {}
    for turn in result.turns:
        turns.setdefault(turn.conversation_id, []).append(turn)
    return [(conv, turns.get(conv.conversation_id, [])) for conv in result.conversations]


def render_markdown(result: ConversationsResult) -> str:
    names = _metrics(result)
    parts = [f"## ragtriage conversations\n\n{escape(headline(result))}"]
    if matrix := _matrix(result):
        parts.append(escape(matrix))
    if result.warnings:
        parts.append(
            "\n".join(f"- **warning:** {escape(w)}" for w in notice_texts(result.warnings))
        )
    rows = [[escape(c) for c in row] for row in _slice_rows(result)]
    table = markdown_table(["slice", "turns", "answerable", *names], rows)
    parts.append("### Retrieval per turn\n\n" + table)
    threads = ["### Conversations"]
    for conv, turns in _threads(result):
        labels = " ".join(label.value for label in conv.labels)
        first = (f"first failing turn {conv.first_failing_turn} ({conv.first_failing_label})"
                 if conv.first_failing_turn else "no failing turn")  # fmt: skip
        threads.append(f"\n**{escape(conv.conversation_id)}**: {labels}; {escape(first)}\n")
        for turn in turns:
            mark = "**" if turn.turn == conv.first_failing_turn else ""
            threads.append(
                f"{turn.turn}. {mark}[{turn.label.value}]{mark} {escape(turn.case.query, 120)}"
                f" - {escape(turn.reason, 200)}"
            )
    parts.append("\n".join(threads))
    return "\n\n".join(parts) + "\n"


def render_html(result: ConversationsResult) -> str:
    template = environment().get_template("conversations.html.j2")
    names = _metrics(result)
    threads = [{"summary": conv, "turns": turns} for conv, turns in _threads(result)]
    return template.render(
        csp=CSP,
        headline=headline(result),
        matrix=_matrix(result),
        warnings=notice_texts(result.warnings),
        metrics=names,
        slices=_slice_rows(result),
        threads=threads,
        calibration=result.calibration.note,
        traces_format=result.traces.format,
    )
