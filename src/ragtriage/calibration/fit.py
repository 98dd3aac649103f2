"""Calibrate one judge's results against the human grades: the whole computation.

Pure given its inputs (seeded folds and bootstrap), so the same grades and judge results
always give the same record. Every item is accounted for: scored items with a human label
enter the agreement figures; others are listed as unscored (with the judge's outcome) or
tied (graders split evenly).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

import numpy as np

from ragtriage.calibration.agreement import agreement, cohen_kappa
from ragtriage.calibration.answers import AnswerChecker, answer_check
from ragtriage.calibration.band import DEFAULT_DELTA, DEFAULT_MIN_AGREEMENT, Band
from ragtriage.calibration.combine import combination_features, fit_logistic, usable_features
from ragtriage.calibration.decision import (
    FACT_VETO,
    LOG_SUFFIXES,
    AnyRule,
    Table,
    ThresholdRule,
    result_features,
)
from ragtriage.calibration.fit_check import grade_shape
from ragtriage.calibration.grades import GradedItem
from ragtriage.calibration.intergrader import krippendorff_alpha_nominal
from ragtriage.calibration.judges import answer_tokens, package_version
from ragtriage.calibration.ppi import ppi_rate
from ragtriage.calibration.record import (
    CalibrationRecord,
    Cost,
    LabelledItem,
    MethodResult,
    PPIDemo,
    ScopeReport,
    Selective,
    UnscoredItem,
    few_grades,
)
from ragtriage.calibration.select import (
    Candidate,
    Selection,
    candidates,
    nested_band,
    nested_select,
    select_rule,
)
from ragtriage.calibration.shape import shape_usable
from ragtriage.calibration.stability import self_agreement
from ragtriage.calibration.threshold import (
    cross_fit,
    fit_majority,
    fit_threshold,
    stratified_folds,
    subset,
)
from ragtriage.errors import InputError
from ragtriage.judge.lexical import lexical_support
from ragtriage.judge.strategies.common import MODEL_FREE_SIGNALS
from ragtriage.judge.types import JudgeResult, Outcome
from ragtriage.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Estimate,
    bootstrap_statistic,
    wilson_interval,
)

__all__ = ["Fit", "beats_baseline", "fit_record", "scope_candidates"]

Fit = Callable[[Table, np.ndarray], AnyRule]


def _fit_score(table: Table, y: np.ndarray) -> ThresholdRule:
    return fit_threshold(table["score"], y, "score", direction=1)


def _threshold(rule: AnyRule) -> float:
    """The cut of a rule fitted by :func:`_fit_score`, always a :class:`ThresholdRule`."""
    assert isinstance(rule, ThresholdRule), rule
    return rule.threshold


def _fit_signal(name: str, direction: int | None) -> Fit:
    return lambda table, y: fit_threshold(table[name], y, name, direction=direction)


def _fit_combination(features: list[str]) -> Fit:
    return lambda table, y: fit_logistic(table, y, features)


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


def _distinct(table: Table, names: list[str]) -> list[str]:
    """Drop features identical to an earlier one (the lexical judge's score is 'lexical')."""
    keep: list[str] = []
    for name in names:
        if not any(np.allclose(table[name], table[k], equal_nan=True) for k in keep):
            keep.append(name)
    return keep


class _Scope:
    def __init__(self, idx, y, table, grades, folds, seed, resamples):
        self.idx, self.y, self.table = idx, y[idx], subset(table, idx)
        self.grades, self.folds = grades[idx], folds[idx]
        self.seed, self.resamples = seed, resamples
        self.oof: dict[str, np.ndarray] = {}
        self.min_agreement, self.delta = DEFAULT_MIN_AGREEMENT, DEFAULT_DELTA
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
        """The nested-cross-validated choice among ``cands`` (the signals and the small
        combinations, :mod:`ragtriage.calibration.select`): its outer-fold agreement is the
        figure for the whole procedure, choice included."""
        selection, oof, rules, rule = nested_select(
            cands, self.table, self.y, self.folds, self.seed
        )
        ok = np.isfinite(oof)
        cv = agreement(self.y[ok], oof[ok], resamples=self.resamples, seed=self.seed)
        in_kappa = agreement(self.y, np.nan_to_num(rule.predict(self.table)), resamples=0).kappa
        self.oof["selected"] = oof
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
        return Selective(
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
) -> CalibrationRecord:
    """Agreement, thresholds, baselines, combination, the selective band (decided answers
    agree with the humans at ``min_agreement`` with probability ``1 - delta``) and a PPI
    check, per dataset and pooled; with ``answer_checker`` (the audit's answer check), its
    agreement with the graders' "answers the question" marks."""
    if not results:
        raise InputError("no judge results to calibrate")
    prints = {r.fingerprint.model_dump_json() for r in results}
    if len(prints) > 1:
        raise InputError("judge results from several judges (fingerprints) in one calibration")
    by_id = {r.item_id: r for r in results}
    graded_ids = {i.id for i in items}
    warnings = []
    extra = len(set(by_id) - graded_ids)
    if extra:
        warnings.append(f"{extra} judge results have no human grade and were not used")
    unscored, tied, used, rows = [], [], [], []
    for item in items:
        result = by_id.get(item.id)
        if item.label is None:
            tied.append(item)
        elif result is None:
            unscored.append(
                (
                    item,
                    UnscoredItem(
                        id=item.id, outcome="missing", reason="no judge result for this item"
                    ),
                )
            )
        elif result.outcome != Outcome.SCORED:
            unscored.append(
                (item, UnscoredItem(id=item.id, outcome=str(result.outcome), reason=result.reason))
            )
        else:
            used.append(item)
            rows.append(_features(item, result))
    _check_enough(used, folds)
    table = _table(rows)
    derived = {
        k
        for k in table
        if not any(k in r.signals or k == "score" for r in results if r.outcome == Outcome.SCORED)
    }
    y = np.array([float(bool(i.label)) for i in used])  # tied (None) labels are not used
    grades = np.array([np.nan if i.grade is None else i.grade for i in used])
    fold_of = stratified_folds([f"{i.dataset}|{i.label}" for i in used], folds, seed)
    datasets = sorted({i.dataset for i in items})
    scope_names = ["pooled", *datasets] if len(datasets) > 1 else datasets
    signal_names = _distinct(table, ["score", *[k for k in table if k != "score"]])
    is_lexical_judge = results[0].fingerprint.judge == "lexical"
    scopes, pooled_choice = {}, None
    first_unsure: dict[str, bool] = {}
    for name in scope_names:
        mask = np.array([name in ("pooled", i.dataset) for i in used])
        sc = _Scope(np.flatnonzero(mask), y, table, grades, fold_of, seed, resamples)
        sc.min_agreement, sc.delta = min_agreement, delta
        in_scope = [i for i in items if name in ("pooled", i.dataset)]
        report, choice = _scope_report(
            name, sc, in_scope, signal_names, derived, is_lexical_judge, folds, ppi_fraction
        )
        report.unscored = [u for i, u in unscored if name in ("pooled", i.dataset)]
        report.tied = [i.id for i in tied if name in ("pooled", i.dataset)]
        if report.beats_lexical is False and report.vs_lexical and report.vs_lexical[0] > 0:
            d, lo, hi = report.vs_lexical
            warnings.append(
                f"{name}: the judge's lead over the lexical baseline is within noise, so it "
                f"does not beat it (kappa difference {d:+.2f}, paired 95 % CI "
                f"[{lo:+.2f}, {hi:+.2f}])"
            )
        elif report.beats_lexical is False:
            assert report.selected is not None
            best = report.selected.cv.kappa
            lex = next(b.cv.kappa for b in report.baselines if b.name == "lexical")
            warnings.append(
                f"{name}: the judge does not beat the lexical baseline "
                f"(cross-validated kappa {_kappa(best)} vs {_kappa(lex)}): "
                "not worth its cost here"
            )
        n_faithful = int(sum(sc.y))
        if (few := few_grades(n_faithful, len(sc.y) - n_faithful)) is not None:
            warnings.append(f"{name}: {few}")
        scopes[name] = report
        if name == scope_names[0]:
            pooled_choice = choice
            first_unsure = {used[int(k)].id: not d for k, d in zip(sc.idx, sc.decided, strict=True)}
    assert pooled_choice is not None
    chosen, chosen_folds = pooled_choice
    oof = np.full(len(used), np.nan)
    for f, rule in enumerate(chosen_folds):
        oof[fold_of == f] = rule.predict(subset(table, fold_of == f))
    full = chosen.rule.predict(table)
    decided = {i.id: (oof[k], full[k], fold_of[k]) for k, i in enumerate(used)}
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
                unsure_cv=None if np.isnan(cv_d) else first_unsure.get(item.id),
                probability=item.probability,
                answer_sha256=item.answer_sha256,
            )
        )
    n_judged = max(1, len([r for r in results if r.item_id in graded_ids]))
    judged = [r for r in results if r.item_id in graded_ids]
    cost = Cost(
        calls_per_item=sum(r.usage.calls + r.usage.cached_calls for r in judged) / n_judged,
        usd_per_item=sum(r.usage.cost_usd for r in judged) / n_judged,
        seconds_per_item=None if seconds is None else seconds / n_judged,
    )
    drawn = [i.probability for i in items if i.probability is not None]
    # equal probabilities (every one 1.0: the design drew all it could) are a uniform draw
    if drawn and (min(drawn) < max(drawn) or len(drawn) < len(items)):
        warnings.append(
            f"ACTIVE DESIGN: {len(drawn)} of {len(items)} grades were drawn with unequal "
            f"inclusion probabilities ({min(drawn):.3f} to {max(drawn):.3f}), most where the "
            "judge was unsure: kappa, agreement and the band are measured on the answers as "
            "drawn, not weighted, so they describe harder answers than the audit's; the "
            "corrected rate (--audit, audit --calibration) uses inverse-probability weights"
        )
    stability = self_agreement(
        chosen.rule,
        {i.id: by_id[i.id] for i in used},
        {i.id: bool(i.label) for i in used},
        seed=seed,
        resamples=resamples,
    )
    if stability is not None:
        first = scopes[scope_names[0]]
        with_people = first.selected.cv if first.selected is not None else first.cv
        if stability.kappa < with_people.kappa:
            warnings.append(
                f"the judge disagrees with itself more than with people: kappa between two "
                f"samples of the same answer {_kappa(stability.kappa)} "
                f"[{_kappa(stability.kappa_low)}, {_kappa(stability.kappa_high)}] is below "
                f"its kappa with the human grades {_kappa(with_people.kappa)} "
                f"({stability.flaky} of {len(used)} answers flip between samples)"
            )
    if unscored:
        kinds = Counter(u.outcome for _, u in unscored)
        warnings.append(
            "not scored and so not in the agreement figures: "
            + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        )
    return CalibrationRecord(
        package_version=package_version(),
        judge_name=judge_name,
        fingerprint=results[0].fingerprint,
        grades=grades_digest,
        seed=seed,
        folds=folds,
        resamples=resamples,
        rule=chosen.rule,
        rule_name=chosen.name,
        fold_rules=chosen_folds,
        band=_band_of(scopes[scope_names[0]]),
        grade_shape=grade_shape(
            [
                {**result_features(by_id[i.id]), "context_chars": sum(len(c) for c in i.contexts)}
                for i in used
            ]
        ),
        scopes=scopes,
        items=records,
        cost=cost,
        answer_check=(
            answer_check(items, answer_checker, resamples=resamples, seed=seed)
            if answer_checker is not None
            else None
        ),
        warnings=warnings,
        stability=stability,
    )


