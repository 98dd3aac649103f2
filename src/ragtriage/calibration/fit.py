"""Calibrate one judge's results against the human grades: the whole computation.

Pure given its inputs (seeded folds and bootstrap), so the same grades and judge results
always give the same record. Every item is accounted for: scored items with a human label
enter the agreement figures; others are listed as unscored (with the judge's outcome) or
tied (graders split evenly).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ragtriage.calibration.agreement import agreement, cohen_kappa
from ragtriage.calibration.answers import AnswerCheck, AnswerChecker, answer_check
from ragtriage.calibration.band import (
    DEFAULT_DELTA,
    DEFAULT_MIN_AGREEMENT,
    BandFallback,
    fold_decisions,
    grades_to_decide,
)
from ragtriage.calibration.combine import combination_features, distinct_columns, usable_features
from ragtriage.calibration.decision import (
    FACT_VETO,
    LOG_SUFFIXES,
    AnyRule,
    Fit,
    Table,
    ThresholdRule,
    result_features,
)
from ragtriage.calibration.fit_check import GradeShape, grade_shape
from ragtriage.calibration.grades import GradedItem
from ragtriage.calibration.intergrader import krippendorff_alpha_nominal
from ragtriage.calibration.judges import answer_tokens, package_version
from ragtriage.calibration.ppi import ppi_rate
from ragtriage.calibration.record import (
    MIN_BAND_SHARE,
    CalibrationRecord,
    Cost,
    LabelledItem,
    MethodResult,
    PPIDemo,
    ScopeReport,
    Selective,
    ShareEstimate,
    UnscoredItem,
    band_inert_notice,
    band_is_inert,
    few_grades,
)
from ragtriage.calibration.select import (
    Candidate,
    Selection,
    candidates,
    choose,
    logistic_fit,
    nested_band,
    nested_select,
    threshold_fit,
)
from ragtriage.calibration.shape import shape_usable
from ragtriage.calibration.stability import SelfAgreement, self_agreement
from ragtriage.calibration.threshold import (
    cross_fit,
    fit_majority,
    stratified_folds,
    subset,
)
from ragtriage.errors import InputError
from ragtriage.judge.lexical import lexical_support
from ragtriage.judge.strategies.common import MODEL_FREE_SIGNALS
from ragtriage.judge.types import JudgeResult, Outcome
from ragtriage.notices import Notice, notice
from ragtriage.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    bootstrap_statistic,
    wilson_interval,
)

__all__ = ["VETO_CANDIDATES", "Fit", "beats_baseline", "fit_record", "scope_candidates"]

# Every candidate, the smooth rule included, carries the swap veto (``decision.FACT_VETO``,
# whose comment says why not the whole fact check), so the rule is chosen and measured as
# the audit applies it.
VETO_CANDIDATES = True


_fit_score = threshold_fit("score", 1)


def _threshold(rule: AnyRule) -> float:
    """The cut of a rule fitted by :func:`_fit_score`, always a :class:`ThresholdRule`."""
    assert isinstance(rule, ThresholdRule), rule
    return rule.threshold


def _fewer_folds(used: list) -> str:
    """The way on with few grades: fewer folds (two grades each), and for an active
    sample, which is never extended, a new one (issue 53: a sample of 5 had no way on)."""
    n = len(used)
    more = (
        "draw a new active sample of 10 or more (one is never extended)"
        if any(getattr(i, "probability", None) is not None for i in used)
        else "grade more"
    )
    if n < 4:
        return f"; {more}"
    return f"; calibrate these with --folds {n // 2} (two grades a fold; wide intervals), or {more}"


def _check_enough(used: list, folds: int) -> None:
    """Say what is actually missing: too few scored items, or only one label among them."""
    if len(used) < 2 * folds:
        raise InputError(
            f"only {len(used)} graded items were scored (need {2 * folds} or more) to calibrate"
            + _fewer_folds(used)
        )
    labels = {i.label for i in used}
    if len(labels) < 2:
        only = "faithful" if labels == {True} else "unfaithful"
        raise InputError(
            f"all {len(used)} scored items are graded {only}: calibration needs both "
            "faithful and unfaithful grades"
        )


def _features(item: GradedItem, result: JudgeResult) -> dict[str, float]:
    """The result's score and signals; ``lexical`` and a length computed from the graded
    text when the judge does not report them (for the baselines and the per-signal table
    only: decision rules use what the judge reports, as the audit will see it)."""
    row = result_features(result)
    if "lexical" not in row and item.answer is not None:
        lex = lexical_support(item.answer, list(item.contexts))
        if lex is not None:
            row["lexical"] = lex
    if not any(k.endswith(LOG_SUFFIXES) for k in row) and item.answer is not None:
        row["answer_tokens"] = answer_tokens(item.answer)
    return row


def _table(rows: list[dict[str, float]]) -> Table:
    names = sorted({k for r in rows for k in r})
    return {k: np.array([r.get(k, np.nan) for r in rows], dtype=float) for k in names}


class _Scope:
    """One scope's items (``idx`` into the used items) and what is fitted on them."""

    def __init__(self, idx: np.ndarray, inputs: _Inputs) -> None:
        self.idx, self.y, self.table = idx, inputs.y[idx], subset(inputs.table, idx)
        self.grades, self.folds = inputs.grades[idx], inputs.fold_of[idx]
        self.datasets = inputs.datasets[idx]
        self.settings = settings = inputs.settings
        self.seed, self.resamples = settings.seed, settings.resamples
        self.oof: dict[str, np.ndarray] = {}
        self.min_agreement, self.delta = settings.min_agreement, settings.delta
        self.selective: Selective | None = None
        self.decided = np.zeros(len(self.y), dtype=bool)

    def method(
        self, name: str, fit: Fit, *, scores: bool = False
    ) -> tuple[MethodResult, list[AnyRule]]:
        oof, rules = cross_fit(fit, self.table, self.y, self.folds)
        rule = fit(self.table, self.y)
        full = rule.predict(self.table)
        ok = np.isfinite(oof)  # an item lacking this signal has no decision by it
        extra = {"scores": self.table["score"][ok], "grades": self.grades[ok]} if scores else {}
        cv = agreement(self.y[ok], oof[ok], resamples=self.resamples, seed=self.seed, **extra)
        in_kappa = agreement(self.y[ok], np.nan_to_num(full[ok]), resamples=0).kappa
        self.oof[name] = oof
        return MethodResult(name=name, cv=cv, in_sample_kappa=in_kappa, rule=rule), rules

    def selected(self, cands: list[Candidate]) -> tuple[Selection, MethodResult, list[AnyRule]]:
        """The nested-cross-validated choice among ``cands`` (``calibration.select``): its
        outer-fold agreement is the figure for the whole procedure, choice included."""
        selection, oof, rules, rule = nested_select(
            cands, self.table, self.y, self.folds, self.seed, self.datasets
        )
        ok = np.isfinite(oof)
        cv = agreement(self.y[ok], oof[ok], resamples=self.resamples, seed=self.seed)
        in_kappa = agreement(self.y, np.nan_to_num(rule.predict(self.table)), resamples=0).kappa
        self.oof["selected"] = oof
        self.fold_rules = rules
        self.selective = self._selective(selection, cands, oof)
        name = f"selected ({selection.chosen})"
        return selection, MethodResult(name=name, cv=cv, in_sample_kappa=in_kappa, rule=rule), rules

    def _selective(
        self, selection: Selection, cands: list[Candidate], oof: np.ndarray
    ) -> Selective:
        """Coverage and decided agreement of the band fitted inside each outer fold."""
        decided, _, band = nested_band(
            selection, cands, self.table, self.y, self.folds, self.seed,
            self.min_agreement, self.delta,
        )  # fmt: skip
        ok = np.isfinite(oof)
        self.decided = np.where(ok, decided, False)
        take = self.decided
        n, k = int(ok.sum()), int(take.sum())
        right = int((oof[take] == self.y[take]).sum())
        need = grades_to_decide(
            self._oof_margins(oof), oof == self.y, self.min_agreement, self.delta, MIN_BAND_SHARE
        )
        return Selective(
            grades_to_decide=need,
            min_agreement=self.min_agreement,
            delta=self.delta,
            n=n,
            decided=k,
            coverage=_wilson(k, n),
            agreement=_wilson(right, k),
            decided_cv=(
                agreement(self.y[take], oof[take], resamples=self.resamples, seed=self.seed)
                if k > 1
                else None
            ),
            band=band,
        )

    def _oof_margins(self, oof: np.ndarray) -> np.ndarray:
        """Each answer's margin under the outer-fold rule that decided it (NaN: none)."""
        out = fold_decisions(self.fold_rules, self.table, self.folds)[1]
        return np.where(np.isfinite(oof), out, np.nan)

    def kappa_difference(self, a: str, b: str) -> tuple[float, float, float]:
        """Cross-validated kappa of method ``a`` minus that of ``b`` on the same items, with
        a paired percentile-bootstrap 95 % interval (items resampled together, so the
        interval reflects the difference, not two independent uncertainties)."""
        ok = np.isfinite(self.oof[a]) & np.isfinite(self.oof[b])
        y, da, db = self.y[ok], self.oof[a][ok], self.oof[b][ok]

        def diff(idx: np.ndarray) -> float:
            return cohen_kappa(y[idx], da[idx]) - cohen_kappa(y[idx], db[idx])

        low, high = bootstrap_statistic(len(y), diff, resamples=self.resamples, seed=self.seed)
        return diff(np.arange(len(y))), low, high


