"""Preparing the golden-set page (``annotate golden``): read the query log and the
corpus, start or resume the session (:class:`~ragtriage.annotate.session.GoldenSession`),
return the task the page works on; the command's config and ``run`` are in
:mod:`ragtriage.flows.annotate`.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Protocol

from ragtriage.annotate.golden import GoldenTask, render_golden
from ragtriage.annotate.pool import Corpus, run_lists
from ragtriage.annotate.queries import Query, Turn, fold, read_queries, read_turns, sample
from ragtriage.annotate.session import (
    GoldenSession,
    Origin,
    Prepared,
    QueryLog,
    drawn,
    growable,
    kept,
    now,
    opened,
    released_on_error,
    resumed,
)
from ragtriage.annotate.store import SessionStore
from ragtriage.data.golden import load_chunks
from ragtriage.data.runs import load_run
from ragtriage.errors import InputError

__all__ = ["GoldenSettings", "prepare_golden"]


class GoldenSettings(Protocol):
    """What :func:`prepare_golden` reads of ``annotate golden``'s config."""

    queries: Path
    corpus: Path
    out: Path
    run: Path | None
    sample: int
    seed: int
    graded: bool


def prepare_golden(config: GoldenSettings) -> Prepared:
    corpus = Corpus(load_chunks(config.corpus))
    store = SessionStore(config.out, render_golden)
    with released_on_error(store):
        return _golden(config, corpus, store)


def _golden(config: GoldenSettings, corpus: Corpus, store: SessionStore) -> Prepared:
    digest, wanted, notes, session = opened(store, GoldenSession, "queries", config.queries, config)
    origin = Origin(source=str(config.queries), sha256=digest)
    if session is not None and session.wanted != wanted:
        if session.conversational:
            raise InputError(
                "a conversation session is not extended (a grown log or another --sample "
                "or --seed): give another --out for a new sample",
                path=config.queries,
            )
        notes += _extend_golden(session, config, origin, wanted)
    elif session is None and (turns := read_turns(config.queries)) is not None:
        session = _conversation_golden(turns, config, origin, wanted, len(corpus.ids))
        notes.append(
            f"{len(turns)} turns of {session.queries.distinct} conversations read; "
            f"{len({q['conversation_id'] for q in session.sample})} conversations drawn "
            f"with seed {config.seed}, each labelled turn by turn with its history"
        )
    elif session is None:
        log = fold(read_queries(config.queries))
        _unique_ids(log.queries, config.queries)
        picked = sample(log.queries, config.sample, config.seed)
        notes.append(
            f"{log.read} queries read; {log.exact} exact and {log.near} near duplicates "
            f"folded; {len(picked)} of {len(log.queries)} drawn with seed {config.seed}"
        )
        counts = (log.read, log.exact, log.near, len(log.queries))
        drawn_ = [{"id": q.id, "text": q.text} for q in picked]
        session = _new_session(config, origin, wanted, len(corpus.ids), counts, drawn_)
    else:
        notes.append(resumed(session))
    session.options = {
        **session.options,
        "graded": config.graded or session.options.get("graded", False),
    }
    store.start(session.stored())
    ids = {q["id"] for q in session.sample}
    runs = run_lists(load_run(config.run), ids) if config.run else {}
    if config.run and not runs:
        notes.append(
            f"the run {config.run} answers none of the sampled query ids: "
            "its candidates are not pooled"
        )
    command = shlex.join(["ragtriage", "golden", "check", "--golden", str(config.out),
                          "--corpus", str(config.corpus)])  # fmt: skip
    return Prepared(GoldenTask(store, corpus, runs, command), notes)


def _new_session(
    config: GoldenSettings,
    origin: Origin,
    wanted: dict,
    chunks: int,
    counts: tuple[int, int, int, int],
    drawn_: list[dict],
    **options: bool,
) -> GoldenSession:
    """A fresh session: the log it was drawn from (lines read, exact and near duplicates
    folded, distinct queries), the corpus, the run pooled, and what it drew."""
    read, exact, near, distinct = counts
    return GoldenSession(
        kind="golden",
        created_at=now(),
        wanted=wanted,
        queries=QueryLog(
            **origin.model_dump(), read=read, exact=exact, near=near, distinct=distinct
        ),
        corpus={"source": str(config.corpus), "chunks": chunks},
        run={"source": str(config.run)} if config.run else None,
        seed=config.seed,
        sample=drawn_,
        options={"graded": config.graded, **options},
    )


def _conversation_golden(
    turns: list[Turn], config: GoldenSettings, origin: Origin, wanted: dict, chunks: int
) -> GoldenSession:
    """A session over whole conversations: ``--sample`` of them drawn (never a turn
    without the turns before it), each in turn order. Near-duplicate turns are not
    folded: "and the older one?" means something else in every conversation."""
    threads: dict[str, list[Turn]] = {}
    for turn in turns:
        threads.setdefault(turn.conversation_id, []).append(turn)
    picked = [
        {"id": t.id, "text": t.user, "conversation_id": t.conversation_id, "turn": t.turn,
         "answer": t.answer}
        for conv in sample(list(threads), config.sample, config.seed)
        for t in sorted(threads[conv], key=lambda t: t.turn)
    ]  # fmt: skip
    counts = (len(turns), 0, 0, len(threads))
    return _new_session(config, origin, wanted, chunks, counts, picked, conversational=True)


def _extend_golden(
    session: GoldenSession, config: GoldenSettings, origin: Origin, wanted: dict
) -> list[str]:
    """More queries (a grown log, a larger --sample) for a golden-set session."""
    sampled = session.sample
    growable(session, config.seed, config.sample, len(sampled))
    read = read_queries(config.queries)
    by_id: dict[str, Query] = {}
    for query in read:
        by_id.setdefault(query.id, query)
    current = {i: {"text": q.text, "line": q.line} for i, q in by_id.items()}
    kept(sampled, current, ("text",), config.queries, "query")
    ids = {q["id"] for q in sampled}
    # the drawn queries first: a new query repeating one of them is folded, not drawn
    log = fold([by_id[q["id"]] for q in sampled] + [q for q in read if q.id not in ids])
    _unique_ids(log.queries, config.queries)
    rest = [q for q in log.queries if q.id not in ids]
    added = drawn(rest, config.sample, len(log.queries), len(sampled), config.seed)
    before = session.queries.distinct
    session.sample = [*sampled, *({"id": q.id, "text": q.text} for q in added)]
    counts = {"read": log.read, "exact": log.exact, "near": log.near, "distinct": len(log.queries)}
    session.queries = session.queries.model_copy(update={**origin.model_dump(), **counts})
    return session.extend(wanted, before, len(log.queries), len(sampled), len(added))


def _unique_ids(queries: list, path: Path) -> None:
    seen: dict[str, int] = {}
    for q in queries:
        if q.id in seen:
            raise InputError(
                f"duplicate query id {q.id!r} (first on line {seen[q.id]})",
                path=path,
                line=q.line,
                field="id",
            )
        seen[q.id] = q.line
