"""The calibration record: everything calibration measured, tied to the judge it measured.

The audit loads it (:func:`load_calibration`), decides faithful/unfaithful with the same
rule (:meth:`CalibrationRecord.decide`), checks that its judge is the calibrated one
(:func:`is_stale`) and corrects its faithful rate with the graded items
(:meth:`CalibrationRecord.ppi`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from ragtriage.atomic import write_atomic
from ragtriage.calibration.agreement import Agreement
from ragtriage.calibration.answers import AnswerCheck
from ragtriage.calibration.band import (
    DELTA_RANGE,
    MIN_AGREEMENT_RANGE,
    MIN_BAND_SHARE,
    Band,
    BandFallback,
    decided_mask,
    margins,
)
from ragtriage.calibration.decision import Rule, decide_one, one_row
from ragtriage.calibration.fit_check import GradeShape
from ragtriage.calibration.ppi import PPIEstimate, ppi_rate
from ragtriage.calibration.select import Selection
from ragtriage.calibration.stability import SelfAgreement
from ragtriage.data.containers import read_json_document
from ragtriage.data.rows import validated
from ragtriage.data.sniff import wrong_file
from ragtriage.errors import InputError, RagtriageError
from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Outcome
from ragtriage.notices import Notice, notice
from ragtriage.stats import Estimate, NanFloat

SCHEMA = "ragtriage.calibration/1"
# Below these many scored grades (or grades of one class), calibrate and the audit warn.
# 50 and 10: a 95 % kappa interval over 50 items is still about +-0.2 wide, and with fewer
# than 10 unfaithful answers the cross-validation folds hold one or two each.
MIN_GRADES = 50
MIN_PER_CLASS = 10


def _share(value: float) -> float:
    """A share 0-1, or NaN where undefined (nothing to count)."""
    if not math.isnan(value) and not 0.0 <= value <= 1.0:
        raise ValueError(f"a share must be between 0 and 1, not {value}")
    return value


Share = Annotated[NanFloat, AfterValidator(_share)]


class ShareEstimate(Estimate):
    """A share 0-1 with its interval (each end 0-1, low <= estimate <= high)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    estimate: Share
    """The share, 0-1; null where undefined (nothing to count)."""
    low: Share
    """Lower end of its Wilson 95 % interval, 0-1; null where undefined."""
    high: Share
    """Upper end of its Wilson 95 % interval, 0-1; null where undefined."""

    @model_validator(mode="after")
    def _ordered(self) -> ShareEstimate:
        values = (self.low, self.estimate, self.high)
        slack = 1e-9  # a Wilson end computed as 3e-17 beside an estimate of 0
        low, mid, high = values
        if not any(math.isnan(v) for v in values) and not low - slack <= mid <= high + slack:
            raise ValueError(f"low <= estimate <= high does not hold: {values}")
        return self


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

    model_config = ConfigDict(use_attribute_docstrings=True)

    name: str
    """The method: a signal's name (``score``: the judge's score), ``combination``,
    ``majority``, ``lexical``, or ``selected (NAME)``."""
    cv: Agreement  # out-of-fold decisions, the figure to believe
    """Agreement of its out-of-fold decisions with the humans: the figure to believe."""
    in_sample_kappa: NanFloat  # the rule fitted and measured on all items (optimistic)
    """Kappa of the rule fitted and measured on the same items (optimistic); null when
    undefined."""
    rule: Rule  # fitted on all items of the scope
    """The rule fitted on all items of the scope."""


class UnscoredItem(BaseModel):
    """A graded item left out of the agreement figures: the judge did not score it."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    id: str
    """The item's id."""
    outcome: str  # no_claims / abstained / unscored / missing (no judge result)
    """``no_claims``, ``abstained``, ``unscored``, or ``missing`` (no judge result)."""
    reason: str = ""
    """Why, in the judge's words (or ``no judge result for this item``)."""


class PPIDemo(BaseModel):
    """PPI on a seeded split of the graded items: labels of the 'unlabelled' part hidden,
    then compared with the estimate (``hidden_human_rate``)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    estimate: PPIEstimate
    """The PPI estimate of the hidden part's faithful rate."""
    hidden_human_rate: NanFloat
    """The hidden part's true human faithful rate, 0-1, to compare with ``estimate``."""
    labelled_fraction: float
    """Fraction 0-1 of the scored grades kept labelled."""