@dataclass(frozen=True)
class _Partition:
    """The graded items split by what calibration can do with them."""

    used: list[GradedItem]  # scored, with a label: the agreement figures
    rows: list[dict[str, float]]  # their feature rows, in the same order
    unscored: list[tuple[GradedItem, UnscoredItem]]  # the judge gave no score
    tied: list[GradedItem]  # graders split evenly: no label


@dataclass(frozen=True)
class _Settings:
    """How ``fit_record`` was asked to measure (its keyword arguments)."""

    seed: int
    resamples: int
    folds: int
    ppi_fraction: float
    min_agreement: float
    delta: float
    band_fallback: BandFallback


@dataclass(frozen=True)
class _Inputs:
    """What every scope is fitted from: the feature table of the used items and its folds."""

    table: Table
    derived: set[str]  # features computed here, not reported by the judge
    y: np.ndarray
    grades: np.ndarray
    fold_of: np.ndarray
    datasets: np.ndarray
    scope_names: list[str]
    signal_names: list[str]
    is_lexical_judge: bool
    settings: _Settings


@dataclass
class _Scopes:
    """Every scope's report, and the first scope's choice (the record's rule)."""

    reports: dict[str, ScopeReport]
    chosen: MethodResult
    chosen_folds: list[AnyRule]
    unsure: dict[str, bool]  # item id -> left unsure out of fold by the first scope's band
    notices: list[Notice]


