"""Warnings as data: a :class:`Notice` is a code, a severity, a text and its counts.

Code decides (render orders and styles by ``code`` and ``severity``, the gate and a report's
headline read ``code``, tests assert codes); ``text`` is only what a person reads. Every code
is declared once in :data:`CODES` with what it means, so the docs list them from here and a
typo in a code is an error where the notice is made, not a warning that never leads.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["CODES", "Notice", "Severity", "as_notice", "has_code", "notice", "ordered"]


class Severity(StrEnum):
    """How much a notice changes what a figure means: ``lead`` notices head every report."""

    LEAD = "lead"  # changes what a headline figure means: shown first, before any figure
    WARN = "warn"  # the user should know; shown with the section it concerns
    INFO = "info"  # context (what was assumed, what was skipped on purpose)


# code -> what it means (docs/reference/notices.md is generated from this table).
CODES: dict[str, str] = {
    "stale_calibration": (
        "the calibration record was measured on a different judge (model, prompt or strategy)"
    ),
    "uncalibrated": (
        "no calibration record matches the judge: verdicts are the judge's own threshold"
    ),
    "few_grades": "the calibration rests on fewer grades than its intervals need",
    "meaningless": (
        "a headline figure cannot mean what it says (ids unknown to the corpus, nothing matched)"
    ),
    "record_fit": "the grades behind the calibration do not hold answers shaped like these",
    "unjudged": "an answer could not be judged and is counted as unscored",
    "reader": "a reader accepted the file but assumed or skipped something",
    "mismatch": "golden set, corpus and traces disagree on some ids (listed in `mismatches`)",
    "set_aside": "traces of cases outside the audited slice were set aside, not scored",
    "samples_not_drawn": "--samples was not drawn: the calibrated rule reads no model signal",
    "rewrite_not_tested": "the rewrite test could not run (no corpus beside the golden set)",
    "retrieval": "stage 1 found something the retrieval figures depend on",
    "provenance": "two results differ in what they were run on (corpus, slice, golden set, judge)",
    "entailment": "two results' diagnostics rest on different entailment labels",
    "settings_differ": "two compared runs differ in settings that change figures",
    "compare_scope": "part of two results could not be paired (metrics, queries, kinds)",
    "turn_mismatch": (
        "a traced turn asks another message than its golden turn: set aside, unjudged"
    ),
    "not_beating_lexical": (
        "the judge's calibrated rule does not beat the word-overlap baseline beyond noise"
    ),
    "judge_unstable": (
        "the judge disagrees with itself (repeated samples) more than with the human grades"
    ),
    "active_design": (
        "the grades were drawn with unequal probabilities: agreement figures describe "
        "harder answers"
    ),
    "unscored_grades": (
        "graded answers the judge did not score are left out of the agreement figures"
    ),
    "unused_results": "judge results without a human grade were not used",
    "band_inert": (
        "the unsure band decides less than its stated share of answers: the rule's "
        "verdicts stand, marked undecided by the band"
    ),
    "other": "a notice not yet given its own code",
}

# What older files said in words, by the capital prefix they led with: a ``results.json``
# written before notices were data is read with the codes its text carried.
_PREFIXES = {
    "STALE CALIBRATION": "stale_calibration",
    "STALE": "stale_calibration",
    "UNCALIBRATED": "uncalibrated",
    "FEW GRADES": "few_grades",
    "MEANINGLESS": "meaningless",
    "REWRITE NOT TESTED": "rewrite_not_tested",
    "TURN MISMATCH": "turn_mismatch",
}


class Notice(BaseModel):
    """One warning: what code decides on, and what a person reads."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    code: str
    """What the notice is about, one of ``ragtriage.notices.CODES`` (what code decides on)."""
    severity: Severity = Severity.WARN
    """``lead`` (changes a headline figure), ``warn`` or ``info``."""
    text: str
    """What a person reads."""
    counts: dict[str, int] = Field(default_factory=dict)
    """The numbers the text states, by name (counts, for a gate or a test to read)."""

    @field_validator("code")
    @classmethod
    def _known(cls, code: str) -> str:
        if code not in CODES:
            raise ValueError(f"unknown notice code {code!r}; declare it in ragtriage.notices.CODES")
        return code

    def __str__(self) -> str:  # what a log line or an old string-reading caller sees
        return self.text


def notice(
    code: str, text: str, *, severity: Severity | str = Severity.WARN, **counts: Any
) -> Notice:
    """A notice from keyword counts: ``notice("few_grades", text, n=10)``."""
    return Notice(code=code, severity=Severity(severity), text=text, counts=counts)


def has_code(notices: list[Notice], code: str) -> bool:
    """Whether any notice carries ``code`` (what the gate and the headline decide on)."""
    return any(n.code == code for n in notices)


def as_notice(value: Notice | str, code: str = "other") -> Notice:
    """A notice as it was given: a :class:`Notice` as is, a text (an older file, or a
    reader that still speaks in words) with the code its capital prefix names, else
    ``code``."""
    if not isinstance(value, str):
        return value
    prefix = value.split(":", 1)[0].strip() if ":" in value else ""
    found = _PREFIXES.get(prefix, code)
    lead = found in LEADS
    return Notice(code=found, severity=Severity.LEAD if lead else Severity.WARN, text=value)


# codes that change what a headline figure means: a text read with one leads
LEADS = frozenset({"stale_calibration", "uncalibrated", "meaningless"})

_RANK = {Severity.LEAD: 0, Severity.WARN: 1, Severity.INFO: 2}


def ordered(notices: list[Notice]) -> list[Notice]:
    """Lead notices first, then warnings, then context; the order given within each."""
    return sorted(notices, key=lambda n: _RANK[n.severity])
