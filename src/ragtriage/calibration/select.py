"""Choosing the decision rule honestly: nested cross-validation over candidate rules.

With a few hundred grades, the best candidate's cross-validated kappa is biased up by the
choice, so the choice is part of what is validated: in each outer fold the candidates are
compared by an inner cross-validation on the other folds only, the best (ties: the
earlier, simpler candidate) is refitted there and decides the held-out fold; the shipped
rule is what the same procedure picks on all items.

The smooth rule (:data:`SMOOTH`) comes first. Another candidate replaces it only when it
beats it by more than one standard error of their paired per-fold kappa difference both
within the shapes (inner kappa) and across them (leave-one-dataset-out kappa, the worse
direction) (:func:`choose`): a rule that fits the grades' shapes better but moves between
them no better does not serve answers of a shape no grade holds. With one dataset this is
the one-standard-error rule toward the smooth rule. A candidate that uses the model's
output must in addition beat the best model-free one by one standard error: a rule resting
on the model's probability is fitted to the grades' domains, and one that won within noise
failed 5 to 8 of 40 correct ClapNQ answers (``benchmarks/results/triage_swaps.txt``).
Candidates, criterion and figures: docs/calibration.md, 'How the decision rule is chosen',
and ``benchmarks/results/rule_candidates.txt``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ragtriage.calibration.agreement import kappa_score as _kappa
from ragtriage.calibration.band import (
    DEFAULT_DELTA,
    DEFAULT_MIN_AGREEMENT,
    Band,
    fit_band,
    oof_margins,
)
from ragtriage.calibration.combine import fit_logistic, fit_signal_logistic, signal_features
from ragtriage.calibration.decision import FACT_VETO, AnyRule, Fit, Table, VetoRule
from ragtriage.calibration.shape import (
    CITED_SIGNALS,
    INTERACTION_SIGNALS,
    SHAPE_FITS,
    SPLIT,
    TREE_SIGNALS,
    UNCITED_SIGNALS,
)
from ragtriage.calibration.threshold import cross_fit, fit_threshold, stratified_folds, subset

__all__ = [
    "COMBINATIONS",
    "MODEL_VETO",
    "SMOOTH",
    "Candidate",
    "Selection",
    "candidates",
    "choose",
    "logistic_fit",
    "nested_band",
    "nested_select",
    "threshold_fit",
]

# Small combinations named before looking at any outer fold: the weakest sentence's word
# alignment with the facts it may add or leave uncited, and with the model's probability.
COMBINATIONS: dict[str, tuple[str, ...]] = {
    "alignment+facts": ("min_sentence_alignment", "novel_facts", "uncited_sentences"),
    "alignment+citations": ("min_sentence_alignment", "uncited_sentences"),
    "alignment+model": ("min_sentence_alignment", "min_sentence_prob"),
    "alignment+model+facts": (
        "min_sentence_alignment",
        "min_sentence_prob",
        "novel_facts",
        "uncited_sentences",
    ),
    "lexical+model": ("lexical", "min_sentence_prob", "mean_sentence_prob"),
}
INNER_FOLDS = 4
# the veto of a judge whose model's confident rejections add to the fact check
MODEL_VETO = "model_fact_check"
# what each shape-aware candidate may read, to place it in its tier
SHAPE_READS: dict[str, tuple[str, ...]] = {
    "cited-shape": (SPLIT, *CITED_SIGNALS, UNCITED_SIGNALS[0]),
    "per-shape": (SPLIT, *CITED_SIGNALS, *UNCITED_SIGNALS),
    "shape-logistic": (SPLIT, *INTERACTION_SIGNALS),
    "shape-tree": TREE_SIGNALS,
}


# The smooth rule's name: every model-free signal in one penalised logistic model
# (``combine.fit_signal_logistic``), the rule the others must beat (module doc).
SMOOTH = "signals-logistic"


@dataclass(frozen=True)
class Candidate:
    name: str
    fit: Fit
    model_free: bool = True  # uses no model output (see module doc)
    smooth: bool = False  # the rule every other must beat by more than it loses in transfer


def _smooth_fit(signals: tuple[str, ...]) -> Fit:
    """The smooth rule over ``signals`` (those present in the training table)."""

    def fit(table: Table, y: np.ndarray) -> AnyRule:
        present = [s for s in signals if s in table]
        return fit_signal_logistic(table, y, signal_features(table, present))

    return fit


def smooth_candidate(signals: list[str], veto: bool = False) -> Candidate:
    """The smooth rule over the model-free ``signals`` (the fact check is one of its
    weighted inputs, so one flagged name in a faithful paraphrase cannot decide alone);
    with ``veto``, under the swap veto (``decision.FACT_VETO``) as every candidate."""
    fit = _smooth_fit(tuple(sorted(s for s in signals if s != FACT_VETO)))
    return Candidate(SMOOTH, _vetoed(fit) if veto else fit, model_free=True, smooth=True)


def threshold_fit(name: str, direction: int | None = None) -> Fit:
    """The kappa-best threshold on signal ``name`` (``direction`` None: learnt)."""
    return lambda table, y: fit_threshold(table[name], y, name, direction=direction)


def logistic_fit(features: Sequence[str]) -> Fit:
    return lambda table, y: fit_logistic(table, y, list(features))


def _vetoed(fit: Fit, veto: str = FACT_VETO) -> Fit:
    return lambda table, y: VetoRule(rule=fit(table, y), veto=veto)


def candidates(
    signals: list[str],
    veto: bool = False,
    model_free: frozenset[str] | None = None,
    shape: bool = False,
    smooth: list[str] | None = None,
) -> list[Candidate]:
    """The smooth rule over ``smooth`` first (when given), every usable single signal,
    every combination whose signals are all usable, and with ``shape`` the shape-aware
    rules; with ``veto`` each carries the swap veto (:class:`VetoRule`), as the audit will
    apply it (``model_fact_check`` is neither a veto nor a candidate). ``model_free``: the
    signals that need no model (``None``: all of them)."""
    head = [smooth_candidate(smooth, veto)] if smooth else []

    def free(features: tuple[str, ...]) -> bool:
        return model_free is None or set(features) <= model_free

    vetoes = {FACT_VETO, MODEL_VETO} if veto else set()
    out = [Candidate(s, threshold_fit(s), free((s,))) for s in signals if s not in vetoes]
    out += [
        Candidate(name, logistic_fit(features), free(features))
        for name, features in COMBINATIONS.items()
        if all(f in signals for f in features)
    ]
    if shape:
        out += [Candidate(name, fit, free(SHAPE_READS[name])) for name, fit in SHAPE_FITS.items()]
    if not veto:
        return head + out
    # No candidate under ``model_fact_check`` (the whole fact check plus the model's
    # confident rejections): it is the broad veto that fires on faithful paraphrases; the
    # model's signals stay candidates of their own, in the model tier.
    return head + [Candidate(c.name, _vetoed(c.fit), c.model_free) for c in out]


def _paired_error(a: np.ndarray, b: np.ndarray, y: np.ndarray, folds: np.ndarray) -> float:
    """One standard error of the paired per-fold kappa difference of decisions ``a`` and
    ``b`` (0 with one fold)."""
    diffs = [_kappa(y[folds == f], a[folds == f]) - _kappa(y[folds == f], b[folds == f])
             for f in np.unique(folds)]  # fmt: skip
    return float(np.std(diffs, ddof=1) / np.sqrt(len(diffs))) if len(diffs) > 1 else 0.0


def _clearly_better(a: np.ndarray, b: np.ndarray, y: np.ndarray, folds: np.ndarray) -> bool:
    """Whether out-of-fold decisions ``a`` beat ``b`` by more than one standard error of
    their paired per-fold kappa difference."""
    return _kappa(y, a) - _kappa(y, b) > _paired_error(a, b, y, folds)


def transfer_datasets(datasets: np.ndarray | None, y: np.ndarray) -> list[str]:
    """The datasets a leave-one-dataset-out score can use: two or more, each with both
    labels (a dataset of one label has no kappa); empty otherwise."""
    if datasets is None:
        return []
    names = sorted({str(d) for d in datasets})
    usable = [d for d in names if len(np.unique(y[datasets == d])) == 2]
    return usable if len(usable) >= 2 and len(usable) == len(names) else []


def transfer_kappa(
    cand: Candidate, table: Table, y: np.ndarray, datasets: np.ndarray, names: list[str]
) -> dict[str, float]:
    """Leave-one-dataset-out kappa of ``cand``: fitted on the other datasets, scored on
    each one in turn (``"expertqa"``: fitted without ExpertQA, scored on it)."""
    out = {}
    for name in names:
        held = datasets == name
        rule = cand.fit(subset(table, ~held), y[~held])
        out[name] = _kappa(y[held], rule.predict(subset(table, held)))
    return out


@dataclass(frozen=True)
class Scores:
    """What the choice reads, per candidate: inner kappa, worst transfer kappa (absent with
    one dataset), and the inner out-of-fold decisions the standard errors are taken on."""

    inner: dict[str, float]
    transfer: dict[str, float]
    oof: dict[str, np.ndarray]
    folds: np.ndarray
    y: np.ndarray


def _lead(scores: Scores, name: str, smooth: str) -> float:
    """The candidate's lead over the smooth rule that counts: the smaller of its inner
    kappa gain and its transfer gain (worst leave-one-dataset-out kappa), so a rule that
    fits the shapes better but moves between them no better does not lead; without a
    transfer score, its inner gain."""
    gain = scores.inner[name] - scores.inner[smooth]
    if scores.transfer:
        gain = min(gain, scores.transfer[name] - scores.transfer[smooth])
    return gain


def _beats_smooth(scores: Scores, name: str, smooth: str) -> bool:
    """The transfer criterion (module doc): a lead (:func:`_lead`) over the smooth rule of
    more than one standard error of their paired per-fold kappa difference."""
    lead = _lead(scores, name, smooth)
    return lead > _paired_error(scores.oof[name], scores.oof[smooth], scores.y, scores.folds)


def _ranked(cands: list[Candidate], scores: Scores) -> list[Candidate]:
    """Candidates best first by the criterion: those that beat the smooth rule (by their
    lead over it), then the smooth rule, then the rest by their lead; without a smooth
    rule, by inner kappa. Ties: the earlier, simpler candidate."""
    smooth = next((c for c in cands if c.smooth), None)
    if smooth is None:
        return sorted(cands, key=lambda c: (scores.inner[c.name], -cands.index(c)), reverse=True)

    def by_lead(group: list[Candidate]) -> list[Candidate]:
        key = lambda c: (_lead(scores, c.name, smooth.name), -cands.index(c))  # noqa: E731
        return sorted(group, key=key, reverse=True)

    others = [c for c in cands if not c.smooth]
    winners = [c for c in others if _beats_smooth(scores, c.name, smooth.name)]
    rest = [c for c in others if c not in winners]
    return [*by_lead(winners), smooth, *by_lead(rest)]


def score_candidates(
    cands: list[Candidate], table: Table, y: np.ndarray, seed: int, datasets: np.ndarray | None
) -> Scores:
    """Every candidate's inner cross-validated decisions and kappa, and its transfer kappa
    when the items come from two or more datasets."""
    inner = stratified_folds([str(v) for v in y], INNER_FOLDS, seed)
    oof = {c.name: cross_fit(c.fit, table, y, inner)[0] for c in cands}
    names = transfer_datasets(datasets, y)
    transfer: dict[str, float] = {}
    if names and any(c.smooth for c in cands):
        assert datasets is not None
        for c in cands:
            by_dataset = transfer_kappa(c, table, y, datasets, names)
            transfer[c.name] = float(min(by_dataset.values()))  # the shape it moves to worst
    inner_kappa = {c.name: _kappa(y, oof[c.name]) for c in cands}
    return Scores(inner=inner_kappa, transfer=transfer, oof=oof, folds=inner, y=y)


def choose(
    cands: list[Candidate],
    table: Table,
    y: np.ndarray,
    seed: int,
    datasets: np.ndarray | None = None,
) -> tuple[Candidate, Candidate | None, Scores]:
    """The chosen candidate: the first by the criterion (:func:`_ranked`), unless it uses
    the model and the best model-free one is within one standard error of it (module doc);
    the runner-up (the next by the same criterion) and the scores."""
    scores = score_candidates(cands, table, y, seed, datasets)
    order = _ranked(cands, scores)
    best = order[0]
    free = [c for c in order if c.model_free]
    if not best.model_free and free:
        simpler = free[0]
        if not _clearly_better(scores.oof[best.name], scores.oof[simpler.name], y, scores.folds):
            best = simpler
    runner = next((c for c in order if c is not best), None)
    return best, runner, scores


class Selection(BaseModel):
    """What nested cross-validation chose, and how well the choosing itself does."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    chosen: str  # picked on all items: the shipped rule
    """The candidate chosen on all items: the rule the record ships."""
    candidates: list[str]
    """Names of the candidate rules it chose among."""
    inner_kappa: dict[str, float]  # inner CV kappa of each candidate on all items
    """Candidate -> its cross-validated kappa (-1 to 1) on all items."""
    fold_choices: list[str]  # the candidate each outer fold chose
    """The candidate each outer fold chose, fold by fold."""
    choice_counts: dict[str, int]
    """Candidate -> outer folds that chose it (count)."""
    inner_folds: int = INNER_FOLDS
    """Folds of the inner cross-validation that chooses."""
    fact_veto: bool = False  # every candidate carried the fact check
    """True when every candidate carried the fact-check veto."""
    runner_up: str | None = None
    """The candidate next after ``chosen`` by the same criterion, on all items; null in
    records written before it or with one candidate."""
    transfer_kappa: dict[str, float] = Field(default_factory=dict)
    """Candidate -> its worst leave-one-dataset-out kappa on all items (fitted on the other
    datasets, scored on each in turn; the lower of the two directions); empty with one
    dataset."""
    criterion: str = ""
    """The rule that chose, in words."""


