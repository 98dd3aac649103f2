"""Decision rules that turn a judge's numbers into faithful / unfaithful.

A rule is fitted on human grades and stored in the calibration record, so the audit makes
the same decision the calibration measured. Rules read a *feature table*: a dict from
feature name (``score`` = the judge's score, or a key of ``JudgeResult.signals``) to a
float array, NaN where the value is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ragtriage.judge.types import JudgeResult, Outcome

__all__ = [
    "AnyRule",
    "ConstantRule",
    "FACT_VETO",
    "Fit",
    "VetoRule",
    "LOG1P_PREFIX",
    "LOG_SUFFIXES",
    "MISSING_PREFIX",
    "LogisticRule",
    "Rule",
    "ShapeRule",
    "TreeRule",
    "base_features",
    "column",
    "rule_features",
    "uses_model",
    "Table",
    "ThresholdRule",
    "decide_one",
    "one_row",
    "result_features",
    "transform",
]

Table = dict[str, np.ndarray]
LOG_SUFFIXES = ("tokens", "chars", "length", "words")
LOG1P_PREFIX = "log1p:"
MISSING_PREFIX = "missing:"


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

    model_config = ConfigDict(use_attribute_docstrings=True)

    kind: Literal["threshold"] = "threshold"
    """Tells the rule kinds apart: always ``threshold``."""
    feature: str
    """The feature read: ``score`` (the judge's score) or a signal's name."""
    threshold: float
    """The cut-off on the feature, in its units."""
    direction: Literal[1, -1] = 1
    """1: faithful when the feature is at least ``threshold``; -1: when at most."""

    def predict(self, table: Table) -> np.ndarray:
        x = np.asarray(table[self.feature], dtype=float)
        out = (self.direction * (x - self.threshold) >= 0).astype(float)
        out[~np.isfinite(x)] = np.nan
        return out


class ConstantRule(BaseModel):
    """Always the same answer: the majority-class baseline."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    kind: Literal["constant"] = "constant"
    """Tells the rule kinds apart: always ``constant``."""
    value: bool
    """The decision for every answer (true: faithful)."""

    def predict(self, table: Table) -> np.ndarray:
        n = len(next(iter(table.values()))) if table else 0
        return np.full(n, float(self.value))


class LogisticRule(BaseModel):
    """A logistic model over standardised (log1p for counts) features, with the
    probability threshold that maximised kappa on its training items. Missing features
    are imputed with the training mean (0 after standardising)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    kind: Literal["logistic"] = "logistic"
    """Tells the rule kinds apart: always ``logistic``."""
    features: list[str]
    """Features read (``a*b``: the product of two); names ending in a count's suffix
    (``tokens``, ``chars``, ``length``, ``words``) are log1p-transformed first."""
    mean: list[float]
    """Training mean of each feature, after the transform."""
    scale: list[float]
    """Training scale of each feature after the transform: it is divided by it."""
    coef: list[float]
    """Weight of each standardised feature (log-odds per unit)."""
    intercept: float
    """The model's intercept (log-odds)."""
    threshold: float
    """Faithful when the predicted probability (0-1) is at least this."""

    def probability(self, table: Table) -> np.ndarray:
        cols = []
        for name, mu, sd in zip(self.features, self.mean, self.scale, strict=True):
            z = (transform(name, column(table, name)) - mu) / sd
            cols.append(np.where(np.isfinite(z), z, 0.0))
        logit = np.column_stack(cols) @ np.asarray(self.coef) + self.intercept
        return 1.0 / (1.0 + np.exp(-logit))

    def predict(self, table: Table) -> np.ndarray:
        return (self.probability(table) >= self.threshold).astype(float)


def column(table: Table, name: str) -> np.ndarray:
    """Feature ``name`` of the table; ``a*b`` is an interaction, the product of two
    features with a missing factor read as 0 (``cites*citation_failures`` is 0 for an
    answer that cites nothing, whose citation check is absent); ``log1p:x`` is a count on
    the log scale (a weight then means the same at 2 novel facts and at 20);
    ``missing:x`` is 1 where ``x`` is absent (a citation signal of an answer that cites
    nothing), so the model learns what absence says instead of reading it as average."""
    if name.startswith(MISSING_PREFIX):
        return (~np.isfinite(column(table, name[len(MISSING_PREFIX) :]))).astype(float)
    if name.startswith(LOG1P_PREFIX):
        x = column(table, name[len(LOG1P_PREFIX) :])
        return np.log1p(np.maximum(x, 0.0))
    if "*" not in name:
        return np.asarray(table[name], dtype=float)
    a, b = name.split("*", 1)
    return np.nan_to_num(column(table, a)) * np.nan_to_num(column(table, b))


def _base(name: str) -> str:
    """The table feature behind one derived name (``log1p:x``, ``missing:x``: ``x``)."""
    for prefix in (MISSING_PREFIX, LOG1P_PREFIX):
        if name.startswith(prefix):
            return _base(name[len(prefix) :])
    return name


def base_features(names: list[str]) -> list[str]:
    """The table features that ``names`` read (an interaction reads both factors)."""
    return sorted({_base(part) for name in names for part in name.split("*")})


class TreeRule(BaseModel):
    """A depth-limited decision tree (fitted by ``calibration.shape``): node ``i`` sends a
    row left when ``features[i] <= thresholds[i]``, else right; a leaf (``left[i] == -1``)
    says faithful iff ``leaf_faithful[i]``. Missing values read as ``fill``."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    kind: Literal["tree"] = "tree"
    """Tells the rule kinds apart: always ``tree``."""
    features: list[str]
    """Per node, the feature it splits on (empty for a leaf)."""
    thresholds: list[float]
    """Per node, the cut-off: a row with the feature at most it goes left."""
    left: list[int]
    """Per node, the index of its left child; -1 marks a leaf."""
    right: list[int]
    """Per node, the index of its right child."""
    leaf_faithful: list[bool]
    """Per node, a leaf's decision (true: faithful); unused for inner nodes."""
    fill: float = -1.0
    """The value a missing feature reads as."""

    def leaves(self, table: Table) -> list[int]:
        """The leaf each row ends in (the band's groups: ``calibration.band``)."""
        cols = {f: np.nan_to_num(column(table, f), nan=self.fill) for f in set(self.features) if f}
        n = len(next(iter(table.values()))) if table else 0
        out = []
        for row in range(n):
            node = 0
            while self.left[node] != -1:
                x = cols[self.features[node]][row]
                node = self.left[node] if x <= self.thresholds[node] else self.right[node]
            out.append(node)
        return out

    def predict(self, table: Table) -> np.ndarray:
        return np.array([float(self.leaf_faithful[k]) for k in self.leaves(table)])


# the rule kinds, told apart by ``kind`` when read back; a leaf decides without another rule
_LEAVES = ThresholdRule | ConstantRule | LogisticRule | TreeRule
_KIND = Field(discriminator="kind")
LeafRule = Annotated[_LEAVES, _KIND]


class ShapeRule(BaseModel):
    """One rule for answers of one shape, another for the rest: ``when`` for answers whose
    ``split`` feature is at least ``at`` (``cites`` >= 0.5: answers that cite), ``otherwise``
    for the others. An answer without the split feature has no decision."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    kind: Literal["shape"] = "shape"
    """Tells the rule kinds apart: always ``shape``."""
    split: str
    """The feature that tells the shapes apart (``cites``: the answer cites)."""
    at: float
    """Answers whose ``split`` feature is at least this are decided by ``when``."""
    when: LeafRule
    """The rule for answers with ``split`` at least ``at``."""
    otherwise: LeafRule
    """The rule for the other answers."""

    def predict(self, table: Table) -> np.ndarray:
        x = column(table, self.split)
        yes, no = self.when.predict(table), self.otherwise.predict(table)
        out = np.where(x >= self.at, yes, no)
        out[~np.isfinite(x)] = np.nan
        return out


BaseRule = Annotated[_LEAVES | ShapeRule, _KIND]

# The veto: a sentence that restates its best evidence window (``judge.facts.RESTATED``,
# signal ``swapped_facts``) yet fails the fact check: one fact changed in a copied
# statement, which overlap cannot see. Not the whole fact check (``fact_check``, still a
# weighted signal), which fires on faithful paraphrases (issue 54; docs/calibration.md,
# 'The swap veto, not the whole fact check'; benchmarks/results/rule_candidates.txt).
FACT_VETO = "swapped_facts"


class VetoRule(BaseModel):
    """``rule``, except that an answer whose ``veto`` signal is above 0 is unfaithful.
    A result without the veto signal is decided by ``rule`` alone."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    kind: Literal["veto"] = "veto"
    """Tells the rule kinds apart: always ``veto``."""
    rule: BaseRule
    """The rule that decides every answer not vetoed."""
    veto: str = FACT_VETO
    """The signal that, above 0, makes an answer unfaithful."""

    def predict(self, table: Table) -> np.ndarray:
        out = self.rule.predict(table)
        if self.veto in table:
            flag = np.asarray(table[self.veto], dtype=float) > 0
            out = np.where(flag & np.isfinite(out), 0.0, out)
        return out


AnyRule = _LEAVES | ShapeRule | VetoRule
Rule = Annotated[AnyRule, _KIND]
# fits a rule on a feature table and its 0/1 labels (each candidate's, each fold's)
Fit = Callable[[Table, np.ndarray], AnyRule]


def rule_features(rule: AnyRule) -> set[str]:
    """Every signal a rule reads (a veto's signal and both sides of a shape split too)."""
    if isinstance(rule, VetoRule):
        return {rule.veto} | rule_features(rule.rule)
    if isinstance(rule, ShapeRule):
        return {rule.split} | rule_features(rule.when) | rule_features(rule.otherwise)
    if isinstance(rule, ThresholdRule):
        return {rule.feature}
    if isinstance(rule, LogisticRule | TreeRule):
        return set(base_features([f for f in rule.features if f]))
    return set()


def uses_model(rule: AnyRule, model_free: frozenset[str]) -> bool:
    """Whether deciding by ``rule`` needs a signal outside ``model_free`` (the signals a
    judge computes without its model): if not, an audit need not call the model."""
    return not rule_features(rule) <= model_free


def one_row(rule: AnyRule, result: JudgeResult) -> Table:
    """The feature table of one result as ``rule`` reads it: absent features read as
    missing (a logistic rule imputes them, a tree fills them)."""
    row = result_features(result)
    table = {k: np.array([v]) for k, v in row.items()}
    table.update({f: np.array([row.get(f, np.nan)]) for f in rule_features(rule)})
    return table


def decide_one(rule: AnyRule, result: JudgeResult) -> bool | None:
    """Faithful (True/False) for a scored result, None for every other outcome or when the
    rule's feature is missing from the result."""
    if result.outcome != Outcome.SCORED:
        return None
    inner = rule.rule if isinstance(rule, VetoRule) else rule
    if isinstance(inner, ThresholdRule) and inner.feature not in result_features(result):
        return None
    value = rule.predict(one_row(rule, result))
    return None if value.size == 0 or not np.isfinite(value[0]) else bool(value[0])
