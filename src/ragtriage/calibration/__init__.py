"""Calibration of the faithfulness judge against human grades.

Public API (used by the audit): :func:`load_calibration`, :class:`CalibrationRecord`
(``decide``, ``ppi``), :func:`is_stale`, :func:`ensure_fresh`, :func:`ppi_rate`,
plus :func:`fit_record` and :func:`load_grades` to build a record.
"""

from __future__ import annotations

from ragtriage.calibration.fit import fit_record
from ragtriage.calibration.grades import GradedItem, HumanGrade, load_grades
from ragtriage.calibration.ppi import PPIEstimate, ppi_rate
from ragtriage.calibration.record import (
    CalibrationRecord,
    StaleCalibrationError,
    ensure_fresh,
    is_stale,
    load_calibration,
)

__all__ = [
    "CalibrationRecord",
    "GradedItem",
    "HumanGrade",
    "PPIEstimate",
    "StaleCalibrationError",
    "fit_record",
    "ensure_fresh",
    "is_stale",
    "load_calibration",
    "load_grades",
    "ppi_rate",
]
