"""Columnar qrels and runs: integer codes and arrays, never one Python object per pair.

A run of a million queries holds a hundred million (query, doc, score) rows; the
evaluator only ever sees these arrays. Doc codes are *order-preserving* (code order is
the doc ids' string order), which is what trec_eval's tie-break on doc id needs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragtriage.data.ids import check_ids

__all__ = [
    "Qrels",
    "Run",
    "RunOrder",
    "as_arrow",
    "doc_words",
    "encode",
    "id_hash",
    "run_starts",
    "words_to_arrow",
    "words_to_strings",
    "write_words",
]

RunOrder = Literal["score", "given"]


def as_arrow(values: pa.Array | pa.ChunkedArray | Sequence[str]) -> pa.ChunkedArray:
    """Strings as an arrow chunked array (no copy when they already are arrow)."""
    if isinstance(values, pa.ChunkedArray):
        return values
    if isinstance(values, pa.Array):
        return pa.chunked_array([values])
    return pa.chunked_array(
        [pa.array(list(values) if not isinstance(values, list) else values, pa.string())]
    )


def encode(values: pa.Array | pa.ChunkedArray | Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, uniques)`` with ``uniques`` sorted ascending and ``uniques[codes] == values``.

    Only the first value of each run of equal neighbours is hashed (a TREC run lists each
    query's rows together, so a hundred million query cells are a million runs), and the
    dictionary is sorted by arrow, never as Python objects. Arrow compares UTF-8 bytes,
    which is code-point order: Python's string order and trec_eval's strcmp order.
    """
    array = as_arrow(values)
    n = len(array)
    if n == 0:
        return np.zeros(0, np.int32), np.zeros(0, object)
    starts = run_starts(array)
    heads = array.take(pa.array(starts)) if len(starts) < n else array
    encoded = pc.dictionary_encode(heads).combine_chunks()
    order = pc.sort_indices(encoded.dictionary).to_numpy()
    remap = np.empty(len(order), np.int32)
    remap[order] = np.arange(len(order), dtype=np.int32)
    codes = remap[encoded.indices.to_numpy(zero_copy_only=False)]
    if len(starts) < n:
        codes = np.repeat(codes, np.diff(np.append(starts, n)))
    uniques = encoded.dictionary.take(pa.array(order)).to_numpy(zero_copy_only=False)
    return codes, uniques.astype(object, copy=False)


def run_starts(array: pa.ChunkedArray) -> np.ndarray:
    """Indices where a value differs from its predecessor (always including 0)."""
    n = len(array)
    if n < 2:
        return np.zeros(n, np.int64)
    differs = pc.not_equal(array.slice(1), array.slice(0, n - 1))
    changed = np.flatnonzero(np.asarray(differs.to_numpy(zero_copy_only=False), bool)) + 1
    return np.concatenate([[0], changed]).astype(np.int64)


def doc_words(values: pa.Array | pa.ChunkedArray | Sequence[str] | np.ndarray) -> np.ndarray:
    """Each string's UTF-8 bytes, NUL-padded to a common width, as ``[n, width]`` uint64 words.

    Comparing rows of words (first word first, as unsigned integers) compares the strings
    byte by byte, as strcmp does: what trec_eval's doc-id tie-break and duplicate check
    need, at a fixed cost per row and without hashing strings into a dictionary. An id
    ending in NUL characters would equal the same id without them: every loader refuses
    control characters in ids (data/ids.py), and so do :meth:`Run.from_columns` and
    :meth:`Qrels.from_pairs`.
    """
    if isinstance(values, np.ndarray):
        values = values.tolist()
    array = as_arrow(values)
    if len(array) == 0:
        return np.zeros((0, 1), np.uint64)
    array = pa.chunked_array([c.cast(pa.string()) for c in array.chunks], pa.string())
    longest = pc.max(pc.binary_length(array)).as_py() or 0
    width = max(1, -(-longest // 8))
    out = np.empty((len(array), width), np.uint64)
    start = 0
    for chunk in array.chunks:
        write_words(chunk, out[start : start + len(chunk)])
        start += len(chunk)
    return out


_KEEP = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [(1 << 64) - 1], np.uint64)


def write_words(chunk: pa.Array, out: np.ndarray) -> None:
    """Fill ``out`` (``[len(chunk), width]`` uint64) with the chunk's :func:`doc_words`.

    Read straight from arrow's buffers: word ``j`` of a string is the 8 bytes at its
    offset plus ``8 * j`` (one unaligned load per cell, through a byte-strided view),
    with the bytes past the string's end masked off, then byte-swapped so that integer
    order is byte order. Bytes, not characters: any UTF-8 id is padded exactly.
    """
    n, width = out.shape
    if n == 0:
        return
    kind = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
    offsets = np.frombuffer(chunk.buffers()[1], kind, n + 1, chunk.offset * np.dtype(kind).itemsize)
    first, last = int(offsets[0]), int(offsets[-1])
    data = np.zeros(last - first + 8 * width, np.uint8)  # this chunk's bytes, zero tail
    if last > first:
        data[: last - first] = np.frombuffer(chunk.buffers()[2], np.uint8, last - first, first)
    windows = np.ndarray((len(data) - 7,), "<u8", data, 0, (1,))
    starts = offsets[:-1] - first
    lengths = np.diff(offsets)
    for j in range(width):
        cell = windows[starts + 8 * j] if j else windows[starts]
        cell &= _KEEP[np.clip(lengths - 8 * j, 0, 8)]
        out[:, j] = cell.byteswap()


_SEED = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xFF51AFD7ED558CCD)
_MIX2 = np.uint64(0xC4CEB9FE1A85EC53)
_SHIFT = np.uint64(33)


