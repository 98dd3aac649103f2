"""Turn a run and qrels into ranked label matrices: the one input every metric reads.

trec_eval's semantics (docs/retrieval.md, 'Equal to trec_eval'; at ``precision="float32"``
those of trec_eval up to 9.0.7, whose git tag ``v9.0.8`` prints 9.0.7), vectorised: each
batch is a ``[queries, depth]`` matrix sorted row-wise with numpy, so a hundred million
rows cost one row-wise argsort and no Python object per row; queries are batched by list
length so that one long list does not pad every other row.

A run in the system's own order (``Run.order == "given"``: a trace, a retriever ragtriage
ran) is not re-sorted: that order is what reached the generator, and re-sorting tied
scores by doc id ranked a chunk passed third as fourth (recall@3 0 for a context that
held it). Only a run *file* is ranked as trec_eval ranks it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ragtriage.data.tables import Qrels, Run, doc_words, id_hash
from ragtriage.errors import InputError

__all__ = [
    "BATCH_CELLS",
    "DuplicatePolicy",
    "JudgedQrels",
    "PAD",
    "Precision",
    "RankedBatch",
    "RankingStats",
    "WORKERS",
    "rank",
    "score_keys",
]

Precision = Literal["float32", "float64"]
DuplicatePolicy = Literal["max", "error"]
PAD = -1
BATCH_CELLS = 1 << 18  # 2 MiB per int64 matrix: cache-sized, reused from the heap
WORKERS = min(os.cpu_count() or 1, 4)


@dataclass(frozen=True)
class RankedBatch:
    """Judged labels in rank order for a batch of queries.

    ``labels[i, r]`` is the label of the result at rank ``r + 1`` of query ``queries[i]``;
    ``-1`` stands for an unjudged result and for ranks past the end of the list.
    ``rows`` holds the run row at each rank (``-1`` past the end); ``scores`` and ``docs``
    are read through it.
    ``ideal`` holds each query's positive labels sorted descending (0-padded).
    """

    queries: np.ndarray
    labels: np.ndarray
    rows: np.ndarray
    num_rel: np.ndarray
    ideal: np.ndarray
    level: int
    run: Run | None = field(default=None, repr=False, compare=False)

    def relevant(self) -> np.ndarray:
        return self.labels >= self.level

    @property
    def scores(self) -> np.ndarray:
        """Each ranked result's score (NaN past the end), gathered on use: a float64
        matrix per batch would double the memory a million-query run needs."""
        return self.top_scores(None)

    def top_scores(self, k: int | None) -> np.ndarray:
        """``scores[:, :k]`` without gathering the ranks below ``k``."""
        rows = self.rows if k is None else self.rows[:, :k]
        valid = rows >= 0
        if self.run is None or not len(self.run):
            return np.full(rows.shape, np.nan)
        return np.where(valid, self.run.score[np.where(valid, rows, 0)], np.nan)

    @property
    def docs(self) -> np.ndarray:
        """Doc codes (into ``run.doc_ids``) at each rank, ``-1`` past the end."""
        if self.run is None or not len(self.run):
            return np.full(self.rows.shape, -1, np.int64)
        valid = self.rows >= 0
        return np.where(valid, self.run.doc[np.where(valid, self.rows, 0)], -1)

    def doc_ids(self, row: int, k: int) -> list[str]:
        """The ids of query ``row``'s top ``k`` results, without a global doc dictionary."""
        if self.run is None:
            return []
        rows = self.rows[row, :k]
        return self.run.doc_strings(rows[rows >= 0])


@dataclass(frozen=True)
class RankingStats:
    """What the join of run and qrels found, for warnings and the report."""

    missing_queries: list[str]
    unknown_queries: int
    duplicates: int


def score_keys(score: np.ndarray) -> np.ndarray:
    """Non-zero uint32 keys that order like the scores rounded to float32.

    Rounding to nearest is monotone, so keys that differ order the scores at any
    precision; only equal keys need a closer look at float64 (:func:`_break_ties`).
    """
    # + 0.0 turns -0.0 into 0.0: trec_eval compares them equal (a tie, not an order).
    # A finite score beyond float32's range becomes inf, as in trec_eval's float: no
    # numpy overflow warning for it. inf ties inf (equal keys), as it does there.
    with np.errstate(over="ignore"):
        bits = (score.astype(np.float32) + np.float32(0.0)).view(np.uint32)
    negative = (bits & np.uint32(0x80000000)) != 0
    return np.where(negative, ~bits, bits | np.uint32(0x80000000)).astype(np.uint32)