class Selective(BaseModel):
    """The selected rule with its band (``calibration.band``): the share of answers it
    decides and how well the decided ones agree with the humans, both out of fold (the
    band fitted inside each outer fold of the nested cross-validation)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    min_agreement: float = Field(ge=MIN_AGREEMENT_RANGE[0], le=MIN_AGREEMENT_RANGE[1])
    """The target agreement on decided answers (0.5-0.99), ``calibrate --min-agreement``."""
    delta: float = Field(ge=DELTA_RANGE[0], le=DELTA_RANGE[1])
    """The band's guarantee holds with probability at least ``1 - delta`` (0.01-0.5)."""
    n: int = Field(ge=0)
    """Answers with an out-of-fold decision (count)."""
    decided: int = Field(ge=0)
    """Of them, those the band decided out of fold; the rest were ``unsure`` (count)."""
    coverage: ShareEstimate
    """Share 0-1 of answers decided, with its Wilson 95% interval."""
    agreement: ShareEstimate
    """Share 0-1 of decided answers whose decision matches the human grade, with its
    Wilson 95% interval; null when none is decided."""
    grades_to_decide: int | None = Field(default=None, ge=1)
    """About how many grades like these the band needs to decide ``MIN_BAND_SHARE`` of
    the answers (``calibration.band.grades_to_decide``); null when no number will (the
    rule errs too often even where it is surest) or in records written before it."""
    decided_cv: Agreement | None = None
    """Every agreement figure (kappa with its bootstrap interval ...) on the decided
    answers; null when none is decided."""
    band: Band
    """The band of the record's rule, fitted on all answers of the scope."""

    @model_validator(mode="after")
    def _counts(self) -> Selective:
        if self.decided > self.n:
            raise ValueError(f"decided ({self.decided}) is more than n ({self.n})")
        return self


def band_is_inert(selective: Selective | None) -> bool:
    """Whether the band decides less than :data:`MIN_BAND_SHARE` of answers out of fold."""
    if selective is None or selective.n == 0:
        return False
    return selective.decided / selective.n < MIN_BAND_SHARE


# what the audit does with an inert band's answers, by ``band_fallback``; None: the band of
# a scope the audit does not decide by (a dataset's own, beside the pooled one)
_INERT_AUDIT = {
    "rule": "the audit keeps the rule's verdicts and marks them undecided by the band",
    "unsure": "the audit leaves the answers inside it unsure",
    None: "this dataset's own band (the audit decides by the pooled one)",
}


def band_inert_notice(
    scope: str, selective: Selective | None, fallback: BandFallback | None
) -> Notice | None:
    """The words for an inert band: what it decides, what the audit does instead (by
    ``fallback``; None: a scope the audit does not decide by), and how many grades would
    make it decide (``--plan`` plans for the audit's scope alone)."""
    if not band_is_inert(selective):
        return None
    assert selective is not None
    need = selective.grades_to_decide
    plan = " (ragtriage calibrate --plan)" if fallback is not None else ""
    more = (
        f"about {need} grades like these would let it decide {MIN_BAND_SHARE:.0%}{plan}"
        if need is not None
        else "no number of grades will: even its surest answers miss the target "
        "(a better judge will, or a lower --min-agreement)"
    )
    return notice(
        "band_inert",
        f"{scope}: the unsure band decides {selective.decided} of {selective.n} answers "
        f"({selective.decided / max(1, selective.n):.0%}, under {MIN_BAND_SHARE:.0%}) at "
        f"agreement >= {selective.min_agreement:.2f}: {_INERT_AUDIT[fallback]}; {more}",
        decided=selective.decided,
        n=selective.n,
        grades_needed=need or 0,
    )


