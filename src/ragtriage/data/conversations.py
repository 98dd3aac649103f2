"""Conversations: golden turns and traced turns, and the flat view stage 1 scores.

A conversation is a thread of turns ``1, 2, ...``; each turn is a user message the system
answered, often after rewriting it into a standalone search query. The golden file has
one line per turn and a trace file of ours one record per turn: their fields are
in docs/conversations.md ("The golden set", "The traces"); other tools' files are read in
``data/formats/conversations.py`` into the same rows.

Stage 1 scores the *flattened* turns: every turn one query with the id
``<conversation_id>#<turn>`` (:func:`turn_id`), so its figures are trec_eval's on the
same qrels and run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragtriage.data.containers import iter_records
from ragtriage.data.formats.conversations import check_turns
from ragtriage.data.golden import load_chunks, parse_case, resolve_golden
from ragtriage.data.holdout import held_back, rewrite
from ragtriage.data.models import Chunk, GoldenCase, GoldenSet, Trace
from ragtriage.data.rows import GoldenTurnRow, validated
from ragtriage.errors import InputError

__all__ = [
    "CONVERSATION_FILES",
    "ConversationGolden",
    "GoldenTurn",
    "TracedTurn",
    "TurnRecords",
    "assign_conversation_holdout",
    "check_splits",
    "check_turns",
    "is_conversation_file",
    "load_conversation_golden",
    "parse_golden_turn",
    "slice_tags",
    "turn_id",
    "turn_slice",
    "write_conversation_split",
]

CONVERSATION_FILES = ("conversations.jsonl", "conversations.json")


def turn_id(conversation_id: str, turn: int) -> str:
    """The flattened turn's query id: what the qrels, the run and every report name."""
    return f"{conversation_id}#{turn}"


def turn_slice(turn: int) -> str:
    """The turn-index slice: ``1``, ``2`` or ``3+`` (later turns are few per conversation)."""
    return str(turn) if turn < 3 else "3+"


def slice_tags(turn: int, standalone: bool) -> tuple[str, ...]:
    """The tags a flattened turn carries, so stage 1's tag slices are the turn slices."""
    return (f"turn:{turn_slice(turn)}", "standalone" if standalone else "follow-up")


class GoldenTurn(BaseModel):
    model_config = ConfigDict(frozen=True)

    conversation_id: str
    turn: int = Field(ge=1)
    standalone: bool
    case: GoldenCase  # id = turn_id(...), query = the user's message

    @property
    def user(self) -> str:
        return self.case.query


class ConversationGolden(BaseModel):
    turns: list[GoldenTurn]
    corpus: dict[str, Chunk] | None = None
    source: str = ""

    def conversations(self) -> dict[str, list[GoldenTurn]]:
        """Turns by conversation, in turn order; conversations in order of first line."""
        out: dict[str, list[GoldenTurn]] = {}
        for turn in self.turns:
            out.setdefault(turn.conversation_id, []).append(turn)
        return {cid: sorted(turns, key=lambda t: t.turn) for cid, turns in out.items()}

    def has_holdout(self) -> bool:
        return any(t.case.split == "holdout" for t in self.turns)

    def select(self, split: str) -> ConversationGolden:
        """The conversations of one slice (``dev`` or ``holdout``): whole conversations,
        since a conversation's turns are all in one slice (:func:`check_splits`)."""
        turns = [t for t in self.turns if t.case.split == split]
        if not turns:
            raise InputError(f"the golden set has no {split!r} conversations", path=self.source
                             or None, field="split")  # fmt: skip
        return self.model_copy(update={"turns": turns})

    def flat(self) -> GoldenSet:
        """Every turn as a golden case (id ``conv#turn``), tagged with its slices."""
        cases = [
            t.case.model_copy(update={"tags": tuple(dict.fromkeys(t.case.tags + slice_tags(
                t.turn, t.standalone)))})
            for turns in self.conversations().values()
            for t in turns
        ]  # fmt: skip
        return GoldenSet(
            cases=cases, corpus=self.corpus, source=self.source, format="conversations"
        )


