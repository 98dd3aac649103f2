"""Bars a result must clear in CI: ``--min``, ``--max`` and ``--max-drop`` against a baseline.

The metric names, what each counts, the judge-noise interval a ``--samples`` audit is held
to, and when a leak or mismatched files fail the gate whatever the bars are the user's
manual (docs/ci-gate.md, "``ragtriage gate``" and "A judge that does not give the same
answer twice"; conversations: docs/conversations.md).
``--max-drop m=d`` fails when ``m`` is worse than in the baseline by more than ``d``;
"worse" means lower, except for the metrics in :data:`LOWER_IS_BETTER` (counts and
``unsure_rate``), where it means higher.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ragtriage.errors import InputError
from ragtriage.judge.noise import noise_interval
from ragtriage.judge.samples import FAITHFUL, UNFAITHFUL
from ragtriage.notices import Notice
from ragtriage.results.load import Result, retrieval_of
from ragtriage.results.run import ConversationsResult, RunHeader
from ragtriage.retrieval.models import Leak
from ragtriage.triage.conversations import TURN_FAILURES, TurnLabel
from ragtriage.triage.models import FAILURES, Label

__all__ = [
    "AUDIT_METRICS",
    "BARS_HELP",
    "Bar",
    "BarCheck",
    "COUNTS",
    "GateVerdict",
    "Kind",
    "LOWER_IS_BETTER",
    "Policy",
    "TOLERANCE",
    "check_bars",
    "metric_value",
    "parse_bars",
    "policy",
]

Kind = Literal["min", "max", "max-drop"]
TOLERANCE = 1e-9  # 0.80 - 0.78 must not miss a 0.02 bar by a rounding error
COUNTS: dict[str, tuple[Label, ...]] = {f"failures.{label.value}": (label,) for label in FAILURES}
COUNTS |= {"failures": FAILURES, "unscored": (Label.UNSCORED,), "unsure": (Label.UNSURE,)}
COUNTS |= {"unstable": (Label.UNSTABLE,)}
# per turn and per conversation: a conversations result's own
CONVERSATION_METRICS = {"failures.rewrite", "conversation_pass_rate", "failures.conversations"}
AUDIT_METRICS = {
    *CONVERSATION_METRICS,
    "pass_rate",
    "unsure_rate",
    "faithful_rate",
    "faithful_rate.naive",
    "faithful_rate.corrected",
    *COUNTS,
}
LOWER_IS_BETTER = {*COUNTS, "failures.rewrite", "failures.conversations", "leaks", "unsure_rate"}


@dataclass(frozen=True)
class Bar:
    kind: Kind
    metric: str
    bound: float


@dataclass(frozen=True)
class BarCheck:
    """``low``/``high``: the interval judge noise leaves open on the value (an audit judged
    with ``--samples``; :func:`noise_bounds`), which a ``min``/``max`` bar is held to
    unless ``strict``; ``flaky``: the cases whose samples disagreed."""

    bar: Bar
    value: float
    baseline: float | None = None
    low: float | None = None
    high: float | None = None
    flaky: int = 0
    strict: bool = False

    @property
    def noisy(self) -> bool:
        return self.low is not None and self.high is not None and not self.strict

    @property
    def worsening(self) -> float | None:
        if self.baseline is None:
            return None
        sign = -1.0 if self.bar.metric in LOWER_IS_BETTER else 1.0
        return sign * (self.baseline - self.value)

    @property
    def ok(self) -> bool:
        """A ``min`` bar with samples fails only when even the interval's upper end misses
        it (a ``max`` bar: its lower end): failed with 97.5 % confidence."""
        if self.bar.kind == "min":
            reach = self.high if self.noisy and self.high is not None else self.value
            return reach >= self.bar.bound - TOLERANCE
        if self.bar.kind == "max":
            reach = self.low if self.noisy and self.low is not None else self.value
            return reach <= self.bar.bound + TOLERANCE
        worsening = self.worsening
        assert worsening is not None  # a max-drop check is built with its baseline
        return worsening <= self.bar.bound + TOLERANCE

    def describe(self) -> str:
        """One line: metric, value, the bar, and whether it held."""
        verdict = "ok" if self.ok else "MISSED"
        num = "{:g}".format if self.bar.metric in LOWER_IS_BETTER else "{:.4f}".format
        if self.bar.kind == "max-drop":
            change = self.worsening or 0.0
            moved = f"worse by {num(change)}" if change > 0 else f"better by {num(-change)}"
            moved = moved if change else "unchanged"  # not "worse by -0"
            return (
                f"{verdict}: {self.bar.metric} = {num(self.value)} vs baseline "
                f"{num(self.baseline)}: {moved}, max drop {num(self.bar.bound)}"
            )
        bar = f"{self.bar.kind} {num(self.bar.bound)}"
        noise = ""
        if self.low is not None and self.high is not None:
            held = "point value held to the bar (--strict)" if self.strict else "the bar holds it"
            noise = (
                f" (judge noise: [{self.low:.4f}, {self.high:.4f}], {held}; "
                f"{self.flaky} flaky cases, whose samples disagreed)"
            )
        return f"{verdict}: {self.bar.metric} = {num(self.value)}, {bar}{noise}"


def parse_bars(specs: Iterable[str], kind: Kind) -> list[Bar]:
    """``["recall@5=0.75", "mrr=0.5,pass_rate=0.8"]`` -> bars (exit 2 when malformed)."""
    option = f"--{kind}"
    bars = []
    for spec in (p.strip() for s in specs for p in s.split(",") if p.strip()):
        name, sep, number = spec.partition("=")
        try:
            bound = float(number)
        except ValueError:
            bound = math.nan
        if not sep or not name.strip() or not math.isfinite(bound):
            raise InputError(f"{spec!r} is not METRIC=NUMBER", field=option)
        if kind == "max-drop" and bound < 0:
            raise InputError(f"{spec!r}: a drop must be >= 0", field=option)
        bars.append(Bar(kind, name.strip(), bound))
    return bars


def _conversation_value(result: ConversationsResult, name: str) -> float | None:
    """A metric over a conversations result's turns or conversations."""
    if name == "failures":  # a rewrite that lost the chunk is a failing turn too
        return float(sum(result.counts.get(label.value, 0) for label in TURN_FAILURES))
    if name == "failures.rewrite":
        return float(result.counts.get(TurnLabel.REWRITE.value, 0))
    failing = sum(c.first_failing_turn is not None for c in result.conversations)
    if name == "failures.conversations":
        return float(failing)
    total = len(result.conversations)
    return (total - failing) / total if total else None


