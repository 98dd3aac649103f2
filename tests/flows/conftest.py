"""The small AuditResult of ``tests/support/audits.py`` as fixtures (``audit``,
``hostile_audit``, ``empty_audit``), shared with the other stage's tests."""

from __future__ import annotations

from tests.support.audits import audit, empty_audit, hostile_audit

__all__ = ["audit", "empty_audit", "hostile_audit"]
