"""TREC qrels (``qid iter docno rel``) and runs (``qid Q0 docno rank score tag``).

The fast path reads columns with pyarrow's multi-threaded CSV reader, so a run of a
hundred million rows never becomes Python objects. Anything the fast path cannot read
(comment lines, runs of spaces, a malformed line) goes through the line parser, which
names the failing line and field; both paths give the same columns.
"""

from __future__ import annotations

import contextlib
import hashlib
import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ragtriage.data.readers import read_text
from ragtriage.data.tables import (
    Qrels,
    Run,
    doc_words,
    encode,
    fingerprint,
    run_starts,
    write_words,
)
from ragtriage.errors import InputError

RUN_COLUMNS = ("query", "q0", "doc", "rank", "score", "tag")
QRELS_COLUMNS = ("query", "iter", "doc", "label")


ProgressFn = Callable[[Path, int, int], None]
_PROGRESS: ContextVar[ProgressFn | None] = ContextVar("ragtriage_read_progress", default=None)
STREAM_BLOCK = 16 << 20


@contextmanager
def read_progress(callback: ProgressFn | None) -> Iterator[None]:
    """Within the block, fast-path reads report ``callback(path, bytes_read, total)``."""
    token = _PROGRESS.set(callback)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def read_trec_run(path: str | Path) -> Run:
    """A 6-column TREC run; the rank column is ignored, as trec_eval does.

    Read block by block: each block's doc ids become fixed-width words and its query ids
    runs of equal neighbours before the next block is parsed, so the strings of a 4 GB run
    are never all in memory at once. The file's SHA-256 is taken on the way through.
    """
    path = Path(path)
    run = _stream_run(path) if _fast_delimiter(path) else None
    if run is None:
        table = _slow_columns(path, RUN_COLUMNS, score_field="score")
        scores = table.column("score").to_numpy()
        run = Run.from_columns(table.column("query"), table.column("doc"), scores, str(path))
    return run


def _stream_run(path: Path) -> Run | None:
    """The run via pyarrow's streaming CSV reader, or ``None`` to use the line parser.

    Three things overlap, one core each where there are cores: arrow parses block
    ``i + 1`` on a prefetch thread while this thread turns block ``i`` into columns,
    and a third thread takes the file's SHA-256 (hashlib and arrow release the GIL).
    Done one after the other they cost 7 + 4 + 2.6 s on a 4 GB run.
    """
    digest = _FileDigest(path)
    source = _CountingReader(path, _PROGRESS.get())
    pieces = _RunPieces(_estimate_rows(path))
    try:
        reader = pacsv.open_csv(
            source,
            read_options=pacsv.ReadOptions(column_names=list(RUN_COLUMNS), block_size=STREAM_BLOCK),
            parse_options=pacsv.ParseOptions(delimiter=source.delimiter, quote_char=False),
            convert_options=pacsv.ConvertOptions(
                column_types={"query": pa.string(), "doc": pa.string(), "score": pa.float64()},
                include_columns=["query", "doc", "score"],
                strings_can_be_null=False,
            ),
        )
        for batch in _prefetched(reader):
            if not pieces.add(batch):
                break  # a non-finite score: the line parser names its line
        else:
            if pieces.rows:
                return pieces.finish(str(path), digest.hexdigest() if source.at_end() else None)
    except (pa.ArrowInvalid, UnicodeDecodeError):
        pass
    finally:
        source.close()
    digest.cancel()
    return None


def _prefetched(reader: pacsv.CSVStreamingReader, depth: int = 2) -> Iterator[pa.RecordBatch]:
    """The reader's batches, parsed ``depth`` ahead on a thread; its errors re-raised here."""
    batches: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def fill() -> None:
        try:
            for batch in reader:
                while not stop.is_set():
                    try:
                        batches.put(batch, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            batches.put(_END)
        except BaseException as error:  # noqa: BLE001 - handed to the consumer
            batches.put(error)

    worker = threading.Thread(target=fill, name="ragtriage-csv", daemon=True)
    worker.start()
    try:
        while (item := batches.get()) is not _END:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while worker.is_alive():
            with contextlib.suppress(queue.Empty):
                batches.get(timeout=0.05)
        worker.join()


_END = object()


def _estimate_rows(path: Path) -> int:
    """Lines in the file, from the line length of its first megabyte (2% to spare)."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(1 << 20)
    lines = max(head.count(b"\n"), 1)
    return int(size / max(len(head), 1) * lines * 1.02) + 1024


class _FileDigest:
    """A file's SHA-256, taken on a thread of its own while the file is parsed."""

    def __init__(self, path: Path) -> None:
        self._digest = hashlib.sha256()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(path,), daemon=True)
        self._thread.start()

    def _run(self, path: Path) -> None:
        buffer = memoryview(bytearray(4 << 20))
        with path.open("rb", buffering=0) as handle:
            while not self._stop.is_set() and (size := handle.readinto(buffer)):
                self._digest.update(buffer[:size])

    def cancel(self) -> None:
        """Stop hashing: the run goes to the line parser, which hashes nothing."""
        self._stop.set()

    def hexdigest(self) -> str:
        self._thread.join()
        return self._digest.hexdigest()


