"""The fast TREC run reader: the file memory-mapped, cut into parts at line ends, each
part parsed by pyarrow's streaming CSV reader and turned into columns on a thread of its
own, while one more thread takes the file's BLAKE3 digest from the same pages.

Nothing here names a line: a file this path cannot read exactly as the line parser
would (see :func:`fast_ids_usable`, non-finite scores, a malformed line) makes
:func:`stream_run` return ``None``, and the line parser in ``trec.py`` reads it or names
the line at fault. Both paths give the same columns (tests/data/test_trec_input.py).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import re
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import blake3
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ragtriage.data.ids import MAX_ID_BYTES, ids_clean, string_bytes, visible_ascii
from ragtriage.data.tables import Run, encode, run_starts, write_words

__all__ = [
    "PARTS",
    "PART_BYTES",
    "RUN_COLUMNS",
    "STREAM_BLOCK",
    "csv_options",
    "fast_delimiter",
    "fast_ids_usable",
    "stream_run",
    "write_doc_words",
]

RUN_COLUMNS = ("query", "q0", "doc", "rank", "score", "tag")
STREAM_BLOCK = 16 << 20  # bytes arrow parses at a time, per part
PART_BYTES = 64 << 20  # a part is at least this big: a small file is one part
PARTS = min(8, os.cpu_count() or 1)  # parts of a large file: one per core, at most 8
PAGE = mmap.PAGESIZE
HASH_STEP = 1 << 20  # small: a starved background step ends soon after promote()

ProgressFn = Callable[[Path, int, int], None]


def stream_run(path: Path, delimiter: str, progress: ProgressFn | None) -> Run | None:
    """The run read by parts in parallel, or ``None`` to use the line parser.

    The parts share the mapped pages with the hash, so no byte is copied out of the page
    cache, and each part's rows are parsed and written to columns by one thread: arrow
    and numpy release the GIL, so the parts run on as many cores as there are. Parts are
    joined in file order: the columns do not depend on their number.
    """
    try:
        with path.open("rb") as handle:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
        return None  # the line parser's read names what is wrong with the path
    data = pa.py_buffer(mapped)  # the mapped pages themselves, no copy
    stop = threading.Event()
    cuts = _cuts(data)
    pages = _Pages(mapped, cuts)
    estimates = _estimates(data, [end - start for start, end in cuts])
    columns = _Columns(estimates, _width(data, delimiter))
    parts = [
        _Part(data.slice(start, end - start), delimiter, columns.region(i), stop, pages, i)
        for i, (start, end) in enumerate(cuts)
    ]
    digest = _Digest(data, stop, pages)
    threads = [threading.Thread(target=p.read, daemon=True) for p in parts]
    for thread in [*threads, digest.thread]:
        thread.start()
    _wait(threads, parts, path, data.size, progress)
    for part in parts:
        if part.error is not None:
            raise part.error
    if stop.is_set() or not any(part.pieces.rows for part in parts):
        stop.set()  # the digest too: the line parser reads the file
        return None
    digest.promote()
    return _join([part.pieces for part in parts], columns, str(path), digest.hexdigest)


class _Pages:
    """Mapped pages handed back to the kernel once both their part and the digest have
    read them: they stay in its page cache, and the process's resident memory never
    holds the whole file. Handing a page back early costs a fault, never a wrong byte
    (the mapping is the file's). Where ``madvise`` is missing, every page is kept."""

    def __init__(self, mapped: mmap.mmap, cuts: list[tuple[int, int]]) -> None:
        self.mapped: mmap.mmap | None = mapped
        self.lock = threading.Lock()
        self.parsed = [start for start, _ in cuts]
        self.freed = [start - start % PAGE for start, _ in cuts]
        self.hashed = 0

    def part_read(self, part: int, upto: int) -> None:
        with self.lock:
            self.parsed[part] = upto
            self._free(part)

    def hash_read(self, upto: int) -> None:
        with self.lock:
            self.hashed = upto
            for part in range(len(self.parsed)):
                self._free(part)

    def _free(self, part: int) -> None:
        upto = min(self.parsed[part], self.hashed)
        upto -= upto % PAGE
        if self.mapped is None or upto <= self.freed[part]:
            return
        try:
            self.mapped.madvise(mmap.MADV_DONTNEED, self.freed[part], upto - self.freed[part])
        except (AttributeError, OSError, ValueError):  # no madvise here: keep them all
            self.mapped = None
            return
        self.freed[part] = upto


def _cuts(data: pa.Buffer) -> list[tuple[int, int]]:
    """``(start, end)`` of each part: about equal, each ending just after a ``\\n``."""
    n = max(1, min(PARTS, data.size // max(PART_BYTES, 1)))
    view = memoryview(data)
    edges = [0]
    for i in range(1, n):
        at = _find_newline(view, data.size * i // n)
        if at < 0 or at + 1 <= edges[-1]:
            continue
        edges.append(at + 1)
    edges.append(data.size)
    return [(a, b) for a, b in zip(edges, edges[1:], strict=False) if b > a]


def _find_newline(view: memoryview, start: int) -> int:
    """Index of the first ``\\n`` at or after ``start``, or -1."""
    step = 1 << 16
    for at in range(start, len(view), step):
        found = bytes(view[at : at + step]).find(b"\n")
        if found >= 0:
            return at + found
    return -1


def _estimates(data: pa.Buffer, sizes: list[int]) -> list[int]:
    """Rows in each part of ``sizes`` bytes, from the line length of the file's first
    megabyte (read once; 2% to spare): a short estimate only costs a copy when the
    columns grow."""
    head = memoryview(data)[: 1 << 20]
    per_byte = max(bytes(head).count(b"\n"), 1) / max(len(head), 1)
    return [int(size * per_byte * 1.02) + 1024 for size in sizes]


def _width(data: pa.Buffer, delimiter: str) -> int:
    """Words a doc id takes, from the longest in the file's first megabyte: a later,
    longer id moves its part to arrays of its own, which costs a copy, never a wrong id."""
    head = memoryview(data)[: 1 << 20]
    end = bytes(head).rfind(b"\n") + 1 or len(head)
    options = csv_options(RUN_COLUMNS, delimiter, {"doc": pa.binary()}, use_threads=False)
    try:
        docs = pacsv.read_csv(pa.BufferReader(data.slice(0, end)), **options).column("doc")
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return 1  # the parts find out what is wrong, or grow their columns
    return max(1, -(-_longest(docs) // 8))


def _wait(
    threads: list[threading.Thread],
    parts: list[_Part],
    path: Path,
    total: int,
    progress: ProgressFn | None,
) -> None:
    """Join the threads, reporting the bytes parsed so far (from this thread only: the
    callback draws a progress bar)."""
    for thread in threads:
        while thread.is_alive():
            thread.join(timeout=0.1)
            if progress is not None:
                progress(path, min(sum(p.done for p in parts), total), total)
    if progress is not None:
        progress(path, sum(p.done for p in parts), total)


class _Digest:
    """The file's BLAKE3 digest (``b3sum``'s) from the mapped pages, taken while the parts
    parse. It is only written into the report, so it must not slow the parse: while the
    parts run, its thread has the lowest priority (on Linux, where a thread's nice value
    is its own) and takes only what a core leaves idle. Then the rest is hashed by a
    thread of normal priority (:meth:`promote`: a priority cannot be raised again, and a
    thread left at the lowest would wait behind every process of a busy machine).
    Stopped when the file goes to the line parser, which hashes nothing.
    """

    def __init__(self, data: pa.Buffer, stop: threading.Event, pages: _Pages) -> None:
        self.data, self.stop, self.pages = data, stop, pages
        # one thread: it takes what the parts leave of the cores; SHA-256 took over twice
        # its CPU time (benchmarks/results/run_digest.txt)
        self.hash = blake3.blake3(max_threads=1)
        self.at = 0  # bytes hashed so far
        self.promoted = threading.Event()
        self.thread = threading.Thread(
            target=self._take, args=(True,), name="ragtriage-digest", daemon=True
        )

    def _take(self, background: bool) -> None:
        if background:
            _yield_to_others()
        view = memoryview(self.data)
        while self.at < len(view):
            if self.stop.is_set() or (background and self.promoted.is_set()):
                return
            end = min(self.at + HASH_STEP, len(view))
            self.hash.update(view[self.at : end])
            self.at = end
            self.pages.hash_read(end)
        del view
        self.data = pa.py_buffer(b"")  # all hashed: the mapped pages go with the last reference

    def promote(self) -> None:
        """Hash the rest at the priority of the calling thread."""
        self.promoted.set()
        background = self.thread

        def rest() -> None:
            background.join()  # it stops at its next step
            self._take(False)

        self.thread = threading.Thread(target=rest, name="ragtriage-digest", daemon=True)
        self.thread.start()

    def hexdigest(self) -> str:
        self.thread.join()
        return self.hash.hexdigest()


def _yield_to_others() -> None:
    """Lower the calling thread's priority to the least (nice 19), on Linux only: there a
    thread id names one thread; elsewhere the same call would lower the whole process."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


class _Part:
    def __init__(
        self,
        data: pa.Buffer,
        delimiter: str,
        region: tuple[np.ndarray, np.ndarray],
        stop: threading.Event,
        pages: _Pages,
        index: int,
    ) -> None:
        self.data, self.delimiter, self.stop = data, delimiter, stop
        self.pages, self.index = pages, index
        self.start = pages.parsed[index]  # where the part starts in the file
        self.pieces = _RunPieces(*region)
        self.done = 0  # bytes parsed, for the progress bar
        self.error: BaseException | None = None

    def read(self) -> None:
        try:
            self._read()
        except (pa.ArrowInvalid, UnicodeDecodeError):
            self.stop.set()  # the line parser reads the file, or names the line at fault
        except BaseException as error:  # re-raised by the reading thread
            self.error = error
            self.stop.set()

    def _read(self) -> None:
        source = pa.BufferReader(self.data)
        # bytes, not strings: arrow's UTF-8 check is skipped where every byte is visible
        # ASCII (nearly every run), and made where it is not (_utf8)
        types = {"query": pa.binary(), "doc": pa.binary(), "score": pa.float64()}
        options = csv_options(
            RUN_COLUMNS, self.delimiter, types, block_size=STREAM_BLOCK, use_threads=False
        )
        reader = pacsv.open_csv(source, **options)
        for batch in reader:
            if self.stop.is_set() or not self.pieces.add(batch):
                self.stop.set()
                return
            self.done = source.tell()
            # arrow may have read one block ahead of the rows it returned
            self.pages.part_read(self.index, self.start + max(self.done - STREAM_BLOCK, 0))
        self.done = self.data.size
        self.pages.part_read(self.index, self.start + self.done)


class _Columns:
    """The run's doc words and scores, one array each for all parts: part ``i`` writes
    its rows from ``base[i]``, and :meth:`join` closes the gaps left by estimates that ran
    over. Fresh memory is what reading costs most on a virtual machine (every page is
    zeroed on first touch), so the columns are written once, in place."""

    def __init__(self, capacities: list[int], width: int) -> None:
        self.base = np.concatenate([[0], np.cumsum(capacities)]).astype(np.int64)
        self.words = np.empty((int(self.base[-1]), width), np.uint64)
        self.scores = np.empty(int(self.base[-1]), np.float64)

    def region(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = int(self.base[i]), int(self.base[i + 1])
        return self.words[lo:hi], self.scores[lo:hi]

    def join(self, pieces: list[_RunPieces]) -> tuple[np.ndarray, np.ndarray]:
        if all(piece.words.base is self.words for piece in pieces):
            at = 0
            for i, piece in enumerate(pieces):
                _move_down(self.words, int(self.base[i]), at, piece.rows)
                _move_down(self.scores, int(self.base[i]), at, piece.rows)
                at += piece.rows
            return self.words[:at], self.scores[:at]
        # a part outgrew its region (more rows, or longer ids, than the estimate)
        width = max(piece.words.shape[1] for piece in pieces)
        rows = sum(piece.rows for piece in pieces)
        words, scores = np.zeros((rows, width), np.uint64), np.empty(rows, np.float64)
        at = 0
        for piece in pieces:
            words[at : at + piece.rows, : piece.words.shape[1]] = piece.words[: piece.rows]
            scores[at : at + piece.rows] = piece.scores[: piece.rows]
            at += piece.rows
        return words, scores


def _move_down(array: np.ndarray, start: int, to: int, rows: int) -> None:
    """``array[to : to + rows] = array[start : start + rows]`` for ``to <= start``, in
    pieces no longer than the gap, so that no piece overlaps its source and numpy never
    takes a temporary copy of the whole part."""
    gap = start - to
    if gap == 0 or rows == 0:
        return
    if gap * 64 < rows:  # a tiny gap: one buffered copy costs less than many small ones
        array[to : to + rows] = array[start : start + rows].copy()
        return
    for at in range(0, rows, gap):
        n = min(gap, rows - at)
        array[to + at : to + at + n] = array[start + at : start + at + n]


class _RunPieces:
    """A part's columns filled block by block: query runs, doc words and scores, in the
    part's region of the shared :class:`_Columns` until it outgrows it (:meth:`_reserve`),
    so the columns are never concatenated block by block."""

    def __init__(self, words: np.ndarray, scores: np.ndarray) -> None:
        self.heads: list[pa.Array] = []
        self.lengths: list[np.ndarray] = []
        self.words, self.scores = words, scores
        self.rows = 0

    def add(self, batch: pa.RecordBatch) -> bool:
        """Append a block; ``False`` when the line parser must read the file instead.

        That is when a score is not finite (the line parser accepts ``inf`` but refuses
        NaN and an overflowing literal such as ``1e400``, which arrow reads as inf too)
        or an id is unusable (see :func:`fast_ids_usable`).
        """
        scores = batch.column("score").to_numpy()
        if not np.isfinite(scores).all():
            return False
        queries = batch.column("query")
        starts = run_starts(queries)
        # a query's rows repeat its id: checking the first of each run checks them all
        heads, heads_ascii = _utf8(queries.take(pa.array(starts)))
        docs, docs_ascii = _utf8(batch.column("doc"))
        longest = _longest(docs)
        heads_visible = heads_ascii and _longest(heads) <= MAX_ID_BYTES
        if not _usable(heads, heads_visible, docs, docs_ascii and longest <= MAX_ID_BYTES):
            return False
        self.heads.append(heads)
        self.lengths.append(np.diff(np.append(starts, len(queries))))
        width = max(1, -(-longest // 8))
        self._reserve(self.rows + batch.num_rows, width)
        end = self.rows + batch.num_rows
        write_doc_words(docs, self.words[self.rows : end, :width], ascii=docs_ascii)
        if width < self.words.shape[1]:
            self.words[self.rows : end, width:] = 0
        self.scores[self.rows : end] = scores
        self.rows = end
        return True

    def _reserve(self, rows: int, width: int) -> None:
        """Room for ``rows`` rows of ``width`` words: a quarter more rows each time the
        region falls short. ``np.empty``: every cell is written before it is read,
        padding words included."""
        if rows <= len(self.scores) and width <= self.words.shape[1]:
            return
        capacity = len(self.scores)
        if rows > capacity:
            capacity = max(rows, int(capacity * 1.25))
        width = max(width, self.words.shape[1])
        old = self.words.shape[1]
        words = np.empty((capacity, width), np.uint64)
        words[: self.rows, :old] = self.words[: self.rows]
        words[: self.rows, old:] = 0
        scores = np.empty(capacity, np.float64)
        scores[: self.rows] = self.scores[: self.rows]
        self.words, self.scores = words, scores


def _join(
    parts: list[_RunPieces], columns: _Columns, source: str, digest: Callable[[], str]
) -> Run:
    """One run from the parts' columns, in file order (a query cut between two parts
    is two runs of rows, merged by :meth:`Run.query_runs`)."""
    heads = [head for part in parts for head in part.heads]
    head_codes, query_ids = encode(pa.chunked_array(heads, pa.string()))
    lengths = np.concatenate([length for part in parts for length in part.lengths])
    words, score = columns.join(parts)
    runs = (head_codes, lengths)
    run = Run(query_ids, None, None, None, score, source, words=words, query_runs=runs)
    run.digest = digest
    return run


def fast_ids_usable(queries: pa.Array | pa.ChunkedArray, docs: pa.Array | pa.ChunkedArray) -> bool:
    """Whether the fast reader's ids are the line parser's: clean (no control character,
    not over-long) and no query id starting with ``#`` (a comment line, to trec_eval and
    the line parser, that the fast reader only recognises in the file's first 4 KB)."""
    return _usable(queries, _visible_ids(queries), docs, _visible_ids(docs))


def _usable(
    queries: pa.Array | pa.ChunkedArray,
    queries_visible: bool,
    docs: pa.Array | pa.ChunkedArray,
    docs_visible: bool,
) -> bool:
    """:func:`fast_ids_usable`, told whether each column is short visible ASCII."""
    if pc.any(pc.starts_with(queries, "#")).as_py():
        return False
    if queries_visible and docs_visible:
        return True  # what the exact checks below decide, in two passes over the bytes
    return ids_clean(queries) and ids_clean(docs) and not _has_space(queries, docs)


def _longest(column: pa.Array | pa.ChunkedArray) -> int:
    """Bytes in the longest value (0 for none)."""
    return pc.max(pc.binary_length(column)).as_py() or 0


def _utf8(column: pa.Array) -> tuple[pa.Array, bool]:
    """A binary column as strings, and whether every byte is visible ASCII: then it is
    UTF-8 as it stands (a view, no copy, no check); else arrow's cast checks it (invalid
    UTF-8 raises ``ArrowInvalid``, and the line parser names the line)."""
    if len(column) == 0:
        return column.cast(pa.string()), True
    as_text = column.view(pa.string())  # reinterpreted only: the bytes are checked below
    if visible_ascii(string_bytes(as_text)):
        return as_text, True
    return column.cast(pa.string()), False


def _visible_ids(column: pa.Array | pa.ChunkedArray) -> bool:
    """Every id visible ASCII (no control character, no space) and short enough."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    return all(
        visible_ascii(string_bytes(chunk)) and _longest(chunk) <= MAX_ID_BYTES
        for chunk in chunks
        if len(chunk)
    )


def write_doc_words(docs: pa.Array, out: np.ndarray, *, ascii: bool | None = None) -> None:
    """:func:`write_words`, by arrow's padding where every id is ASCII (one byte a
    character): each id NUL-padded to the row's ``8 * width`` bytes is the row's words,
    big-endian, already laid out end to end. ``ascii``: already known to be visible ASCII
    (or not); ``None`` checks."""
    n, width = out.shape
    if ascii is None:
        ascii = bool(n) and pa.types.is_string(docs.type) and visible_ascii(string_bytes(docs))
    if n and ascii:
        padded = pc.utf8_rpad(docs, width=8 * width, padding="\0")
        offsets = np.frombuffer(padded.buffers()[1], np.int32, n + 1, padded.offset * 4)
        if int(offsets[0]) == 0 and int(offsets[-1]) == 8 * width * n:  # every id padded
            out[:] = np.frombuffer(padded.buffers()[2], ">u8", n * width).reshape(n, width)
            return
    write_words(docs, out)


def _has_space(*columns: pa.Array | pa.ChunkedArray) -> bool:
    """Whether an id holds a space: a tab-separated file whose later lines also use
    spaces (the delimiter is chosen from the first line), which trec_eval splits on."""
    for column in columns:
        chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
        if any((string_bytes(chunk) == 0x20).any() for chunk in chunks if len(chunk)):
            return True
    return False


def csv_options(
    columns: tuple[str, ...], delimiter: str, types: dict[str, pa.DataType], **read: Any
) -> dict[str, Any]:
    """pyarrow's CSV options for a TREC file of ``columns``: split on ``delimiter``, no
    quoting, only the columns of ``types`` read (as those types), and no value read as
    missing ("nan", "NULL", "N/A" are ids, or scores and labels refused). ``read``: more
    read options (block size, threads)."""
    return {
        "read_options": pacsv.ReadOptions(column_names=list(columns), **read),
        "parse_options": pacsv.ParseOptions(delimiter=delimiter, quote_char=False),
        "convert_options": pacsv.ConvertOptions(
            column_types=types,
            include_columns=list(types),
            null_values=[],
            strings_can_be_null=False,
        ),
    }


_COMMENT = re.compile(rb"(?:^|\n)[ \t]*#")  # a comment line; "#" inside an id is not one


def fast_delimiter(path: Path) -> str | None:
    """The delimiter pyarrow can split on, or ``None`` when the file needs the line parser
    (comment lines, runs of spaces, mixed tabs and spaces, a blank first line). Only the
    first 4 KB are looked at: what differs later is caught in the parsed columns
    (:func:`fast_ids_usable`) or by arrow's own column count. A ``#`` inside an id (every
    MS MARCO v2.1 segment id has one) does not keep a file from the fast reader."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    first = head.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0]
    if not first.strip() or _COMMENT.search(head) or b"  " in head:
        return None
    if b"\t" in first and b" " in first:
        return None
    return "\t" if b"\t" in first else " "
