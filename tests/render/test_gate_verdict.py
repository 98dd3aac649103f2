"""Every report leads with what ``ragtriage gate`` would say (issue 27, item 6): the demo
said "No failures." and "0 of 16 cases failing" while the gate failed on a leak."""

from __future__ import annotations

import io

from rich.console import Console

from ragtriage.render.html import render_html
from ragtriage.render.markdown import render_markdown
from ragtriage.render.terminal import audit_summary
from ragtriage.triage.models import CalibrationStatus
from tests.support.audits import make_audit, with_leaks

LEAK = "Gate fails whatever the bars: 1 leak (q01)."


def _all_pass(audit):
    """Every case passes, as the demo's hb-15 did although it leaked."""
    from ragtriage.triage.models import Label

    cases = [c.model_copy(update={"label": Label.PASS}) for c in audit.cases]
    counts = {"pass": len(cases)}
    return audit.model_copy(update={"cases": cases, "clusters": [], "counts": counts})


def _terminal(result) -> str:
    out = io.StringIO()
    audit_summary(result, Console(file=out, width=200))
    return out.getvalue()


def test_a_leak_leads_every_report_and_no_report_says_no_failures():
    audit = with_leaks(_all_pass(make_audit()), [("q01", "tenant-b-doc", 2)])
    terminal = _terminal(audit).splitlines()
    assert terminal[0].startswith("ragtriage audit: gate fails; 0 of 10 cases failing")
    assert terminal[1] == LEAK
    assert "No failures." not in "\n".join(terminal)
    assert "the gate still fails" in "\n".join(terminal)
    md = render_markdown(audit).splitlines()
    assert md[0] == "## ragtriage audit: gate fails; 0 of 10 cases failing"
    assert md[2] == f"**{LEAK}**"
    html = render_html(audit)
    assert "<h1>ragtriage audit: gate fails; 0 of 10 cases failing</h1>" in html
    head = html.split("<table>", 1)[0]  # before the first table: the headline
    assert LEAK in head and 'class="gate gate-fails"' in head


def test_stale_and_passing_verdicts():
    stale = make_audit(stale=["model"])
    line = _terminal(stale).splitlines()[1]
    assert line.startswith("Gate fails whatever the bars: stale calibration (model;")
    clean = with_leaks(make_audit(), [])
    assert _terminal(clean).splitlines()[1] == (
        "Gate passes without bars: no leak; calibration current."
    )
    unchecked = make_audit().model_copy(update={"calibration": CalibrationStatus()})
    assert "no access-control fields to check for leaks; judge uncalibrated" in (
        render_markdown(unchecked)
    )


def test_calibration_plots_are_of_the_rule_applied():
    """The audit's HTML showed the score threshold's kappa 0.32 and threshold 0.559 beside
    the applied rule min_sentence_lexical >= 0.6464 (kappa 0.38)."""
    import json

    from ragtriage.calibration import fit_record, load_grades
    from ragtriage.render.calibration_plots import _not_applied
    from ragtriage.render.format import describe_rule
    from tests.calibration.conftest import synthetic

    rows, results = synthetic(n=90, seed=3)
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grades.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        record = fit_record(load_grades(path), results, judge_name="s", grades_digest={},
                           resamples=100)  # fmt: skip
    pooled = record.scopes["pooled"]
    assert pooled.selected is not None
    assert pooled.applied == pooled.selected.cv  # not the score threshold's
    score_rule = record.rule.kind == "threshold" and record.rule.feature == "score"
    note = _not_applied(record)
    assert (note == "") if score_rule else (describe_rule(record.rule)[:40] in note)
