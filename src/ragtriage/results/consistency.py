"""A results file's summary checked against its own rows, and every figure against its range.

``gate`` and ``compare`` read the summary fields of a file, which a hand or a tool may
have edited (``counts.unsure`` 0 beside 16 unsure cases, a faithful rate of 1.5, a case
id twice). Whatever can be recomputed from the rows is recomputed here and compared; a
disagreement or a value out of range is one :class:`InputError` naming the file and the
field. Called by ``results.load.load_result``, so every reader of a result benefits.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

from ragtriage.calibration.record import fingerprint_diff
from ragtriage.errors import InputError
from ragtriage.results.run import ConversationsResult, RunHeader
from ragtriage.retrieval.models import RetrievalReport
from ragtriage.stats import Estimate
from ragtriage.triage.calibrated import naive_rate

__all__ = ["check_result"]

# trec_eval sums in its own order; the mean of the same values in another order differs
# only in the last bits
MEAN_TOLERANCE = 1e-6


def check_result(result: object, path: str | Path) -> None:
    """Refuse ``result`` if its summary disagrees with its rows or a figure is out of range."""
    if isinstance(result, RunHeader):
        _audit(result, path)
    elif isinstance(result, RetrievalReport):
        _retrieval(result, path, "")


def _refuse(path: str | Path, field: str, message: str) -> InputError:
    return InputError(message, path=path, field=field)


def _audit(result: RunHeader, path: str | Path) -> None:
    _unique_cases(result, path)
    _counts(result, path)
    _outcomes(result, path)
    _rates(result, path)
    _stale(result, path)
    _escalations(result, path)
    _retrieval(result.retrieval, path, "retrieval.")


def _unique_cases(result: RunHeader, path: str | Path) -> None:
    twice = [cid for cid, n in Counter(c.case_id for c in result.rows).items() if n > 1]
    if twice:
        raise _refuse(path, "cases", f"case id {twice[0]!r} appears more than once")


def _same_counts(given: dict[str, int], actual: Counter[str], path: str | Path, field: str):
    """``given`` (a summary) equal to ``actual`` (counted from the cases), key by key."""
    for key, value in given.items():
        if value < 0:
            raise _refuse(path, f"{field}.{key}", f"a count cannot be negative, got {value}")
    for key in sorted(set(given) | set(actual)):
        if given.get(key, 0) != actual.get(key, 0):
            raise _refuse(
                path,
                f"{field}.{key}",
                f"says {given.get(key, 0)} but the cases give {actual.get(key, 0)}",
            )


def _counts(result: RunHeader, path: str | Path) -> None:
    if result.counts:  # an empty summary is read from the cases by the gate itself
        # a conversations result counts its turns by turn label (rewrite too)
        rows = result.turns if isinstance(result, ConversationsResult) else result.rows
        _same_counts(result.counts, Counter(row.label.value for row in rows), path, "counts")


def _outcomes(result: RunHeader, path: str | Path) -> None:
    gen = result.generation
    judged = [case.judge for case in result.rows if case.judge is not None]
    if gen.n_judged != len(judged):
        raise _refuse(
            path, "generation.n_judged", f"says {gen.n_judged} but {len(judged)} cases were judged"
        )
    outcomes = Counter(j.outcome.value for j in judged)
    _same_counts(gen.outcomes, outcomes, path, "generation.outcomes")


def _rates(result: RunHeader, path: str | Path) -> None:
    """The naive faithful rate recomputed from the cases' decisions; the corrected one
    (from the calibration's graded items, not in the file) held to its range."""
    gen = result.generation
    decisions = [case.faithful for case in result.rows if case.faithful is not None]
    _estimate(gen.corrected_faithful_rate, path, "generation.corrected_faithful_rate")
    _estimate(gen.naive_faithful_rate, path, "generation.naive_faithful_rate")
    expected, given = naive_rate(decisions), gen.naive_faithful_rate
    if given is None or expected is None:
        agrees = given is expected
    else:
        agrees = math.isclose(given.estimate, expected.estimate, abs_tol=1e-9)
    if not agrees:
        shown = "null" if expected is None else f"{expected.estimate:.6g}"
        raise _refuse(
            path,
            "generation.naive_faithful_rate",
            f"disagrees with the cases' decisions ({len(decisions)} decided: {shown})",
        )


def _interval(
    mean: float | None, low: float | None, high: float | None, path: str | Path, field: str
) -> None:
    """A fraction 0-1 with its interval around it (ends may be null)."""
    for name, value in (("", mean), (".low", low), (".high", high)):
        if value is not None and not (math.isfinite(value) and 0.0 <= value <= 1.0):
            raise _refuse(path, f"{field}{name}", f"must be a fraction from 0 to 1, got {value}")
    if mean is not None and (
        (low is not None and low > mean + 1e-12) or (high is not None and high < mean - 1e-12)
    ):
        raise _refuse(path, field, f"the interval [{low}, {high}] does not hold {mean}")


def _estimate(estimate: Estimate | None, path: str | Path, field: str) -> None:
    if estimate is not None:
        _interval(estimate.estimate, estimate.low, estimate.high, path, f"{field}.estimate")


def _stale(result: RunHeader, path: str | Path) -> None:
    """``calibration.stale`` is what the judge's and the record's fingerprints differ in."""
    calibrated = result.calibration.fingerprint
    if calibrated is None:
        if result.calibration.stale:
            raise _refuse(path, "calibration.stale", "lists fields but names no calibration")
        return
    actual = fingerprint_diff(calibrated, result.judge_fingerprint)
    if not result.calibration.model_consulted:
        # The calibrated judge's model-free signals computed without its model
        # (triage.calibrated.model_free): the judge that ran fingerprints only those, so
        # only what it carries can make the record stale.
        carried = {f"params.{k}" for k in result.judge_fingerprint.params} | {"package_version"}
        actual = [field for field in actual if field in carried]
    if sorted(result.calibration.stale) != sorted(actual):
        raise _refuse(
            path,
            "calibration.stale",
            f"says {sorted(result.calibration.stale)} but the judge and its calibration "
            f"differ in {actual}",
        )


def _escalations(result: RunHeader, path: str | Path) -> None:
    """Each ``--escalate-to`` step: what it decided or left unscored is within what it got."""
    for i, step in enumerate(result.escalations):
        field = f"escalations[{i}]"
        if min(step.sent, step.decided, step.unscored) < 0:
            raise _refuse(path, field, "a count cannot be negative")
        if step.decided + step.unscored > step.sent:
            raise _refuse(
                path,
                field,
                f"decided {step.decided} and unscored {step.unscored} of {step.sent} sent",
            )


def _retrieval(report: RetrievalReport, path: str | Path, prefix: str) -> None:
    """Counts non-negative; per-query values and means in 0-1; each mean the mean of the
    per-query column it summarises, over as many queries."""
    for name in ("n_queries", "n_answerable", "n_unanswerable", "n_missed"):
        if getattr(report, name) < 0:
            raise _refuse(path, f"{prefix}{name}", "a count cannot be negative")
    frame = report.per_query
    for column in frame.columns:
        bad = frame.index[~frame[column].between(0.0, 1.0)]
        if len(bad):
            raise _refuse(
                path,
                f"{prefix}per_query.{bad[0]}.{column}",
                f"must be from 0 to 1, got {frame.at[bad[0], column]}",
            )
    for i, summary in enumerate(report.aggregates):
        field = f"{prefix}aggregates[{i}] ({summary.metric})"
        _interval(summary.mean, summary.low, summary.high, path, f"{field}.mean")
        if summary.metric not in frame.columns:
            continue
        column = frame[summary.metric]
        if summary.n != len(column):
            raise _refuse(path, f"{field}.n", f"says {summary.n} but per_query has {len(column)}")
        if len(column) and (
            summary.mean is None or abs(summary.mean - float(column.mean())) > MEAN_TOLERANCE
        ):
            raise _refuse(
                path,
                f"{field}.mean",
                f"says {summary.mean} but the per_query values average {float(column.mean()):.6g}",
            )