class ScopeReport(BaseModel):
    """Calibration of one dataset, or of all of them pooled."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    scope: str
    """``pooled`` (every dataset), or a dataset's name."""
    n_items: int
    """Graded items in the scope (count)."""
    n_agreement: int  # scored and with a (non-tied) human label
    """Items scored by the judge and with a non-tied human label: those measured (count)."""
    unscored: list[UnscoredItem] = Field(default_factory=list)
    """Graded items the judge did not score."""
    tied: list[str] = Field(default_factory=list)  # graders split evenly
    """Ids of the items whose graders split evenly (no label)."""
    threshold: NanFloat  # on the judge score, chosen on all items of the scope
    """The cut-off on the judge's score, fitted on all items of the scope."""
    fold_thresholds: list[NanFloat]
    """The same cut-off refitted without each fold, fold by fold."""
    cv: Agreement
    """Agreement of the score threshold's out-of-fold decisions."""
    in_sample: Agreement
    """Agreement of the score threshold fitted and measured on all items (optimistic)."""
    signals: list[MethodResult]  # each signal alone and the combination
    """Each usable signal's threshold alone, then the combination."""
    selection: Selection | None = None
    """What nested cross-validation chose among the candidate rules."""
    selected: MethodResult | None = None
    """The chosen rule with its outer-fold agreement (the record's rule on the first
    scope)."""
    baselines: list[MethodResult]  # majority class, lexical overlap
    """``majority`` (the majority class), and ``lexical`` when at least 90% of the scope's
    items have the lexical signal."""
    best_signal: str
    """The entry of ``signals`` with the highest cross-validated kappa."""
    beats_lexical: bool | None
    """True when the paired 95% interval of the selected rule's kappa minus the lexical
    baseline's is above 0; null for the lexical judge or without the baseline."""
    vs_lexical: tuple[NanFloat, NanFloat, NanFloat] | None = None
    """[difference, low, high]: cross-validated kappa of the selected rule minus the
    lexical baseline's, with its paired bootstrap 95% interval; null as ``beats_lexical``."""
    krippendorff_alpha: float | None = None
    """Nominal Krippendorff's alpha between graders (-1 to 1) over the items graded more
    than once; null when there are none."""
    n_multi_graded: int = 0
    """Items graded by more than one grader (count)."""
    selective: Selective | None = None
    """The selected rule's band: coverage and agreement on decided answers, out of fold."""
    ppi: PPIDemo | None = None
    """The PPI check on a seeded split of the graded items; null when too few (see
    ``ppi_note``)."""
    ppi_note: str = ""  # why there is no PPI check on this scope
    """Why there is no PPI check; empty when there is one."""

    @property
    def applied(self) -> Agreement:
        """The agreement of the rule the record applies (chosen by nested cross-validation),
        else of the plain score threshold, so a report shows the kappa of the rule it names."""
        return self.selected.cv if self.selected is not None else self.cv


class LabelledItem(BaseModel):
    """One graded item: the human's label, the judge's outcome, the rule's decisions."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    id: str
    """The item's id."""
    dataset: str
    """The dataset it comes from."""
    human: bool | None
    """The graders' majority label (true: faithful); null when they tie."""
    outcome: str
    """The judge's outcome; ``missing`` when there is no judge result."""
    score: float | None = None
    """The judge's score 0-1; null unless scored."""
    grade: float | None = None
    """The mean ordinal grade, when the grades give one; else null."""
    fold: int | None = None
    """The cross-validation fold (0-based); null for an item not measured."""
    decision_cv: bool | None = None  # out-of-fold decision of the record's rule
    """The record's rule's out-of-fold decision (true: faithful); null when not measured or
    a feature is missing."""
    decision: bool | None = None  # the record's rule fitted on all items
    """The decision of the record's rule fitted on all items; null as ``decision_cv``."""
    probability: float | None = None
    """The probability an active design drew it with (``annotate grades --design
    active``); null: drawn uniformly."""
    unsure_cv: bool | None = None
    """True when the band left the item ``unsure`` out of fold (its fold's rule and band);
    null when not measured or the record has no band."""
    answer_sha256: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """SHA-256 of the graded answer's text: an audit holding the same answer under the same
    id decides it by the person's grade, not the rule; absent in records written before."""