def fit_record(
    items: list[GradedItem],
    results: list[JudgeResult],
    *,
    judge_name: str,
    grades_digest: dict[str, str],
    seed: int = DEFAULT_SEED,
    folds: int = 5,
    resamples: int = DEFAULT_RESAMPLES,
    seconds: float | None = None,
    ppi_fraction: float = 0.5,
    min_agreement: float = DEFAULT_MIN_AGREEMENT,
    delta: float = DEFAULT_DELTA,
    answer_checker: AnswerChecker | None = None,
    band_fallback: BandFallback = "rule",
) -> CalibrationRecord:
    """Agreement, thresholds, baselines, combination, the selective band (decided answers
    agree with the humans at ``min_agreement`` with probability ``1 - delta``; an inert
    band's answers left to ``band_fallback``) and a PPI check, per dataset and pooled;
    with ``answer_checker`` (the audit's answer check), its agreement with the graders'
    "answers the question" marks."""
    by_id = _one_judge(results)
    graded_ids = {i.id for i in items}
    parts = _partition(items, by_id)
    _check_enough(parts.used, folds)
    settings = _Settings(seed, resamples, folds, ppi_fraction, min_agreement, delta, band_fallback)
    inputs = _inputs(items, results, parts, settings)
    scopes = _fit_scopes(inputs, items, parts)
    stability = self_agreement(
        scopes.chosen.rule,
        {i.id: by_id[i.id] for i in parts.used},
        {i.id: bool(i.label) for i in parts.used},
        seed=seed,
        resamples=resamples,
    )
    notices = _record_notices(by_id, items, parts, scopes, stability)
    first = next(iter(scopes.reports.values()))
    return CalibrationRecord(
        package_version=package_version(),
        judge_name=judge_name,
        fingerprint=results[0].fingerprint,
        grades=grades_digest,
        seed=seed,
        folds=folds,
        resamples=resamples,
        rule=scopes.chosen.rule,
        rule_name=scopes.chosen.name,
        fold_rules=scopes.chosen_folds,
        band=first.selective.band if first.selective is not None else None,
        band_inert=band_is_inert(first.selective),
        band_fallback=band_fallback,
        grade_shape=_grade_shape(parts.used, by_id),
        scopes=scopes.reports,
        items=_labelled(items, by_id, inputs, parts, scopes),
        cost=_cost(results, graded_ids, seconds),
        answer_check=_answer_check(items, answer_checker, settings),
        warnings=notices,
        stability=stability,
    )