def _mix(h: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser (in place): a bijection in which every input bit
    reaches every output bit, so structured ids do not line up their differences."""
    h ^= h >> _SHIFT
    h *= _MIX1
    h ^= h >> _SHIFT
    h *= _MIX2
    h ^= h >> _SHIFT
    return h


def id_hash(words: np.ndarray) -> np.ndarray:
    """One uint64 per row of doc words (``[..., width]``): a 64-bit hash of every byte.

    Equal ids give equal hashes whatever the padding width (all-NUL padding words
    are skipped), and ids up to 8 bytes never collide (the first step is a bijection).
    Longer ids collide with probability about 2**-64 per pair, but callers only use the
    hash to find candidates and compare those exactly: a collision costs time,
    never a wrong answer. (An XOR-and-multiply of the words collided on structured ids
    such as ``LA090389-0100``, whose words differ in few bits.)
    """
    out = _mix(words[..., 0] ^ _SEED)
    for j in range(1, words.shape[-1]):
        word = words[..., j]
        step = _mix((out * _MIX2) ^ word)
        out = np.where(word != 0, step, out)
    return out


def words_to_arrow(words: np.ndarray) -> pa.Array:
    """The strings back from :func:`doc_words`, as an arrow string array."""
    n, width = words.shape
    buffer = pa.py_buffer(np.ascontiguousarray(words, ">u8").tobytes())
    fixed = pa.FixedSizeBinaryArray.from_buffers(pa.binary(8 * width), n, [None, buffer])
    return pc.utf8_rtrim(fixed.cast(pa.binary()).cast(pa.string()), characters="\0")


def words_to_strings(words: np.ndarray) -> list[str]:
    """A few rows of words back to Python strings (for messages and report listings)."""
    width = words.shape[1] if words.ndim == 2 else 1
    raw = np.ascontiguousarray(words.reshape(-1, width), ">u8").tobytes()
    size = 8 * width
    return [raw[i : i + size].rstrip(b"\0").decode("utf-8") for i in range(0, len(raw), size)]


@dataclass(frozen=True)
class Qrels:
    """Relevance judgements of a set of queries.

    ``query_ids`` is the universe of queries being evaluated, *including* queries with no
    judged-relevant document (unanswerable ones). ``query`` indexes into it.
    """

    query_ids: np.ndarray
    query: np.ndarray
    doc: np.ndarray | pa.Array  # strings: Python objects, or arrow's from a TREC file
    label: np.ndarray
    source: str = ""

    @classmethod
    def from_pairs(
        cls,
        query_ids: Iterable[str],
        judgements: Iterable[tuple[str, str, int]],
        source: str = "",
    ) -> Qrels:
        """Build from ``(query_id, doc_id, label)`` triples over a given query universe; doc
        ids are checked as :func:`doc_words` needs (``data/ids.py``)."""
        ids = np.asarray(list(dict.fromkeys(query_ids)), dtype=object)
        index = {qid: i for i, qid in enumerate(ids)}
        rows = list(judgements)
        query = np.fromiter((index[q] for q, _, _ in rows), np.int64, len(rows))
        doc = np.asarray([d for _, d, _ in rows], dtype=object)
        check_ids(doc, path=source or None, field="doc id")
        label = np.fromiter((lab for _, _, lab in rows), np.int64, len(rows))
        return cls(ids, query, doc, label, source)

    def __len__(self) -> int:
        return len(self.query_ids)


class Run:
    """A retriever's ranked output: one row per (query, doc) with its score.

    Doc ids are held as :func:`doc_words` (fixed-width big-endian words), which is all the
    ranking kernel reads: comparing words compares the ids, so no global dictionary of a
    hundred million strings is built to evaluate a run. ``doc_ids`` (sorted) and ``doc``
    (codes into it, so codes compare like the ids) are derived on first use, or given.
    Query codes may be given as runs of equal neighbours (``query_runs``: code and length
    of each), as a TREC run lists them: a million runs, not a hundred million codes.
    """

    def __init__(
        self,
        query_ids: np.ndarray,
        doc_ids: np.ndarray | None = None,
        query: np.ndarray | None = None,
        doc: np.ndarray | None = None,
        score: np.ndarray | None = None,
        source: str = "",
        *,
        words: np.ndarray | None = None,
        query_runs: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        if (query is None and query_runs is None) or score is None:
            raise TypeError("Run needs query codes (or runs of them) and scores")
        if words is None and (doc_ids is None or doc is None):
            raise TypeError("Run needs doc_ids and doc codes, or doc words")
        self.query_ids = query_ids
        self._query = query
        self._query_runs = query_runs
        self.score = score
        self.source = source
        self._doc_ids = doc_ids
        self._doc = doc
        self._words = words
        # of the file read, when the reader took it: a digest still being taken is a
        # function that waits for it (a run file's hash runs while the run is scored)
        self._digest: str | Callable[[], str | None] | None = None
        self.warnings: list[str] = []  # what the reader accepted but the user should know
        self.format: str | None = None  # another tool's format it was read from (ragas-jsonl)
        # "score": ranked as trec_eval ranks a run file (score descending, doc id
        # descending); "given": each query's rows are already in the system's rank order
        # (a trace, a retriever we ran), which is what reached the generator, ties included
        self.order: RunOrder = "score"
        # False when the file gave ranks only (ragas, LangChain spans): the scores above are
        # then -rank, which orders the list but says nothing of confidence (issue 26)
        self.scored = True

    @property
    def digest(self) -> str | None:
        """BLAKE3 (``atomic.RUN_DIGEST``) of the file the run was read from (``None``: not
        a file, or not taken); waits for the digest when the reader is still taking it."""
        if callable(self._digest):
            self._digest = self._digest()
        return self._digest

    @digest.setter
    def digest(self, value: str | Callable[[], str | None] | None) -> None:
        self._digest = value

    @classmethod
    def from_columns(
        cls,
        queries: pa.Array | pa.ChunkedArray | Sequence[str],
        docs: pa.Array | pa.ChunkedArray | Sequence[str],
        scores: np.ndarray | Sequence[float],
        source: str = "",
    ) -> Run:
        """A run from parallel columns; doc ids are checked as in :meth:`Qrels.from_pairs`."""
        check_ids(docs, path=source or None, field="doc id")
        query, query_ids = encode(queries)
        score = np.asarray(scores, dtype=np.float64)
        return cls(query_ids, None, query, None, score, source, words=doc_words(docs))

    @property
    def query(self) -> np.ndarray:
        """Each row's code into :attr:`query_ids` (expanded from the runs on first use)."""
        if self._query is None:
            assert self._query_runs is not None
            codes, lengths = self._query_runs
            self._query = np.repeat(codes, lengths)
        return self._query

    def query_runs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(code, start, length)`` of each run of rows with the same query code."""
        if self._query_runs is not None:  # merged where one run was given as several
            codes, lengths = self._query_runs
            if len(codes):
                heads = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
                codes, lengths = codes[heads], np.add.reduceat(lengths, heads)
            return codes, np.cumsum(lengths) - lengths, lengths
        query, n = self._query, len(self.score)
        assert query is not None
        starts = np.flatnonzero(query[1:] != query[:-1]) + 1
        starts = np.concatenate([np.zeros(min(n, 1), np.int64), starts])
        return query[starts], starts, np.diff(np.append(starts, n))

    @property
    def words(self) -> np.ndarray:
        """``[rows, width]`` uint64 words of each row's doc id (see :func:`doc_words`)."""
        if self._words is None:
            assert self._doc_ids is not None and self._doc is not None
            self._words = doc_words(self._doc_ids)[self._doc]
        return self._words

    @property
    def doc_ids(self) -> np.ndarray:
        """Sorted unique doc ids (built on first use: costly for very large runs)."""
        self._encode_docs()
        return self._doc_ids  # type: ignore[return-value]

    @property
    def doc(self) -> np.ndarray:
        """Each row's code into :attr:`doc_ids`."""
        self._encode_docs()
        return self._doc  # type: ignore[return-value]

    def doc_strings(self, rows: np.ndarray) -> list[str]:
        """Doc ids of the given rows, without building :attr:`doc_ids`."""
        return words_to_strings(self.words[np.asarray(rows, np.int64)])

    def _encode_docs(self) -> None:
        if self._doc is None:
            self._doc, self._doc_ids = encode(words_to_arrow(self.words))

    def __len__(self) -> int:
        return len(self.score)

    def __repr__(self) -> str:
        return f"Run({len(self.query_ids)} queries, {len(self)} rows, source={self.source!r})"
