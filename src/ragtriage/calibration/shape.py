"""Decision rules that see the answer's shape (``judge.shape``), fixed before any fold.

Four forms, each a candidate of the nested selection (``calibration.select``), so chosen
only where it wins and measured in the outer folds like every other candidate:
:func:`fit_cited_shape` (answers that cite get their own threshold, the others keep the
pooled one), :func:`fit_per_shape` (a threshold per shape, each on the signal of a short
fixed list that maximises kappa on that shape's training answers), :func:`fit_interactions`
(logistic over the signals, the shape and each signal times ``cites``) and
:func:`fit_tree` (depth 2, over the shape and the main signals).

A shape with too few training answers (or one label only) gets the pooled threshold on
its list's first signal, so a grade set of one shape still gets a rule.
"""

from __future__ import annotations

import numpy as np

from ragtriage.calibration.agreement import kappa_score
from ragtriage.calibration.combine import fit_logistic
from ragtriage.calibration.decision import (
    ConstantRule,
    LogisticRule,
    ShapeRule,
    Table,
    ThresholdRule,
    TreeRule,
    column,
)
from ragtriage.calibration.threshold import fit_majority, fit_threshold, subset

__all__ = [
    "CITED_SIGNALS",
    "INTERACTION_SIGNALS",
    "MIN_SHAPE_ITEMS",
    "SHAPE_FITS",
    "SPLIT",
    "TREE_SIGNALS",
    "UNCITED_SIGNALS",
    "fit_cited_shape",
    "fit_interactions",
    "fit_per_shape",
    "fit_tree",
    "shape_usable",
]

SPLIT = "cites"
# The signals each shape may threshold, in order of preference on a tie.
CITED_SIGNALS = (
    "citation_failures",
    "cited_min_alignment",
    "uncited_sentences",
    "min_sentence_alignment",
    "min_sentence_lexical",
)
UNCITED_SIGNALS = ("min_sentence_lexical", "min_sentence_alignment", "mean_sentence_alignment")
INTERACTION_SIGNALS = ("min_sentence_lexical", "min_sentence_alignment", "citation_failures")
TREE_SIGNALS = (
    "cites",
    "answer_sentences",
    "context_share",
    "paraphrase_share",
    "min_sentence_lexical",
    "min_sentence_alignment",
    "citation_failures",
)
MIN_SHAPE_ITEMS = 20  # per shape and training set, else the pooled threshold
TREE_LEAF = 15  # fewest training answers in a leaf


def shape_usable(table: Table) -> bool:
    """Shape rules need the split feature and both shapes among the answers."""
    if SPLIT not in table:
        return False
    x = column(table, SPLIT)
    finite = x[np.isfinite(x)]
    return bool(np.isfinite(x).mean() >= 0.9 and (finite >= 0.5).sum() and (finite < 0.5).sum())


def _best_threshold(table: Table, y: np.ndarray, names: tuple[str, ...]) -> ThresholdRule | None:
    """The kappa-best threshold among ``names`` on these answers (each signal's missing
    values read as unfaithful, as the rule will decide them), ``None`` if none is there."""
    best: tuple[float, ThresholdRule] | None = None
    for name in names:
        if name not in table or not np.isfinite(table[name]).any():
            continue
        rule = fit_threshold(table[name], y, name, direction=None)
        score = kappa_score(y, np.nan_to_num(rule.predict(table)))
        if best is None or score > best[0] + 1e-12:
            best = (score, rule)
    return best[1] if best else None


def _branch(table: Table, y: np.ndarray, mask: np.ndarray, names: tuple[str, ...]):
    part, labels = subset(table, mask), y[mask]
    if mask.sum() >= MIN_SHAPE_ITEMS and len(np.unique(labels)) == 2:
        rule = _best_threshold(part, labels, names)
        if rule is not None:
            return rule
    present = [n for n in names if n in table and np.isfinite(table[n]).mean() >= 0.9]
    if present:  # too few of this shape: the pooled threshold of its first pooled signal
        return fit_threshold(table[present[0]], y, present[0], direction=None)
    return fit_majority(labels if mask.any() else y)


def fit_cited_shape(table: Table, y: np.ndarray) -> ShapeRule:
    """Answers that cite get their own threshold (as :func:`fit_per_shape`); the others
    keep the pooled threshold of the first uncited signal, fitted on every answer: the
    smallest change to the pooled rule, and no threshold fitted on one kind of uncited
    answer (chat turns) alone, which other uncited answers (reference-style ones) may not
    share."""
    return fit_per_shape(table, y, pooled_uncited=UNCITED_SIGNALS[0] in table)


def fit_per_shape(table: Table, y: np.ndarray, pooled_uncited: bool = False) -> ShapeRule:
    """Per-shape thresholds (module doc); with ``pooled_uncited``, the answers that cite
    nothing keep the pooled threshold of the first uncited signal (:func:`fit_cited_shape`)."""
    cites = np.nan_to_num(column(table, SPLIT)) >= 0.5
    name = UNCITED_SIGNALS[0]
    return ShapeRule(
        split=SPLIT,
        at=0.5,
        when=_branch(table, y, cites, CITED_SIGNALS),
        otherwise=(
            fit_threshold(table[name], y, name, direction=None)
            if pooled_uncited
            else _branch(table, y, ~cites, UNCITED_SIGNALS)
        ),
    )


def fit_interactions(table: Table, y: np.ndarray) -> LogisticRule | ConstantRule:
    """Logistic regression over the signals present, ``cites`` and their interactions."""
    signals = [s for s in INTERACTION_SIGNALS if s in table]
    return fit_logistic(table, y, [*signals, SPLIT, *(f"{SPLIT}*{s}" for s in signals)])


def fit_tree(table: Table, y: np.ndarray) -> TreeRule | ConstantRule:
    """A depth-2 tree, balanced class weights (the faithful minority counts as much as the
    unfaithful majority, as kappa does), at least :data:`TREE_LEAF` answers a leaf."""
    from sklearn.tree import DecisionTreeClassifier

    names = [s for s in TREE_SIGNALS if s in table]
    y = np.asarray(y, int)
    if len(np.unique(y)) < 2 or not names:
        return fit_majority(y)
    fill = -1.0
    x = np.column_stack([np.nan_to_num(column(table, n), nan=fill) for n in names])
    model = DecisionTreeClassifier(
        max_depth=2, min_samples_leaf=TREE_LEAF, class_weight="balanced", random_state=0
    ).fit(x, y)
    tree = model.tree_
    leaf = tree.children_left == -1
    faithful = [bool(np.argmax(v[0]) == list(model.classes_).index(1)) for v in tree.value]
    return TreeRule(
        features=["" if leaf[i] else names[tree.feature[i]] for i in range(tree.node_count)],
        thresholds=[float(t) for t in tree.threshold],
        left=[int(c) for c in tree.children_left],
        right=[int(c) for c in tree.children_right],
        leaf_faithful=faithful,
        fill=fill,
    )


SHAPE_FITS = {
    "cited-shape": fit_cited_shape,
    "per-shape": fit_per_shape,
    "shape-logistic": fit_interactions,
    "shape-tree": fit_tree,
}
