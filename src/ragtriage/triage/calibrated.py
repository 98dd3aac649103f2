"""Decisions from judge scores: the calibration record when there is one, and honesty when not.

The audit looks for a calibration whose judge fingerprint matches the judge in use: the
one given with ``--calibration``, else a matching record among the shipped ones in
``calibrations/``. A record that does not match is still used but flagged stale, and an
uncalibrated judge falls back to a 0.5 threshold on its score with a prominent note.

The bias-corrected (PPI) rate is valid only when the graded answers are drawn like the
audited ones. The shipped grades (ExpertQA, BEGIN) are not a sample of anyone's answers,
so with a shipped calibration it is not computed, and a correction outside [0, 1] is
withheld: the grades' errors do not fit these answers (docs/calibration.md, "The
bias-corrected rate"; benchmarks/results/corrected_rate_check.txt).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragtriage.calibration.decision import rule_features, uses_model
from ragtriage.calibration.grades import sha256_text
from ragtriage.calibration.record import CalibrationRecord, is_stale, load_calibration
from ragtriage.judge.strategies.common import MODEL_FREE_SIGNALS
from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Outcome
from ragtriage.stats import Estimate, wilson_interval
from ragtriage.triage.models import CalibrationStatus, CaseResult, Trace

__all__ = [
    "CalibrationRecords",
    "Decider",
    "GRADED_BY",
    "GradedDecider",
    "decided_by_grades",
    "graded_answers",
    "say_graded",
    "SHIPPED",
    "UNCALIBRATED_THRESHOLD",
    "find_decider",
    "naive_rate",
]

UNCALIBRATED_THRESHOLD = 0.5
SHIPPED = Path(__file__).parents[1] / "calibrations"  # a link to the top-level calibrations/


SHIPPED_GRADES = (
    "not computed: the shipped calibration's grades (ExpertQA, BEGIN) are not a sample of "
    "these answers, and the correction holds only for answers drawn like the graded ones; "
    "grade a random sample of this audit's answers, run ragtriage calibrate on them and pass "
    "--calibration"
)


@dataclass
class Decider:
    record: CalibrationRecord | None
    status: CalibrationStatus
    shipped: bool = False  # the record rests on the shipped grades alone

    def decide(self, result: JudgeResult) -> bool | None:
        if result.outcome != Outcome.SCORED or result.score is None:
            return None
        if self.record is not None:
            return self.record.decide(result)
        return result.score >= UNCALIBRATED_THRESHOLD

    def unsure(self, result: JudgeResult) -> bool:
        """Whether the record's band leaves this answer undecided (never without a record,
        or for a record written before bands)."""
        if self.record is None or result.outcome != Outcome.SCORED:
            return False
        return self.record.is_unsure(result)

    def unbacked(self, result: JudgeResult) -> bool:
        """Whether the rule's verdict on this answer stands only because the record's band
        is inert and falls back to the rule (``band_fallback``): a verdict the grades do not
        back at the stated agreement, which the case row and the run's notices say."""
        if self.record is None or result.outcome != Outcome.SCORED:
            return False
        return self.record.undecided_by_band(result)

    def corrected_rate(self, results: list[JudgeResult]) -> tuple[Estimate | None, str]:
        """The prediction-powered rate, or None and why (module doc): also None without a
        record or with fewer than two scored answers (PPI estimates a variance from them)."""
        if self.record is None or len(results) < 2:
            return None, ""
        if self.shipped:
            return None, SHIPPED_GRADES
        est = self.record.ppi(results)
        if not 0.0 <= est.estimate <= 1.0:
            return None, (
                f"not computed: the graded answers' correction ({est.correction:+.3f}) puts "
                f"the rate at {est.estimate:.3f}, outside [0, 1]: their judge errors do not "
                "fit these answers"
            )
        return Estimate(estimate=est.estimate, low=est.low, high=est.high), ""


# who decided a graded answer (a case row's ``decided_by``)
GRADED_BY = "a person's grade (the calibration's grades)"


