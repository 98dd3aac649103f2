"""Calibration of the faithfulness judge against human grades.

Public API (used by the audit): :func:`load_calibration`, :class:`CalibrationRecord`
(``decide``, ``ppi``), :func:`is_stale`, :func:`ensure_fresh`, :func:`ppi_rate`,
:func:`write_plots`, plus :func:`calibrate` and :func:`load_grades` to build a record.
"""

from __future__ import annotations

from ragtriage.calibration.analyse import calibrate
from ragtriage.calibration.grades import GradedItem, HumanGrade, load_grades
from ragtriage.calibration.ppi import PPIEstimate, ppi_rate
from ragtriage.calibration.record import (
    CalibrationRecord,
    StaleCalibrationError,
    ensure_fresh,
    is_stale,
    load_calibration,
)


def write_plots(record, directory):
    """PNG plots of a calibration into ``directory``; returns their paths (lazy import:
    matplotlib is loaded only when plots are drawn)."""
    from ragtriage.calibration.plots import write_plots as _write

    return _write(record, directory)


__all__ = [
    "CalibrationRecord",
    "GradedItem",
    "HumanGrade",
    "PPIEstimate",
    "StaleCalibrationError",
    "calibrate",
    "ensure_fresh",
    "is_stale",
    "load_calibration",
    "load_grades",
    "ppi_rate",
    "write_plots",
]