def _answer_check(
    items: list[GradedItem], checker: AnswerChecker | None, settings: _Settings
) -> AnswerCheck | None:
    """The audit's answer check against the graders' marks; None without a checker."""
    if checker is None:
        return None
    return answer_check(items, checker, resamples=settings.resamples, seed=settings.seed)


def _record_notices(
    by_id: dict[str, JudgeResult],
    items: list[GradedItem],
    parts: _Partition,
    scopes: _Scopes,
    stability: SelfAgreement | None,
) -> list[Notice]:
    """Everything that weakens the record's figures, in the order a reader meets it."""
    return [
        *_unused_results(by_id, {i.id for i in items}),
        *scopes.notices,
        *_design_notice(items),
        *_stability_notice(stability, scopes.reports, len(parts.used)),
        *_unscored_notice(parts.unscored),
    ]


def _one_judge(results: list[JudgeResult]) -> dict[str, JudgeResult]:
    """The results by item id, refused when empty or from several judges."""
    if not results:
        raise InputError("no judge results to calibrate")
    prints = {r.fingerprint.model_dump_json() for r in results}
    if len(prints) > 1:
        raise InputError("judge results from several judges (fingerprints) in one calibration")
    return {r.item_id: r for r in results}


def _partition(items: list[GradedItem], by_id: dict[str, JudgeResult]) -> _Partition:
    """Used (scored and labelled), unscored (with the judge's outcome) and tied items."""
    used, rows, unscored, tied = [], [], [], []
    for item in items:
        result = by_id.get(item.id)
        if item.label is None:
            tied.append(item)
        elif result is None:
            reason = "no judge result for this item"
            unscored.append((item, UnscoredItem(id=item.id, outcome="missing", reason=reason)))
        elif result.outcome != Outcome.SCORED:
            left = UnscoredItem(id=item.id, outcome=str(result.outcome), reason=result.reason)
            unscored.append((item, left))
        else:
            used.append(item)
            rows.append(_features(item, result))
    return _Partition(used=used, rows=rows, unscored=unscored, tied=tied)