def _run_value(result: RunHeader, name: str) -> float | None:
    """A metric of a run's header and rows (an audit's cases, a conversation's turns; a
    conversations metric is asked only of a conversations result: :func:`metric_value`)."""
    if isinstance(result, ConversationsResult) and (
        name in CONVERSATION_METRICS or name == "failures"
    ):
        return _conversation_value(result, name)
    if name in COUNTS:
        labels = COUNTS[name]
        if result.counts:
            return float(sum(result.counts.get(label.value, 0) for label in labels))
        return float(sum(case.label in labels for case in result.rows))
    if name in ("pass_rate", "unsure_rate"):
        scored = [c for c in result.rows if c.label not in (Label.UNSCORED, Label.UNSTABLE)]
        wanted = Label.PASS if name == "pass_rate" else Label.UNSURE
        return sum(c.label == wanted for c in scored) / len(scored) if scored else None
    if not any(case.faithful is not None for case in result.rows):
        return None  # no decided answer: a faithful rate bar cannot be held (_why_none)
    gen = result.generation
    estimate = {
        "faithful_rate": gen.corrected_faithful_rate or gen.naive_faithful_rate,
        "faithful_rate.naive": gen.naive_faithful_rate,
        "faithful_rate.corrected": gen.corrected_faithful_rate,
    }[name]
    return estimate.estimate if estimate is not None else None


NOISY_RATES = ("pass_rate", "faithful_rate.naive")


