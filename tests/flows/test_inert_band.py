"""A calibration whose band is inert (it decides too few answers at its stated agreement)
with fallback ``rule`` keeps the rule's verdicts inside it, and the audit says so: each
such row carries the mark, and a lead notice heads every report. The record's own warning
promised it ("the audit keeps the rule's verdicts and marks them undecided by the band");
before, an audit decided by such a record said nothing at all.
"""

from __future__ import annotations

import json

from markupsafe import escape
from rich.console import Console

from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.notices import Severity
from ragtriage.render.html import render_html
from ragtriage.render.markdown import render_markdown
from ragtriage.render.terminal import audit_summary
from ragtriage.triage.cases import UNBACKED
from ragtriage.triage.models import Label
from tests.conftest import ROOT

HANDBOOK = ROOT / "golden_sets/handbook"
LEXICAL = ROOT / "calibrations/lexical.json"


def _audit(tmp_path, **record):
    """The handbook audited by the lexical judge under the shipped record, changed so."""
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(json.loads(LEXICAL.read_text()) | record))
    config = AuditConfig(golden=HANDBOOK, judge="lexical", calibration=path, cache=tmp_path / "c")
    return audit_flow.run(config)


def test_verdicts_inside_an_inert_band_are_marked_and_the_notice_leads(tmp_path):
    working = _audit(tmp_path)
    unsure = {c.case_id for c in working.cases if c.label == Label.UNSURE}
    assert unsure  # the shipped band leaves some handbook answers unsure

    inert = _audit(tmp_path, band_inert=True, band_fallback="rule")
    marked = {c.case_id for c in inert.cases if UNBACKED in c.warnings}
    assert marked == unsure  # the band's answers, now decided by the rule, and no other
    decided = (Label.PASS, Label.GENERATION)
    assert all(c.label in decided for c in inert.cases if c.case_id in marked)
    [lead] = [w for w in inert.warnings if w.code == "band_inert"]
    assert lead.severity == Severity.LEAD and lead.counts == {"unbacked": len(unsure)}

    markdown = render_markdown(inert)
    assert markdown.index(lead.text) < markdown.index("| label | cases |")  # before any figure
    page = render_html(inert)
    assert page.count(str(escape(lead.text))) == 1
    assert page.index(str(escape(lead.text))) < page.index("<th>label</th>")
    console = Console(record=True, width=2000)
    audit_summary(inert, console)
    said = console.export_text()
    assert said.count(lead.text) == 1 and said.index(lead.text) < said.index("Stage metrics")


def test_an_inert_band_falling_back_to_unsure_marks_nothing(tmp_path):
    working = _audit(tmp_path)
    unsure = _audit(tmp_path, band_inert=True, band_fallback="unsure")
    assert [c.label for c in unsure.cases] == [c.label for c in working.cases]
    assert not any(UNBACKED in c.warnings for c in unsure.cases)
    assert not any(w.code == "band_inert" for w in unsure.warnings)