def _inputs(
    items: list[GradedItem],
    results: list[JudgeResult],
    parts: _Partition,
    settings: _Settings,
) -> _Inputs:
    """The feature table of the used items, their labels, folds and scopes."""
    used = parts.used
    table = _table(parts.rows)
    scored = [r for r in results if r.outcome == Outcome.SCORED]
    derived = {k for k in table if not any(k in r.signals or k == "score" for r in scored)}
    datasets = sorted({i.dataset for i in items})
    return _Inputs(
        table=table,
        derived=derived,
        y=np.array([float(bool(i.label)) for i in used]),  # tied (None) labels are not used
        grades=np.array([np.nan if i.grade is None else i.grade for i in used]),
        fold_of=stratified_folds(
            [f"{i.dataset}|{i.label}" for i in used], settings.folds, settings.seed
        ),
        datasets=np.array([i.dataset for i in used], dtype=object),
        scope_names=["pooled", *datasets] if len(datasets) > 1 else datasets,
        signal_names=distinct_columns(table, ["score", *[k for k in table if k != "score"]]),
        is_lexical_judge=results[0].fingerprint.judge == "lexical",
        settings=settings,
    )


def _fit_scopes(inputs: _Inputs, items: list[GradedItem], parts: _Partition) -> _Scopes:
    """Each scope's report and notices; the first scope's choice is the record's rule."""
    reports: dict[str, ScopeReport] = {}
    notices: list[Notice] = []
    first: tuple[MethodResult, list[AnyRule]] | None = None
    unsure: dict[str, bool] = {}
    for name in inputs.scope_names:
        mask = np.array([name in ("pooled", i.dataset) for i in parts.used])
        sc = _Scope(np.flatnonzero(mask), inputs)
        in_scope = [i for i in items if name in ("pooled", i.dataset)]
        report, choice = _scope_report(name, sc, in_scope, inputs)
        report.unscored = [u for i, u in parts.unscored if name in ("pooled", i.dataset)]
        report.tied = [i.id for i in parts.tied if name in ("pooled", i.dataset)]
        notices += _scope_notices(name, report, sc, inputs)
        reports[name] = report
        if first is None:
            first = choice
            ids = [parts.used[int(k)].id for k in sc.idx]
            unsure = {i: not d for i, d in zip(ids, sc.decided, strict=True)}
    assert first is not None
    return _Scopes(reports, first[0], first[1], unsure, notices)


def _scope_notices(name: str, report: ScopeReport, sc: _Scope, inputs: _Inputs) -> list[Notice]:
    """What weakens one scope's figures: no lead over word overlap, too few grades, a band
    that decides too little."""
    out = []
    if report.beats_lexical is False and report.vs_lexical and report.vs_lexical[0] > 0:
        d, lo, hi = report.vs_lexical
        out.append(notice(
            "not_beating_lexical",
            f"{name}: the judge's lead over the lexical baseline is within noise, so it "
            f"does not beat it (kappa difference {d:+.2f}, paired 95 % CI "
            f"[{lo:+.2f}, {hi:+.2f}])",
        ))  # fmt: skip
    elif report.beats_lexical is False:
        assert report.selected is not None
        best = report.selected.cv.kappa
        lex = next(b.cv.kappa for b in report.baselines if b.name == "lexical")
        out.append(notice(
            "not_beating_lexical",
            f"{name}: the judge does not beat the lexical baseline (cross-validated kappa "
            f"{_kappa(best)} vs {_kappa(lex)}): not worth its cost here",
        ))  # fmt: skip
    n_faithful = int(sum(sc.y))
    if (few := few_grades(n_faithful, len(sc.y) - n_faithful)) is not None:
        out.append(notice("few_grades", f"{name}: {few}", severity="lead",
                          faithful=n_faithful, unfaithful=len(sc.y) - n_faithful))  # fmt: skip
    # the audit decides by the first scope's band: another scope's says only what it decides
    audit = inputs.settings.band_fallback if name == inputs.scope_names[0] else None
    if (inert := band_inert_notice(name, report.selective, audit)) is not None:
        out.append(inert)
    return out


