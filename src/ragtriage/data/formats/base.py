"""What a format module declares: the rows it recognises and the records it yields.

A format is one module of ``data/formats/`` with a ``FORMAT`` (listed once in
``registry.FORMATS``): a test on a table's field names and its readers, each turning rows
into records of one of our shapes (golden, trace, grade records; conversations of turn
records). A run is the retrieved lists of the trace records, so ``retrieval --run`` and
``audit --traces`` read one file one way, and grade records are validated by
``calibration.grades``, so every command recognises a file the same way. Nothing
downstream knows which tool wrote a row.

A grades reader gets CSV cells as the text they are (``containers.read_table(text=True)``):
a grade's answer or note may well look like a list (``[1]``), so a reader parses only the
list cells it knows (``containers.parse_cell``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragtriage.data.containers import Given

__all__ = ["Conversation", "ConversationReader", "Format", "Reader", "Records", "Rows"]

Rows = list[tuple[int, dict[str, Any]]]
Records = list[tuple[int, dict[str, Any]]]
Reader = Callable[[Rows, Path | Given, dict[str, str]], tuple[Records, list[str]]]
# (given conversation id or None, [(line, turn record in our shape)], first line)
Conversation = tuple[str | None, Records, int]
ConversationReader = Callable[[Rows, Path], list[Conversation]]


@dataclass(frozen=True)
class Format:
    """One tool's file shape (module docstring).

    ``renamed``: whether the shape is told after the ``--columns`` renames (ragas,
    DeepEval: column names) or by the rows' own keys (spans: ``--columns query_id=KEY``
    names a metadata key, not a column). The readers get the rows and the mapping's
    pairs (ours -> theirs)."""

    name: str
    tool: str  # who writes it, for the format table of the docs
    recognises: Callable[[set[str]], bool]
    golden: Reader | None = None
    traces: Reader | None = None
    grades: Reader | None = None
    # a conversation shape: its records are whole conversations (or turns of them), read
    # only where conversations are expected (``registry.recognise_conversations``)
    conversations: ConversationReader | None = None
    # another evaluator's verdicts (``verdicts.py``: one record per answer and metric),
    # read by ``calibrate --verdicts`` only, so not among what ``yields`` names
    verdicts: Reader | None = None
    renamed: bool = True
    what: str = ""  # what a person calls such a file, for messages (default: "NAME file")

    @property
    def yields(self) -> tuple[str, ...]:
        """Which records a file of this shape gives: golden cases, traces, runs, grades."""
        out: tuple[str, ...] = ("golden cases",) if self.golden else ()
        out += ("traces", "runs") if self.traces else ()
        out += ("grades",) if self.grades else ()
        return out + (("conversation traces",) if self.conversations else ())
