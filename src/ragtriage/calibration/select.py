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
signal it names is reported on at least 90 % of the items. When the judge reports the fact
check (``fact_check``), every candidate carries it as a veto (``decision.VetoRule``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel

from ragtriage.calibration.agreement import cohen_kappa
from ragtriage.calibration.combine import fit_logistic
from ragtriage.calibration.decision import FACT_VETO, AnyRule, Table, VetoRule
from ragtriage.calibration.threshold import cross_fit, fit_threshold, stratified_folds, subset

__all__ = [
    "COMBINATIONS",
    "Candidate",
    "Selection",
    "candidates",
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


@dataclass(frozen=True)
class Candidate:
    name: str
    fit: Fit


def _threshold_fit(name: str) -> Fit:
    return lambda table, y: fit_threshold(table[name], y, name, direction=None)


def _logistic_fit(features: tuple[str, ...]) -> Fit:
    return lambda table, y: fit_logistic(table, y, list(features))


def _vetoed(fit: Fit) -> Fit:
    return lambda table, y: VetoRule(rule=fit(table, y))


def candidates(signals: list[str], veto: bool = False) -> list[Candidate]:
    """Every usable single signal, then every combination whose signals are all usable;
    with ``veto`` every candidate carries the fact check (:class:`VetoRule`), so the rule
    is chosen and measured as the audit will apply it."""
    out = [Candidate(s, _threshold_fit(s)) for s in signals if s != FACT_VETO or not veto]
    out += [
        Candidate(name, _logistic_fit(features))
        for name, features in COMBINATIONS.items()
        if all(f in signals for f in features)
    ]
    if veto:
        out = [Candidate(c.name, _vetoed(c.fit)) for c in out]
    return out


def _cv_kappa(candidate: Candidate, table: Table, y: np.ndarray, folds: np.ndarray) -> float:
    oof, _ = cross_fit(candidate.fit, table, y, folds)
    ok = np.isfinite(oof)
    return float(np.nan_to_num(cohen_kappa(y[ok], oof[ok]), nan=-1.0)) if ok.any() else -1.0


def select_rule(
    cands: list[Candidate], table: Table, y: np.ndarray, seed: int
) -> tuple[Candidate, dict[str, float]]:
    """The candidate with the best inner cross-validated kappa on these items (ties: the
    earlier one), and every candidate's inner kappa."""
    inner = stratified_folds([str(v) for v in y], INNER_FOLDS, seed)
    scores = {c.name: _cv_kappa(c, table, y, inner) for c in cands}
    best = max(cands, key=lambda c: (scores[c.name], -cands.index(c)))
    return best, scores


class Selection(BaseModel):
    """What nested cross-validation chose, and how well the choosing itself does."""

    chosen: str  # picked on all items: the shipped rule
    candidates: list[str]
    inner_kappa: dict[str, float]  # inner CV kappa of each candidate on all items
    fold_choices: list[str]  # the candidate each outer fold chose
    choice_counts: dict[str, int]
    inner_folds: int = INNER_FOLDS
    fact_veto: bool = False  # every candidate carried the fact check


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
