"""Selective decisions: the band of answers a rule leaves ``unsure``.

An answer's **margin** is how far its signal lies from the cut-off of the part of the rule
that decides it (:func:`margins`), in that part's units, so answers are put in **groups**
by that part (a shape branch, the vetoed answers, a tree leaf): a distance in word overlap
and one in failed citations are not comparable. A pooled band puts them in each group's
unit (:func:`group_scales`) under one cut-off; otherwise each group has its own.

The cut-off is chosen by **fixed-sequence testing** (learn-then-test: docs/calibration.md,
'Unsure: the band the judge cannot decide'): candidate cut-offs from the largest margin
down, an exact binomial bound on the decided answers' disagreement at each, stopping at
the first not rejected. The order depends on margins alone, never labels (those deciding
too few answers for any test to pass are skipped), which is what lets a fixed sequence
need no correction for the number of cut-offs tried. Vetoed answers are decided by the
veto whenever the band decides anything and the test runs on the others, so the guarantee
is theirs; the veto's agreement is measured apart (``benchmarks/selective_band.py``).

The margins are out of fold (:func:`oof_margins`), as the audit's answers will be, and the
nested cross-validation fits the band inside each outer fold, so its coverage and decided
agreement are figures for the whole procedure on answers it never saw.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ragtriage.calibration.decision import (
    AnyRule,
    ConstantRule,
    Fit,
    LogisticRule,
    ShapeRule,
    Table,
    ThresholdRule,
    TreeRule,
    VetoRule,
    column,
)
from ragtriage.calibration.threshold import cross_fit, subset

__all__ = [
    "DEFAULT_DELTA",
    "DEFAULT_MIN_AGREEMENT",
    "DELTA_RANGE",
    "MIN_BAND_SHARE",
    "BandFallback",
    "MIN_AGREEMENT_RANGE",
    "Band",
    "GroupBand",
    "clopper_pearson_upper",
    "decided_mask",
    "fit_band",
    "grades_to_decide",
    "group_scales",
    "pooled_margins",
    "margins",
    "fold_decisions",
    "oof_margins",
]

DEFAULT_MIN_AGREEMENT = 0.85
DEFAULT_DELTA = 0.2
VETO_GROUP = "veto"
# The margin of a vetoed answer: beyond any margin in signal units, so it is decided first.
VETO_FIRST = 1e9
# Below this share of answers decided, a band is inert (``record.band_is_inert``): the
# audit keeps the rule's verdicts. A pooled band's test sequence starts there. A quarter:
# below it an audit reads mostly `unsure`, which tells the user less than the rule does.
MIN_BAND_SHARE = 0.25
# what the audit does with the answers inside an inert band (the record's band_fallback)
BandFallback = Literal["rule", "unsure"]
# The ranges ``calibrate`` accepts (--min-agreement, --delta); a record from disk is held
# to the same, so a hand-edited target of 1.5 or a delta of -1 is refused, not applied.
MIN_AGREEMENT_RANGE = (0.5, 0.99)
DELTA_RANGE = (0.01, 0.5)


class GroupBand(BaseModel):
    """The band of one group of answers: where its decided answers begin."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    min_distance: float | None = Field(allow_inf_nan=False)
    """Answers at least this far from the cut-off (in the group's signal units) are
    decided; null: none is (its first test failed or it had too few answers). Negative
    only in a vetoed group (a vetoed answer's signal may say faithful)."""
    n: int = Field(ge=0)
    """Calibration answers in the group (count)."""
    decided: int = Field(ge=0)
    """Of them, those at least ``min_distance`` from the cut-off (count)."""
    errors: int = Field(ge=0)
    """Of the decided ones, those the humans graded otherwise (count)."""
    upper: float | None = Field(ge=0.0, le=1.0)
    """Clopper-Pearson upper bound (at ``1 - delta / groups``) on the decided answers'
    disagreement; null when none is decided."""

    @model_validator(mode="after")
    def _counts(self) -> GroupBand:
        if self.decided > self.n:
            raise ValueError(f"decided ({self.decided}) is more than n ({self.n})")
        if self.errors > self.decided:
            raise ValueError(f"errors ({self.errors}) is more than decided ({self.decided})")
        return self