def _band_of(scope: ScopeReport) -> Band | None:
    return scope.selective.band if scope.selective is not None else None


def _wilson(successes: int, n: int) -> Estimate:
    """A share with its Wilson 95 % interval; all null (NaN) when there is nothing to count."""
    if n == 0:
        return Estimate(estimate=float("nan"), low=float("nan"), high=float("nan"))
    w = wilson_interval(successes, n)
    return Estimate(estimate=w.estimate, low=w.low, high=w.high)


def beats_baseline(difference: tuple[float, float, float]) -> bool:
    """Whether a judge is better than a baseline: only when the paired 95 % interval of
    its kappa minus the baseline's excludes 0. A higher point estimate inside the noise
    (0.329 vs 0.325, interval [-0.09, +0.09]) is not "better"."""
    _, low, _ = difference
    return bool(np.isfinite(low) and low > 0)


def _scope_report(
    name, sc: _Scope, in_scope, signal_names, derived, is_lexical_judge, folds, ppi_fraction
) -> tuple[ScopeReport, tuple[MethodResult, list]]:
    """Everything measured on one scope, and the rule nested cross-validation chooses on
    it, with its outer-fold rules."""
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
    signals += [sc.method(s, _fit_signal(s, None))[0] for s in usable if s != "score"]
    # only signals the judge reports itself, so that decide() sees the same inputs
    reported = sorted(k for k in sc.table if k not in derived)
    combo_features = _distinct(sc.table, combination_features(usable_features(sc.table, reported)))
    combo, combo_rules = sc.method("combination", _fit_combination(combo_features))
    signals.append(combo)
    baselines = [sc.method("majority", lambda t, yy: fit_majority(yy))[0]]
    if "lexical" in sc.table and np.isfinite(sc.table["lexical"]).mean() >= 0.9:
        baselines.append(sc.method("lexical", _fit_signal("lexical", 1))[0])
    lex = next((b.cv.kappa for b in baselines if b.name == "lexical"), None)
    best = max(signals, key=lambda m: np.nan_to_num(m.cv.kappa, nan=-1))
    cands = scope_candidates(sc.table, derived, is_lexical_judge)
    selection, chosen, chosen_rules = sc.selected(cands)
    beats, vs_lexical = None, None
    if not is_lexical_judge and lex is not None:
        vs_lexical = sc.kappa_difference("selected", "lexical")
        beats = beats_baseline(vs_lexical)

    def fit(table: Table, y: np.ndarray) -> AnyRule:  # the whole procedure, for PPI's folds
        return select_rule(cands, table, y, sc.seed)[0].fit(table, y)

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
        ppi=_ppi_demo(sc, fit, folds, sc.seed, ppi_fraction),
    )
    if report.ppi is None:
        report.ppi_note = _no_ppi(sc.y, folds, ppi_fraction)
    return report, (chosen, chosen_rules)


