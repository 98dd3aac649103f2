"""What ``ragtriage calibrate`` produced for one judge (:class:`JudgeCalibration`: its
record, plots and grade plan), and how many more grades its interval needs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ragtriage.calibration.ppi import PPIEstimate
from ragtriage.calibration.record import CalibrationRecord
from ragtriage.judge.types import JudgeResult
from ragtriage.notices import Notice

__all__ = ["GradePlan", "JudgeCalibration", "plan_grades"]


@dataclass
class GradePlan:
    """How many grades the corrected rate's interval needs to reach ``half_width``."""

    half_width: float
    graded: int  # scored grades with an out-of-fold decision, so far
    needed: int  # in all; -1: no number of grades can (the audit's own spread is wider)
    answers: int | None  # the audit's scored answers, when --audit is given

    @property
    def more(self) -> int:
        return max(0, self.needed - self.graded) if self.needed >= 0 else -1


def plan_grades(
    record: CalibrationRecord, half_width: float, audit: list[JudgeResult] | None = None
) -> GradePlan:
    """From the residuals (human minus out-of-fold decision) of the grades so far, and the
    audit's answers when given (``calibration.active.grades_for_half_width``)."""
    import numpy as np

    from ragtriage.calibration.active import grades_for_half_width

    used = [i for i in record.items if i.human is not None and i.decision_cv is not None]
    residuals = np.array([float(bool(i.human)) - float(bool(i.decision_cv)) for i in used])
    answers, spread = None, 0.0
    if audit is not None:
        votes = [record.decide(r) for r in audit]
        decided = np.array([float(v) for v in votes if v is not None])
        if len(decided) > 1:
            answers, spread = len(decided), float(decided.var(ddof=1))
    needed = grades_for_half_width(residuals, half_width, answers, spread)
    return GradePlan(half_width=half_width, graded=len(used), needed=needed, answers=answers)


@dataclass
class JudgeCalibration:
    name: str
    record: CalibrationRecord
    record_path: Path
    plots: list[Path] = field(default_factory=list)
    audit_ppi: PPIEstimate | None = None
    plan: GradePlan | None = None
    source: str = ""  # "ran", "recorded <file>" or "verdicts <file>"
    notes: list[Notice] = field(default_factory=list)  # how another tool's verdicts were read
    card: list[Path] = field(default_factory=list)  # the validity card's files (--card)