class Cost(BaseModel):
    """What judging one graded item cost, on average."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    calls_per_item: float = 0.0  # model calls an item needs (cache hits included)
    """Model calls per item, cache hits included."""
    usd_per_item: float = 0.0
    """US dollars per item, as litellm prices the calls made."""
    seconds_per_item: float | None = None  # None for recorded results
    """Wall seconds of judging per item; null for recorded results."""


class CalibrationRecord(BaseModel):
    """What ``ragtriage calibrate`` writes: the judge against human grades, and the rule
    the audit decides by."""

    schema_: str = Field(SCHEMA, alias="schema")
    """``ragtriage.calibration/1``."""
    package_version: str
    """The ragtriage version that calibrated."""
    judge_name: str
    """The judge spec given to ``calibrate`` (``embedded`` is recorded as strategy@model)."""
    fingerprint: JudgeFingerprint
    """The judge calibrated: an audit's judge differing in any field is stale."""
    grades: dict[str, str]  # grade file -> sha256 of its bytes
    """Grade file -> SHA-256 of its bytes."""
    seed: int
    """Seed of the folds, the bootstrap and the PPI split."""
    folds: int = Field(ge=2)
    """Cross-validation folds (count)."""
    resamples: int = Field(ge=0)
    """Bootstrap resamples per interval (count)."""
    rule: Rule  # how decide() decides
    """The rule the audit decides faithful by."""
    rule_name: str
    """``selected (NAME)``: NAME is the candidate nested cross-validation chose."""
    fold_rules: list[Rule] = Field(min_length=1)  # refitted without each fold (PPI)
    """The rule refitted without each fold, for the audit's cross-fitted PPI."""
    grade_shape: GradeShape | None = None
    """The shape of the graded answers (``calibration.fit_check``), which an audit's
    answers are compared with; null in records written before it."""
    band: Band | None = None
    """Where ``rule`` decides and where it leaves an answer ``unsure`` (the first scope's
    band); null in records written before bands, which decide every answer."""
    band_inert: bool = False
    """True when the band decides less than ``MIN_BAND_SHARE`` of the answers out of fold
    (few grades, or a target the judge cannot meet); ``band_fallback`` then says what the
    audit does with the answers inside it."""
    band_fallback: BandFallback = "rule"
    """With an inert band: ``rule`` (the default) keeps the rule's verdict for an answer
    inside the band and marks it undecided by the band (:meth:`undecided_by_band`);
    ``unsure`` leaves it ``unsure`` as a working band does. A working band always makes
    ``unsure``."""
    scopes: dict[str, ScopeReport] = Field(min_length=1)
    """Scope (``pooled`` first with several datasets, else the one dataset) -> its figures."""
    items: list[LabelledItem]
    """Every graded item, in the order the grades were read."""
    cost: Cost
    """What judging one item cost."""
    answer_check: AnswerCheck | None = None
    """The audit's answer check (``ignored``/``incomplete``) against the graders' "answers
    the question" marks; null when no grade carries the mark."""
    warnings: list[Notice] = Field(default_factory=list)
    """Everything that weakens the figures (few grades, no lead over the lexical baseline,
    items not scored, an inert band), each a notice with its code (``ragtriage.notices``);
    a plain string from an older record is read as code ``other``."""
    stability: SelfAgreement | None = None
    """With ``calibrate --samples``: the judge's agreement with itself beside its
    agreement with people, and each answer's flip rate; null with one sample."""

    model_config = {"populate_by_name": True, "use_attribute_docstrings": True}

    @field_validator("warnings", mode="before")
    @classmethod
    def _old_warnings(cls, value: object) -> object:
        """Records written before notices hold plain strings: each becomes a notice of
        code ``other`` (``few_grades`` when it says so, as the old reports decided)."""
        if not isinstance(value, list):
            return value
        return [_old_warning(v) if isinstance(v, str) else v for v in value]

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

    def is_unsure(self, result: JudgeResult) -> bool:
        """Whether the band leaves this scored result ``unsure`` (always False without a
        band, for a result the rule cannot decide: that is ``None``, not unsure, and with
        an inert band whose fallback is the rule: see :meth:`undecided_by_band`)."""
        if self.band_inert and self.band_fallback == "rule":
            return False
        return self._inside_band(result)

    def undecided_by_band(self, result: JudgeResult) -> bool:
        """Whether this result keeps the rule's verdict only because the band is inert and
        falls back to the rule (``band_fallback``): the triage side marks such a verdict
        as undecided by the band."""
        inert = self.band_inert and self.band_fallback == "rule"
        return inert and self._inside_band(result)

    def _inside_band(self, result: JudgeResult) -> bool:
        """Whether the band leaves this scored, decidable result undecided."""
        if self.band is None or self.decide(result) is None:
            return False
        groups, distance = margins(self.rule, one_row(self.rule, result))
        return not bool(decided_mask(self.band, groups, distance)[0])

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
        votes = (self._vote(r) for r in unlabelled if r.outcome == Outcome.SCORED)
        f_u = [v for v in votes if v is not None]
        labelled = [
            i
            for i in self.items
            if (scope == "pooled" or i.dataset == scope)
            and i.human is not None
            and i.decision_cv is not None
        ]
        if labelled and all(i.probability is not None for i in labelled):
            return self._ipw(unlabelled, labelled, level)
        return ppi_rate(
            f_u,
            [float(bool(i.decision_cv)) for i in labelled],  # None filtered out above
            [float(bool(i.human)) for i in labelled],
            level=level,
            power_tuning=power_tuning,
        )

    def _vote(self, result: JudgeResult) -> float | None:
        """The fold rules' mean decision on an audit answer; None when none decides it."""
        votes = [v for rule in self.fold_rules if (v := decide_one(rule, result)) is not None]
        return float(np.mean(votes)) if votes else None

    def _ipw(
        self, audit: list[JudgeResult], labelled: list[LabelledItem], level: float
    ) -> PPIEstimate:
        """Grades drawn by an active design from these answers: the inverse-probability-
        weighted rate (``calibration.active.ipw_rate``) over the audit's scored answers,
        each graded one with its out-of-fold decision, the others the fold rules' vote."""
        from ragtriage.calibration.active import ipw_rate

        graded = {i.id: i for i in labelled}
        f, drawn, y, pi = [], [], [], []
        for result in audit:
            if result.outcome != Outcome.SCORED:
                continue
            item = graded.get(result.item_id)
            if item is not None:
                f.append(float(bool(item.decision_cv)))
                drawn.append(True)
                y.append(float(bool(item.human)))
                pi.append(float(item.probability or 1.0))
                continue
            vote = self._vote(result)
            if vote is not None:
                f.append(vote)
                drawn.append(False)
                y.append(0.0)
                pi.append(1.0)
        missing = len(graded) - sum(drawn)
        if missing:
            raise InputError(
                f"{missing} of the {len(graded)} graded answers (drawn with inclusion "
                "probabilities by an active design) are not among this audit's scored "
                "answers: the weighted rate holds only for the answers they were drawn from"
            )
        return ipw_rate(np.array(f), np.array(drawn), np.array(y), np.array(pi), level)

    def save(self, path: Path | str) -> Path:
        path = Path(path)
        text = self.model_dump_json(indent=1, by_alias=True)
        return write_atomic(path, text + "\n")  # like every other output: never half-written