class _CountingReader:
    """A binary file for arrow that reports how far it has read."""

    def __init__(self, path: Path, progress: ProgressFn | None) -> None:
        self.path, self.progress = path, progress
        self.handle = path.open("rb")
        self.total = path.stat().st_size
        self.done = 0
        self.delimiter = _fast_delimiter(path) or " "
        self.closed = False

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        self.done += len(data)
        if self.progress is not None:
            self.progress(self.path, self.done, self.total)
        return data

    def at_end(self) -> bool:
        """Whether arrow read the whole file (so its digest describes what was parsed)."""
        return self.done == self.total

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        if not self.closed:
            self.handle.close()
            self.closed = True


class _RunPieces:
    """A run's columns filled block by block: query runs, doc words and scores.

    Word and score arrays are sized from the first block's bytes per row and grown if
    the estimate falls short, so the columns are written once, never concatenated.
    """

    def __init__(self, estimate: int) -> None:
        self.estimate = estimate
        self.heads: list[pa.Array] = []
        self.lengths: list[np.ndarray] = []
        self.words = np.zeros((0, 1), np.uint64)
        self.scores = np.zeros(0, np.float64)
        self.rows = 0
        self.bytes_per_row = 0.0

    def add(self, batch: pa.RecordBatch) -> bool:
        scores = batch.column("score").to_numpy()
        if not np.isfinite(scores).all():
            return False
        queries = batch.column("query")
        starts = run_starts(queries)
        self.heads.append(queries.take(pa.array(starts)))
        self.lengths.append(np.diff(np.append(starts, len(queries))))
        docs = batch.column("doc")
        longest = pc.max(pc.binary_length(docs)).as_py() or 0
        width = max(1, -(-longest // 8))
        self._reserve(self.rows + batch.num_rows, width)
        end = self.rows + batch.num_rows
        write_words(docs, self.words[self.rows : end, :width])
        self.words[self.rows : end, width:] = 0
        self.scores[self.rows : end] = scores
        self.rows = end
        return True

    def _reserve(self, rows: int, width: int) -> None:
        """Room for ``rows`` rows of ``width`` words: the estimated row count at first,
        then a quarter more each time the estimate falls short. ``np.empty``: every cell
        is written before it is read, padding words included."""
        if rows <= len(self.scores) and width <= self.words.shape[1]:
            return
        capacity = len(self.scores)
        if rows > capacity:
            capacity = max(rows, self.estimate if capacity == 0 else int(capacity * 1.25))
        width = max(width, self.words.shape[1])
        old = self.words.shape[1]
        words = np.empty((capacity, width), np.uint64)
        words[: self.rows, :old] = self.words[: self.rows]
        words[: self.rows, old:] = 0
        scores = np.empty(capacity, np.float64)
        scores[: self.rows] = self.scores[: self.rows]
        self.words, self.scores = words, scores

    def finish(self, source: str, sha256: str | None) -> Run:
        head_codes, query_ids = encode(pa.chunked_array(self.heads, pa.string()))
        runs = (head_codes, np.concatenate(self.lengths))
        self.heads = self.lengths = []
        words, score = self.words, self.scores
        words, score = words[: self.rows], score[: self.rows]  # views: no second copy
        self.words = self.scores = np.zeros(0)
        run = Run(query_ids, None, None, None, score, source, words=words, query_runs=runs)
        run.sha256 = sha256
        return run


def read_trec_qrels(path: str | Path) -> Qrels:
    """TREC qrels; every query listed is evaluated, even one with no relevant document.

    Query ids keep their first-appearance order. Doc ids stay arrow strings (the ranking
    reads them as doc words), and the duplicate check sorts one 64-bit fingerprint per
    line, so three million lines never become Python strings or a doc dictionary.
    """
    path = Path(path)
    table = _fast_columns(path, QRELS_COLUMNS, {"label": pa.int64()}, ("query", "doc", "label"))
    if table is None:
        table = _slow_columns(path, QRELS_COLUMNS, label_field="label")
    query = pc.dictionary_encode(table.column("query").combine_chunks())
    codes = query.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    doc = table.column("doc").combine_chunks()
    if _has_duplicate(codes, doc_words(doc)):
        _raise_duplicate(path, _slow_columns(path, QRELS_COLUMNS, label_field="label"))
    return Qrels(
        query.dictionary.to_numpy(zero_copy_only=False).astype(object),
        codes,
        doc,
        table.column("label").to_numpy().astype(np.int64),
        source=str(path),
    )


def _has_duplicate(codes: np.ndarray, words: np.ndarray) -> bool:
    """Whether a (query, doc) pair repeats: fingerprints sorted, equal ones checked exactly."""
    prints = fingerprint(words) ^ (codes.astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F))
    ordered = np.sort(prints)  # values, not an argsort: the common case ends here
    if not (ordered[1:] == ordered[:-1]).any():
        return False
    order = np.argsort(prints, kind="stable")
    same = np.flatnonzero(prints[order][1:] == prints[order][:-1])
    rows = order[np.concatenate([same, same + 1])]
    pairs = [(int(codes[r]), words[r].tobytes()) for r in rows.tolist()]
    return len(set(pairs)) < len(pairs)


def _fast_delimiter(path: Path) -> str | None:
    """The delimiter pyarrow can split on, or ``None`` when the file needs the line parser
    (comments, runs of spaces, mixed tabs and spaces, a blank first line)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    first = head.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0]
    if not first.strip() or b"#" in head or b"  " in head or b"\t" in first and b" " in first:
        return None
    return "\t" if b"\t" in first else " "


def _fast_columns(
    path: Path, names: tuple[str, ...], types: dict[str, pa.DataType], keep: tuple[str, ...]
) -> pa.Table | None:
    """Columns via pyarrow, or ``None`` when the file needs the careful line parser."""
    delimiter = _fast_delimiter(path)
    if delimiter is None:
        return None
    column_types = {name: pa.string() for name in names} | types
    try:
        return pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=list(names), block_size=64 << 20),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False),
            convert_options=pacsv.ConvertOptions(
                column_types=column_types, include_columns=list(keep), strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return None


def _slow_columns(
    path: Path,
    names: tuple[str, ...],
    *,
    score_field: str | None = None,
    label_field: str | None = None,
) -> pa.Table:
    """Parse line by line; the first bad line becomes an error naming line and field."""
    columns: dict[str, list] = {"query": [], "doc": [], "value": [], "line": []}
    for number, raw in enumerate(read_text(path).splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        parts = stripped.split()
        if len(parts) != len(names):
            raise InputError(
                f"expected {len(names)} whitespace-separated columns "
                f"({' '.join(names)}), got {len(parts)}",
                path=path,
                line=number,
            )
        row = dict(zip(names, parts, strict=True))
        value = _number(row, score_field or label_field or "", path, number, bool(score_field))
        columns["query"].append(row["query"])
        columns["doc"].append(row["doc"])
        columns["value"].append(value)
        columns["line"].append(number)
    if not columns["query"]:
        raise InputError("file has no data lines", path=path)
    value_name = score_field or label_field or "value"
    columns[value_name] = columns.pop("value")
    return pa.table(columns)


def _number(row: dict[str, str], field: str, path: Path, line: int, is_score: bool) -> float | int:
    text = row[field]
    try:
        value: float | int = float(text) if is_score else int(text)
    except ValueError:
        kind = "a number" if is_score else "an integer"
        raise InputError(f"{text!r} is not {kind}", path=path, line=line, field=field) from None
    if is_score and not np.isfinite(value):
        raise InputError(f"score {text!r} is not finite", path=path, line=line, field=field)
    return value


def _raise_duplicate(path: Path, table: pa.Table) -> None:
    frame = table.to_pandas()
    first = frame[frame.duplicated(["query", "doc"])].iloc[0]
    raise InputError(
        f"duplicate judgement for query {first['query']!r}, doc {first['doc']!r}",
        path=path,
        line=int(first["line"]),
        field="doc",
    )
