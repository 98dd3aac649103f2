"""``ragtriage golden split``: hold back a seeded fraction of the cases (per
answerable/unanswerable stratum); of a conversational golden file, whole conversations."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from ragtriage.data.conversations import (
    assign_conversation_holdout,
    is_conversation_file,
    load_conversation_golden,
    write_conversation_split,
)
from ragtriage.data.formats.columns import ColumnMap
from ragtriage.data.golden import load_golden
from ragtriage.data.grow import golden_file
from ragtriage.data.holdout import assign_holdout, has_holdout, write_split
from ragtriage.errors import InputError
from ragtriage.flows.config import COLUMNS, Setting
from ragtriage.flows.golden import GOLDEN
from ragtriage.results.golden import Split

__all__ = ["SplitConfig", "run"]


@dataclass
class SplitConfig:
    golden: Annotated[Path, GOLDEN]
    fraction: Annotated[
        float,
        Setting(
            "Share of cases to hold back, strictly between 0 and 1 (per answerable/"
            "unanswerable stratum).",
            min=0,
            max=1,
            exclusive=True,
        ),
    ] = 0.2
    # any integer: the choice hashes "seed:id", so no range is needed
    seed: Annotated[int, Setting("Seed of the choice (recorded nowhere else).")] = 0
    out: Annotated[
        Path | None,
        Setting(
            "Write here (a folder gets the corpus too) instead of rewriting the golden file.",
            names=("--out", "-o"),
        ),
    ] = None
    force: Annotated[bool, Setting("Re-split a set that already has a holdout.")] = False
    columns: Annotated[ColumnMap | None, COLUMNS] = None


def run(config: SplitConfig) -> Split:
    """Hold back a seeded ``fraction`` of the cases (per stratum) and write the split; of a
    conversational golden file, a fraction of whole conversations."""
    if is_conversation_file(config.golden):
        return _conversations(config)
    golden_set = load_golden(config.golden, columns=config.columns)
    source = golden_file(config.golden)
    if not source.is_file():
        raise InputError(
            "golden split needs a golden.jsonl/.json (not a BEIR layout)", path=config.golden
        )
    if has_holdout(golden_set) and not config.force:
        raise InputError(
            "already has held-out cases: re-splitting would move cases you have "
            "not looked at into the development slice (use --force)",
            path=source,
            field="split",
        )
    assignment = assign_holdout(golden_set, config.fraction, config.seed)
    written = write_split(source, assignment, config.out, config.columns)
    held = [cid for cid, s in assignment.items() if s == "holdout"]
    return Split(held=held, total=len(assignment), written=written, seed=config.seed)


def _conversations(config: SplitConfig) -> Split:
    threads = load_conversation_golden(config.golden)
    if threads.has_holdout() and not config.force:
        raise InputError(
            "already has held-out conversations: re-splitting would move turns you have "
            "not looked at into the development slice (use --force)",
            path=config.golden,
            field="split",
        )
    assignment = assign_conversation_holdout(threads, config.fraction, config.seed)
    written = write_conversation_split(config.golden, assignment, config.out)
    held = [t.case.id for t in threads.turns if assignment[t.conversation_id] == "holdout"]
    return Split(held=held, total=len(threads.turns), written=written, seed=config.seed)
