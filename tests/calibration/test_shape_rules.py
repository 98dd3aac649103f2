"""Shape-aware rules in the nested selection, on constructed grades with two shapes.

Answers that cite are faithful when their citation check passes, whatever their word
overlap; answers that cite nothing when their overlap is high. One pooled threshold
cannot serve both; a per-shape rule can, and the nested selection must find it from the
answers' features alone. With one shape only, no shape rule is offered.
"""

from __future__ import annotations

import numpy as np

from ragtriage.calibration.decision import ShapeRule, TreeRule, VetoRule, decide_one, uses_model
from ragtriage.calibration.select import candidates, nested_select
from ragtriage.calibration.shape import (
    fit_cited_shape,
    fit_interactions,
    fit_per_shape,
    fit_tree,
    shape_usable,
)
from ragtriage.calibration.threshold import fit_threshold, stratified_folds
from ragtriage.judge.strategies.common import MODEL_FREE_SIGNALS
from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Outcome

# what calibration offers as single signals here: present on 90 % of the answers (the
# citation check, absent for answers that cite nothing, is read by the shape rules only)
SIGNALS = ["min_sentence_lexical", "cites", "fact_check"]


def _two_shapes(n: int = 240, seed: int = 1):
    rng = np.random.default_rng(seed)
    cites = (np.arange(n) % 2).astype(float)
    y = (rng.random(n) < 0.4).astype(float)
    noise = rng.normal(0, 0.08, n)
    lexical = np.where(cites == 1, rng.random(n) * 0.6, np.where(y == 1, 0.85, 0.55) + noise)
    failures = np.where(cites == 1, np.where(y == 1, 0.05, 0.5) + noise, np.nan)
    table = {
        "min_sentence_lexical": lexical,
        "citation_failures": failures,
        "cites": cites,
        "fact_check": np.zeros(n),
    }
    return table, y


def _kappa(y, d):
    from ragtriage.calibration.agreement import cohen_kappa

    return cohen_kappa(y, d)


def test_the_nested_selection_picks_a_shape_rule_where_shapes_differ():
    table, y = _two_shapes()
    assert shape_usable(table)
    folds = stratified_folds([f"{c}|{v}" for c, v in zip(table["cites"], y, strict=True)], 5, 7)
    pooled = candidates(SIGNALS, veto=True)
    shaped = candidates(SIGNALS, veto=True, shape=True)
    assert {c.name for c in shaped} - {c.name for c in pooled} == {
        "cited-shape", "per-shape", "shape-logistic", "shape-tree"
    }  # fmt: skip
    sel, oof, _, rule = nested_select(shaped, table, y, folds, seed=7)
    _, oof_pooled, _, _ = nested_select(pooled, table, y, folds, seed=7)
    assert sel.chosen in {"cited-shape", "per-shape", "shape-logistic", "shape-tree"}
    assert sum(sel.choice_counts[k] for k in sel.choice_counts if "shape" in k) >= 4
    assert _kappa(y, oof) > _kappa(y, oof_pooled) + 0.2  # outer folds, not in-sample
    assert isinstance(rule, VetoRule)


def test_per_shape_thresholds_use_the_citation_check_for_cited_answers():
    table, y = _two_shapes()
    rule = fit_per_shape(table, y)
    assert isinstance(rule, ShapeRule) and rule.split == "cites"
    assert rule.when.feature == "citation_failures" and rule.when.direction == -1
    assert rule.otherwise.feature == "min_sentence_lexical"
    assert not uses_model(VetoRule(rule=rule), MODEL_FREE_SIGNALS)


def test_interactions_and_tree_are_fitted_and_stored_rules():
    table, y = _two_shapes()
    logistic = fit_interactions(table, y)
    assert "cites*min_sentence_lexical" in logistic.features
    tree = fit_tree(table, y)
    assert isinstance(tree, TreeRule)
    assert "citation_failures" in tree.features or "cites" in tree.features
    assert _kappa(y, tree.predict(table)) > 0.3
    again = TreeRule.model_validate_json(tree.model_dump_json())
    assert np.array_equal(again.predict(table), tree.predict(table))


def test_one_shape_offers_no_shape_rule():
    table, _ = _two_shapes()
    table["cites"] = np.ones_like(table["cites"])
    assert not shape_usable(table)


def test_a_shape_rule_decides_one_result_by_its_shape():
    rule = VetoRule(rule=fit_per_shape(*_two_shapes()))
    fp = JudgeFingerprint(judge="lexical", model="none")

    def result(**signals):
        return JudgeResult(item_id="x", outcome=Outcome.SCORED, score=0.5, signals=signals,
                           fingerprint=fp)  # fmt: skip

    chat = dict(cites=0.0, min_sentence_lexical=0.9, fact_check=0.0, swapped_facts=0.0)
    assert decide_one(rule, result(**chat)) is True  # no citation check needed
    cited = dict(cites=1.0, min_sentence_lexical=0.3, fact_check=0.0, swapped_facts=0.0)
    assert decide_one(rule, result(**cited, citation_failures=0.0)) is True
    assert decide_one(rule, result(**cited, citation_failures=0.6)) is False
    assert decide_one(rule, result(**{**chat, "swapped_facts": 1.0})) is False


def test_cited_shape_keeps_the_pooled_threshold_for_answers_that_cite_nothing():
    table, y = _two_shapes()
    rule = fit_cited_shape(table, y)
    assert rule.when.feature == "citation_failures"
    pooled = fit_threshold(table["min_sentence_lexical"], y, "min_sentence_lexical", None)
    assert rule.otherwise == pooled