def scope_candidates(table: Table, derived: set[str], is_lexical_judge: bool) -> list[Candidate]:
    """The candidate rules nested cross-validation chooses among on a scope's answers: the
    signals the judge reports itself (not ``derived`` ones), the combinations, the shape
    rules when both shapes are there, each with the fact-check veto when it is reported."""
    reported = sorted(k for k in table if k not in derived)
    choosable = _distinct(table, ["score", *usable_features(table, reported)])
    free = None if is_lexical_judge else MODEL_FREE_SIGNALS
    shaped = shape_usable(table)  # both shapes (citing or not) among these answers
    return candidates(choosable, veto=FACT_VETO in reported, model_free=free, shape=shaped)


def _no_ppi(y: np.ndarray, folds: int, fraction: float) -> str:
    """Why the PPI check did not run (the conditions of :func:`_ppi_demo`)."""
    n = len(y)
    labelled = int(round(fraction * n))
    return (
        f"not run: {n} scored grades split {labelled} labelled / {n - labelled} hidden; it "
        f"needs {2 * folds} or more labelled (with both faithful and unfaithful among them) "
        "and 2 or more hidden"
    )


def _ppi_demo(sc: _Scope, fit: Fit, folds: int, seed: int, fraction: float) -> PPIDemo | None:
    """Hide the labels of a seeded (1 - fraction) of the items, estimate their faithful rate
    by cross-fitted PPI from the rest, and keep the hidden truth beside it."""
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
