"""``ragtriage golden add``: grow a golden set from an audit's cases (records:
:mod:`ragtriage.results.golden`; plan: :mod:`ragtriage.data.grow`, which refuses a case
already in the target set, so the set never weighs one question twice)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from ragtriage.data.formats.columns import ColumnMap
from ragtriage.data.grow import GrowPlan, apply, expected_ids, open_target, plan
from ragtriage.flows.config import COLUMNS, Setting
from ragtriage.results.golden import candidates
from ragtriage.results.load import load_audit

__all__ = ["AddConfig", "run"]


@dataclass
class AddConfig:
    results: Annotated[Path, Setting("An audit's results.json.", names=("--from",))]
    to: Annotated[Path, Setting("Golden set file or directory to extend.")]
    case: Annotated[
        list[str], Setting("Case id (repeatable, or comma-separated).", metavar="ID[,ID...]")
    ] = field(default_factory=list)
    failed: Annotated[bool, Setting("Every failing case (instead of --case).")] = False
    # "CASE=id1,id2" texts, as --expected takes them (parsed by expected_ids)
    expected: Annotated[
        list[str],
        Setting(
            "CASE=id1,id2 (repeatable): the ids you judge relevant (default: the ones the "
            "audit used); with one --case, id1,id2 alone.",
            metavar="[CASE=]ID[,ID...]",
        ),
    ] = field(default_factory=list)
    tag: Annotated[
        list[str],
        Setting(
            "Extra tags for the new cases (repeatable, or comma-separated).", metavar="TAG[,TAG...]"
        ),
    ] = field(default_factory=list)
    note: Annotated[str, Setting("Appended to each case's source note.")] = ""
    dry_run: Annotated[bool, Setting("Show what would be added; write nothing.")] = False
    columns: Annotated[ColumnMap | None, COLUMNS] = None


def run(config: AddConfig) -> GrowPlan:
    """Plan the new cases and, unless ``dry_run``, append them (when there is any to add)."""
    expected = expected_ids(config.expected, config.case)  # before any file is read
    audit_result = load_audit(config.results)
    target = open_target(config.to, config.columns)
    chosen = candidates(
        audit_result, config.results, config.case, config.failed, expected, config.tag,
        config.note,
    )  # fmt: skip
    planned = plan(target, chosen)
    if planned.records and not config.dry_run:
        apply(planned)
    return planned
