"""TREC qrels (``qid iter docno rel``) and runs (``qid Q0 docno rank score tag``).

Read by pyarrow's CSV reader (a run by parts in parallel, ``_trec_fast.py``), so a run of a
hundred million rows never becomes Python objects; anything that path cannot read goes
through the line parser here, which names the failing line and field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ragtriage.atomic import bytes_blake3
from ragtriage.data._trec_fast import (
    RUN_COLUMNS,
    ProgressFn,
    csv_options,
    fast_delimiter,
    fast_ids_usable,
    stream_run,
)
from ragtriage.data.containers import read_bytes
from ragtriage.data.ids import all_clean, check_id, shown
from ragtriage.data.tables import Qrels, Run, doc_words, id_hash
from ragtriage.errors import InputError

__all__ = [
    "ProgressFn",
    "QRELS_COLUMNS",
    "RUN_COLUMNS",
    "fast_ids_usable",
    "first_duplicate",
    "read_progress",
    "read_trec_qrels",
    "read_trec_run",
]

QRELS_COLUMNS = ("query", "iter", "doc", "label")

_PROGRESS: ContextVar[ProgressFn | None] = ContextVar("ragtriage_read_progress", default=None)


@contextmanager
def read_progress(callback: ProgressFn | None) -> Iterator[None]:
    """Within the block, fast-path reads report ``callback(path, bytes_read, total)``."""
    token = _PROGRESS.set(callback)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def read_trec_run(path: str | Path) -> Run:
    """A TREC run (``qid Q0 docno rank score tag``); the rank column is ignored, as
    trec_eval does, and so are columns past the sixth (as trec_eval 10.0 does: counted in
    ``run.warnings``). Read by parts in parallel (``_trec_fast.py``): each block's doc ids
    become fixed-width words and its query ids runs of equal neighbours before the next
    block is parsed, so the strings of a large run are never all in memory at once.
    """
    path = Path(path)
    delimiter = fast_delimiter(path)
    run = stream_run(path, delimiter, _PROGRESS.get()) if delimiter else None
    if run is None:
        lines = _slow_columns(path, RUN_COLUMNS, "score")
        table = lines.table
        scores = table.column("score").to_numpy()
        run = Run.from_columns(table.column("query"), table.column("doc"), scores, str(path))
        run.digest = lines.digest
        if lines.extra:
            run.warnings.append(
                f"{lines.extra} run lines have more than {len(RUN_COLUMNS)} columns: "
                "the columns past the sixth were ignored, as trec_eval 10.0 ignores them"
            )
    return run


def read_trec_qrels(path: str | Path) -> Qrels:
    """TREC qrels; every query listed is evaluated, even one with no relevant document.

    Query ids keep their first-appearance order. Doc ids stay arrow strings (the ranking
    reads them as doc words), and the duplicate check sorts one 64-bit id hash per
    line, so three million lines never become Python strings or a doc dictionary.
    """
    path = Path(path)
    table = _fast_columns(path, QRELS_COLUMNS, ("query", "doc", "label"))
    labels = _labels(table["label"]) if table is not None else None
    if table is None or labels is None or not fast_ids_usable(table["query"], table["doc"]):
        table = None  # the line parser reads it, or names the line at fault
    else:
        table = table.set_column(2, "label", pa.array(labels, pa.int64()))
    if table is None:
        table = _slow_columns(path, QRELS_COLUMNS, "label").table
    query = pc.dictionary_encode(table.column("query").combine_chunks())
    codes = query.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    doc = table.column("doc").combine_chunks()
    if first_duplicate(codes, doc_words(doc)) is not None:
        _raise_duplicate(path, table)
    return Qrels(
        query.dictionary.to_numpy(zero_copy_only=False).astype(object),
        codes,
        doc,
        table.column("label").to_numpy().astype(np.int64),
        source=str(path),
    )


_CODE_MIX = np.uint64(0xC2B2AE3D27D4EB4F)


def first_duplicate(codes: np.ndarray, words: np.ndarray) -> tuple[int, int] | None:
    """``(row, earlier row)`` of the first (query, doc) pair, in file order, that repeats
    an earlier one; ``None`` when every pair is distinct.

    Fingerprints are sorted to find candidates (rows sharing one with another row), and
    the candidates are then compared exactly, on query code and every doc word, so a
    id hash collision costs time but never reports a duplicate that is not one. Each
    candidate is listed once however many rows share its id hash.
    """
    prints = id_hash(words) ^ (codes.astype(np.uint64) * _CODE_MIX)
    ordered = np.sort(prints)  # values, not an argsort: the common case ends here
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    order = np.argsort(prints, kind="stable")
    same = prints[order][1:] == prints[order][:-1]
    candidate = np.zeros(len(prints), bool)
    candidate[order[1:][same]] = True
    candidate[order[:-1][same]] = True
    rows = np.flatnonzero(candidate)  # ascending: file order
    keys = [words[rows, j] for j in range(words.shape[1] - 1, -1, -1)]
    by_pair = rows[np.lexsort([*keys, codes[rows]])]  # stable: equal pairs in file order
    equal = codes[by_pair][1:] == codes[by_pair][:-1]
    equal &= (words[by_pair][1:] == words[by_pair][:-1]).all(axis=1)
    if not equal.any():
        return None
    later = by_pair[1:][equal]
    at = int(np.argmin(later))
    return int(later[at]), int(by_pair[:-1][equal][at])


def _fast_columns(path: Path, names: tuple[str, ...], keep: tuple[str, ...]) -> pa.Table | None:
    """Columns ``keep`` as text via pyarrow, or ``None`` when the file needs the careful
    line parser."""
    delimiter = fast_delimiter(path)
    if delimiter is None:
        return None
    types = {name: pa.string() for name in keep}
    try:
        return pacsv.read_csv(path, **csv_options(names, delimiter, types, block_size=64 << 20))
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return None


@dataclass(frozen=True)
class _Lines:
    """What the line parser read: columns (with each row's line number), how many run
    lines had columns past the sixth, and a run file's BLAKE3 digest (``None`` for qrels,
    whose digest no report records)."""

    table: pa.Table
    extra: int
    digest: str | None = None


_FIELDS = re.compile(r"[ \t]+")  # trec_eval splits on spaces and tabs, nothing else
_SCORE = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE
)
_LABEL = re.compile(r"[+-]?[0-9]+")
_INT64 = 1 << 63


def _slow_columns(path: Path, names: tuple[str, ...], value: str) -> _Lines:
    """Parse line by line, as trec_eval 10.0 reads: lines end at ``\\n`` (a trailing
    ``\\r`` is dropped), fields are split on spaces and tabs, blank lines and lines
    starting with ``#`` are skipped, and a run line's columns past the sixth are ignored
    (counted, for one warning). The first bad line is an error naming line and field.

    Ids and numbers are checked column-wise once the lines are split (a regex over the
    joined ids, arrow's cast of the scores); only a failure is traced back to its line.
    """
    is_run = value == "score"
    at = names.index(value)
    queries: list[str] = []
    docs: list[str] = []
    texts: list[str] = []
    lines: list[int] = []
    extra = 0
    data = read_bytes(path)  # its error names what is wrong with the path
    for number, raw in enumerate(_text(data).split("\n"), start=1):
        stripped = raw.strip(" \t\r")
        if not stripped or stripped[0] == "#":
            continue
        parts = _split(stripped)
        if len(parts) != len(names) and (len(parts) < len(names) or not is_run):
            more = " or more" if is_run else ""
            raise InputError(
                f"expected {len(names)}{more} whitespace-separated columns "
                f"({' '.join(names)}), got {len(parts)}",
                path=path,
                line=number,
            )
        extra += len(parts) > len(names)
        queries.append(parts[0])
        docs.append(parts[2])
        texts.append(parts[at])
        lines.append(number)
    if not queries:
        raise InputError("file has no data lines", path=path)
    numbers = _scores(texts) if is_run else _text_labels(texts)
    if numbers is None or not (all_clean(queries) and all_clean(docs)):
        numbers = _read_each(queries, docs, texts, lines, path, is_run)
    table = pa.table(
        {
            "query": pa.array(queries, pa.string()),
            "doc": pa.array(docs, pa.string()),
            value: numbers,
            "line": pa.array(lines, pa.int64()),
        }
    )
    # hashed from the bytes just parsed, not a second read: the report's digest is of
    # what was scored, even if the file changes afterwards (docs/retrieval.md)
    return _Lines(table, extra, bytes_blake3(data) if is_run else None)


def _split(line: str) -> list[str]:
    """Fields split on runs of spaces and tabs (``str.split()`` would also split on
    U+0085, U+00A0, U+2028 and others, which trec_eval keeps inside a field)."""
    parts = line.split(" ")
    if "\t" in line or "" in parts:
        return _FIELDS.split(line)
    return parts


def _scores(texts: list[str]) -> np.ndarray | None:
    """The scores by arrow's cast, when every one is a finite decimal; ``None`` sends
    them through :func:`_score` one by one (an infinity, or an error to locate)."""
    try:
        scores = pc.cast(pa.array(texts, pa.string()), pa.float64()).to_numpy()
    except (pa.ArrowInvalid, UnicodeEncodeError):  # not a number; bytes that are not UTF-8
        return None
    return scores if np.isfinite(scores).all() else None


_DECIMAL = r"^-?[0-9]+$"


def _text_labels(texts: list[str]) -> np.ndarray | None:
    """:func:`_labels` of the line parser's label texts."""
    try:
        return _labels(pa.array(texts, pa.string()))
    except UnicodeEncodeError:  # bytes that are not UTF-8: _label names the line
        return None


def _labels(texts: pa.Array | pa.ChunkedArray) -> np.ndarray | None:
    """Labels written as plain decimal integers that fit in 64 bits, read by arrow, or
    ``None`` (then :func:`_label` reads or refuses them one by one). The pattern comes
    first: arrow's integer parsing also reads ``0x10`` as 16, where trec_eval's ``atol``
    reads 0."""
    if not pc.all(pc.match_substring_regex(texts, _DECIMAL)).as_py():
        return None
    try:
        return pc.cast(texts, pa.int64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:  # out of range
        return None


def _read_each(
    queries: list[str],
    docs: list[str],
    texts: list[str],
    lines: list[int],
    path: Path,
    is_run: bool,
) -> np.ndarray:
    """The numbers read line by line, each id checked: the first bad line's error (a bad
    id before a bad number on one line), or what arrow's cast does not read (``inf``,
    ``+1``)."""
    read = _score if is_run else _label
    out = []
    for query, doc, text, line in zip(queries, docs, texts, lines, strict=True):
        check_id(query, path=path, line=line, field="query")
        check_id(doc, path=path, line=line, field="doc")
        out.append(read(text, path, line))
    return np.array(out, np.float64 if is_run else np.int64)


def _text(data: bytes) -> str:
    """The file as text, bytes that are not UTF-8 kept as surrogate escapes: only an id
    holding them is an error (naming line and field); in the columns nobody reads (Q0,
    rank, tag) they pass, as in trec_eval and the fast reader, which never decodes them."""
    return data.decode("utf-8", "surrogateescape").removeprefix("\ufeff")


def _score(text: str, path: Path, line: int) -> float:
    """A run score as trec_eval's ``atof`` reads it, ``inf`` and ``-inf`` included.

    Refused, naming the line: NaN (it orders with nothing, so the ranking would be
    arbitrary), a finite literal too large for a 64-bit float (``1e400``: not an infinity
    anyone wrote), and what only Python reads as a number (``1_000``, non-ASCII digits).
    """
    number = float(text) if _SCORE.fullmatch(text) else None
    if number is None:
        problem = f"{shown(text)} is not a number"
    elif math.isnan(number):
        problem = f"score {shown(text)} is NaN, which cannot be ranked"
    elif math.isinf(number) and "inf" not in text.lower():
        problem = (
            f"score {shown(text)} is out of range for a 64-bit float "
            "(write inf or -inf for an infinite score)"
        )
    else:
        return number
    raise InputError(problem, path=path, line=line, field="score")


def _label(text: str, path: Path, line: int) -> int:
    """A qrels label: a decimal integer that fits in 64 bits, or an error naming the line."""
    number = int(text) if _LABEL.fullmatch(text) else None
    if number is None:
        problem = f"{shown(text)} is not an integer"
    elif not -_INT64 <= number < _INT64:
        problem = f"label {shown(text)} is out of range (a 64-bit integer)"
    else:
        return number
    raise InputError(problem, path=path, line=line, field="label")


def _raise_duplicate(path: Path, table: pa.Table) -> None:
    """The duplicate judgement's error, naming its line and the line judged first.

    A table from the fast reader has no line numbers: the file is then read again by the
    line parser (an error path, so the second read costs nothing that matters).
    """
    if "line" not in table.column_names:
        table = _slow_columns(path, QRELS_COLUMNS, "label").table
    codes = pc.dictionary_encode(table.column("query").combine_chunks()).indices
    found = first_duplicate(
        codes.to_numpy(zero_copy_only=False).astype(np.int64), doc_words(table.column("doc"))
    )
    if found is None:  # both readers read the same pairs, so this is not reached
        raise InputError("duplicate judgement", path=path, field="doc")
    row, earlier = found
    lines = table.column("line")
    raise InputError(
        f"duplicate judgement for query {shown(table.column('query')[row].as_py())}, doc "
        f"{shown(table.column('doc')[row].as_py())} (already judged on line {lines[earlier]})",
        path=path,
        line=lines[row].as_py(),
        field="doc",
    )