@dataclass
class GradedDecider(Decider):
    """A person's grade of one answer in the rule's place: it decides that answer, and is
    never unsure of it (a graded answer is never sent back to be graded)."""

    faithful: bool = False

    def decide(self, result: JudgeResult) -> bool | None:
        return self.faithful if result.outcome == Outcome.SCORED else None

    def unsure(self, result: JudgeResult) -> bool:
        return False

    def unbacked(self, result: JudgeResult) -> bool:
        return False


def graded_answers(decider: Decider, answers: dict[str, str]) -> dict[str, GradedDecider]:
    """Case id -> the grade that decides it, for each answer (case id -> text) the decider's
    record holds a majority grade of under the same id and text (its SHA-256)."""
    record = decider.record
    if record is None or decider.status.stale:
        return {}
    out = {}
    for item in record.items:
        answer = answers.get(item.id)
        if item.human is None or item.answer_sha256 is None or answer is None:
            continue
        if sha256_text(answer) == item.answer_sha256:
            out[item.id] = GradedDecider(record, decider.status, decider.shipped, item.human)
    return out


def decided_by_grades(
    decider: Decider, traces: dict[str, Trace], judged: dict[str, JudgeResult]
) -> dict[str, tuple[JudgeResult, Decider, str]]:
    """The answers a person graded in the calibration a run decides by, each decided by its
    grade, as ``triage.cases.build``'s ``escalated`` (the grade is the strongest judge)."""
    answers = {q: t.answer for q, t in traces.items() if q in judged}
    graded = graded_answers(decider, answers)
    return {q: (judged[q], grade, GRADED_BY) for q, grade in graded.items()}


def say_graded(rows: list[CaseResult]) -> None:
    """A graded answer's reason says the grade decided it, not the judge's score."""
    for row in rows:
        if row.decided_by == GRADED_BY:
            row.reason += "; decided by a person's grade of this very answer"


def naive_rate(decisions: list[bool], level: float = 0.95) -> Estimate | None:
    """The judge's faithful rate with a Wilson score interval (``stats.wilson_interval``:
    12 of 12 faithful is [0.76, 1.00], not a bootstrap's [1.00, 1.00])."""
    if not decisions:
        return None
    interval = wilson_interval(sum(decisions), len(decisions), level)
    return Estimate(estimate=interval.estimate, low=interval.low, high=interval.high)


class CalibrationRecords:
    """The calibration records one run decides by, each file read once: the one given
    (``--calibration``, ``--escalate-calibration``) or the shipped ones searched by
    fingerprint. The record objects travel from here to the deciders and to the plots."""

    def __init__(self) -> None:
        self._read: dict[Path, CalibrationRecord] = {}

    def record(self, path: Path) -> CalibrationRecord:
        """The record in ``path``, read on first use (a missing or malformed file is an
        :class:`InputError` then)."""
        key = Path(path)
        if key not in self._read:
            self._read[key] = load_calibration(key)
        return self._read[key]

    def decider(self, path: Path | None, fingerprint: JudgeFingerprint) -> Decider:
        """Decisions for the judge of ``fingerprint``: by the record in ``path``, else by
        a shipped record matching it (stale: one of the same judge), else uncalibrated."""
        record, source = self._choose(path, fingerprint)
        return _decider(record, source, fingerprint, shipped=self._on_shipped_grades(record))

    def model_free(self, path: Path | None, fingerprint: JudgeFingerprint) -> Decider | None:
        """The decider of the judge about to run when its calibration's rule reads no model
        signal (``calibration.decision.uses_model``): the audit then computes the signals
        without the model (strategy ``lexical``, the same code) and pays for no call the rule
        would ignore; ``calibrate`` still computes every signal, so a user's grades can pick a
        rule that uses the model. ``None`` (call the model) otherwise."""
        if fingerprint.model == "none":
            return None
        return _model_free(self.decider(path, fingerprint), fingerprint)

    def _on_shipped_grades(self, record: CalibrationRecord | None) -> bool:
        """Whether the record rests on the shipped grades alone (by their SHA-256), whoever
        fitted it: its corrected rate would be no rate of anyone's answers."""
        if record is None or not record.grades:
            return False
        ours = {d for path in _shipped() for d in self.record(path).grades.values()}
        return set(record.grades.values()) <= ours

    def _choose(
        self, path: Path | None, fingerprint: JudgeFingerprint
    ) -> tuple[CalibrationRecord | None, Path | None]:
        if path is not None:
            return self.record(path), path
        same_judge = None
        for candidate in _shipped():
            record = self.record(candidate)
            if not is_stale(record, fingerprint):
                return record, candidate
            if record.fingerprint.judge == fingerprint.judge and same_judge is None:
                same_judge = (record, candidate)
        return same_judge if same_judge else (None, None)


