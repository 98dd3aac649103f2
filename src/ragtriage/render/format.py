"""The one number formatter of every report: terminal, Markdown and HTML; a missing or
non-finite value is ``-`` everywhere."""

from __future__ import annotations

import math
from typing import Any

from ragtriage.stats import Estimate

__all__ = ["count", "describe_rule", "fmt", "fmt_estimate", "signed"]


def fmt(value: float | None, digits: int = 4) -> str:
    """``value`` to ``digits`` decimals; ``-`` when missing or not finite."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:.{digits}f}"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 forbidden chunk``, ``2 forbidden chunks``: a count with its noun agreeing
    (``plural`` for irregular ones: ``count(n, "query", "queries")``)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def fmt_estimate(estimate: Estimate | None, digits: int = 4) -> str:
    """``0.8120 [0.7500, 0.8700]``, or ``-`` when there is no estimate."""
    if estimate is None:
        return "-"
    low, high = fmt(estimate.low, digits), fmt(estimate.high, digits)
    return f"{fmt(estimate.estimate, digits)} [{low}, {high}]"


def signed(value: float | None, digits: int = 4) -> str:
    """``+0.0123`` / ``-0.0123``: a difference, its sign always shown; ``-`` when missing."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:+.{digits}f}"


def describe_rule(r: Any) -> str:
    """A calibration's decision rule in words (threshold, logistic, veto or constant)."""
    if r is None:
        return "-"
    if r.kind == "threshold":
        op = ">=" if r.direction == 1 else "<="
        return f"faithful if {r.feature} {op} {fmt(r.threshold)}"
    if r.kind == "logistic":
        terms = " ".join(f"{signed(w, 2)}*z({f})" for f, w in zip(r.features, r.coef, strict=True))
        return f"faithful if sigmoid({signed(r.intercept, 2)} {terms}) >= {fmt(r.threshold, 3)}"
    if r.kind == "veto":
        vetoed = f"no fact its evidence lacks or contradicts ({r.veto} = 0)"
        return f"{describe_rule(r.rule)}, and {vetoed}"
    if r.kind == "shape":
        when, otherwise = describe_rule(r.when), describe_rule(r.otherwise)
        return f"[{r.split} >= {fmt(r.at, 2)}: {when}; otherwise: {otherwise}]"
    if r.kind == "tree":
        return f"faithful by a depth-2 tree on {', '.join(sorted({f for f in r.features if f}))}"
    return f"always {'faithful' if r.value else 'unfaithful'}"
