"""Agreement that includes the judge's own noise (``calibrate --samples K``).

Every sample of each graded answer is decided again by the rule the calibration chose
(fitted on each answer's representative sample), giving self-agreement, agreement with
people over samples (in-sample, beside the record's nested-CV kappa) and each answer's
flip rate: docs/calibration.md, 'The judge against itself'. A judge that agrees with itself
less than with the graders gets a warning in the record: its verdicts are then as much the
dice as the answer.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ragtriage.calibration.agreement import cohen_kappa
from ragtriage.calibration.decision import AnyRule, decide_one
from ragtriage.judge.types import JudgeResult, Outcome
from ragtriage.stats import NanFloat

__all__ = ["ItemStability", "SelfAgreement", "sample_decisions", "self_agreement"]


class ItemStability(BaseModel):
    """One graded answer's samples as the chosen rule decides them."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    id: str
    """The item's id."""
    samples: int
    """Samples drawn."""
    faithful: int
    """Samples the rule decides faithful."""
    unfaithful: int
    """Samples the rule decides unfaithful."""
    flip_rate: float | None
    """Share of the decided samples that differ from their majority (0-0.5); null when
    none was decided."""


class SelfAgreement(BaseModel):
    """The judge against itself, beside the judge against people (module doc)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    samples: int
    """K: samples drawn per answer."""
    temperature: float | None
    """The samples' temperature; null: the judge's own."""
    items: int
    """Graded answers with at least two decided samples (the self-agreement's n)."""
    kappa: NanFloat
    """Cohen's kappa between two samples of the same answer (point: samples 0 and 1)."""
    kappa_low: NanFloat
    """Lower end of its 95 % bootstrap interval (items and sample pairs resampled)."""
    kappa_high: NanFloat
    """Upper end of that interval."""
    agreement: NanFloat
    """Share of answers whose samples 0 and 1 the rule decides alike."""
    human_kappa: NanFloat
    """The rule's in-sample kappa with the human grades over all samples (mean of the
    bootstrap over items and samples)."""
    human_kappa_low: NanFloat
    """Lower end of its 95 % bootstrap interval."""
    human_kappa_high: NanFloat
    """Upper end of that interval."""
    human_agreement: NanFloat
    """The rule's agreement with the human grades over all samples (bootstrap mean)."""
    flaky: int
    """Answers whose decided samples differ."""
    mean_flip_rate: NanFloat
    """Mean of the answers' flip rates."""
    items_detail: list[ItemStability] = Field(default_factory=list)
    """Every graded answer's samples, in the grades' order."""


def sample_decisions(rule: AnyRule, result: JudgeResult) -> list[bool | None]:
    """The rule's decision on each of the result's samples (one, without samples)."""
    if result.stability is None:
        return [decide_one(rule, result)]
    out: list[bool | None] = []
    for s in result.stability.samples:
        if s.outcome != Outcome.SCORED:
            out.append(None)
            continue
        one = result.model_copy(
            update={"outcome": s.outcome, "score": s.score, "signals": s.signals}
        )
        out.append(decide_one(rule, one))
    return out


def self_agreement(
    rule: AnyRule,
    results: dict[str, JudgeResult],
    human: dict[str, bool],
    *,
    seed: int,
    resamples: int,
) -> SelfAgreement | None:
    """``None`` when the results carry no repeated samples. ``human``: the graded label
    of each item used (ties left out)."""
    # Long on purpose (73 lines): the votes, the two bootstraps and the record they fill
    # share every per-item array; split, each part would take and return all of them.
    held = [r for r in results.values() if r.stability is not None]
    if not held:
        return None
    first = held[0].stability
    assert first is not None
    decided: dict[str, list[bool]] = {}
    detail = []
    for item_id, result in results.items():
        ds = [d for d in sample_decisions(rule, result) if d is not None]
        n_f = sum(ds)
        minority = min(n_f, len(ds) - n_f)
        detail.append(
            ItemStability(
                id=item_id,
                samples=len(result.stability.samples) if result.stability else 1,
                faithful=n_f,
                unfaithful=len(ds) - n_f,
                flip_rate=minority / len(ds) if ds else None,
            )
        )
        if item_id in human and ds:
            decided[item_id] = ds
    ids = [i for i in decided if len(decided[i]) >= 2]
    rng = np.random.default_rng(seed)
    pairs = np.array([[decided[i][0], decided[i][1]] for i in ids], dtype=float)
    kappa = cohen_kappa(pairs[:, 0], pairs[:, 1]) if ids else math.nan
    agree = float(np.mean(pairs[:, 0] == pairs[:, 1])) if ids else math.nan
    self_boot, human_boot, human_agree = [], [], []
    every = list(decided)
    for _ in range(resamples):
        if ids:
            pick = rng.integers(0, len(ids), len(ids))
            a, b = [], []
            for k in pick:
                ds = decided[ids[k]]
                i, j = rng.choice(len(ds), size=2, replace=False)
                a.append(ds[i])
                b.append(ds[j])
            self_boot.append(cohen_kappa(np.array(a, float), np.array(b, float)))
        pick = rng.integers(0, len(every), len(every))
        judge = np.array([rng.choice(decided[every[k]]) for k in pick], dtype=float)
        truth = np.array([human[every[k]] for k in pick], dtype=float)
        human_boot.append(cohen_kappa(truth, judge))
        human_agree.append(float(np.mean(truth == judge)))
    flips = [d.flip_rate for d in detail if d.flip_rate is not None]
    low, high = _percentiles(self_boot)
    h_low, h_high = _percentiles(human_boot)
    return SelfAgreement(
        samples=first.limit,
        temperature=first.temperature,
        items=len(ids),
        kappa=kappa,
        kappa_low=low,
        kappa_high=high,
        agreement=agree,
        human_kappa=float(np.nanmean(human_boot)) if human_boot else math.nan,
        human_kappa_low=h_low,
        human_kappa_high=h_high,
        human_agreement=float(np.mean(human_agree)) if human_agree else math.nan,
        flaky=sum(1 for d in detail if d.faithful and d.unfaithful),
        mean_flip_rate=float(np.mean(flips)) if flips else math.nan,
        items_detail=detail,
    )


def _percentiles(values: list[float]) -> tuple[float, float]:
    kept = np.array([v for v in values if not math.isnan(v)])
    if not len(kept):
        return math.nan, math.nan
    low, high = np.percentile(kept, [2.5, 97.5])
    return float(low), float(high)
