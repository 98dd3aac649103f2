"""Two results side by side: which differences are real, and which cases changed label.

Differences are paired over the queries both results scored: per-query metrics vary far
more between queries than between systems, so pairing shows a real improvement with a few
dozen queries. A difference is real (bold, coloured) only when its paired bootstrap 95%
interval excludes 0 (with few queries the interval alone is too narrow) and its paired
randomization-test p, Holm-adjusted within its table (with many metrics and tags, one raw
p in twenty falls below 0.05 by chance), is below 0.05.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from ragtriage.judge.diagnostics import DIAGNOSTICS
from ragtriage.notices import Notice, notice
from ragtriage.results.load import (
    Result,
    golden_field,
    golden_sha256,
    retrieval_of,
)
from ragtriage.results.run import ConversationsResult, RunHeader
from ragtriage.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    NORMAL_ABOVE,
    holm,
    paired_bootstrap_diff,
    randomization_test,
)
from ragtriage.system.generate import canonical_generator
from ragtriage.triage.cases import label_counts
from ragtriage.triage.models import CaseResult, Label

__all__ = [
    "Comparison",
    "Diff",
    "Flip",
    "QUIET_SETTINGS",
    "SCHEMA_VERSION",
    "compare",
    "flips",
    "label_changes",
    "paired",
    "provenance_warnings",
    "settings_diff",
    "split_noise",
]

SCHEMA_VERSION = "ragtriage.compare/1"


class Diff(BaseModel):
    """candidate - base for one metric (or rate), optionally within one tag."""

    name: str
    tag: str | None = None
    n: int  # paired queries; for a retrieval-only tag slice, the candidate's slice size
    base: float | None
    candidate: float | None
    diff: float | None
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    p_holm: float | None = None  # p_value adjusted over its table's differences (Holm)

    def real(self, alpha: float = 0.05) -> bool:
        """Interval excludes 0 and the family-adjusted p-value is below ``alpha``."""
        if self.low is None or self.high is None or not (self.low > 0 or self.high < 0):
            return False
        p = self.p_holm if self.p_holm is not None else self.p_value
        return p is not None and p < alpha


class Flip(BaseModel):
    case_id: str
    old: Label
    new: Label


class Comparison(BaseModel):
    schema_version: str = SCHEMA_VERSION
    kind: Literal["audit", "conversations", "retrieval"]
    golden: dict[str, str | None]  # base / candidate golden-set sha256
    n_common: int
    only_base: list[str] = Field(default_factory=list)
    only_candidate: list[str] = Field(default_factory=list)
    metrics: list[Diff]
    tags: list[Diff] = Field(default_factory=list)
    rates: list[Diff] = Field(default_factory=list)
    # audits: RAGChecker's diagnostics (triage/diagnostics.py), paired over the cases both
    # audits computed them for; noise sensitivity and hallucination are better when lower
    diagnostics: list[Diff] = Field(default_factory=list)
    flips: list[Flip] = Field(default_factory=list)
    # label changes set aside as judge noise (split_noise): same answer, samples disagreed
    noise_flips: list[Flip] = Field(default_factory=list)
    # audits: cases per label, [base, candidate], for the labels whose count changed: which
    # stage regressed, at a glance
    label_changes: dict[str, list[int]] = Field(default_factory=dict)
    warnings: list[Notice] = Field(default_factory=list)


def _num(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def paired(
    name: str,
    base: np.ndarray,
    candidate: np.ndarray,
    *,
    tag: str | None = None,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    permutations: int = 10000,
) -> Diff:
    """Mean difference with its paired bootstrap interval and randomization p-value;
    pairs where either side is missing (NaN) are dropped."""
    base, candidate = np.asarray(base, np.float64), np.asarray(candidate, np.float64)
    keep = np.isfinite(base) & np.isfinite(candidate)
    base, candidate = base[keep], candidate[keep]
    if not len(base):
        return Diff(name=name, tag=tag, n=0, base=None, candidate=None, diff=None)
    interval = paired_bootstrap_diff(base, candidate, resamples=resamples, seed=seed)
    return Diff(
        name=name,
        tag=tag,
        n=len(base),
        base=_num(base.mean()),
        candidate=_num(candidate.mean()),
        diff=_num(interval.estimate),
        low=_num(interval.low),
        high=_num(interval.high),
        p_value=_p_value(base, candidate, permutations, seed),
    )


def _p_value(base: np.ndarray, candidate: np.ndarray, permutations: int, seed: int) -> float:
    """The paired randomization test; above ``NORMAL_ABOVE`` pairs, its normal limit (the
    sign-flipped mean has variance sum(d^2)/n^2), as ``bootstrap_mean`` does for intervals."""
    if len(base) <= NORMAL_ABOVE:
        return randomization_test(base, candidate, permutations=permutations, seed=seed)
    from scipy.stats import norm

    diff = candidate - base
    scale = math.sqrt(float(np.sum(diff**2))) / len(diff)
    return 1.0 if scale == 0 else float(min(1.0, 2 * norm.sf(abs(diff.mean()) / scale)))


def compare(
    base: Result,
    candidate: Result,
    *,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    permutations: int = 10000,
) -> Comparison:
    """Compare two audits, two conversations results (per turn and per conversation), two
    retrieval reports, or (on retrieval only) any two of them."""
    options: dict[str, Any] = {"seed": seed, "resamples": resamples, "permutations": permutations}
    runs = isinstance(base, RunHeader) and type(base) is type(candidate)
    b_frame, c_frame = retrieval_of(base).per_query, retrieval_of(candidate).per_query
    common = [q for q in b_frame.index if q in c_frame.index]
    columns = [m for m in b_frame.columns if m in c_frame.columns]
    b_rows, c_rows = b_frame.loc[common, columns], c_frame.loc[common, columns]
    comparison = Comparison(
        kind=_kind(base) if runs and isinstance(base, RunHeader) else "retrieval",
        golden={"base": golden_sha256(base), "candidate": golden_sha256(candidate)},
        n_common=len(common),
        only_base=[str(q) for q in b_frame.index if q not in c_frame.index],
        only_candidate=[str(q) for q in c_frame.index if q not in b_frame.index],
        metrics=[paired(m, b_rows[m].to_numpy(), c_rows[m].to_numpy(), **options) for m in columns],
        warnings=_warnings(base, candidate, b_frame, c_frame, columns, runs),
    )
    if isinstance(base, RunHeader) and isinstance(candidate, RunHeader) and runs:
        tags = _case_tags(base, candidate)
        comparison.tags = _tag_diffs(b_rows, c_rows, tags, options)
        comparison.rates = _rates(base, candidate, options)
        comparison.diagnostics = _diagnostics(base, candidate, options)
        comparison.warnings += _entailment_warning(base, candidate)
        comparison.flips, comparison.noise_flips = split_noise(
            flips(base, candidate), base, candidate
        )
        comparison.label_changes = label_changes(base, candidate)
    else:
        comparison.tags = _slice_diffs(retrieval_of(base), retrieval_of(candidate))
    _adjust(comparison)
    return comparison


def _kind(result: RunHeader) -> Literal["audit", "conversations"]:
    return "conversations" if isinstance(result, ConversationsResult) else "audit"


def _adjust(comparison: Comparison) -> None:
    """Fill ``p_holm`` on every difference, one family per table: the metrics, the rates,
    the tag slices (each a question of its own; tiny tag slices would otherwise swamp the
    headline metrics' correction)."""
    families = (comparison.metrics, comparison.rates, comparison.tags, comparison.diagnostics)
    for family in families:
        tested = [(d, d.p_value) for d in family if d.p_value is not None]
        for (diff, _), adjusted in zip(tested, holm([p for _, p in tested]), strict=True):
            diff.p_holm = float(adjusted)


# settings that change no figure: where files go, how fast it ran
QUIET_SETTINGS = frozenset({"cache", "concurrency", "threads", "timeout", "out", "output"})


def settings_diff(base: Result, candidate: Result) -> list[str]:
    """``key base -> candidate`` for every recorded setting that differs: a comparison
    should change one thing, and the reader must see which things changed."""
    b, c = _settings(base), _settings(candidate)
    keys = [k for k in dict.fromkeys([*b, *c]) if k not in QUIET_SETTINGS and b.get(k) != c.get(k)]
    return [f"{k} {_setting(b.get(k))} -> {_setting(c.get(k))}" for k in keys]


def _setting(value: Any, limit: int = 60) -> str:
    """A setting's value whole, or its end after an ellipsis: the end of a path or a
    ``module:function`` names it (``!s:.40`` cut names mid-word, with no mark of the cut)."""
    text = str(value)
    return text if len(text) <= limit else "\u2026" + text[-(limit - 1) :]


def _settings(result: Result) -> dict[str, Any]:
    settings = result.config.model_dump()
    if isinstance(settings.get("generator"), str):  # 'local' was 'embedded''s name
        settings["generator"] = canonical_generator(settings["generator"])
    return settings


def provenance_warnings(base: Result, candidate: Result) -> list[Notice]:
    """What differs in what the two results were measured on: the golden set, its corpus,
    the slice scored (a comparison across them mixes system changes with data changes)."""
    out = []
    b_sha, c_sha = golden_sha256(base), golden_sha256(candidate)
    if b_sha is not None and c_sha is not None and b_sha != c_sha:
        out.append(
            f"the golden sets differ (sha256 {b_sha[:12]} vs {c_sha[:12]}): "
            "differences mix system changes with golden-set changes"
        )
    elif b_sha is None or c_sha is None:
        out.append("a golden-set hash is missing: cannot check both used the same golden set")
    b_corpus, c_corpus = (golden_field(r, "corpus_sha256") for r in (base, candidate))
    if b_corpus and c_corpus and b_corpus != c_corpus:
        out.append(
            f"the corpora differ (sha256 {b_corpus[:12]} vs {c_corpus[:12]}): chunks were "
            "added, removed or edited between the runs"
        )
    b_slice, c_slice = golden_field(base, "slice"), golden_field(candidate, "slice")
    if b_slice and c_slice and b_slice != c_slice:
        out.append(f"the runs scored different slices of the golden set ({b_slice} vs {c_slice})")
    return [notice("provenance", text) for text in out]


def _warnings(
    base: Result,
    candidate: Result,
    b_frame: pd.DataFrame,
    c_frame: pd.DataFrame,
    columns: list[str],
    runs: bool,
) -> list[Notice]:
    """The settings that differ, what the results were measured on, then what could not be
    compared (metrics or queries in one result only, a retrieval report or a run of the
    other kind beside a run)."""
    changed = settings_diff(base, candidate)
    first = []
    if changed:
        more = f"; and {len(changed) - 8} more" if len(changed) > 8 else ""
        text = f"the runs' settings differ: {'; '.join(changed[:8])}{more}"
        first.append(notice("settings_differ", text, settings=len(changed)))
    out = []
    dropped = sorted(set(b_frame.columns) ^ set(c_frame.columns))
    if dropped:
        out.append(f"metrics in only one result, not compared: {', '.join(dropped)}")
    if not columns or not len(b_frame.index.intersection(c_frame.index)):
        out.append("no metric or query in common: nothing to pair")
    if not runs and (isinstance(base, RunHeader) or isinstance(candidate, RunHeader)):
        out.append(
            "one input is a retrieval report: compared on retrieval only"
            if not (isinstance(base, RunHeader) and isinstance(candidate, RunHeader))
            else "an audit beside a conversations result: compared on retrieval only"
        )
    scope = [notice("compare_scope", text) for text in out]
    return first + provenance_warnings(base, candidate) + scope


def _case_tags(base: RunHeader, candidate: RunHeader) -> dict[str, list[str]]:
    tags = {c.case_id: c.tags for c in base.rows}
    tags.update({c.case_id: c.tags for c in candidate.rows if c.tags})
    return tags


def _tag_diffs(
    b_rows: pd.DataFrame, c_rows: pd.DataFrame, tags: dict[str, list[str]], options: dict
) -> list[Diff]:
    members: dict[str, list[str]] = {}
    for query_id in b_rows.index:
        for tag in tags.get(str(query_id), ()):
            members.setdefault(tag, []).append(query_id)
    return [
        paired(m, b_rows.loc[ids, m].to_numpy(), c_rows.loc[ids, m].to_numpy(), tag=tag, **options)
        for tag, ids in sorted(members.items())
        for m in b_rows.columns
    ]


def _slice_diffs(base, candidate) -> list[Diff]:
    """Retrieval reports keep per-tag means, not per-tag members: differences only, no
    interval (an unpaired figure; the golden hash check says whether the slices match)."""
    b_slices = {s.tag: s for s in base.slices}
    return [
        Diff(name=metric, tag=c_slice.tag, n=c_slice.n, base=_num(old), candidate=_num(value),
             diff=_num(value - old))
        for c_slice in candidate.slices
        if (b_slice := b_slices.get(c_slice.tag)) is not None
        for metric, value in c_slice.means.items()
        if (old := b_slice.means.get(metric)) is not None
    ]  # fmt: skip


def _indicator(cases: dict[str, CaseResult], ids: list[str], rate: str) -> np.ndarray:
    """1/0 per case, NaN where the rate does not apply (unscored; no faithful decision)."""

    def value(case: CaseResult) -> float:
        if rate == "pass_rate":
            undecided = case.label in (Label.UNSCORED, Label.UNSTABLE)
            return math.nan if undecided else float(case.label == Label.PASS)
        return math.nan if case.faithful is None else float(case.faithful)

    return np.array([value(cases[i]) for i in ids], np.float64)


def _rates(base: RunHeader, candidate: RunHeader, options: dict) -> list[Diff]:
    """The rates over the rows both runs hold (cases, or turns), and for conversations the
    share of conversations without a failing turn, paired by conversation."""
    b_cases = {c.case_id: c for c in base.rows}
    c_cases = {c.case_id: c for c in candidate.rows}
    ids = [i for i in b_cases if i in c_cases]
    rates = [
        paired(rate, _indicator(b_cases, ids, rate), _indicator(c_cases, ids, rate), **options)
        for rate in ("pass_rate", "faithful_rate")
    ]
    if isinstance(base, ConversationsResult) and isinstance(candidate, ConversationsResult):
        rates.append(_conversation_rate(base, candidate, options))
    return rates


def _conversation_rate(
    base: ConversationsResult, candidate: ConversationsResult, options: dict
) -> Diff:
    """``conversation_pass_rate``: 1 for a conversation without a failing turn, paired
    over the conversations both runs hold."""
    b = {c.conversation_id: c.first_failing_turn is None for c in base.conversations}
    c = {c.conversation_id: c.first_failing_turn is None for c in candidate.conversations}
    ids = [i for i in b if i in c]
    b_values = np.array([float(b[i]) for i in ids], np.float64)
    c_values = np.array([float(c[i]) for i in ids], np.float64)
    return paired("conversation_pass_rate", b_values, c_values, **options)


def _diagnostics(base: RunHeader, candidate: RunHeader, options: dict) -> list[Diff]:
    """Each diagnostic paired over the cases both audits have it for (NaN elsewhere, which
    :func:`paired` drops); empty when neither audit has any."""
    b_cases = {c.case_id: c.diagnostics for c in base.rows}
    c_cases = {c.case_id: c.diagnostics for c in candidate.rows}
    ids = [i for i in b_cases if i in c_cases and b_cases[i] and c_cases[i]]
    if not ids:
        return []

    def values(cases: dict, name: str) -> np.ndarray:
        return np.array([cases[i][name] for i in ids], np.float64)

    return [
        paired(name, values(b_cases, name), values(c_cases, name), **options)
        for name in DIAGNOSTICS
    ]


def _entailment_warning(base: RunHeader, candidate: RunHeader) -> list[Notice]:
    """The diagnostics are comparable only when their entailment came from the same place
    (a conversations result keeps no run-level diagnostics)."""
    b, c = getattr(base, "diagnostics", None), getattr(candidate, "diagnostics", None)
    if b is None or c is None or b.entailment == c.entailment:
        return []
    text = f"diagnostics' entailment differs: base {b.entailment}; candidate {c.entailment}"
    return [notice("entailment", text)]


def label_changes(base: RunHeader, candidate: RunHeader) -> dict[str, list[int]]:
    """``label -> [base count, candidate count]`` for each label whose count changed (a
    conversations result's turn labels, ``rewrite`` among them)."""
    b, c = _label_counts(base), _label_counts(candidate)
    return {label: [b[label], c[label]] for label in b if b[label] != c[label]}


def _label_counts(result: RunHeader) -> dict[str, int]:
    """A conversations result's counts by turn label; an audit's recounted from its rows
    (a file may leave a label it has none of out)."""
    if isinstance(result, ConversationsResult):
        return dict(result.counts)
    return label_counts(row.label for row in result.rows)


def flips(base: RunHeader, candidate: RunHeader) -> list[Flip]:
    """Rows in both whose label changed, in the candidate's order."""
    old = {c.case_id: c.label for c in base.rows}
    return [
        Flip(case_id=c.case_id, old=old[c.case_id], new=c.label)
        for c in candidate.rows
        if c.case_id in old and old[c.case_id] != c.label
    ]


def split_noise(
    found: list[Flip], base: RunHeader, candidate: RunHeader
) -> tuple[list[Flip], list[Flip]]:
    """``(flips, noise)``: a flip is judge noise when the case's answer and context are the
    same in both results and the judge's repeated samples (``--samples``) of it disagreed
    in either: the label moved only because the judge did. A changed answer, or a case
    judged once, stays a flip."""
    before = {c.case_id: c for c in base.rows}
    after = {c.case_id: c for c in candidate.rows}
    kept: list[Flip] = []
    noise: list[Flip] = []
    for flip in found:
        a, b = before[flip.case_id], after[flip.case_id]
        same = a.answer == b.answer and a.context_ids == b.context_ids
        (noise if same and (_flaky(a) or _flaky(b)) else kept).append(flip)
    return kept, noise


def _flaky(case: CaseResult) -> bool:
    stability = case.judge.stability if case.judge is not None else None
    return stability is not None and (stability.flaky or not stability.settled)
