"""A calibrated combination of the judge's signals: a small L2-regularised logistic model.

One signal rarely carries everything: the model's probability misses long answers with
one bad sentence, the weakest-sentence probability catches them, lexical overlap catches
copied-but-unsupported text. A logistic model over the standardised signals, fitted on
the human grades and thresholded where it maximises kappa, combines them; its agreement
is always reported cross-validated next to each single signal, so it has to earn its place.
"""

from __future__ import annotations

import numpy as np

from ragtriage.calibration.decision import (
    LOG1P_PREFIX,
    MISSING_PREFIX,
    ConstantRule,
    LogisticRule,
    Table,
    column,
    transform,
)
from ragtriage.calibration.threshold import fit_majority, fit_threshold, stratified_folds

__all__ = [
    "COMBINATION_SIGNALS",
    "COUNT_SIGNALS",
    "combination_features",
    "distinct_columns",
    "fit_logistic",
    "fit_signal_logistic",
    "signal_features",
    "usable_features",
]

# The combination's inputs, when the judge reports them: the model's probability (overall,
# or the mean over sentences), the weakest sentence's probability, the lexical score and
# the answer length. Other signals are reported alone only: four weights is what ~300
# grades can fit without the combination overfitting.
COMBINATION_SIGNALS = (
    "model_prob",
    "mean_sentence_prob",
    "min_sentence_prob",
    "lexical",
    "answer_words",
    "answer_tokens",
)


def combination_features(usable: list[str]) -> list[str]:
    """The usable signals among :data:`COMBINATION_SIGNALS` (the judge's ``score`` when fewer
    than two are there, e.g. for a judge that reports only its score and length)."""
    chosen = [s for s in COMBINATION_SIGNALS if s in usable]
    if "model_prob" in chosen and "mean_sentence_prob" in chosen:
        chosen.remove("mean_sentence_prob")
    if len(chosen) < 2:
        chosen = ["score", *[s for s in chosen if s != "score"]]
    return [s for s in chosen if s in usable]


def usable_features(table: Table, names: list[str]) -> list[str]:
    """Features present (finite) on at least 90 % of the items and not constant."""
    keep = []
    for name in names:
        x = np.asarray(table[name], float)
        finite = np.isfinite(x)
        if finite.mean() >= 0.9 and len(np.unique(x[finite])) > 1:
            keep.append(name)
    return keep


def fit_logistic(
    table: Table, y: np.ndarray, features: list[str], c: float = 1.0
) -> LogisticRule | ConstantRule:
    """Fit P(faithful | features) = sigmoid(b + w . z), z the standardised (count features
    log1p'd) features, by L2-penalised maximum likelihood (scikit-learn, lbfgs, C=``c``;
    the penalty keeps weights finite on small or separable grade sets). Missing values are
    imputed with the training mean. The decision threshold on the probability is the
    kappa-maximising one on the training items, since 0.5 is not kappa-optimal when the
    classes are unbalanced. One class only in ``y``: the majority rule."""
    from sklearn.linear_model import LogisticRegression

    y = np.asarray(y, int)
    if len(np.unique(y)) < 2 or not features:
        return fit_majority(y)
    x, means, scales = _standardised(table, features)
    model = LogisticRegression(C=c, max_iter=1000)
    model.fit(x, y)
    rule = LogisticRule(
        features=list(features),
        mean=means,
        scale=scales,
        coef=[float(w) for w in model.coef_[0]],
        intercept=float(model.intercept_[0]),
        threshold=0.5,
    )
    prob = rule.probability(table)
    cut = fit_threshold(prob, y.astype(float), feature="probability").threshold
    return rule.model_copy(update={"threshold": cut})


# The smooth rule (issue 54): every model-free signal at once, each weight kept small by an
# L2 penalty, so no single signal (a citation check, a fact count) decides alone and a
# shape of answer the grades lack moves the decision a little rather than across a cliff.
# Counts of things in an answer: log1p, so one more novel fact weighs more at 1 than at 20.
COUNT_SIGNALS = frozenset(
    """answer_sentences answer_words fact_check novel_facts novel_names novel_numbers
    negation_mismatch unstated_negations contradictions""".split()
)
# The penalties inner cross-validation chooses among (sklearn's C: smaller is stronger).
PENALTIES = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
SIGNAL_INNER_FOLDS = 4


def signal_features(table: Table, names: list[str]) -> list[str]:
    """The smooth rule's inputs from the signals ``names`` present in ``table``: each
    signal (``log1p:`` for a count), and ``missing:NAME`` for a signal absent on some but
    not all answers; constant columns and copies of an earlier column are left out."""
    out: list[str] = []
    for name in sorted(names):
        x = np.asarray(table[name], float)
        finite = np.isfinite(x)
        if not finite.any():
            continue
        if len(np.unique(x[finite])) > 1:
            out.append(f"{LOG1P_PREFIX}{name}" if name in COUNT_SIGNALS else name)
        if 0 < finite.sum() < len(x):
            out.append(f"{MISSING_PREFIX}{name}")
    return distinct_columns(table, out)


