"""Notices as a person reads them: lead notices first, each styled by its severity.

What a notice *is* lives in ``ragtriage.notices`` (code, severity, text, counts); here is
only how it looks. A notice's text may quote the user's files (a path, an id), so every
renderer escapes it as it escapes any other untrusted text.
"""

from __future__ import annotations

from collections.abc import Iterable

from ragtriage.notices import Notice, Severity, ordered

__all__ = ["STYLES", "label", "texts", "lines"]

# terminal styles by severity: a lead notice changes what a headline figure means
STYLES = {Severity.LEAD: "bold red", Severity.WARN: "yellow", Severity.INFO: "dim"}
_LABELS = {Severity.LEAD: "warning", Severity.WARN: "warning", Severity.INFO: "note"}


def label(item: Notice) -> str:
    """The word a notice's line starts with."""
    return _LABELS[item.severity]


def lines(notices: Iterable[Notice | str]) -> list[tuple[str, str]]:
    """``(line, style)`` per notice, lead notices first: ``warning: TEXT``. A plain text
    (a retrieval report's warnings are still words) is a warning."""
    return [(f"{label(n)}: {n.text}", STYLES[n.severity]) for n in _notices(notices)]


def texts(notices: Iterable[Notice | str]) -> list[str]:
    """The notices' texts, lead notices first."""
    return [n.text for n in _notices(notices)]


def _notices(notices: Iterable[Notice | str]) -> list[Notice]:
    return ordered([n if isinstance(n, Notice) else Notice(code="other", text=n) for n in notices])
