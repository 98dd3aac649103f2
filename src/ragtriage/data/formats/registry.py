"""Every format a command can read, in the order a table is tested against them.

A table's shape is the first format here whose ``recognises`` accepts its field names;
none: our own shape. A new format is a module with a ``FORMAT`` and one entry in
:data:`FORMATS`. The order matters: verdict tables first (a Phoenix evaluations export
has a span id and a ``label``, which alone would read as spans or grades), then spans,
then human grades (a ``label`` beside ``question``/``contexts``/``answer``, which alone
would read as old ragas), then DeepEval and ragas. Conversation shapes are tested only
where conversations are expected (:func:`recognise_conversations`): a ragas multi-turn
sample has ragas' ``user_input``.
"""

from __future__ import annotations

from typing import Any

from ragtriage.data import grades
from ragtriage.data.formats import (
    conversations,
    deepeval,
    openinference,
    ragas,
    verdicts_deepeval,
    verdicts_mlflow,
    verdicts_phoenix,
)
from ragtriage.data.formats.base import Format, Rows
from ragtriage.data.formats.columns import ColumnMap

__all__ = ["FORMATS", "recognise", "recognise_conversations", "shape_keys"]

FORMATS: tuple[Format, ...] = (
    verdicts_phoenix.FORMAT,  # span ids beside label/score: before spans and grades
    verdicts_mlflow.FORMAT,
    verdicts_deepeval.FORMAT,
    openinference.FORMAT,
    grades.FORMAT,
    deepeval.FORMAT,
    ragas.FORMAT,
    conversations.OURS,
    conversations.DEEPEVAL,
    conversations.RAGAS,
    conversations.SPANS,
)
_SAMPLE = 20  # rows whose fields decide the shape


def shape_keys(rows: Rows) -> set[str]:
    """The field names of the rows that decide a table's shape (the first few)."""
    return {key for _, row in rows[:_SAMPLE] for key in row}


def recognise(rows: Rows, columns: ColumnMap) -> Format | None:
    """The format of ``rows`` (module docstring), or None for our own shape."""
    own = shape_keys(rows)
    renamed = shape_keys([(n, columns.apply(r)) for n, r in rows[:_SAMPLE]]) if columns else own
    for fmt in FORMATS:
        if fmt.conversations is None and fmt.recognises(renamed if fmt.renamed else own):
            return fmt
    return None


def recognise_conversations(rows: Rows) -> Format | None:
    """The conversation shape of ``rows``, by the first row's fields (each conversation
    shape's rows all have its keys), or None."""
    first = rows[0][1] if rows else {}
    fmt = next((f for f in FORMATS if f.conversations and f.recognises(set(first))), None)
    if fmt is conversations.RAGAS and _single_turn_ragas(first):
        return None  # the caller names what it is (a ragas single-turn dataset)
    return fmt


def _single_turn_ragas(row: dict[str, Any]) -> bool:
    """A ragas ``SingleTurnSample``: its ``user_input`` is the question's text, where a
    ``MultiTurnSample``'s is a list of messages. Both have the field, so the field alone
    read a single-turn file as conversations ("expected list, got str")."""
    return isinstance(row.get("user_input"), str)