def distinct_columns(table: Table, names: list[str]) -> list[str]:
    """Drop a feature whose column equals an earlier one (two citation signals absent on
    the same answers give one missing flag, not two)."""
    keep: list[str] = []
    for name in names:
        col = column(table, name)
        if not any(np.allclose(col, column(table, k), equal_nan=True) for k in keep):
            keep.append(name)
    return keep


def _standardised(table: Table, features: list[str]) -> tuple[np.ndarray, list[float], list[float]]:
    """The design matrix (each feature minus its mean, over its scale; missing: 0) with the
    means and scales that make it, for :class:`LogisticRule` to repeat at audit time."""
    cols, means, scales = [], [], []
    for name in features:
        x = transform(name, column(table, name))
        present = np.isfinite(x).any()  # a signal absent on every training answer: 0
        mu = float(np.nanmean(x)) if present else 0.0
        sd = (float(np.nanstd(x)) if present else 1.0) or 1.0
        z = (x - mu) / sd
        cols.append(np.where(np.isfinite(z), z, 0.0))
        means.append(mu)
        scales.append(sd)
    return np.column_stack(cols), means, scales


def _penalty(x: np.ndarray, y: np.ndarray, seed: int) -> float:
    """The L2 penalty with the best inner cross-validated log loss (a smooth criterion:
    kappa jumps with one answer)."""
    folds = stratified_folds([str(v) for v in y], min(SIGNAL_INNER_FOLDS, _fewest(y)), seed)
    best: tuple[float, float] | None = None
    for c in PENALTIES:
        prob = np.full(len(y), np.nan)
        for f in np.unique(folds):
            train, test = folds != f, folds == f
            if len(np.unique(y[train])) < 2:
                prob[test] = float(np.mean(y[train]))
                continue
            coef, intercept = balanced_logistic(x[train], y[train], c)
            prob[test] = _sigmoid(x[test] @ coef + intercept)
        p = np.clip(prob, 1e-9, 1 - 1e-9)
        loss = float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
        if best is None or loss < best[0] - 1e-12:
            best = (loss, c)
    assert best is not None
    return best[1]


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -500, 500)))


def balanced_logistic(x: np.ndarray, y: np.ndarray, c: float) -> tuple[np.ndarray, float]:
    """Weights and intercept of the class-balanced L2 logistic regression, scikit-learn's
    objective (``C * sum_i w_i logloss_i + |coef|^2 / 2``, intercept unpenalised,
    ``w_i = n / (2 n_class)``), by Newton's method: a few solves of a small system, so
    the hundreds of fits a nested selection makes stay fast and single-threaded (the
    multithreaded solver was ten times slower on a busy two-core machine)."""
    n, k = x.shape
    y = np.asarray(y, float)
    pos = y.sum()
    weight = np.where(y == 1, n / (2 * pos), n / (2 * (n - pos)))
    design = np.column_stack([x, np.ones(n)])
    ridge = np.eye(k + 1) / c
    ridge[k, k] = 0.0
    beta = np.zeros(k + 1)
    for _ in range(100):
        p = _sigmoid(design @ beta)
        grad = design.T @ (weight * (p - y)) + ridge @ beta
        hess = (design * (weight * p * (1 - p))[:, None]).T @ design + ridge
        step = np.linalg.solve(hess + 1e-10 * np.eye(k + 1), grad)
        beta -= step
        if float(np.max(np.abs(step))) < 1e-9:
            break
    return beta[:k], float(beta[k])


def _fewest(y: np.ndarray) -> int:
    """Inner folds a small grade set allows: at least 2, at most the smaller class's size."""
    return max(2, min(int(y.sum()), int(len(y) - y.sum())))


def fit_signal_logistic(
    table: Table, y: np.ndarray, features: list[str], seed: int = 0
) -> LogisticRule | ConstantRule:
    """The smooth rule (see :data:`COUNT_SIGNALS`): a class-balanced (the unfaithful majority
    weighs no more than the faithful minority, as kappa counts them) L2 logistic model over
    ``features`` (:func:`signal_features`), the penalty chosen by inner cross-validation, the
    probability threshold the one maximising kappa on the training answers.
    One class only in ``y``: the majority rule."""
    y = np.asarray(y, int)
    if len(np.unique(y)) < 2 or not features:
        return fit_majority(y)
    x, means, scales = _standardised(table, features)
    coef, intercept = balanced_logistic(x, y, _penalty(x, y, seed))
    rule = LogisticRule(
        features=list(features),
        mean=means,
        scale=scales,
        coef=[float(w) for w in coef],
        intercept=intercept,
        threshold=0.5,
    )
    cut = fit_threshold(rule.probability(table), y.astype(float), feature="probability")
    return rule.model_copy(update={"threshold": float(min(max(cut.threshold, 1e-6), 1 - 1e-6))})
