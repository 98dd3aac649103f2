"""Nested cross-validation chooses the rule; the fact check vetoes inside every candidate."""

from __future__ import annotations

import numpy as np

from ragtriage.calibration.decision import ThresholdRule, VetoRule, decide_one
from ragtriage.calibration.select import candidates, nested_select
from ragtriage.calibration.threshold import stratified_folds
from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Outcome


def _table(n: int = 240, seed: int = 3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(float)
    table = {
        "informative": y + rng.normal(0, 0.6, n),  # separates the classes
        "noise_a": rng.random(n),
        "noise_b": rng.random(n),
        "fact_check": np.zeros(n),
    }
    return table, y


def test_the_informative_signal_wins_the_folds_and_the_choice():
    table, y = _table()
    folds = stratified_folds([str(v) for v in y], 5, seed=1)
    cands = candidates(["informative", "noise_a", "noise_b"])
    selection, oof, rules, rule = nested_select(cands, table, y, folds, seed=1)
    assert selection.chosen == "informative"
    assert selection.choice_counts["informative"] >= 4
    assert sum(selection.choice_counts.values()) == 5 == len(rules)
    assert np.isfinite(oof).all()
    assert isinstance(rule, ThresholdRule) and rule.feature == "informative"
    assert not selection.fact_veto


def test_noise_alone_gives_an_outer_kappa_near_zero():
    """The procedure's figure includes the choice: picking the best of pure noise signals
    must not look like agreement."""
    from ragtriage.calibration.agreement import cohen_kappa

    table, y = _table()
    folds = stratified_folds([str(v) for v in y], 5, seed=1)
    _, oof, _, _ = nested_select(candidates(["noise_a", "noise_b"]), table, y, folds, seed=1)
    assert abs(cohen_kappa(y, oof)) < 0.15


def test_with_the_veto_every_rule_carries_it_and_a_flagged_answer_is_unfaithful():
    table, y = _table()
    table["swapped_facts"] = np.where(np.arange(len(y)) % 10 == 0, 1.0, 0.0)
    folds = stratified_folds([str(v) for v in y], 5, seed=1)
    cands = candidates(["informative", "swapped_facts"], veto=True)
    assert "swapped_facts" not in [c.name for c in cands]  # the veto, not a candidate
    selection, oof, rules, rule = nested_select(cands, table, y, folds, seed=1)
    assert selection.fact_veto and all(isinstance(r, VetoRule) for r in rules)
    assert (oof[table["swapped_facts"] > 0] == 0).all()
    assert isinstance(rule, VetoRule)
    fp = JudgeFingerprint(judge="x", model="m", params={}, prompt_sha256={}, package_version="0")
    result = JudgeResult(
        item_id="a",
        outcome=Outcome.SCORED,
        score=1.0,
        signals={"informative": 5.0, "swapped_facts": 1.0},
        fingerprint=fp,
    )
    assert decide_one(rule, result) is False
    clean = result.model_copy(update={"signals": {"informative": 5.0, "swapped_facts": 0.0}})
    assert decide_one(rule, clean) is True


def test_a_model_signal_must_clearly_beat_the_model_free_one():
    """A model-based candidate as good as a model-free one (a probability that ranks the
    items exactly as the overlap does) loses to it, though it comes first and would win the
    tie; one far better wins. Only for a judge with a model."""
    from ragtriage.calibration.select import choose

    table, y = _table()
    rng = np.random.default_rng(5)
    table["prob_tied"] = 1 / (1 + np.exp(-table["informative"]))
    table["prob_better"] = y + rng.normal(0, 0.15, len(y))
    free = frozenset({"informative", "noise_a"})
    tied = candidates(["prob_tied", "informative", "noise_a"], model_free=free)
    assert [c.model_free for c in tied] == [False, True, True]
    assert choose(tied, table, y, seed=1)[0].name == "informative"
    better = candidates(["prob_better", "informative", "noise_a"], model_free=free)
    assert choose(better, table, y, seed=1)[0].name == "prob_better"
    # without a model every candidate is model-free, and the best inner kappa wins
    plain = candidates(["prob_better", "informative", "noise_a"])
    assert all(c.model_free for c in plain)
    assert choose(plain, table, y, seed=1)[0].name == "prob_better"


def test_the_model_free_signals_are_what_every_judge_computes_without_a_model():
    from ragtriage.judge.strategies.common import MODEL_FREE_SIGNALS, lexical_signals
    from ragtriage.judge.types import ContextChunk, JudgeItem

    item = JudgeItem(
        id="a",
        question="q",
        contexts=(ContextChunk(id="c", text="The bridge opened in 1998 [1]."),),
        answer="The bridge opened in 1998 [1].",
    )
    assert set(lexical_signals(item)) == MODEL_FREE_SIGNALS