class Band(BaseModel):
    """Which answers a rule decides and which it leaves ``unsure`` (module doc)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    min_agreement: float = Field(ge=MIN_AGREEMENT_RANGE[0], le=MIN_AGREEMENT_RANGE[1])
    """The target: decided answers agree with the humans at least this often (0.5-0.99)."""
    delta: float = Field(ge=DELTA_RANGE[0], le=DELTA_RANGE[1])
    """The guarantee holds with probability at least ``1 - delta`` (delta 0.01-0.5)."""
    groups: dict[str, GroupBand]
    """Group (the rule's part that decides an answer, e.g. ``cites``, ``veto/not cites``)
    -> its band. An answer of a group not listed is ``unsure``. A pooled band (``scales``
    given) has one entry, ``pooled``: the one cut-off of the record."""
    scales: dict[str, float] = Field(default_factory=dict)
    """A pooled band: group -> the unit its margins are divided by (the group's median
    absolute margin on the calibration answers, labels unseen), so one cut-off applies to
    every group; empty: a cut-off per group (records written before pooled bands)."""

    def decided(self, rule: AnyRule, table: Table) -> np.ndarray:
        """True where ``rule`` decides the answer, False where it is ``unsure``."""
        return decided_mask(self, *margins(rule, table))

    @model_validator(mode="after")
    def _distances(self) -> Band:
        for name, scale in self.scales.items():
            if not (math.isfinite(scale) and scale > 0):
                raise ValueError(f"scales.{name} must be a positive number, not {scale}")
        veto_scaled = any(k.startswith(f"{VETO_GROUP}/") for k in self.scales)
        for name, group in self.groups.items():
            vetoed = name.startswith(f"{VETO_GROUP}/") or (name == POOLED and veto_scaled)
            if group.min_distance is not None and group.min_distance < 0 and not vetoed:
                raise ValueError(
                    f"groups.{name}.min_distance is negative ({group.min_distance}): a "
                    "distance from the cut-off is at least 0 (it would decide every answer)"
                )
        return self


def _signed(rule: AnyRule, table: Table) -> tuple[np.ndarray, np.ndarray]:
    """Per answer: its group within ``rule`` and its signed margin (positive: the rule's
    signal says faithful; a vetoed answer's is :data:`VETO_FIRST`), NaN where the rule has
    no decision."""
    n = len(next(iter(table.values()))) if table else 0
    if isinstance(rule, ThresholdRule):
        x = np.asarray(table[rule.feature], dtype=float)
        return np.full(n, rule.feature, dtype=object), rule.direction * (x - rule.threshold)
    if isinstance(rule, LogisticRule):
        p = np.clip(rule.probability(table), 1e-12, 1 - 1e-12)
        cut = min(max(rule.threshold, 1e-12), 1 - 1e-12)
        logit = np.log(p / (1 - p)) - math.log(cut / (1 - cut))
        return np.full(n, "logistic", dtype=object), logit
    if isinstance(rule, TreeRule):  # a leaf is one group: all its answers decided or none
        leaves = rule.leaves(table)
        sign = np.where(rule.predict(table) >= 0.5, 0.0, -0.0)
        return np.array([f"leaf {i}" for i in leaves], dtype=object), sign
    if isinstance(rule, ConstantRule):
        return np.full(n, "constant", dtype=object), np.zeros(n)
    if isinstance(rule, ShapeRule):
        x = column(table, rule.split)
        yes_g, yes_m = _signed(rule.when, table)
        no_g, no_m = _signed(rule.otherwise, table)
        take = x >= rule.at
        groups = np.where(
            take,
            np.array([f"{rule.split}/{g}" for g in yes_g], dtype=object),
            np.array([f"not {rule.split}/{g}" for g in no_g], dtype=object),
        )
        signed = np.where(take, yes_m, no_m)
        signed[~np.isfinite(x)] = np.nan
        return groups, signed
    assert isinstance(rule, VetoRule), rule
    groups, signed = _signed(rule.rule, table)
    if rule.veto not in table:
        return groups, signed
    flag = (np.asarray(table[rule.veto], dtype=float) > 0) & np.isfinite(signed)
    vetoed = np.array([f"{VETO_GROUP}/{g}" for g in groups], dtype=object)
    return np.where(flag, vetoed, groups), np.where(flag, VETO_FIRST, signed)


def margins(rule: AnyRule, table: Table) -> tuple[np.ndarray, np.ndarray]:
    """Per answer: its group and its distance from the cut-off in the group's units; a
    vetoed answer's is :data:`VETO_FIRST`. NaN: no decision."""
    groups, signed = _signed(rule, table)
    vetoed = np.array([str(g).startswith(f"{VETO_GROUP}/") for g in groups], dtype=bool)
    distance = np.where(vetoed, signed, np.abs(signed))
    return groups, distance


def oof_margins(
    fit: Fit,
    table: Table,
    y: np.ndarray,
    folds: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Out-of-fold groups, margins and decisions: each answer's from the rule fitted
    without its fold, as an audited answer sees the rule fitted on the grades."""
    return fold_decisions(cross_fit(fit, table, y, folds)[1], table, folds)


def fold_decisions(
    rules: list[AnyRule], table: Table, folds: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each answer's group, margin and decision under the rule of its fold (``rules`` in
    the order of the fold numbers, as :func:`~ragtriage.calibration.threshold.cross_fit`
    returns them)."""
    groups, distance = np.full(len(folds), "", dtype=object), np.full(len(folds), np.nan)
    decision = np.full(len(folds), np.nan)
    for f, rule in zip(np.unique(folds), rules, strict=True):
        part = subset(table, folds == f)
        groups[folds == f], distance[folds == f] = margins(rule, part)
        decision[folds == f] = rule.predict(part)
    return groups, distance, decision


def clopper_pearson_upper(errors: int, n: int, delta: float) -> float:
    """The exact binomial upper confidence bound (level ``1 - delta``) on an error rate of
    which ``errors`` of ``n`` were seen: 1 when ``n`` is 0 or every one was an error."""
    if n <= 0 or errors >= n:
        return 1.0
    from scipy.stats import beta

    return float(beta.ppf(1.0 - delta, errors + 1, n - errors))


def _fewest(alpha: float, delta: float) -> int:
    """The fewest decided answers with which the test can pass at all (none wrong)."""
    if alpha <= 0:
        return 10**12
    if alpha >= 1:
        return 1
    return math.ceil(math.log(delta) / math.log(1.0 - alpha))


def _fit_group(
    distance: np.ndarray, correct: np.ndarray, alpha: float, delta: float, first: int = 0
) -> GroupBand:
    """Fixed-sequence testing over one group's margins (module doc), the sequence starting
    at the first cut-off that decides at least ``first`` answers (a count, fixed before
    any label is read, so the guarantee is untouched)."""
    n = len(distance)
    order = np.argsort(-distance, kind="stable")
    d, wrong = distance[order], ~correct[order]
    errors = np.cumsum(wrong)
    best: tuple[float, int, int, float] | None = None
    fewest = max(_fewest(alpha, delta), first)
    # the last position of each distinct margin: deciding at that value decides all before
    ends = [i for i in range(n) if i == n - 1 or d[i + 1] < d[i]]
    for end in ends:
        decided = end + 1
        if decided < fewest:
            continue  # no test here could reject: not part of the sequence
        k = int(errors[end])
        upper = clopper_pearson_upper(k, decided, delta)
        if upper > alpha:
            break
        best = (float(d[end]), decided, k, upper)
    if best is None:
        return GroupBand(min_distance=None, n=n, decided=0, errors=0, upper=None)
    value, decided, k, upper = best
    return GroupBand(min_distance=value, n=n, decided=decided, errors=k, upper=round(upper, 6))


POOLED = "pooled"


def group_scales(groups: np.ndarray, distance: np.ndarray) -> dict[str, float]:
    """Each group's unit: the median absolute margin of its answers (1 when all are 0).
    Margins only, never labels: the order of the fixed sequence is set before any label
    is looked at, which the guarantee needs."""
    out = {}
    for name in sorted({str(g) for g in groups}):
        if name.startswith(f"{VETO_GROUP}/"):
            out[name] = 1.0  # its margins are VETO_FIRST, in no signal's units
            continue
        d = np.abs(np.asarray(distance, float)[np.asarray(groups, dtype=object) == name])
        d = d[np.isfinite(d)]
        scale = float(np.median(d)) if len(d) else 1.0
        out[name] = scale if scale > 0 else 1.0
    return out


def pooled_margins(
    scales: dict[str, float], groups: np.ndarray, distance: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every answer in the one pooled group, its margin in its group's unit (NaN for a
    group the calibration answers did not hold: unsure)."""
    unit = np.array([scales.get(str(g), np.nan) for g in groups], dtype=float)
    return np.full(len(unit), POOLED, dtype=object), np.asarray(distance, float) / unit


def fit_band(
    groups: np.ndarray,
    distance: np.ndarray,
    correct: np.ndarray,
    min_agreement: float = DEFAULT_MIN_AGREEMENT,
    delta: float = DEFAULT_DELTA,
    pooled: bool = False,
) -> Band:
    """The band (module doc) from calibration answers' groups, margins and whether the
    rule's decision matched the human grade; answers without a margin are left out. With
    ``pooled``, one cut-off for all groups on margins in each group's unit
    (:func:`group_scales`), tested once at ``1 - delta``: the confidence is not split."""
    ok = np.isfinite(np.asarray(distance, dtype=float))
    groups, distance = np.asarray(groups, dtype=object)[ok], np.asarray(distance, float)[ok]
    correct = np.asarray(correct, dtype=bool)[ok]
    if pooled:
        scales = group_scales(groups, distance)
        one, scaled = pooled_margins(scales, groups, distance)
        # the sequence starts where the band would no longer be inert: testing smaller
        # cut-offs first only lets two early errors among the surest few stop it; vetoed
        # answers are left out of the test (at its head they cost
        # coverage: docs/calibration.md, 'Vetoed answers')
        tested = np.isfinite(scaled) & ~np.char.startswith(groups.astype(str), f"{VETO_GROUP}/")
        first = math.ceil(MIN_BAND_SHARE * int(tested.sum()))
        alpha = 1.0 - min_agreement
        group = _fit_group(scaled[tested], correct[tested], alpha, delta, first)
        return Band(min_agreement=min_agreement, delta=delta, groups={POOLED: group},
                    scales=scales)  # fmt: skip
    names = sorted({str(g) for g in groups})
    alpha, per_group = 1.0 - min_agreement, delta / max(1, len(names))
    out = {}
    for name in names:
        mask = groups == name
        out[name] = _fit_group(distance[mask], correct[mask], alpha, per_group)
    return Band(min_agreement=min_agreement, delta=delta, groups=out)


def decided_mask(band: Band, groups: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """True where the answer's margin is in its group's decided part (a pooled band: its
    margin in its group's unit at least the one cut-off)."""
    if band.scales:
        groups, distance = pooled_margins(band.scales, groups, distance)
    out = np.zeros(len(distance), dtype=bool)
    for k, (g, d) in enumerate(zip(groups, distance, strict=True)):
        entry = band.groups.get(str(g))
        if entry is not None and entry.min_distance is not None and np.isfinite(d):
            out[k] = d >= entry.min_distance - 1e-12
    return out


def grades_to_decide(
    distance: np.ndarray,
    correct: np.ndarray,
    min_agreement: float,
    delta: float,
    share: float,
) -> int | None:
    """About how many grades like these a band needs to decide ``share`` of the answers:
    the observed error rate of the rule on the ``share`` of answers with the largest
    margins, and the fewest decided answers at that rate whose Clopper-Pearson bound (at
    ``1 - delta``) meets ``min_agreement``, over ``share``. None when that error rate is
    already above ``1 - min_agreement`` (no number of grades will do: a better rule will)."""
    d = np.asarray(distance, float)
    ok = np.isfinite(d)
    if ok.sum() == 0 or not 0 < share <= 1:
        return None
    order = np.argsort(-d[ok], kind="stable")
    top = max(1, int(round(share * ok.sum())))
    rate = float(1.0 - np.asarray(correct, bool)[ok][order][:top].mean())
    alpha = 1.0 - min_agreement
    if rate >= alpha:
        return None
    decided = _fewest(alpha, delta)
    while clopper_pearson_upper(math.ceil(rate * decided), decided, delta) > alpha:
        decided += max(1, decided // 20)  # 5 % steps: an estimate, not a bound
        if decided > 10**6:
            return None
    return math.ceil(decided / share)
