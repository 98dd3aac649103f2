"""Choosing the decision rule honestly: nested cross-validation over candidate rules.

With ~300 grades, picking the best of ten signals by its cross-validated kappa is itself
a noisy estimate: the winner's figure is biased up by the choice (two samples of the same
sources ranked the signals differently). So the choice is part of what is validated:

* **outer folds** (the calibration's stratified folds): for each, the candidates are
  compared by an **inner** cross-validation on the other folds only, the best one (ties:
  the earlier, simpler candidate) is refitted on those folds and decides the held-out
  fold. The outer-fold kappa is the figure for *the procedure*, choice included; how often
  each candidate won across the outer folds shows how stable the choice is.
* the **shipped rule** is what the same procedure picks on all items (inner CV on all of
  them, then refitted on all).

Candidates are single signals (a kappa-maximising threshold, direction learnt) and a few
small logistic combinations fixed in advance (:data:`COMBINATIONS`), each used when every
signal it names is reported on at least 90 % of the items, and, when the answers come in
both shapes (some cite passages, some do not), the shape-aware rules of
:mod:`ragtriage.calibration.shape` (a threshold of its own for answers that cite, per-shape
thresholds, a logistic model with ``cites``
interactions, a depth-2 tree). When the judge reports the fact check (``fact_check``),
every candidate carries it as a veto (``decision.VetoRule``); a judge whose model adds its
confident rejections (``model_fact_check``) also gets every candidate with that veto, in
the model tier.

On the 300 shipped grades one pooled threshold on word overlap called 6 of 200 ExpertQA
answers faithful (51 are) in the outer folds; a shape rule won all 5 outer folds
(``cited-shape`` 4, ``per-shape`` 1) and decides ExpertQA at kappa 0.33 with BEGIN at 0.73
(``benchmarks/shipped_rule_by_scope.py``).

**A model-based rule must clearly win.** Of a judge with a model, a candidate that uses
the model's output (its score or probabilities) is chosen over the best model-free one
(word overlap, alignment, fact signals) only when its inner kappa is higher by more than
one standard error of their paired per-fold difference: the one-standard-error rule, with
the model-free candidates as the simpler tier. A rule resting on the model's probability
is fitted to the grades' domains and moves with them: on the 300 shipped grades
``alignment+model`` won by an inner kappa of 0.397 against 0.388 for
``min_sentence_lexical``, a tie within noise, and on ClapNQ it then failed 5 to 8 of 40
correct reference answers where ``min_sentence_lexical`` fails 0 to 2
(``benchmarks/triage_swaps.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict

from ragtriage.calibration.agreement import cohen_kappa
from ragtriage.calibration.band import (
    DEFAULT_DELTA,
    DEFAULT_MIN_AGREEMENT,
    Band,
    fit_band,
    oof_margins,
)
from ragtriage.calibration.combine import fit_logistic
from ragtriage.calibration.decision import FACT_VETO, AnyRule, Table, VetoRule
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
    "Candidate",
    "Selection",
    "candidates",
    "nested_band",
    "nested_select",
    "select_rule",
]

Fit = Callable[[Table, np.ndarray], AnyRule]

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


@dataclass(frozen=True)
class Candidate:
    name: str
    fit: Fit
    model_free: bool = True  # uses no model output (see module doc)


def _threshold_fit(name: str) -> Fit:
    return lambda table, y: fit_threshold(table[name], y, name, direction=None)


def _logistic_fit(features: tuple[str, ...]) -> Fit:
    return lambda table, y: fit_logistic(table, y, list(features))


def _vetoed(fit: Fit, veto: str = FACT_VETO) -> Fit:
    return lambda table, y: VetoRule(rule=fit(table, y), veto=veto)


def candidates(
    signals: list[str],
    veto: bool = False,
    model_free: frozenset[str] | None = None,
    shape: bool = False,
) -> list[Candidate]:
    """Every usable single signal, then every combination whose signals are all usable,
    then, with ``shape``, the shape-aware rules (``calibration.shape``: both shapes among
    the answers); with ``veto`` every candidate carries the fact check (:class:`VetoRule`),
    so the rule is chosen and measured as the audit will apply it. ``model_free``: the
    signals that need no model, for a judge that has one (``None``: every signal is
    model-free). A judge that reports ``model_fact_check`` (the fact check with its
    model's confident rejections) also gets every candidate with that veto, in the model
    tier: the model-free tier keeps the model-free ``fact_check``."""

    def free(features: tuple[str, ...]) -> bool:
        return model_free is None or set(features) <= model_free

    vetoes = {FACT_VETO, MODEL_VETO} if veto else set()
    out = [Candidate(s, _threshold_fit(s), free((s,))) for s in signals if s not in vetoes]
    out += [
        Candidate(name, _logistic_fit(features), free(features))
        for name, features in COMBINATIONS.items()
        if all(f in signals for f in features)
    ]
    if shape:
        out += [Candidate(name, fit, free(SHAPE_READS[name])) for name, fit in SHAPE_FITS.items()]
    if not veto:
        return out
    vetoed = [Candidate(c.name, _vetoed(c.fit), c.model_free) for c in out]
    if MODEL_VETO in signals:
        vetoed += [Candidate(f"{c.name} | model veto", _vetoed(c.fit, MODEL_VETO), False)
                   for c in out]  # fmt: skip
    return vetoed


def _kappa(y: np.ndarray, decided: np.ndarray) -> float:
    ok = np.isfinite(decided)
    return float(np.nan_to_num(cohen_kappa(y[ok], decided[ok]), nan=-1.0)) if ok.any() else -1.0


def _clearly_better(a: np.ndarray, b: np.ndarray, y: np.ndarray, folds: np.ndarray) -> bool:
    """Whether out-of-fold decisions ``a`` beat ``b`` by more than one standard error of
    their paired per-fold kappa difference."""
    diffs = [_kappa(y[folds == f], a[folds == f]) - _kappa(y[folds == f], b[folds == f])
             for f in np.unique(folds)]  # fmt: skip
    error = float(np.std(diffs, ddof=1) / np.sqrt(len(diffs))) if len(diffs) > 1 else 0.0
    return _kappa(y, a) - _kappa(y, b) > error


def select_rule(
    cands: list[Candidate], table: Table, y: np.ndarray, seed: int
) -> tuple[Candidate, dict[str, float]]:
    """The candidate with the best inner cross-validated kappa on these items (ties: the
    earlier one), unless it uses the model and the best model-free one is within one
    standard error of it (module doc); and every candidate's inner kappa."""
    inner = stratified_folds([str(v) for v in y], INNER_FOLDS, seed)
    oof = {c.name: cross_fit(c.fit, table, y, inner)[0] for c in cands}
    scores = {c.name: _kappa(y, oof[c.name]) for c in cands}

    def best_of(group: list[Candidate]) -> Candidate:
        return max(group, key=lambda c: (scores[c.name], -cands.index(c)))

    best = best_of(cands)
    free = [c for c in cands if c.model_free]
    if not best.model_free and free:
        simpler = best_of(free)
        if not _clearly_better(oof[best.name], oof[simpler.name], y, inner):
            best = simpler
    return best, scores


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


def nested_select(
    cands: list[Candidate], table: Table, y: np.ndarray, folds: np.ndarray, seed: int
) -> tuple[Selection, np.ndarray, list[AnyRule], AnyRule]:
    """Outer-fold decisions of the selection procedure, its fold rules, and the rule it
    picks on all items (see module doc)."""
    oof = np.full(len(y), np.nan)
    fold_rules: list[AnyRule] = []
    choices: list[str] = []
    for f in np.unique(folds):
        train, test = folds != f, folds == f
        best, _ = select_rule(cands, subset(table, train), y[train], seed + int(f) + 1)
        rule = best.fit(subset(table, train), y[train])
        oof[test] = rule.predict(subset(table, test))
        fold_rules.append(rule)
        choices.append(best.name)
    chosen, inner = select_rule(cands, table, y, seed)
    selection = Selection(
        fact_veto=any(isinstance(r, VetoRule) for r in fold_rules),
        chosen=chosen.name,
        candidates=[c.name for c in cands],
        inner_kappa={k: round(v, 4) for k, v in inner.items()},
        fold_choices=choices,
        choice_counts=dict(Counter(choices).most_common()),
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
    """The selective band fitted inside the nested cross-validation (``calibration.band``):
    in each outer fold, on the training folds only, the candidate that fold chose is
    cross-fitted over inner folds and the band fitted on those out-of-fold margins; the
    held-out fold's answers are then decided or left unsure by the training rule and that
    band. Returns the outer-fold "decided" mask, the fold bands and the band of the rule
    chosen on all items (fitted the same way on all of them)."""
    by_name = {c.name: c for c in cands}

    def band_of(cand: Candidate, part: Table, labels: np.ndarray, fold_seed: int) -> Band:
        inner = stratified_folds([str(v) for v in labels], INNER_FOLDS, fold_seed)
        groups, distance, decision = oof_margins(cand.fit, part, labels, inner)
        return fit_band(groups, distance, decision == labels, min_agreement, delta)

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