def _labelled(
    items: list[GradedItem],
    by_id: dict[str, JudgeResult],
    inputs: _Inputs,
    parts: _Partition,
    scopes: _Scopes,
) -> list[LabelledItem]:
    """Every graded item with its label, outcome and the record's rule's decisions."""
    oof = fold_decisions(scopes.chosen_folds, inputs.table, inputs.fold_of)[2]
    full = scopes.chosen.rule.predict(inputs.table)
    decided = {i.id: (oof[k], full[k], inputs.fold_of[k]) for k, i in enumerate(parts.used)}
    records = []
    for item in items:
        result = by_id.get(item.id)
        cv_d, full_d, fold = decided.get(item.id, (np.nan, np.nan, None))
        records.append(
            LabelledItem(
                id=item.id,
                dataset=item.dataset,
                human=item.label,
                outcome=str(result.outcome) if result else "missing",
                score=result.score if result else None,
                grade=item.grade,
                fold=None if fold is None else int(fold),
                decision_cv=None if np.isnan(cv_d) else bool(cv_d),
                decision=None if np.isnan(full_d) else bool(full_d),
                unsure_cv=None if np.isnan(cv_d) else scopes.unsure.get(item.id),
                probability=item.probability,
                answer_sha256=item.answer_sha256,
            )
        )
    return records


def _cost(results: list[JudgeResult], graded_ids: set[str], seconds: float | None) -> Cost:
    """What judging one graded item cost, on average."""
    judged = [r for r in results if r.item_id in graded_ids]
    n_judged = max(1, len(judged))
    return Cost(
        calls_per_item=sum(r.usage.calls + r.usage.cached_calls for r in judged) / n_judged,
        usd_per_item=sum(r.usage.cost_usd for r in judged) / n_judged,
        seconds_per_item=None if seconds is None else seconds / n_judged,
    )


def _grade_shape(used: list[GradedItem], by_id: dict[str, JudgeResult]) -> GradeShape:
    """The shape of the graded answers, for the audit's fit check."""
    return grade_shape(
        [
            {**result_features(by_id[i.id]), "context_chars": sum(len(c) for c in i.contexts)}
            for i in used
        ]
    )


def _unused_results(by_id: dict[str, JudgeResult], graded_ids: set[str]) -> list[Notice]:
    extra = len(set(by_id) - graded_ids)
    if not extra:
        return []
    text = f"{extra} judge results have no human grade and were not used"
    return [notice("unused_results", text, severity="info", results=extra)]


def _design_notice(items: list[GradedItem]) -> list[Notice]:
    """Grades drawn with unequal probabilities measure harder answers than the audit's."""
    drawn = [i.probability for i in items if i.probability is not None]
    # equal probabilities (every one 1.0: the design drew all it could) are a uniform draw
    if not drawn or (min(drawn) == max(drawn) and len(drawn) == len(items)):
        return []
    return [notice(
        "active_design",
        f"ACTIVE DESIGN: {len(drawn)} of {len(items)} grades were drawn with unequal "
        f"inclusion probabilities ({min(drawn):.3f} to {max(drawn):.3f}), most where the "
        "judge was unsure: kappa, agreement and the band are measured on the answers as "
        "drawn, not weighted, so they describe harder answers than the audit's; the "
        "corrected rate (--audit, audit --calibration) uses inverse-probability weights",
        drawn=len(drawn),
    )]  # fmt: skip


def _stability_notice(
    stability: SelfAgreement | None, reports: dict[str, ScopeReport], n_used: int
) -> list[Notice]:
    """A judge that disagrees with itself more than with people."""
    if stability is None:
        return []
    first = next(iter(reports.values()))
    with_people = first.applied
    if stability.kappa >= with_people.kappa:
        return []
    return [notice(
        "judge_unstable",
        f"the judge disagrees with itself more than with people: kappa between two "
        f"samples of the same answer {_kappa(stability.kappa)} "
        f"[{_kappa(stability.kappa_low)}, {_kappa(stability.kappa_high)}] is below "
        f"its kappa with the human grades {_kappa(with_people.kappa)} "
        f"({stability.flaky} of {n_used} answers flip between samples)",
        flaky=stability.flaky,
    )]  # fmt: skip


