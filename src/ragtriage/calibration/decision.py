"""Decision rules that turn a judge's numbers into faithful / unfaithful.

A rule is fitted on human grades and stored in the calibration record, so the audit makes
the same decision the calibration measured. Rules read a *feature table*: a dict from
feature name (``score`` = the judge's score, or a key of ``JudgeResult.signals``) to a
float array, NaN where the value is missing.
"""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, Field

from ragtriage.judge.types import JudgeResult, Outcome

__all__ = [
    "AnyRule",
    "ConstantRule",
    "FACT_VETO",
    "VetoRule",
    "LOG_SUFFIXES",
    "LogisticRule",
    "Rule",
    "Table",
    "ThresholdRule",
    "decide_one",
    "result_features",
    "transform",
]

Table = dict[str, np.ndarray]
LOG_SUFFIXES = ("tokens", "chars", "length", "words")


def transform(name: str, values: np.ndarray) -> np.ndarray:
    """Counts (answer length in tokens, ...) are right-skewed: log1p puts them on a scale
    where a linear model's weight means the same at 20 and at 400 tokens."""
    values = np.asarray(values, dtype=float)
    return np.log1p(np.maximum(values, 0.0)) if name.endswith(LOG_SUFFIXES) else values


def result_features(result: JudgeResult) -> dict[str, float]:
    """The feature row of one judge result: its score and every signal."""
    row = {k: float(v) for k, v in result.signals.items()}
    if result.score is not None:
        row["score"] = float(result.score)
    return row


class ThresholdRule(BaseModel):
    """faithful iff ``direction * (x - threshold) >= 0`` for one feature ``x``."""

    kind: Literal["threshold"] = "threshold"
    feature: str
    threshold: float
    direction: Literal[1, -1] = 1

    def predict(self, table: Table) -> np.ndarray:
        x = np.asarray(table[self.feature], dtype=float)
        out = (self.direction * (x - self.threshold) >= 0).astype(float)
        out[~np.isfinite(x)] = np.nan
        return out


class ConstantRule(BaseModel):
    """Always the same answer: the majority-class baseline."""

    kind: Literal["constant"] = "constant"
    value: bool

    def predict(self, table: Table) -> np.ndarray:
        n = len(next(iter(table.values()))) if table else 0
        return np.full(n, float(self.value))


class LogisticRule(BaseModel):
    """A logistic model over standardised (log1p for counts) features, with the
    probability threshold that maximised kappa on its training items. Missing features
    are imputed with the training mean (0 after standardising)."""

    kind: Literal["logistic"] = "logistic"
    features: list[str]
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    threshold: float

    def probability(self, table: Table) -> np.ndarray:
        cols = []
        for name, mu, sd in zip(self.features, self.mean, self.scale, strict=True):
            z = (transform(name, table[name]) - mu) / sd
            cols.append(np.where(np.isfinite(z), z, 0.0))
        logit = np.column_stack(cols) @ np.asarray(self.coef) + self.intercept
        return 1.0 / (1.0 + np.exp(-logit))

    def predict(self, table: Table) -> np.ndarray:
        return (self.probability(table) >= self.threshold).astype(float)


BaseRule = Annotated[ThresholdRule | ConstantRule | LogisticRule, Field(discriminator="kind")]

# The fact check: a sentence that states a number or a name its evidence does not
# contain, denies what its evidence does not deny, or restates its evidence with the
# opposite polarity or an antonym, is unsupported by the claim-level definition of
# faithfulness, whatever the overlap says. It is what catches one-fact swaps (a year, an
# amount, a person, a place, "fell" for "rose", an added "not"), where nearly every word
# of the answer is still in the context. On the shipped grades it flags 161 of 300
# answers (the embedded judge, with the model's rejections, 168), 82 % of them graded
# unfaithful against a 71 % base rate, and it raises the nested-CV kappa of the lexical
# judge from 0.33 to 0.39 pooled, mean over 10 fold splits
# (benchmarks/nested_seed_spread.py), so it is part of every decision, not a choice.
FACT_VETO = "fact_check"


class VetoRule(BaseModel):
    """``rule``, except that an answer whose ``veto`` signal is above 0 is unfaithful.
    A result without the veto signal is decided by ``rule`` alone."""

    kind: Literal["veto"] = "veto"
    rule: BaseRule
    veto: str = FACT_VETO

    def predict(self, table: Table) -> np.ndarray:
        out = self.rule.predict(table)
        if self.veto in table:
            flag = np.asarray(table[self.veto], dtype=float) > 0
            out = np.where(flag & np.isfinite(out), 0.0, out)
        return out


Rule = Annotated[
    ThresholdRule | ConstantRule | LogisticRule | VetoRule, Field(discriminator="kind")
]


AnyRule = ThresholdRule | ConstantRule | LogisticRule | VetoRule


def decide_one(rule: AnyRule, result: JudgeResult) -> bool | None:
    """Faithful (True/False) for a scored result, None for every other outcome or when the
    rule's feature is missing from the result."""
    if result.outcome != Outcome.SCORED:
        return None
    row = result_features(result)
    inner = rule.rule if isinstance(rule, VetoRule) else rule
    if isinstance(inner, ThresholdRule) and inner.feature not in row:
        return None
    table = {k: np.array([v]) for k, v in row.items()}
    if isinstance(inner, LogisticRule):
        table.update({f: np.array([row.get(f, np.nan)]) for f in inner.features})
    value = rule.predict(table)
    return None if value.size == 0 or not np.isfinite(value[0]) else bool(value[0])