def noise_bounds(result: Result, name: str) -> tuple[float, float, int] | None:
    """``(low, high, flaky)`` of a rate of an audit judged with ``--samples``: the interval
    judge noise leaves open on it (``judge.noise.noise_interval``) and the cases whose
    samples disagreed; ``None`` for other metrics, other results, or an audit without
    samples. ``faithful_rate`` is the naive rate's when the audit has no corrected rate."""
    if not isinstance(result, RunHeader):
        return None
    if name == "faithful_rate" and result.generation.corrected_faithful_rate is None:
        name = "faithful_rate.naive"
    if name not in NOISY_RATES:
        return None
    fixed = total = flaky = 0
    votes: list[tuple[int, int]] = []
    sampled = False
    for case in result.rows:
        if case.label in (Label.UNSCORED, Label.UNSTABLE):
            continue
        if name == "faithful_rate.naive" and case.faithful is None:
            continue
        total += 1
        stability = case.judge.stability if case.judge is not None else None
        sampled = sampled or stability is not None
        # the judge's samples decide the rate's count only for a case decided by its
        # faithful verdict: a retrieval or ranking failure fails whatever they say
        judged = case.faithful is not None and case.label in (Label.PASS, Label.GENERATION)
        if stability is None or not judged:
            fixed += case.label == Label.PASS if name == "pass_rate" else bool(case.faithful)
            continue
        agree = stability.votes.get(FAITHFUL, 0)
        voted = agree + stability.votes.get(UNFAITHFUL, 0)
        flaky += stability.flaky
        votes.append((agree, voted))
    if not sampled or not total:
        return None
    low, high = noise_interval(fixed, total, votes)
    return low, high, flaky


def metric_value(result: Result, name: str, source: str = "result") -> float:
    """The value ``name`` has in ``result``; exit 2 when it has none."""
    if name == "leaks":
        leaks = retrieval_of(result).leaks
        if leaks is None:
            raise InputError(
                "'leaks' needs a golden set with access-control fields "
                "(forbidden/tenant/acl); this result has no leak check",
                path=source,
            )
        return float(leaks.n_leaking)
    if name in AUDIT_METRICS:
        if not isinstance(result, RunHeader):
            raise InputError(
                f"'{name}' needs an audit or conversations result, this is a retrieval report",
                path=source,
            )
        if name in CONVERSATION_METRICS and not isinstance(result, ConversationsResult):
            raise InputError(f"'{name}' needs a conversations result", path=source)
        value = _run_value(result, name)
    else:
        report = retrieval_of(result)
        try:
            value = report.aggregate(name).mean
        except KeyError:
            known = [a.metric for a in report.aggregates] + (["leaks"] if report.leaks else [])
            if isinstance(result, RunHeader):
                known += sorted(AUDIT_METRICS)
            raise InputError(
                f"unknown metric '{name}'; known: {', '.join(known)}", path=source
            ) from None
    if value is None or not math.isfinite(value):
        why = _why_none(result, name)
        raise InputError(f"'{name}' has no value in this result{why}", path=source)
    return float(value)


def _why_none(result: Result, name: str) -> str:
    """Why a metric has no value, in words: a bare "no value" sent users hunting."""
    why = []
    if name not in AUDIT_METRICS and retrieval_of(result).aggregate(name).n == 0:
        why.append("no answerable query was scored (no case has a relevant chunk)")
    if isinstance(result, RunHeader):
        rows = result.rows
        unscored = sum(c.label == Label.UNSCORED for c in rows)
        if name == "pass_rate" and rows and unscored == len(rows):
            why.append(f"all {len(rows)} cases are unscored")
        elif name.startswith("faithful_rate"):
            why.append(_undecided(result) or result.generation.corrected_note)
        why += result.meaningless.values()
    return ": " + "; ".join(why) if why else ""


def _undecided(result: RunHeader) -> str:
    """Why a faithful rate cannot be held when no answer was decided: a corrected rate
    from the scores alone let a bar pass on 16 answers that were all ``unsure``."""
    if any(case.faithful is not None for case in result.rows):
        return ""
    unsure = sum(case.label == Label.UNSURE for case in result.rows)
    return f"no answer was decided ({unsure} unsure): a bar on it cannot be held"