def parse_golden_turn(record: dict[str, Any], path: str | Path, line: int) -> GoldenTurn:
    """One golden turn line (``rows.GoldenTurnRow``, then the case: ``rows.GoldenRow``)."""
    row = validated(GoldenTurnRow, record, path, line)
    case_id = turn_id(row.conversation_id, row.turn)
    case = parse_case({**record, "id": case_id, "query": row.user}, path, line)
    return GoldenTurn(
        conversation_id=row.conversation_id, turn=row.turn, standalone=row.standalone, case=case
    )


def load_conversation_golden(path: str | Path) -> ConversationGolden:
    """A conversational golden set: a file, a directory holding ``conversations.jsonl`` or
    a shipped set's name, as :func:`~ragtriage.data.golden.load_golden` takes them;
    ``corpus.jsonl`` beside the file is read when there."""
    path = resolve_golden(path)
    if path.is_dir():
        found = [path / n for n in CONVERSATION_FILES if (path / n).is_file()]
        if not found:
            raise InputError(
                f"no conversational golden set here: expected {' or '.join(CONVERSATION_FILES)}",
                path=path,
            )
        path = found[0]
    if not path.is_file():
        raise InputError("file not found", path=path)
    turns = [(parse_golden_turn(record, path, line), line) for line, record in iter_records(path)]
    if not turns:
        raise InputError("conversational golden set is empty", path=path)
    check_turns(((t.conversation_id, t.turn, line) for t, line in turns), path)
    check_splits(turns, path)
    corpus_path = path.parent / "corpus.jsonl"
    corpus = load_chunks(corpus_path) if corpus_path.is_file() else None
    return ConversationGolden(turns=[t for t, _ in turns], corpus=corpus, source=str(path))


def check_splits(turns: Iterable[tuple[GoldenTurn, int]], path: Path) -> None:
    """A conversation's turns must all be in one slice: a held-back turn whose earlier
    turns are in the development slice would have its history tuned on."""
    first: dict[str, tuple[str, int]] = {}
    for turn, line in turns:
        split = turn.case.split
        seen = first.setdefault(turn.conversation_id, (split, turn.turn))
        if split != seen[0]:
            raise InputError(
                f"conversation {turn.conversation_id!r} has turn {seen[1]} in {seen[0]!r} and "
                f"turn {turn.turn} in {split!r}: a held-back slice keeps whole conversations",
                path=path,
                line=line,
                field="split",
            )


def is_conversation_file(path: Path) -> bool:
    """Whether ``path`` is a conversational golden file (its first record has
    ``conversation_id`` and ``turn``), so commands that take either can tell."""
    if not path.is_file() or path.suffix.lower() not in (".jsonl", ".json"):
        return False
    for _, record in iter_records(path):
        return {"conversation_id", "turn"} <= set(record)
    return False


def assign_conversation_holdout(
    golden: ConversationGolden, fraction: float, seed: int
) -> dict[str, str]:
    """A seeded holdout of ``round(fraction * n)`` whole conversations, ranked by
    sha256(seed:conversation id) as ``data/holdout.assign_holdout`` ranks cases."""
    ids = list(golden.conversations())
    held = set(held_back(ids, fraction, seed))
    return {conv: "holdout" if conv in held else "dev" for conv in ids}


def write_conversation_split(source: Path, assignment: dict[str, str], out: Path | None) -> Path:
    """The golden file rewritten with each turn's ``split`` its conversation's; every
    other field kept as written. ``out``: a file, or a folder (gets the corpus too)."""
    records = [{**record, "split": assignment[str(record["conversation_id"])]}
               for _, record in iter_records(source)]  # fmt: skip
    return rewrite(source, records, out)


@dataclass
class TracedTurn:
    """One traced turn, with the search query the system made of the user's message
    (``None``: it logged none)."""

    conversation_id: str
    turn: int
    user: str
    rewritten_query: str | None
    trace: Trace  # query_id = turn_id(conversation_id, turn)
    line: int = 0


@dataclass
class TurnRecords:
    turns: list[TracedTurn]
    format: str
    notes: list[str] = field(default_factory=list)