def _unscored_notice(unscored: list[tuple[GradedItem, UnscoredItem]]) -> list[Notice]:
    if not unscored:
        return []
    kinds = Counter(u.outcome for _, u in unscored)
    text = "not scored and so not in the agreement figures: " + ", ".join(
        f"{n} {k}" for k, n in sorted(kinds.items())
    )
    return [Notice(code="unscored_grades", text=text, counts=dict(kinds))]


def _wilson(successes: int, n: int) -> ShareEstimate:
    """A share with its Wilson 95 % interval; all null (NaN) when there is nothing to count."""
    if n == 0:
        return ShareEstimate(estimate=float("nan"), low=float("nan"), high=float("nan"))
    w = wilson_interval(successes, n)
    return ShareEstimate(estimate=w.estimate, low=w.low, high=w.high)


def beats_baseline(difference: tuple[float, float, float]) -> bool:
    """Whether a judge is better than a baseline: only when the paired 95 % interval of
    its kappa minus the baseline's excludes 0. A higher point estimate inside the noise
    (0.329 vs 0.325, interval [-0.09, +0.09]) is not "better"."""
    _, low, _ = difference
    return bool(np.isfinite(low) and low > 0)


def _scope_report(
    name: str,
    sc: _Scope,
    in_scope: list[GradedItem],
    inputs: _Inputs,
) -> tuple[ScopeReport, tuple[MethodResult, list[AnyRule]]]:
    """Everything measured on one scope, and the rule nested cross-validation chooses on
    it, with its outer-fold rules."""
    # Long on purpose (70 lines): one report's fields, each a named measurement above,
    # assembled in one place so the record reads top to bottom.
    signal_names, derived = inputs.signal_names, inputs.derived
    is_lexical_judge = inputs.is_lexical_judge
    main, fold_rules = sc.method("score", _fit_score, scores=True)
    in_sample = agreement(
        sc.y,
        main.rule.predict(sc.table),
        scores=sc.table["score"],
        grades=sc.grades,
        resamples=sc.resamples,
        seed=sc.seed,
    )
    usable = usable_features(sc.table, signal_names)
    signals = [main]
    signals += [sc.method(s, threshold_fit(s))[0] for s in usable if s != "score"]
    # only signals the judge reports itself, so that decide() sees the same inputs
    reported = sorted(k for k in sc.table if k not in derived)
    combo_features = combination_features(usable_features(sc.table, reported))
    combo_features = distinct_columns(sc.table, combo_features)
    combo = sc.method("combination", logistic_fit(combo_features))[0]
    signals.append(combo)
    baselines = [sc.method("majority", lambda t, yy: fit_majority(yy))[0]]
    if "lexical" in sc.table and np.isfinite(sc.table["lexical"]).mean() >= 0.9:
        baselines.append(sc.method("lexical", threshold_fit("lexical", 1))[0])
    lex = next((b.cv.kappa for b in baselines if b.name == "lexical"), None)
    best = max(signals, key=lambda m: np.nan_to_num(m.cv.kappa, nan=-1))
    cands = scope_candidates(sc.table, derived, is_lexical_judge)
    selection, chosen, chosen_rules = sc.selected(cands)
    beats, vs_lexical = None, None
    if not is_lexical_judge and lex is not None:
        vs_lexical = sc.kappa_difference("selected", "lexical")
        beats = beats_baseline(vs_lexical)

    def fit(table: Table, y: np.ndarray) -> AnyRule:  # the whole procedure, for PPI's folds
        # (without the transfer check: the PPI split's folds do not carry the datasets)
        return choose(cands, table, y, sc.seed)[0].fit(table, y)

    multi = [[g.label for g in i.grades] for i in in_scope if len(i.grades) > 1]
    report = ScopeReport(
        scope=name,
        n_items=len(in_scope),
        n_agreement=len(sc.y),
        threshold=_threshold(main.rule),
        fold_thresholds=[_threshold(r) for r in fold_rules],
        cv=main.cv,
        in_sample=in_sample,
        signals=signals,
        selection=selection,
        selected=chosen,
        baselines=baselines,
        best_signal=best.name,
        beats_lexical=beats,
        vs_lexical=vs_lexical,
        krippendorff_alpha=krippendorff_alpha_nominal(multi),
        n_multi_graded=len(multi),
        selective=sc.selective,
        ppi=_ppi_demo(sc, fit),
    )
    if report.ppi is None:
        report.ppi_note = _no_ppi(sc.y, sc.settings.folds, sc.settings.ppi_fraction)
    return report, (chosen, chosen_rules)