def check_bars(
    result: Result,
    bars: list[Bar],
    baseline: Result | None = None,
    *,
    source: str = "result",
    baseline_source: str = "baseline",
    strict: bool = False,
) -> list[BarCheck]:
    """Every bar checked; all values are resolved first, so bad input fails before any verdict
    (the gate's own :func:`policy` applies without bars). A ``--min``/``--max`` bar on a
    ``--samples`` audit's rate is held to its judge-noise interval (:func:`noise_bounds`)
    unless ``strict``."""
    checks = []
    for bar in bars:
        value = metric_value(result, bar.metric, source)
        if bar.kind != "max-drop" and bar.metric not in LOWER_IS_BETTER and bar.bound > 1:
            # rates and retrieval means run 0-1: --min recall@5=80 could never hold
            raise InputError(
                f"{bar.metric}={bar.bound:g}: {bar.metric} runs from 0 to 1 (a fraction, "
                f"not a percentage): did you mean {bar.metric}={bar.bound / 100:g}?",
                field=f"--{bar.kind}",
            )
        if bar.kind == "max-drop":
            if baseline is None:
                raise InputError(f"--max-drop {bar.metric} needs --baseline", field="--max-drop")
            checks.append(BarCheck(bar, value, metric_value(baseline, bar.metric, baseline_source)))
            continue
        low, high, flaky = noise_bounds(result, bar.metric) or (None, None, 0)
        checks.append(BarCheck(bar, value, None, low, high, flaky, strict))
    return checks


BARS_HELP = (
    "METRIC=NUMBER, repeatable or comma-separated. METRIC: a retrieval aggregate "
    "(recall@5, mrr, ndcg@10...) or pass_rate, unsure_rate, faithful_rate, "
    "faithful_rate.naive, faithful_rate.corrected, failures, failures.retrieval, "
    "failures.ranking, failures.generation, unscored, unsure, unstable, leaks; on a "
    "conversations result also conversation_pass_rate, failures.conversations, "
    "failures.rewrite."
)


@dataclass(frozen=True)
class Policy:
    """What the gate decides with no bar at all (docs/ci-gate.md); the reports lead with
    it, so "no failures" can never sit beside a failing gate."""

    leaks: tuple[Leak, ...]
    leaking_cases: tuple[str, ...]  # case ids, in the order of the leaks
    leaks_checked: bool  # the golden set carries access-control fields
    stale: tuple[str, ...]  # fingerprint fields where the judge differs from its calibration
    uncalibrated: bool  # decisions from no calibration record (a default threshold)
    meaningless: tuple[str, ...] = ()  # why the figures mean little (file mismatches)
    mismatch_allowed: bool = False  # the audit ran with --on-mismatch warn

    @property
    def mismatch_fails(self) -> bool:
        return bool(self.meaningless) and not self.mismatch_allowed

    def fails(self, allow_stale: bool = False) -> bool:
        return bool(self.leaks) or (bool(self.stale) and not allow_stale) or self.mismatch_fails


@dataclass(frozen=True, kw_only=True)
class GateVerdict(Policy):
    """What the gate found: the policy's checks and the bars'; ``failed``: a bar missed, a
    leak, a stale calibration not allowed, or mismatched files that leave the result
    meaningless (not allowed)."""

    checks: list[BarCheck]
    provenance: list[Notice]  # how the baseline differs from the result (corpus, slice...)
    allow_stale: bool = False

    @property
    def missed(self) -> int:
        return sum(not c.ok for c in self.checks)

    @property
    def refused(self) -> bool:
        return bool(self.stale) and not self.allow_stale

    @property
    def failed(self) -> bool:
        return bool(self.missed) or self.fails(self.allow_stale)


def policy(result: Result) -> Policy:
    """The gate's policy checks on ``result`` (the same for ``gate`` and every report):
    forbidden chunks in a checked case's top k; of a run, its calibration and mismatches."""
    section = retrieval_of(result).leaks
    found = tuple(section.cases) if section is not None and section.n_leaking else ()
    run = result if isinstance(result, RunHeader) else None
    return Policy(
        leaks=found,
        leaking_cases=tuple(dict.fromkeys(leak.query_id for leak in found)),
        leaks_checked=section is not None,
        stale=tuple(run.calibration.stale) if run else (),
        uncalibrated=run is not None and run.calibration.source is None,
        meaningless=tuple(run.meaningless.values()) if run else (),
        mismatch_allowed=run is not None and run.mismatch_allowed,
    )
