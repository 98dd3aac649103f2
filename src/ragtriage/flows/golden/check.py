"""``ragtriage golden check``: the golden set against its corpus (ids gone, duplicate
queries, untagged cases; the checks are :mod:`ragtriage.data.check`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from ragtriage.data.check import CheckReport, DuplicatePair, check_golden, duplicate_queries
from ragtriage.data.conversations import (
    ConversationGolden,
    is_conversation_file,
    load_conversation_golden,
)
from ragtriage.data.formats.columns import ColumnMap
from ragtriage.data.golden import load_chunks, load_golden
from ragtriage.data.models import Chunk, GoldenSet
from ragtriage.flows.config import COLUMNS, Setting
from ragtriage.flows.golden import GOLDEN

__all__ = ["CheckConfig", "run"]


@dataclass
class CheckConfig:
    golden: Annotated[Path, GOLDEN]
    corpus: Annotated[Path | None, Setting("corpus.jsonl (default: beside it).")] = None
    columns: Annotated[ColumnMap | None, COLUMNS] = None


def run(config: CheckConfig) -> CheckReport:
    """The set against its corpus (``corpus``, or the one beside it); a conversational
    golden file turn by turn (each turn a case ``conv#turn``)."""
    if is_conversation_file(config.golden):
        threads = load_conversation_golden(config.golden)
        report = check_golden(threads.flat(), _corpus(config))
        report.duplicates = _standalone_duplicates(threads)
        report.golden["conversations"] = len(threads.conversations())
        report.golden["held_out_conversations"] = len(
            {t.conversation_id for t in threads.turns if t.case.split == "holdout"}
        )
        return report
    golden_set = load_golden(config.golden, columns=config.columns)
    return check_golden(golden_set, _corpus(config))


def _standalone_duplicates(threads: ConversationGolden) -> list[DuplicatePair]:
    """Duplicates among the turns that stand on their own (every first turn, so a whole
    conversation repeated is caught by its opening). A follow-up ("And the older one?")
    means something else in every conversation and repeats across them by nature."""
    alone = [t.case for t in threads.turns if t.standalone or t.turn == 1]
    return duplicate_queries(GoldenSet(cases=alone))


def _corpus(config: CheckConfig) -> dict[str, Chunk] | None:
    return load_chunks(config.corpus) if config.corpus else None
