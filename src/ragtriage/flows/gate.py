"""``ragtriage gate``: its config and :func:`run`; the bars, the policy and the
:class:`~ragtriage.results.gate.GateVerdict` live in ``results/gate.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from ragtriage.flows.config import Setting
from ragtriage.results.compare import provenance_warnings
from ragtriage.results.gate import BARS_HELP, GateVerdict, check_bars, parse_bars, policy
from ragtriage.results.load import load_result

__all__ = ["GateConfig", "run"]


@dataclass
class GateConfig:
    results: Annotated[
        Path,
        Setting("results.json (audit or conversations) or a retrieval report.", argument=True),
    ]
    baseline: Annotated[Path | None, Setting("Baseline result for --max-drop.")] = None
    # METRIC=NUMBER specs, as --min takes them
    min: Annotated[
        list[str], Setting("Lowest allowed value. " + BARS_HELP, metavar="METRIC=NUMBER")
    ] = field(default_factory=list)
    max: Annotated[list[str], Setting("Highest allowed value.", metavar="METRIC=NUMBER")] = field(
        default_factory=list
    )
    max_drop: Annotated[
        list[str],
        Setting("Most a metric may worsen against --baseline.", metavar="METRIC=NUMBER"),
    ] = field(default_factory=list)
    allow_stale: Annotated[bool, Setting("Gate an audit whose judge calibration is stale.")] = False
    strict: Annotated[
        bool,
        Setting(
            "Hold rate bars to the point value even when the audit has --samples (default: "
            "a bar fails only when the rate's judge-noise interval misses it)."
        ),
    ] = False


def run(config: GateConfig) -> GateVerdict:
    """Check ``config.results`` against its bars (malformed bars are refused first)."""
    bars = [
        *parse_bars(config.min, "min"),
        *parse_bars(config.max, "max"),
        *parse_bars(config.max_drop, "max-drop"),
    ]
    result = load_result(config.results)
    base = load_result(config.baseline) if config.baseline else None
    checks = check_bars(
        result,
        bars,
        base,
        source=str(config.results),
        baseline_source=str(config.baseline),
        strict=config.strict,
    )
    return GateVerdict(
        **vars(policy(result)),
        checks=checks,
        provenance=provenance_warnings(base, result) if base is not None else [],
        allow_stale=config.allow_stale,
    )