@dataclass(frozen=True)
class _Judged:
    """Qrels entries as doc words grouped by query: ``start``/``count`` index ``words``."""

    words: np.ndarray
    label: np.ndarray
    start: np.ndarray
    count: np.ndarray

    @classmethod
    def build(cls, qrels: Qrels, width: int) -> _Judged:
        """Judged docs that a run doc could equal (ids no wider than the run's words)."""
        n_queries = len(qrels.query_ids)
        words = doc_words(qrels.doc) if len(qrels.doc) else np.zeros((0, 1), np.uint64)
        fits = (words[:, width:] == 0).all(axis=1) if words.shape[1] > width else None
        query, label, words = qrels.query, qrels.label, words[:, :width]
        if fits is not None:
            query, label, words = query[fits], label[fits], words[fits]
        if words.shape[1] < width:
            words = np.pad(words, ((0, 0), (0, width - words.shape[1])))
        order = np.argsort(query, kind="stable")
        count = np.bincount(query, minlength=n_queries).astype(np.int64)
        return cls(words[order], label[order], np.cumsum(count) - count, count)


@dataclass(frozen=True)
class _Ideal:
    """Positive labels sorted by query, then label descending, computed once per ranking."""

    query: np.ndarray
    label: np.ndarray

    @classmethod
    def build(cls, qrels: Qrels) -> _Ideal:
        positive = qrels.label > 0
        q, lab = qrels.query[positive], qrels.label[positive]
        order = np.lexsort((-lab, q))
        return cls(q[order], lab[order])

    def matrix(self, queries: np.ndarray) -> np.ndarray:
        starts = np.searchsorted(self.query, queries)
        counts = np.searchsorted(self.query, queries, side="right") - starts
        width = max(int(counts.max(initial=0)), 1)
        ideal = np.zeros((len(queries), width), np.int64)
        rows = np.repeat(np.arange(len(queries)), counts)
        cols = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        ideal[rows, cols] = self.label[np.repeat(starts, counts) + cols]
        return ideal


@dataclass(frozen=True)
class JudgedQrels:
    """The qrels side of every ranking, built once and shared by any number of runs.

    Holds the relevant counts at ``level``, the ideal label lists and the judged doc words
    (per run doc-id width, built on first use): what :func:`rank` would otherwise rebuild
    for each run (``--repeat``, an evaluator scoring many runs).
    """

    qrels: Qrels
    level: int
    num_rel: np.ndarray
    ideal: _Ideal
    label_dtype: np.dtype
    _judged: dict[int, _Judged] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(cls, qrels: Qrels, level: int = 1) -> JudgedQrels:
        n_queries = len(qrels.query_ids)
        num_rel = np.bincount(qrels.query[qrels.label >= level], minlength=n_queries)
        return cls(
            qrels=qrels,
            level=level,
            num_rel=num_rel.astype(np.int64),
            ideal=_Ideal.build(qrels),
            label_dtype=_label_dtype(qrels.label),
        )

    def judged(self, width: int) -> _Judged:
        if width not in self._judged:
            self._judged[width] = _Judged.build(self.qrels, width)
        return self._judged[width]


@dataclass(frozen=True)
class _Context:
    """Everything a batch needs, computed once per ranking."""

    run: Run
    qrels: JudgedQrels
    order: np.ndarray | None
    starts: np.ndarray
    counts: np.ndarray
    judged: _Judged
    precision: Precision
    duplicates: DuplicatePolicy


def rank(
    run: Run,
    qrels: Qrels | JudgedQrels,
    *,
    level: int = 1,
    precision: Precision = "float64",
    duplicates: DuplicatePolicy = "max",
    batch_cells: int = BATCH_CELLS,
) -> tuple[list[RankedBatch], RankingStats]:
    """Ranked label batches for every query in ``qrels`` (missing queries get empty rows).

    ``qrels`` may be a :class:`JudgedQrels` built once (its own level then applies).
    """
    judged = qrels if isinstance(qrels, JudgedQrels) else JudgedQrels.build(qrels, level)
    qrels = judged.qrels
    n_queries = len(qrels.query_ids)
    to_golden = _positions(run.query_ids, qrels.query_ids) if len(run) else None
    unknown = int((to_golden < 0).sum()) if to_golden is not None else 0
    order, starts, counts = _group(run, to_golden, n_queries)
    context = _Context(
        run=run,
        qrels=judged,
        order=order,
        starts=starts,
        counts=counts,
        judged=judged.judged(run.words.shape[1] if len(run) else 1),
        precision=precision,
        duplicates=duplicates,
    )
    batches: list[RankedBatch] = []
    dup_total = 0
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:  # numpy sorts release the GIL
        for batch, dups in pool.map(
            partial(_build_batch, ctx=context), _batches(counts, batch_cells)
        ):
            batches.append(batch)
            dup_total += dups
    missing = qrels.query_ids[counts == 0].tolist()
    return batches, RankingStats(missing, unknown, dup_total)


