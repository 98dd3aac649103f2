"""The calibration record: everything calibration measured, tied to the judge it measured.

The audit loads it (:func:`load_calibration`), decides faithful/unfaithful with the same
rule (:meth:`CalibrationRecord.decide`), checks that its judge is the calibrated one
(:func:`is_stale`) and corrects its faithful rate with the graded items
(:meth:`CalibrationRecord.ppi`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from ragtriage.atomic import write_atomic
from ragtriage.calibration.agreement import Agreement
from ragtriage.calibration.decision import Rule, decide_one
from ragtriage.calibration.ppi import PPIEstimate, ppi_rate
from ragtriage.calibration.select import Selection
from ragtriage.data.readers import read_json_document
from ragtriage.errors import InputError, RagtriageError
from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Outcome
from ragtriage.stats import NanFloat

SCHEMA = "ragtriage.calibration/1"
# Below these many scored grades (or grades of one class), calibrate and the audit warn.
# 50 and 10: a 95 % kappa interval over 50 items is still about +-0.2 wide, and with fewer
# than 10 unfaithful answers the cross-validation folds hold one or two each.
MIN_GRADES = 50
MIN_PER_CLASS = 10


def few_grades(n_faithful: int, n_unfaithful: int) -> str | None:
    """The warning a small grade set deserves, or None: below :data:`MIN_GRADES` scored
    grades, or :data:`MIN_PER_CLASS` of either class, kappa, its bootstrap interval and
    the chosen rule rest on too few answers (10 grades gave kappa 1.00 [1.00, 1.00])."""
    n = n_faithful + n_unfaithful
    if n >= MIN_GRADES and min(n_faithful, n_unfaithful) >= MIN_PER_CLASS:
        return None
    return (
        f"FEW GRADES: {n} scored grades ({n_faithful} faithful, {n_unfaithful} unfaithful), "
        f"fewer than {MIN_GRADES} in all or {MIN_PER_CLASS} of each class: kappa, its "
        "interval and the decision rule are not reliable; grade more answers"
    )


class MethodResult(BaseModel):
    """One way of deciding (a signal's threshold, the combination, a baseline) on a scope."""

    name: str
    cv: Agreement  # out-of-fold decisions, the figure to believe
    in_sample_kappa: NanFloat  # the rule fitted and measured on all items (optimistic)
    rule: Rule  # fitted on all items of the scope


class UnscoredItem(BaseModel):
    id: str
    outcome: str  # no_claims / abstained / unscored / missing (no judge result)
    reason: str = ""


class PPIDemo(BaseModel):
    """PPI on a seeded split of the graded items: labels of the 'unlabelled' part hidden,
    then compared with the estimate (``hidden_human_rate``)."""

    estimate: PPIEstimate
    hidden_human_rate: NanFloat
    labelled_fraction: float


class ScopeReport(BaseModel):
    """Calibration of one dataset, or of all of them pooled."""

    scope: str
    n_items: int
    n_agreement: int  # scored and with a (non-tied) human label
    unscored: list[UnscoredItem] = Field(default_factory=list)
    tied: list[str] = Field(default_factory=list)  # graders split evenly
    threshold: NanFloat  # on the judge score, chosen on all items of the scope
    fold_thresholds: list[NanFloat]
    cv: Agreement
    in_sample: Agreement
    signals: list[MethodResult]  # each signal alone and the combination
    # the rule chosen by nested cross-validation (the record's rule on the first scope)
    selection: Selection | None = None
    selected: MethodResult | None = None
    baselines: list[MethodResult]  # majority class, lexical overlap
    best_signal: str
    beats_lexical: bool | None
    # kappa(decision rule) - kappa(lexical), cross-validated, with its paired bootstrap CI
    vs_lexical: tuple[NanFloat, NanFloat, NanFloat] | None = None
    krippendorff_alpha: float | None = None
    n_multi_graded: int = 0
    ppi: PPIDemo | None = None
    ppi_note: str = ""  # why there is no PPI check on this scope


class LabelledItem(BaseModel):
    id: str
    dataset: str
    human: bool | None
    outcome: str
    score: float | None = None
    grade: float | None = None
    fold: int | None = None
    decision_cv: bool | None = None  # out-of-fold decision of the record's rule
    decision: bool | None = None  # the record's rule fitted on all items


class Cost(BaseModel):
    calls_per_item: float = 0.0  # model calls an item needs (cache hits included)
    usd_per_item: float = 0.0
    seconds_per_item: float | None = None  # None for recorded results


class CalibrationRecord(BaseModel):
    schema_: str = Field(SCHEMA, alias="schema")
    package_version: str
    judge_name: str
    fingerprint: JudgeFingerprint
    grades: dict[str, str]  # grade file -> sha256 of its bytes
    seed: int
    folds: int
    resamples: int
    rule: Rule  # how decide() decides
    rule_name: str
    fold_rules: list[Rule]  # the rule refitted without each fold (cross-fitted PPI)
    scopes: dict[str, ScopeReport]
    items: list[LabelledItem]
    cost: Cost
    warnings: list[str] = Field(default_factory=list)

    model_config = {"populate_by_name": True}

    def few_grades(self) -> str | None:
        """:func:`few_grades` on the record's first scope (pooled, or its one dataset)."""
        scope = next(iter(self.scopes.values()), None)
        if scope is None:
            return None
        (uu, uf), (fu, ff) = scope.cv.confusion  # rows: human unfaithful, human faithful
        return few_grades(fu + ff, uu + uf)

    def decide(self, result: JudgeResult) -> bool | None:
        """Faithful (True) / unfaithful (False) by the calibrated rule; None for outcomes
        other than ``scored`` (and for a result lacking the rule's signal)."""
        return decide_one(self.rule, result)

    def ppi(
        self,
        unlabelled: list[JudgeResult],
        scope: str = "pooled",
        level: float = 0.95,
        power_tuning: bool = False,
    ) -> PPIEstimate:
        """Bias-corrected faithful rate of an audit's scored answers (cross-fitted PPI:
        graded items use their out-of-fold decisions, audit answers the average decision
        of the fold rules, so the judge is never scored on the items that fitted it)."""
        f_u = []
        for result in unlabelled:
            if result.outcome != Outcome.SCORED:
                continue
            decided = (decide_one(rule, result) for rule in self.fold_rules)
            votes = [v for v in decided if v is not None]
            if votes:
                f_u.append(float(np.mean(votes)))
        labelled = [
            i
            for i in self.items
            if (scope == "pooled" or i.dataset == scope)
            and i.human is not None
            and i.decision_cv is not None
        ]
        return ppi_rate(
            f_u,
            [float(bool(i.decision_cv)) for i in labelled],  # None filtered out above
            [float(bool(i.human)) for i in labelled],
            level=level,
            power_tuning=power_tuning,
        )

    def save(self, path: Path | str) -> Path:
        path = Path(path)
        text = self.model_dump_json(indent=1, by_alias=True)
        return write_atomic(path, text + "\n")  # like every other output: never half-written


def load_calibration(path: Path | str) -> CalibrationRecord:
    """Read a calibration record; a missing or malformed file is an :class:`InputError`."""
    path = Path(path)
    if not path.exists():
        raise InputError("calibration record not found", path=path)
    try:
        data = read_json_document(path)
    except InputError as exc:
        raise InputError(
            f"not a calibration record: {exc.message}", path=path, line=exc.line, field=exc.field
        ) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise InputError(
            f"not a calibration record (expected schema {SCHEMA})", path=path, field="schema"
        )
    try:
        return CalibrationRecord.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise InputError(
            err["msg"], path=path, field=".".join(str(p) for p in err["loc"])
        ) from None
    except RecursionError:
        raise InputError("nested too deeply to validate", path=path) from None


def is_stale(record: CalibrationRecord, fingerprint: JudgeFingerprint) -> list[str]:
    """The fingerprint fields in which ``fingerprint`` differs from the calibrated judge's:
    ``judge``, ``model``, ``params.<name>``, ``prompt_sha256.<file>``, ``package_version``.
    Empty when the calibration applies."""
    old, new = record.fingerprint, fingerprint
    diff = [f for f in ("judge", "model") if getattr(old, f) != getattr(new, f)]
    for group in ("params", "prompt_sha256"):
        a, b = getattr(old, group), getattr(new, group)
        diff += [f"{group}.{k}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    if old.package_version != new.package_version:
        diff.append("package_version")
    return diff


class StaleCalibrationError(RagtriageError):
    """The judge in use is not the judge the calibration was measured on."""


def ensure_fresh(record: CalibrationRecord, fingerprint: JudgeFingerprint) -> None:
    """Raise :class:`StaleCalibrationError` naming the differing fields (for a CI gate)."""
    stale = is_stale(record, fingerprint)
    if stale:
        raise StaleCalibrationError(
            f"the calibration was measured on judge {record.judge_name!r} and does not match "
            f"the judge in use: {', '.join(stale)} differ; recalibrate (ragtriage calibrate)"
        )


__all__ = [
    "MIN_GRADES",
    "MIN_PER_CLASS",
    "CalibrationRecord",
    "StaleCalibrationError",
    "ensure_fresh",
    "few_grades",
    "is_stale",
    "load_calibration",
]
