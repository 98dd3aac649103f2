"""Terminal output of ``ragtriage gate``: one line per verdict, never wrapped (CI logs)."""

from __future__ import annotations

from rich.console import Console

from ragtriage.render.console import print_line
from ragtriage.render.format import count
from ragtriage.render.notices import texts as notice_texts
from ragtriage.render.text import clean
from ragtriage.results.gate import GateVerdict

__all__ = ["MAX_LEAKS", "print_verdict"]

MAX_LEAKS = 20  # leaks listed one a line; the count names them all


def print_verdict(verdict: GateVerdict, out: Console) -> None:
    def say(text: str, style: str) -> None:
        print_line(out, text, style, soft_wrap=True)

    for warning in notice_texts(verdict.provenance):
        say(f"warning: baseline vs this result: {warning}", "yellow")
    if not verdict.checks:
        say(
            "no bars given (--min, --max, --max-drop): checking leaks, staleness and file "
            "mismatches only",
            "",
        )
    for check in verdict.checks:
        say(check.describe(), "green" if check.ok else "bold red")
    if verdict.stale:
        verb = "refusing to pass" if verdict.refused else "gating anyway (--allow-stale)"
        say(
            f"STALE calibration: the judge differs from its calibration in "
            f"{', '.join(verdict.stale)}; {verb}",
            "bold red" if verdict.refused else "yellow",
        )
    if verdict.uncalibrated:
        say(
            "warning: the audit's judge had no calibration record; its decisions used an "
            "uncalibrated threshold (run ragtriage calibrate for this judge)",
            "yellow",
        )
    if verdict.leaks:
        chunks = count(len(verdict.leaks), "forbidden chunk")
        say(f"LEAKS: {chunks} in a top k (access control)", "bold red")
        for leak in verdict.leaks[:MAX_LEAKS]:
            say(
                f"  {clean(leak.query_id, 60)}: {clean(leak.forbidden_id, 60)} at rank {leak.rank}",
                "red",
            )
    for reason in verdict.meaningless:
        verb = "allowed by --on-mismatch warn" if verdict.mismatch_allowed else "refusing to pass"
        style = "yellow" if verdict.mismatch_allowed else "bold red"
        say(f"MEANINGLESS result: {clean(reason, 300)}; {verb}", style)
    if verdict.failed:
        checks = verdict.checks
        why = [f"{verdict.missed} of {count(len(checks), 'bar')} missed"] if checks else []
        why += ["calibration stale"] * verdict.refused
        why += ["forbidden chunks retrieved"] * bool(verdict.leaks)
        why += ["the audit's files mismatch"] * verdict.mismatch_fails
        say(f"gate FAILED: {'; '.join(why)}", "bold red")
        return
    n = len(verdict.checks)
    held = f"{count(n, 'bar')} {'holds' if n == 1 else 'hold'}" if n else "no bars"
    # --allow-stale passes a stale calibration: the line must not call it current
    calibration = "stale calibration allowed" if verdict.stale else "calibration not stale"
    allowed = "; mismatched files allowed" if verdict.meaningless else ""
    say(f"gate passed: {held}; no leak; {calibration}{allowed}", "bold green")