def scope_candidates(table: Table, derived: set[str], is_lexical_judge: bool) -> list[Candidate]:
    """The candidate rules (:func:`~ragtriage.calibration.select.candidates`) on a scope's
    answers, from the signals the judge reports itself (not ``derived`` ones)."""
    reported = sorted(k for k in table if k not in derived)
    choosable = distinct_columns(table, ["score", *usable_features(table, reported)])
    free = None if is_lexical_judge else MODEL_FREE_SIGNALS
    shaped = shape_usable(table)  # both shapes (citing or not) among these answers
    smooth = [k for k in reported if k in MODEL_FREE_SIGNALS]
    veto = VETO_CANDIDATES and FACT_VETO in reported
    return candidates(choosable, veto=veto, model_free=free, shape=shaped, smooth=smooth)


def _no_ppi(y: np.ndarray, folds: int, fraction: float) -> str:
    """Why the PPI check did not run (the conditions of :func:`_ppi_demo`)."""
    n = len(y)
    labelled = int(round(fraction * n))
    return (
        f"not run: {n} scored grades split {labelled} labelled / {n - labelled} hidden; it "
        f"needs {2 * folds} or more labelled (with both faithful and unfaithful among them) "
        "and 2 or more hidden"
    )


def _ppi_demo(sc: _Scope, fit: Fit) -> PPIDemo | None:
    """Hide the labels of a seeded (1 - fraction) of the items, estimate their faithful rate
    by cross-fitted PPI from the rest, and keep the hidden truth beside it."""
    seed, folds, fraction = sc.seed, sc.settings.folds, sc.settings.ppi_fraction
    n = len(sc.y)
    rng = np.random.default_rng(seed + 1)
    labelled = np.zeros(n, dtype=bool)
    labelled[rng.permutation(n)[: int(round(fraction * n))]] = True
    if labelled.sum() < 2 * folds or (~labelled).sum() < 2 or len(np.unique(sc.y[labelled])) < 2:
        return None
    lab_table, unl_table = subset(sc.table, labelled), subset(sc.table, ~labelled)
    k = stratified_folds([str(v) for v in sc.y[labelled]], folds, seed)
    oof, rules = cross_fit(fit, lab_table, sc.y[labelled], k)
    f_u = np.mean([r.predict(unl_table) for r in rules], axis=0)
    keep_l, keep_u = np.isfinite(oof), np.isfinite(f_u)
    estimate = ppi_rate(f_u[keep_u], oof[keep_l], sc.y[labelled][keep_l])
    return PPIDemo(
        estimate=estimate,
        hidden_human_rate=float(sc.y[~labelled].mean()),
        labelled_fraction=fraction,
    )


def _kappa(value: float) -> str:
    """A kappa in a warning: NaN (constant raters, e.g. one class only) is 'undefined'."""
    return "undefined" if math.isnan(value) else f"{value:.2f}"
