"""The queries a person labels: read from what users have, folded, sampled with a seed.

The log formats are in docs/golden-sets.md ('Label in the browser'). Exact and
near-duplicate queries are folded with ``golden check``'s test
(:func:`ragtriage.data.check.duplicate_of`): the first of each group stays and the others
are counted. ``sample`` then draws uniformly from what is left (numpy's PCG64 with the
recorded seed), so the labelled set is a random sample of distinct real queries, not the
log's first page.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import orjson

from ragtriage.data.check import duplicate_of, normalise
from ragtriage.data.containers import read_text, split_lines
from ragtriage.data.conversations import check_turns, turn_id
from ragtriage.errors import InputError

__all__ = ["Query", "QueryLog", "Turn", "fold", "read_queries", "read_turns", "sample"]

_TEXT_KEYS = ("query", "question", "text")
T = TypeVar("T")


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    line: int  # where it was read, for messages


@dataclass
class QueryLog:
    """The distinct queries of a log, and what folding set aside."""

    queries: list[Query]
    read: int  # rows read
    exact: int  # folded as exact duplicates
    near: int  # folded as near duplicates


def read_queries(path: Path) -> list[Query]:
    """Every query row of ``path``; an empty query or a row without one is an error."""
    text = read_text(path)
    head = text.lstrip()[:1]
    if head in ("{", "["):
        return _json_rows(path, text)
    if path.suffix.lower() == ".csv":
        return _csv_rows(path, text)
    lines = split_lines(text)
    return [Query(f"q{n}", line.strip(), n) for n, line in enumerate(lines, 1) if line.strip()]


def _json_rows(path: Path, text: str) -> list[Query]:
    if text.lstrip().startswith("["):
        raise InputError("expected JSONL (one object a line), got a JSON list", path=path)
    return [_row_query(row, path, number) for number, row in _objects(path, text)]


def _objects(path: Path, text: str) -> Iterator[tuple[int, dict]]:
    """Each non-blank line of JSONL ``text`` as an object, with its line number."""
    for number, line in enumerate(split_lines(text), 1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc}", path=path, line=number) from None
        if not isinstance(row, dict):
            raise InputError("expected a JSON object", path=path, line=number)
        yield number, row


def _csv_rows(path: Path, text: str) -> list[Query]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not reader.fieldnames or not set(_TEXT_KEYS) & {f.strip() for f in reader.fieldnames}:
        raise InputError(
            f"no query column: expected one of {', '.join(_TEXT_KEYS)}", path=path, line=1
        )
    return [_row_query(row, path, n) for n, row in enumerate(reader, 2)]


def _row_query(row: dict, path: Path, line: int) -> Query:
    key = next((k for k in _TEXT_KEYS if k in row), None)
    if key is None:
        raise InputError("missing required field", path=path, line=line, field="query")
    value = row[key]
    if not isinstance(value, str) or not value.strip():
        raise InputError("expected a non-empty string", path=path, line=line, field=key)
    ident = row.get("id", row.get("query_id"))
    if ident is not None and not isinstance(ident, str | int):
        raise InputError("expected a string or an integer", path=path, line=line, field="id")
    return Query(str(ident) if ident not in (None, "") else f"q{line}", value.strip(), line)


@dataclass(frozen=True)
class Turn:
    """One user turn of a conversation log, with the answer the system gave (shown as
    history to the turns after it)."""

    conversation_id: str
    turn: int
    user: str
    answer: str
    line: int

    @property
    def id(self) -> str:
        return turn_id(self.conversation_id, self.turn)


_CONVERSATION_ID = re.compile(r"[^\s#]+")


def read_turns(path: Path) -> list[Turn] | None:
    """The turns of a conversation log (JSONL rows with ``conversation_id``, ``turn``,
    ``user`` and, optionally, ``answer``: our conversation traces, or a conversational
    golden set to label again); ``None`` when the first row is not a turn (a query log)."""
    text = read_text(path)
    if not text.lstrip().startswith("{"):
        return None
    rows: list[Turn] = []
    for number, row in _objects(path, text):
        if not rows and "conversation_id" not in row:
            return None
        rows.append(_turn(row, path, number))
    check_turns(((t.conversation_id, t.turn, t.line) for t in rows), path)
    return rows


def _turn(row: dict, path: Path, line: int) -> Turn:
    conv = row.get("conversation_id")
    if not isinstance(conv, str) or not _CONVERSATION_ID.fullmatch(conv):
        raise InputError("expected an id without white space or '#'", path=path, line=line,
                         field="conversation_id")  # fmt: skip
    turn = row.get("turn")
    if not isinstance(turn, int) or isinstance(turn, bool) or turn < 1:
        raise InputError("expected a turn number 1, 2, ...", path=path, line=line, field="turn")
    user = row.get("user")
    if not isinstance(user, str) or not user.strip():
        raise InputError("expected a non-empty string", path=path, line=line, field="user")
    answer = row.get("answer", "")
    if not isinstance(answer, str):
        raise InputError("expected a string", path=path, line=line, field="answer")
    return Turn(conv, turn, user.strip(), answer, line)


def fold(queries: list[Query]) -> QueryLog:
    """Fold exact and near-duplicate queries (the first of each group stays)."""
    found = duplicate_of([normalise(q.text) for q in queries])
    kept = [q for i, q in enumerate(queries) if i not in found]
    exact = sum(kind == "exact" for _, kind in found.values())
    return QueryLog(kept, len(queries), exact, len(found) - exact)


def sample(items: list[T], n: int | None, seed: int) -> list[T]:
    """``n`` items (queries, answers) drawn uniformly without replacement, in the order
    drawn (all of them, shuffled, when ``n`` is None or not smaller than what there is)."""
    order = np.random.default_rng(seed).permutation(len(items))
    if n is not None:
        order = order[:n]
    return [items[int(i)] for i in order]