def _positions(values: np.ndarray, universe: np.ndarray) -> np.ndarray:
    """Each value's index in ``universe`` (unique ids), ``-1`` if absent; arrow's hash
    join, faster than pandas' ``get_indexer`` on a million ids."""
    try:
        strings, ids = pa.array(values, pa.string()), pa.array(universe, pa.string())
    except (pa.ArrowTypeError, pa.ArrowInvalid):  # ids that are not all str
        return pd.Index(universe).get_indexer(values)
    found = pc.index_in(strings, value_set=ids)
    return found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _label_dtype(labels: np.ndarray) -> np.dtype:
    """The narrowest signed integer type holding every label and the ``-1`` padding."""
    if not len(labels):
        return np.dtype(np.int8)
    low, high = min(int(labels.min()), PAD), max(int(labels.max()), 0)
    return np.promote_types(np.min_scalar_type(low), np.min_scalar_type(-high - 1))


def _group(
    run: Run, to_golden: np.ndarray | None, n_queries: int
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """A row order grouping rows by query (``None``: already grouped), with offsets.

    TREC runs list each query's rows together, so the check works on runs of equal codes
    (a million, not a hundred million rows); rows of queries outside the golden set are
    never read, wherever they are.
    """
    if to_golden is None:
        return None, np.zeros(n_queries, np.int64), np.zeros(n_queries, np.int64)
    run_codes, heads, lengths = run.query_runs()
    code = to_golden[run_codes]
    known = code >= 0
    counts = np.bincount(code[known], weights=lengths[known], minlength=n_queries)
    counts = counts.astype(np.int64)
    seen = np.sort(code[known])
    if not (seen[1:] == seen[:-1]).any():  # each golden query is one run of rows
        starts = np.zeros(n_queries, np.int64)
        starts[code[known]] = heads[known]
        return None, starts, counts
    golden_code = np.repeat(code, lengths)
    valid = np.flatnonzero(golden_code >= 0)
    order = valid[np.argsort(golden_code[valid], kind="stable")]
    return order, np.cumsum(counts) - counts, counts


def _batches(counts: np.ndarray, batch_cells: int) -> Iterator[np.ndarray]:
    """Query indices in batches of similar list length, each about ``batch_cells`` cells."""
    width = np.maximum(counts, 1)
    bucket = np.ceil(np.log2(width)).astype(np.int64)
    for b in np.flatnonzero(np.bincount(bucket)):
        members = np.flatnonzero(bucket == b)
        per_batch = max(batch_cells // int(width[members].max()), 1)
        for i in range(0, len(members), per_batch):
            yield members[i : i + per_batch]


def _build_batch(queries: np.ndarray, ctx: _Context) -> tuple[RankedBatch, int]:
    run = ctx.run
    n = ctx.counts[queries]
    ranked, block = _ranked_rows(queries, n, ctx)
    words = None
    if block is not None:  # the lists lie end to end in the run, unchanged: read in place
        words = run.words[block : block + ranked.size].reshape(*ranked.shape, -1)
    elif len(run):
        words = run.words[np.where(ranked >= 0, ranked, 0)]
    ranked, words, dups = _drop_duplicates(ranked, words, queries, ctx)
    valid = ranked >= 0
    batch = RankedBatch(
        queries=queries,
        labels=_labels(queries, valid, words, ctx),
        rows=ranked.astype(np.int32) if len(run) < 2**31 else ranked,
        num_rel=ctx.qrels.num_rel[queries],
        ideal=ctx.qrels.ideal.matrix(queries),
        level=ctx.qrels.level,
        run=run,
    )
    return batch, dups


def _ranked_rows(
    queries: np.ndarray, n: np.ndarray, ctx: _Context
) -> tuple[np.ndarray, int | None]:
    """``[queries, depth]`` run rows in trec_eval order (score desc, doc id desc), -1 padded;
    a run in ``given`` order keeps each query's rows as listed. With them, the first run
    row when the rows are the run's own, end to end and in order (:func:`_block`), so that
    what is read through them can be read in place; else ``None``.

    Most run files list each query's rows best first: a list whose scores strictly fall
    is in trec_eval's order as it stands (no tie for the doc ids to break), so only the
    other lists are sorted (:func:`_sort_rows`).
    """
    depth = max(int(n.max(initial=0)), 1)
    first = ctx.starts[queries][:, None]
    cols = np.arange(depth, dtype=np.int64)
    full = bool((n == depth).all())  # the common case: every list equally long
    valid = np.ones((len(queries), depth), bool) if full else cols < n[:, None]
    block = _block(first[:, 0], depth) if full and ctx.order is None and len(ctx.run) else None
    at = first + cols if full else np.where(valid, first + cols, 0)
    src = ctx.order[at] if ctx.order is not None else at
    del at
    listed = src if full else np.where(valid, src, PAD)
    if ctx.run.order == "given":  # grouping is stable: each list keeps its own order
        return listed, block
    if block is not None:
        score = ctx.run.score[block : block + src.size].reshape(src.shape)
    else:
        score = ctx.run.score[src] if len(ctx.run) else np.zeros(src.shape)
    del src
    falling = _strictly_falling(score, None if full else valid, ctx.precision)
    if falling.all():
        return listed, block
    rest = np.flatnonzero(~falling)
    listed[rest] = _sort_rows(score[rest], first[rest], valid[rest], full, ctx)
    return listed, None


def _block(first: np.ndarray, depth: int) -> int | None:
    """The first row of a batch of equally long lists that follow one another in the
    run (each query's rows right after the one before: a run listing its queries in the
    golden set's order), else ``None``."""
    if not len(first) or not (np.diff(first) == depth).all():
        return None
    return int(first[0])


def _strictly_falling(
    score: np.ndarray, valid: np.ndarray | None, precision: Precision
) -> np.ndarray:
    """Per row, whether each listed score is below the one before it, compared at the
    ranking's precision (float32 rounding is monotone, so a strict fall at float32 is
    one at float64; ``-0.0`` equals ``0.0``, as in trec_eval: a tie)."""
    values = score if precision == "float64" else score.astype(np.float32)
    falls = values[:, 1:] < values[:, :-1]
    if valid is not None:
        falls |= ~valid[:, 1:]
    return np.asarray(falls.all(axis=1))


def _sort_rows(
    score: np.ndarray, first: np.ndarray, valid: np.ndarray, full: bool, ctx: _Context
) -> np.ndarray:
    """Rows of ``score`` (each list's scores as listed) in trec_eval order, as run rows.

    Sorting *values* row-wise is several times cheaper than an argsort, so each cell's key
    packs its score key over its position in the query's list, and the position gives the
    row back. That orders by score alone: the few rows where two scores tie are then
    re-sorted with the doc ids as the tie-break.
    """
    cols = np.arange(score.shape[1], dtype=np.int64)
    keys = score_keys(score).astype(np.uint64) << np.uint64(32)
    keys |= cols.astype(np.uint64)
    keys = ~keys  # ascending sort of the complement: score descending, padding last
    if not full:
        keys[~valid] = ~np.uint64(0)
    keys.sort(axis=1)
    at = first + (~keys & np.uint64(0xFFFFFFFF)).astype(np.int64)
    if not full:
        at = np.where(valid, at, 0)
    ranked = ctx.order[at] if ctx.order is not None else at
    if not full:
        ranked = np.where(valid, ranked, PAD)
    high = ~keys >> np.uint64(32)
    ties = np.flatnonzero(((high[:, 1:] == high[:, :-1]) & valid[:, 1:]).any(axis=1))
    if len(ties):
        exact = ctx.run.score if ctx.precision == "float64" else None
        ranked[ties] = _break_ties(ranked[ties], high[ties], ctx.run.words, exact)
    return ranked


def _break_ties(
    ranked: np.ndarray, high: np.ndarray, words: np.ndarray, score: np.ndarray | None
) -> np.ndarray:
    """Rows re-sorted exactly: score descending (the float32 key, then the float64 score
    when ``score`` is given), then doc id descending (strcmp)."""
    cells = np.where(ranked >= 0, ranked, 0)
    cell_words = words[cells]
    keys = [~cell_words[..., j] for j in range(cell_words.shape[-1] - 1, -1, -1)]
    if score is not None:  # + 0.0: -0.0 ties 0.0, as in trec_eval's double compare
        keys.append(-(score[cells] + 0.0))
    perm = np.lexsort([*keys, ~high], axis=-1)  # padding (high 0) sorts last
    return np.take_along_axis(ranked, perm, axis=1)


def _drop_duplicates(
    ranked: np.ndarray, words: np.ndarray | None, queries: np.ndarray, ctx: _Context
) -> tuple[np.ndarray, np.ndarray | None, int]:
    """Keep the best-ranked copy of a doc listed twice for one query; count the rest.
    Returns the rows, their words (a copy where a duplicate was dropped) and the count.

    A row-wise sort of one 64-bit id hash per doc finds the rows that may hold a
    duplicate; only those are checked exactly, on the full doc words.
    """
    if words is None:
        return ranked, words, 0
    valid = ranked >= 0
    # ids of up to 8 bytes are one word, which is its own exact fingerprint (id_hash
    # would map it one-to-one); only the suspects below are ever compared exactly
    print_ = words[..., 0] if words.shape[-1] == 1 else id_hash(words)
    print_ = np.where(valid, print_, 0)
    print_.sort(axis=1)
    pairs = (print_[:, 1:] == print_[:, :-1]).sum(axis=1)
    padding = np.maximum((~valid).sum(axis=1) - 1, 0)
    suspects = np.flatnonzero(pairs > padding)
    if not len(suspects):
        return ranked, words, 0
    kept, dup = _exact_duplicates(ranked[suspects], words[suspects])
    count = int(dup.sum())
    if count and ctx.duplicates == "error":
        row, col = np.argwhere(dup)[0]
        doc = ctx.run.doc_strings(ranked[suspects][row : row + 1, col])[0]
        raise InputError(
            f"doc {doc!r} is listed more than once for query "
            f"{ctx.qrels.qrels.query_ids[queries[suspects[row]]]!r} "
            "(to keep its best score: --duplicates max, or duplicates='max' in Python)",
            path=ctx.run.source or None,
        )
    if count:
        ranked, words = ranked.copy(), words.copy()  # words may be the run's own (in place)
        ranked[suspects] = kept
        words[suspects] = ctx.run.words[np.where(kept >= 0, kept, 0)]
    return ranked, words, count


def _exact_duplicates(ranked: np.ndarray, words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(compacted rows, duplicate mask)``: later copies of a doc removed, order kept."""
    valid = ranked >= 0
    position = np.broadcast_to(np.arange(ranked.shape[1]), ranked.shape)
    keys = [words[..., j] for j in range(words.shape[-1] - 1, -1, -1)]
    by_doc = np.lexsort([position, *keys, ~valid], axis=-1)
    sorted_words = np.take_along_axis(words, by_doc[..., None], axis=1)
    sorted_valid = np.take_along_axis(valid, by_doc, axis=1)
    dup_sorted = np.zeros(ranked.shape, bool)
    dup_sorted[:, 1:] = (
        (sorted_words[:, 1:] == sorted_words[:, :-1]).all(axis=-1)
        & sorted_valid[:, 1:]
        & sorted_valid[:, :-1]
    )
    dup = np.zeros_like(dup_sorted)
    np.put_along_axis(dup, by_doc, dup_sorted, axis=1)
    keep_first = np.argsort(dup, axis=1, kind="stable")
    compacted = np.take_along_axis(np.where(dup, PAD, ranked), keep_first, axis=1)
    return compacted, dup


def _labels(
    queries: np.ndarray, valid: np.ndarray, words: np.ndarray | None, ctx: _Context
) -> np.ndarray:
    """Each ranked cell's judged label (``-1`` if unjudged or padding).

    Judged docs per query are few, so the j-th judged doc of every query is compared
    with the whole row at once: one vectorised pass per judgement depth, no join.
    """
    labels = np.full(valid.shape, PAD, ctx.qrels.label_dtype)
    if words is None:
        return labels
    judged = ctx.judged
    count, start = judged.count[queries], judged.start[queries]
    for j in range(int(count.max(initial=0))):
        rows = np.flatnonzero(count > j)
        entry = start[rows] + j
        every = len(rows) == len(queries)
        cells = words if every else words[rows]
        match = (cells == judged.words[entry][:, None, :]).all(axis=-1)
        match &= valid if every else valid[rows]
        value = judged.label[entry].astype(ctx.qrels.label_dtype)[:, None]
        if every:
            np.copyto(labels, np.broadcast_to(value, labels.shape), where=match)
        else:
            labels[rows] = np.where(match, value, labels[rows])
    return labels
