"""Retrieval output as JSONL, and format detection for ``--run``.

One line per query: ``{"query_id", "retrieved": [{"id", "score"?, "text"?}, ...]}`` in
rank order, or ``"retrieved": ["id", ...]``. Without scores the rank order *is* the score
(first = highest); with scores, ties and order follow trec_eval: score descending, then
doc id descending.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragtriage.atomic import file_sha256
from ragtriage.data.ids import check_id
from ragtriage.data.readers import check_type, iter_records, read_text, require
from ragtriage.data.tables import Run
from ragtriage.data.trec import read_trec_run
from ragtriage.errors import InputError

__all__ = ["load_run", "read_jsonl_run"]


def load_run(path: str | Path) -> Run:
    """A run file in either format: JSON/JSONL if it starts with ``{`` or ``[``, else TREC."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(1024).lstrip(b"\xef\xbb\xbf").lstrip()
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=path) from None
    if head[:1] in (b"{", b"["):
        table = read_jsonl_run(path)
        table.sha256 = file_sha256(path)
        return table
    if not head:
        read_text(path)
        raise InputError("run file is empty", path=path)
    return read_trec_run(path)


def read_jsonl_run(path: Path) -> Run:
    queries: list[str] = []
    docs: list[str] = []
    scores: list[float] = []
    seen: dict[str, int] = {}
    for line, record in iter_records(path):
        query_id = str(require(record, "query_id", (str, int), path, line))
        check_id(query_id, path=path, line=line, field="query_id")
        if query_id in seen:
            raise InputError(
                f"query {query_id!r} already listed on line {seen[query_id]}",
                path=path,
                line=line,
                field="query_id",
            )
        seen[query_id] = line
        items = require(record, "retrieved", list, path, line)
        for doc, score in _ranked(items, path, line):
            queries.append(query_id)
            docs.append(doc)
            scores.append(score)
    return Run.from_columns(queries, docs, scores, source=str(path))


def _ranked(items: list[Any], path: Path, line: int) -> list[tuple[str, float]]:
    """``(doc id, score)`` pairs; a missing score becomes ``-rank`` so rank order is kept."""
    pairs = []
    has_scores = None
    for rank, item in enumerate(items):
        field = f"retrieved[{rank}]"
        if isinstance(item, str | int) and not isinstance(item, bool):
            doc, score = str(item), None
            check_id(doc, path=path, line=line, field=field)
        else:
            check_type(item, field, dict, path, line)
            doc = str(require(item, "id", (str, int), path, line))
            check_id(doc, path=path, line=line, field=f"{field}.id")
            score = item.get("score")
            if score is not None:
                score = _score(score, path, line, f"{field}.score")
        if has_scores is None:
            has_scores = score is not None
        elif has_scores != (score is not None):
            raise InputError(
                "either every retrieved item has a score or none has",
                path=path,
                line=line,
                field=f"{field}.score",
            )
        pairs.append((doc, score if score is not None else float(-rank)))
    return pairs


def _score(value: Any, path: Path, line: int, field: str) -> float:
    """A JSON score as a float; an integer too large for a 64-bit float (JSON allows a
    ``1`` followed by 400 zeros, and ``float()`` raises OverflowError on it) is an error
    naming file, line and field."""
    number = check_type(value, field, (int, float), path, line)
    try:
        return float(number)
    except OverflowError:
        raise InputError(
            "integer is out of range for a 64-bit float (beyond 1.8e308)",
            path=path,
            line=line,
            field=field,
        ) from None