def _old_warning(text: str) -> Notice:
    """A warning of a record written before notices, by the words the old reports read."""
    if text.startswith("STALE"):
        return notice("stale_calibration", text, severity="lead")
    if "FEW GRADES" in text:
        return notice("few_grades", text, severity="lead")
    return notice("other", text)


def load_calibration(path: Path | str) -> CalibrationRecord:
    """Read a calibration record; a missing or malformed file is an :class:`InputError`."""
    path = Path(path)
    if not path.exists():
        raise InputError("calibration record not found", path=path)
    try:
        data = read_json_document(path)
    except InputError as exc:
        raise wrong_file(path, "calibration") or InputError(
            f"not a calibration record: {exc.message}", path=path, line=exc.line, field=exc.field
        ) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        if (wrong := wrong_file(path, "calibration")) is not None:
            raise wrong  # results.json, traces...: named, with the command that takes it
        raise InputError(
            f"not a calibration record (expected schema {SCHEMA})", path=path, field="schema"
        )
    try:
        return validated(CalibrationRecord, data, path, None)
    except RecursionError:
        raise InputError("nested too deeply to validate", path=path) from None


def is_stale(record: CalibrationRecord, fingerprint: JudgeFingerprint) -> list[str]:
    """The fingerprint fields in which ``fingerprint`` differs from the calibrated judge's:
    ``judge``, ``model``, ``params.<name>``, ``prompt_sha256.<file>``, ``package_version``.
    Empty when the calibration applies."""
    return fingerprint_diff(record.fingerprint, fingerprint)


def fingerprint_diff(old: JudgeFingerprint, new: JudgeFingerprint) -> list[str]:
    """The fields in which two judge fingerprints differ (:func:`is_stale`'s list); also
    what ``results.consistency`` recomputes an audit's ``calibration.stale`` from."""
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
    "MIN_BAND_SHARE",
    "CalibrationRecord",
    "Selective",
    "ShareEstimate",
    "band_inert_notice",
    "band_is_inert",
    "StaleCalibrationError",
    "ensure_fresh",
    "few_grades",
    "fingerprint_diff",
    "is_stale",
    "load_calibration",
]