CRITERION_SMOOTH = (
    "signals-logistic unless another candidate beats it by more than one standard error "
    "both in inner kappa and in leave-one-dataset-out kappa"
)
CRITERION_INNER = "the best inner kappa (a model-based rule only by more than one standard error)"


def nested_select(
    cands: list[Candidate],
    table: Table,
    y: np.ndarray,
    folds: np.ndarray,
    seed: int,
    datasets: np.ndarray | None = None,
) -> tuple[Selection, np.ndarray, list[AnyRule], AnyRule]:
    """Outer-fold decisions of the selection procedure, its fold rules, and the rule it
    picks on all items (see module doc); ``datasets``: each item's dataset, for the
    transfer criterion."""
    oof = np.full(len(y), np.nan)
    fold_rules: list[AnyRule] = []
    choices: list[str] = []
    for f in np.unique(folds):
        train, test = folds != f, folds == f
        part = None if datasets is None else datasets[train]
        best = choose(cands, subset(table, train), y[train], seed + int(f) + 1, part)[0]
        rule = best.fit(subset(table, train), y[train])
        oof[test] = rule.predict(subset(table, test))
        fold_rules.append(rule)
        choices.append(best.name)
    chosen, runner, scores = choose(cands, table, y, seed, datasets)
    selection = Selection(
        fact_veto=any(isinstance(r, VetoRule) for r in fold_rules),
        chosen=chosen.name,
        candidates=[c.name for c in cands],
        inner_kappa={k: round(v, 4) for k, v in scores.inner.items()},
        fold_choices=choices,
        choice_counts=dict(Counter(choices).most_common()),
        runner_up=None if runner is None else runner.name,
        transfer_kappa={k: round(v, 4) for k, v in scores.transfer.items()},
        criterion=CRITERION_SMOOTH if any(c.smooth for c in cands) else CRITERION_INNER,
    )
    return selection, oof, fold_rules, chosen.fit(table, y)