def _shipped() -> list[Path]:
    return sorted(SHIPPED.glob("*.json")) if SHIPPED.is_dir() else []


def find_decider(path: Path | None, fingerprint: JudgeFingerprint) -> Decider:
    """:meth:`CalibrationRecords.decider` reading its files afresh (one decision of a run)."""
    return CalibrationRecords().decider(path, fingerprint)


def _decider(
    record: CalibrationRecord | None,
    source: Path | None,
    fingerprint: JudgeFingerprint,
    shipped: bool,
) -> Decider:
    if record is None:
        note = (
            f"UNCALIBRATED: no calibration record for judge {fingerprint.judge}/"
            f"{fingerprint.model}; decisions use score >= {UNCALIBRATED_THRESHOLD}. "
            "Run `ragtriage calibrate` and pass --calibration."
        )
        status = CalibrationStatus(threshold=UNCALIBRATED_THRESHOLD, note=note)
        return Decider(None, status)
    stale = is_stale(record, fingerprint)
    # the scope the rule was chosen on: pooled with several datasets, else the one dataset
    first = record.scopes.get("pooled") or next(iter(record.scopes.values()), None)
    kappa = None
    if first is not None:  # the applied rule's kappa: the nested-CV one when it was chosen so
        kappa = _kappa(first.applied)
    note = (
        f"STALE CALIBRATION: measured on a different judge (it differs in {', '.join(stale)})"
        if stale
        else f"calibrated on {len(record.items)} human-graded answers"
    )
    check = record.answer_check
    answer_kappa = _kappa(check.agreement) if check is not None and check.n else None
    few = record.few_grades()
    if few is not None:  # 10 grades read kappa 1.00 [1.00, 1.00]
        note += f"; {few}"
    return Decider(
        record,
        shipped=shipped,
        status=CalibrationStatus(
            source=str(source),
            fingerprint=record.fingerprint,
            stale=stale,
            threshold=getattr(record.rule, "threshold", None),
            rule=record.rule,
            kappa=kappa,
            note=note,
            n_grades=first.n_items if first is not None else len(record.items),
            few_grades=few is not None,
            answer_check=answer_kappa,
            answer_check_n=check.n if answer_kappa is not None and check else None,
        ),
    )


def _kappa(agreement: Any) -> Estimate:
    """Cohen's kappa with its interval, as a rule's cross-validation or the answer check
    measured it."""
    return Estimate(estimate=agreement.kappa, low=agreement.kappa_low, high=agreement.kappa_high)


def _model_free(decider: Decider, fingerprint: JudgeFingerprint) -> Decider | None:
    record = decider.record
    if record is None or decider.status.stale or uses_model(record.rule, MODEL_FREE_SIGNALS):
        return None
    reads = ", ".join(sorted(rule_features(record.rule)))
    decider.status.model_consulted = False
    decider.status.note += (
        f"; decided by {record.rule_name}, which reads only model-free signals ({reads}), "
        f"so the {fingerprint.judge} judge's model ({fingerprint.model}) was not consulted "
        "to judge: those signals were computed without it"
    )
    return decider
