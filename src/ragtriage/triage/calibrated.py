"""Decisions from judge scores: the calibration record when there is one, and honesty when not.

The audit looks for a calibration whose judge fingerprint matches the judge in use: the
one given with ``--calibration``, else a matching record among the shipped ones in
``calibrations/``. A record that does not match is still used but flagged stale, and an
uncalibrated judge falls back to a 0.5 threshold on its score with a prominent note.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragtriage.calibration.record import CalibrationRecord, is_stale, load_calibration
from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Outcome
from ragtriage.stats import Estimate, wilson_interval
from ragtriage.triage.models import CalibrationStatus

__all__ = ["Decider", "SHIPPED", "UNCALIBRATED_THRESHOLD", "find_decider", "naive_rate"]

UNCALIBRATED_THRESHOLD = 0.5
SHIPPED = Path(__file__).parents[1] / "calibrations"  # a link to the top-level calibrations/


@dataclass
class Decider:
    record: CalibrationRecord | None
    status: CalibrationStatus

    def decide(self, result: JudgeResult) -> bool | None:
        if result.outcome != Outcome.SCORED or result.score is None:
            return None
        if self.record is not None:
            return self.record.decide(result)
        return result.score >= UNCALIBRATED_THRESHOLD

    def corrected_rate(self, results: list[JudgeResult]) -> Estimate | None:
        """The prediction-powered rate; None without a record or with fewer than two scored
        answers (PPI estimates a variance from them: ``--limit 1`` is a valid audit)."""
        if self.record is None or len(results) < 2:
            return None
        est = self.record.ppi(results)
        # a rate is a proportion: the correction can push the point estimate past 0 or 1
        clip = lambda x: min(max(float(x), 0.0), 1.0)  # noqa: E731
        return Estimate(estimate=clip(est.estimate), low=clip(est.low), high=clip(est.high))


def naive_rate(decisions: list[bool], level: float = 0.95) -> Estimate | None:
    """The judge's faithful rate with a Wilson score interval (``stats.wilson_interval``:
    12 of 12 faithful is [0.76, 1.00], not a bootstrap's [1.00, 1.00])."""
    if not decisions:
        return None
    interval = wilson_interval(sum(decisions), len(decisions), level)
    return Estimate(estimate=interval.estimate, low=interval.low, high=interval.high)


def find_decider(path: Path | None, fingerprint: JudgeFingerprint) -> Decider:
    record, source = _choose(path, fingerprint)
    if record is None:
        note = (
            f"UNCALIBRATED: no calibration record for judge {fingerprint.judge}/"
            f"{fingerprint.model}; decisions use score >= {UNCALIBRATED_THRESHOLD}. "
            "Run `ragtriage calibrate` and pass --calibration."
        )
        return Decider(None, CalibrationStatus(threshold=UNCALIBRATED_THRESHOLD, note=note))
    stale = is_stale(record, fingerprint)
    pooled = record.scopes.get("pooled")
    kappa = None
    if pooled is not None:
        cv = pooled.cv
        kappa = Estimate(estimate=cv.kappa, low=cv.kappa_low, high=cv.kappa_high)
    note = (
        f"STALE CALIBRATION: measured on a different judge ({', '.join(stale)} differ)"
        if stale
        else f"calibrated on {len(record.items)} human-graded answers"
    )
    return Decider(
        record,
        CalibrationStatus(
            source=str(source),
            fingerprint=record.fingerprint,
            stale=stale,
            threshold=getattr(record.rule, "threshold", None),
            kappa=kappa,
            note=note,
        ),
    )


def _choose(
    path: Path | None, fingerprint: JudgeFingerprint
) -> tuple[CalibrationRecord | None, Path | None]:
    if path is not None:
        return load_calibration(path), path
    candidates = sorted(SHIPPED.glob("*.json")) if SHIPPED.is_dir() else []
    same_judge = None
    for candidate in candidates:
        record = load_calibration(candidate)
        if not is_stale(record, fingerprint):
            return record, candidate
        if record.fingerprint.judge == fingerprint.judge and same_judge is None:
            same_judge = (record, candidate)
    return same_judge if same_judge else (None, None)