def nested_band(
    selection: Selection,
    cands: list[Candidate],
    table: Table,
    y: np.ndarray,
    folds: np.ndarray,
    seed: int,
    min_agreement: float = DEFAULT_MIN_AGREEMENT,
    delta: float = DEFAULT_DELTA,
) -> tuple[np.ndarray, list[Band], Band]:
    """The band fitted inside each outer fold on the inner out-of-fold margins of the
    candidate that fold chose (``calibration.band``): the outer-fold "decided" mask, the
    fold bands and the band of the rule chosen on all items (fitted the same way)."""
    by_name = {c.name: c for c in cands}

    def band_of(cand: Candidate, part: Table, labels: np.ndarray, fold_seed: int) -> Band:
        inner = stratified_folds([str(v) for v in labels], INNER_FOLDS, fold_seed)
        groups, distance, decision = oof_margins(cand.fit, part, labels, inner)
        correct = decision == labels
        return fit_band(groups, distance, correct, min_agreement, delta, pooled=True)

    decided = np.zeros(len(y), dtype=bool)
    bands: list[Band] = []
    for f, name in zip(np.unique(folds), selection.fold_choices, strict=True):
        train, test = folds != f, folds == f
        cand = by_name[name]
        band = band_of(cand, subset(table, train), y[train], seed + int(f) + 1)
        rule = cand.fit(subset(table, train), y[train])
        decided[test] = band.decided(rule, subset(table, test))
        bands.append(band)
    return decided, bands, band_of(by_name[selection.chosen], table, y, seed)
