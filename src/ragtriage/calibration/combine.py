"""A calibrated combination of the judge's signals: a small L2-regularised logistic model.

One signal rarely carries everything: the model's probability misses long answers with
one bad sentence, the weakest-sentence probability catches them, lexical overlap catches
copied-but-unsupported text. A logistic model over the standardised signals, fitted on
the human grades and thresholded where it maximises kappa, combines them; its agreement
is always reported cross-validated next to each single signal, so it has to earn its place.
"""

from __future__ import annotations

import numpy as np

from ragtriage.calibration.decision import ConstantRule, LogisticRule, Table, column, transform
from ragtriage.calibration.threshold import fit_majority, fit_threshold

__all__ = ["COMBINATION_SIGNALS", "combination_features", "fit_logistic", "usable_features"]

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
    cols, means, scales = [], [], []
    for name in features:
        x = transform(name, column(table, name))
        mu = float(np.nanmean(x))
        sd = float(np.nanstd(x)) or 1.0
        z = (x - mu) / sd
        cols.append(np.where(np.isfinite(z), z, 0.0))
        means.append(mu)
        scales.append(sd)
    model = LogisticRegression(C=c, max_iter=1000)
    model.fit(np.column_stack(cols), y)
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
